"""A table that plays shared rounds round after round: the engine loop without any I/O.

The driver owns a :class:`ShoeCycle`, opens each :class:`SharedRound`, asks every seat's
:class:`Decider` for bets, insurance and decisions, drives insurance → steps → dealer →
settlement, and keeps each seat's balance (``balance - staked + paid`` per round). What happens
is reported to an observer as small :class:`TableEvent` records, so a terminal, a test or a
later server can show the same table. Nothing here knows which title it runs: every number
comes from the rule set and every rule from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from boundless.cli.table_events import (
    BetsTaken,
    DealerPlayed,
    HandsDealt,
    InsuranceAnswered,
    Observer,
    PlacedBet,
    RoundReport,
    RoundReported,
    RoundStarted,
    RoundVoided,
    SeatLeft,
    SeatResult,
    ShoeRetired,
    ShoeShuffled,
    SideBetsOffered,
    StepMove,
    StepTaken,
    TableEvent,
)
from boundless.cli.table_seats import (
    BetOffer,
    InsuranceOffer,
    PlayerLeft,
    Seat,
    SeatView,
    SideBetChoice,
    SideOption,
    SpotBet,
)
from boundless.core.errors import RulesError, ShoeExhaustedError
from boundless.core.random_source import RandomSource
from boundless.core.round import DEALER, DECISIONS, INSURANCE, SETTLING, SharedRound
from boundless.core.round.paths import HandState
from boundless.core.round.results import position_result
from boundless.core.round.views import player_view
from boundless.core.rules import RuleSet
from boundless.core.shoe import ShoeReveal
from boundless.core.shoe_cycle import ShoeCycle
from boundless.core.strategy_chart import StrategyChart

MAX_ATTEMPTS = 3
"""How often a decider is asked again after the engine rejected its answer."""


def _ignore(event: TableEvent) -> None:
    return None


# ---- the driver --------------------------------------------------------------------------------
class TableDriver:
    """Plays rounds on one table; ``open`` turns False when the host leaves or nobody can bet."""

    def __init__(
        self,
        rules: RuleSet,
        chart: StrategyChart | None,
        source: RandomSource,
        seats: Sequence[Seat],
        observer: Observer | None = None,
    ) -> None:
        ids = [seat.player_id for seat in seats]
        if len(set(ids)) != len(ids):
            raise ValueError("seat player ids must be unique")
        self.rules = rules
        self.chart = chart
        self.source = source  # the shuffles and the bonus wheels
        self.cycle = ShoeCycle(rules, source)
        self.offered: tuple[str, ...] | None = None  # side-bet groups the host put on offer
        self.seats = list(seats)
        self.observer: Observer = observer or _ignore
        self.house_result = 0
        self.rounds_played = 0
        self.open = True
        self.round: SharedRound | None = None
        self.reveals: list[ShoeReveal] = []

    # -- queries --
    def seat(self, player_id: str) -> Seat:
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat
        raise KeyError(player_id)

    @property
    def smallest_bet(self) -> int:
        """The least a player can stake in a round: a minimum main bet or side bet."""
        amounts = [self.rules.limits.min_main_amount]
        amounts += [bet.min_amount for bet in self.rules.side_bets]
        return min(amounts)

    def total_coins(self) -> int:
        """Every seat's balance plus the house result: constant over the whole game."""
        return sum(seat.balance for seat in self.seats) + self.house_result

    # -- the round --
    def play_round(self) -> RoundReport | None:
        """Play one round from bets to settlement; ``None`` when no round could be played."""
        if not self.open:
            raise RuntimeError("the table is closed")
        self._seat_check()
        if not self.open:
            return None
        start = self.cycle.start_round()
        if start.finished_shoe is not None:
            self._retired(start.shoe_number - 1, start.finished_shoe)
        shoe = self.cycle.shoe
        assert shoe is not None
        if start.shuffled is not None:
            self.observer(ShoeShuffled(start.shuffled, shoe.remaining))
        if not self._choose_side_bets():
            self.cycle.end_round()
            return None
        round_ = SharedRound(
            self.rules,
            round_in_shoe=start.round_in_shoe,
            chart=self.chart,
            cards=shoe,
            offered_side_bets=self.offered,
            shoe_commitment=start.commitment,
            randomness=self.source,
        )
        self.round = round_
        self.observer(
            RoundStarted(
                start.shoe_number,
                start.round_in_shoe,
                start.commitment,
                round_.side_bet_rounds_left(),
                round_.available_side_bets(),
                shoe.remaining,
            )
        )
        for seat in self.seats:
            seat.connected = seat.present
        if not self._take_bets(round_, start.shoe_number):
            reason = "nobody placed a bet" if self.open else "the host left the table"
            round_.cancel(reason)
            self.cycle.end_round()
            self.observer(RoundVoided(start.round_in_shoe, reason))
            return None
        cancelled: str | None = None
        try:
            self._play(round_)
        except ShoeExhaustedError as error:
            cancelled = f"the shoe ran out of cards ({error}); every stake is returned"
            round_.cancel(cancelled)
            self.observer(RoundVoided(start.round_in_shoe, cancelled))
        last = self.cycle.end_round(voided_by_exhaustion=cancelled is not None)
        report = self._settle_balances(round_, start.shoe_number, last, cancelled)
        self.rounds_played += 1
        self.observer(RoundReported(report))
        for seat in self.seats:
            if seat.host and not seat.present:
                self.open = False
        return report

    def close(self) -> ShoeReveal | None:
        """Retire the shoe in use (the game is over) and publish it for verification."""
        self.open = False
        if self.cycle.shoe is None or self.cycle.must_shuffle:
            return None
        number = self.cycle.shoe_number
        reveal = self.cycle.finish_now()
        if reveal is not None:
            self._retired(number, reveal)
        return reveal

    def _retired(self, number: int, reveal: ShoeReveal) -> None:
        self.reveals.append(reveal)
        self.observer(ShoeRetired(number, reveal, reveal.verify()))

    def _seat_check(self) -> None:
        smallest = self.smallest_bet
        for seat in self.seats:
            if seat.present and seat.balance < smallest:
                seat.present = False
                self.observer(SeatLeft(seat.name, "out_of_coins", mid_round=False))
                if seat.host:
                    self.open = False
        if not any(seat.present for seat in self.seats):
            self.open = False

    def _leave(self, seat: Seat, mid_round: bool) -> None:
        seat.present = False
        seat.connected = False
        self.observer(SeatLeft(seat.name, "quit", mid_round))

    # -- the side-bet offer --
    def _choose_side_bets(self) -> bool:
        """Where the player picks the side bets on offer, ask the host (no bet is on the table
        yet); False when the host left."""
        offer = self.rules.side_bet_offer
        if offer.mode != "player_chooses":
            return True
        groups = self.rules.side_bet_groups()
        if self.offered is None:
            self.offered = tuple(list(groups)[: offer.choose_count])
        host = next((seat for seat in self.seats if seat.present and seat.host), None)
        host = host or next((seat for seat in self.seats if seat.present), None)
        choose = getattr(host.decider, "choose_side_bets", None) if host is not None else None
        if host is not None and choose is not None:
            choice = SideBetChoice(
                host.player_id, groups, offer.choose_count, self.offered, self._check_offer
            )
            try:
                for _ in range(MAX_ATTEMPTS):
                    wanted = tuple(choose(choice))
                    problem = self._check_offer(wanted)
                    if problem is None:
                        self.offered = tuple(self.rules.group_of(name) or name for name in wanted)
                        break
                    host.decider.rejected(problem)
            except PlayerLeft:
                self._leave(host, mid_round=False)
                if host.host:
                    self.open = False
                    return False
        self.observer(
            SideBetsOffered(self.offered, tuple(k for g in self.offered for k in groups[g]))
        )
        return True

    def _check_offer(self, names: Sequence[str]) -> str | None:
        try:
            SharedRound(self.rules, chart=self.chart, offered_side_bets=list(names))
        except RulesError as error:
            return str(error)
        return None

    # -- betting --
    def _offer(self, round_: SharedRound, seat: Seat, shoe_number: int) -> BetOffer:
        rules = self.rules
        available = round_.available_side_bets()
        left = round_.side_bet_rounds_left()
        options = []
        for key in round_.offered_side_bets:
            bet = rules.side_bet(key)
            assert bet is not None
            if key in available:
                options.append(SideOption(key, left.get(key), bet.min_amount, bet.max_amount))

        def check(bets: Sequence[SpotBet]) -> str | None:
            if not bets:
                return None
            try:
                round_.verify_place_bets(*self._columns(seat, bets))
            except RulesError as error:
                return str(error)
            return None

        return BetOffer(
            player_id=seat.player_id,
            shoe_number=shoe_number,
            round_in_shoe=round_.round_in_shoe,
            balance=seat.balance,
            spots=tuple(range(1, rules.table.spots + 1)),
            max_spots=rules.table.max_spots_per_player,
            unit_amount=rules.limits.unit_amount,
            min_main_amount=rules.limits.min_main_amount,
            max_main_amount=rules.limits.max_main_amount,
            side_options=tuple(options),
            closed_side_options=tuple(k for k in round_.offered_side_bets if k not in available),
            check=check,
            private=not rules.table.shared,
            seat_rule_multiple=rules.table.main_bet_max_multiple_of_right,
        )

    def _columns(
        self, seat: Seat, bets: Sequence[SpotBet]
    ) -> tuple[list[str], list[int], list[int], dict[str, list[int]], list[int]]:
        keys = sorted({key for bet in bets for key in bet.side_amounts})
        return (
            [seat.player_id] * len(bets),
            [bet.spot for bet in bets],
            [bet.main_amount for bet in bets],
            {key: [bet.side_amounts.get(key, 0) for bet in bets] for key in keys},
            [seat.balance] * len(bets),
        )

    def _take_bets(self, round_: SharedRound, shoe_number: int) -> bool:
        placed: list[PlacedBet] = []
        sitting_out: list[str] = []
        for seat in self.seats:
            if not seat.present:
                continue
            offer = self._offer(round_, seat, shoe_number)
            bets: Sequence[SpotBet] = ()
            try:
                for _ in range(MAX_ATTEMPTS):
                    bets = [bet for bet in seat.decider.bet(offer) if bet.total_amount > 0]
                    if not bets:
                        break
                    try:
                        round_.place_bets(*self._columns(seat, bets))
                        break
                    except RulesError as error:
                        seat.decider.rejected(str(error))
                        bets = ()
            except PlayerLeft:
                self._leave(seat, mid_round=False)
                if seat.host:
                    self.open = False
                    return False
                continue
            if not bets:
                sitting_out.append(seat.name)
            for bet in bets:
                placed.append(
                    PlacedBet(
                        seat.player_id,
                        seat.name,
                        bet.spot,
                        bet.main_amount,
                        {k: v for k, v in bet.side_amounts.items() if v},
                    )
                )
        self.observer(BetsTaken(tuple(placed), tuple(sitting_out)))
        return bool(placed)

    # -- playing --
    def _seated(self, round_: SharedRound) -> list[tuple[Seat, int, int]]:
        """(seat, spot, position) for every position of every seat, seat order kept."""
        rows = []
        for seat in self.seats:
            for position in round_.positions_of(seat.player_id):
                rows.append((seat, round_.spot_of(position), position))
        return rows

    def _play(self, round_: SharedRound) -> None:
        round_.deal()
        assert round_.up_card is not None
        self.observer(
            HandsDealt(
                dict(round_.spot_cards),
                round_.up_card,
                hole_card_dealt=self.rules.dealer.hole_card == "peek",
            )
        )
        dealer_shown = False
        while not round_.over:
            if round_.phase == INSURANCE:
                self._insurance(round_)
            elif round_.phase == DECISIONS:
                self._step(round_)
            elif round_.phase == DEALER:
                round_.play_dealer()
                self._dealer_played(round_, ended_at_peek=False)
                dealer_shown = True
            elif round_.phase == SETTLING:
                if not dealer_shown:
                    self._dealer_played(round_, ended_at_peek=True)
                    dealer_shown = True
                round_.settle()
            else:
                round_.advance()

    def _dealer_played(self, round_: SharedRound, ended_at_peek: bool) -> None:
        self.observer(DealerPlayed(round_.dealer_hand, ended_at_peek))

    def _insurance(self, round_: SharedRound) -> None:
        assert round_.up_card is not None
        taken: list[tuple[str, str, int]] = []
        declined: list[str] = []
        for seat, spot, position in self._seated(round_):
            if not seat.connected:
                continue
            if round_.can_take_even_money(seat.player_id, spot):
                kind = "even_money"
            elif round_.can_take_insurance(seat.player_id, spot):
                kind = "insurance"
            else:
                continue
            main = round_.main_stake(position)
            cost = 0 if kind == "even_money" else self.rules.insurance.cost.of(main)
            offer = InsuranceOffer(
                seat.player_id,
                spot,
                kind,
                cost,
                main,
                round_.path_of(position).hands[0].cards,
                round_.up_card,
                round_.free_coins(position),
            )
            try:
                wanted = seat.decider.insurance(offer)
            except PlayerLeft:
                self._leave(seat, mid_round=True)
                continue
            if not wanted:
                declined.append(seat.name)
                continue
            try:
                if kind == "even_money":
                    round_.take_even_money(seat.player_id, spot)
                else:
                    round_.take_insurance(seat.player_id, spot)
                taken.append((seat.name, kind, cost))
            except RulesError as error:
                seat.decider.rejected(str(error))
        round_.close_insurance()
        self.observer(InsuranceAnswered(tuple(taken), tuple(declined)))

    def _view(self, round_: SharedRound, seat: Seat, spot: int) -> SeatView:
        return SeatView.from_player_view(player_view(round_, seat.player_id), spot)

    def _ask_decision(self, round_: SharedRound, seat: Seat, spot: int) -> None:
        for _ in range(MAX_ATTEMPTS):
            view = self._view(round_, seat, spot)
            try:
                action = seat.decider.decide(view)
            except PlayerLeft:
                self._leave(seat, mid_round=True)
                return
            if action is None:
                return
            try:
                round_.decide(seat.player_id, spot, action)
                return
            except RulesError as error:
                seat.decider.rejected(str(error))

    def _step(self, round_: SharedRound) -> None:
        spot, step = round_.current_spot, round_.step
        rows = [row for row in self._seated(round_) if row[1] == spot]
        taken_before = {position: round_.path_of(position).cards_taken for _, _, position in rows}
        for seat, _, _position in rows:
            if seat.connected and round_.legal_actions(seat.player_id, spot):
                self._ask_decision(round_, seat, spot)
        closed = round_.close_step()
        takers: list[str] = []
        moves: list[StepMove] = []
        hands: dict[str, tuple[HandState, ...]] = {}
        for seat, _, position in rows:
            path = round_.path_of(position)
            hands[seat.player_id] = path.hands
            if path.cards_taken > taken_before[position]:
                takers.append(seat.name)
            for index, hand in enumerate(path.hands):
                for move in hand.moves:
                    if move.step == step:
                        moves.append(
                            StepMove(
                                seat.name,
                                index,
                                len(path.hands),
                                move.action.word,
                                move.source.word,
                            )
                        )
        self.observer(StepTaken(spot, step, closed.card, tuple(takers), tuple(moves), hands))

    # -- money --
    def _settle_balances(
        self, round_: SharedRound, shoe_number: int, last: bool, cancelled: str | None
    ) -> RoundReport:
        staked = round_.staked()
        paid = round_.paid()
        results: list[SeatResult] = []
        for seat in self.seats:
            positions = round_.positions_of(seat.player_id)
            if not positions:
                continue
            seat_staked = int(sum(int(staked[p]) for p in positions))
            seat_paid = int(sum(int(paid[p]) for p in positions))
            before = seat.balance
            seat.balance = before - seat_staked + seat_paid
            self.house_result += seat_staked - seat_paid
            results.append(
                SeatResult(
                    seat.player_id,
                    seat.name,
                    tuple(position_result(round_, p) for p in positions),
                    seat_staked,
                    seat_paid,
                    before,
                    seat.balance,
                )
            )
        return RoundReport(
            shoe_number=shoe_number,
            round_in_shoe=round_.round_in_shoe,
            dealer_cards=round_.dealer_cards,
            seats=tuple(results),
            house_amount=int(staked.sum() - paid.sum()),
            last_in_shoe=last,
            cancelled=cancelled,
        )
