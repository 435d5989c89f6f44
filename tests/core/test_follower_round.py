"""The follower round (issue 8 item 2): positions split at random over K follower rounds, fed
the table's public events, end exactly as in one shared round.

The shared round and the table dealer draw from two shoes shuffled alike; every player's bets
go to one follower chosen at random; insurance and decisions are drawn at random and given to
both. Afterwards every position has the same result (hands, decisions, stakes, payouts, side
bets, insurance) in its follower as in the shared round, and every follower shows the same
public cards and takers.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from golden.golden_helpers import unchanged
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from resplit_games import pair_rich_shoe
from test_round_properties import choose_action
from test_round_properties_multi_spot import BOO_BUCKS_PRESETS, UNLIMITED, Game, _new_round

from boundless.core.cards import parse_cards
from boundless.core.errors import EventLogError, RulesError
from boundless.core.random_source import SeededSource
from boundless.core.round import events as ev
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import FollowerRound
from boundless.core.round.results import position_result
from boundless.core.round.round import SharedRound
from boundless.core.shoe import Shoe
from boundless.titles import load_game

BOUNDLESS = load_game("boundless")
FOLLOWER_SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _bet_boundless(data: st.DataObject, round_: SharedRound) -> None:
    available = sorted(round_.available_side_bets())
    for index in range(data.draw(st.integers(1, 8), label="players")):
        balance = data.draw(st.sampled_from([0, 150, 1000, 2500, 100000]), label="balance")
        main = data.draw(st.sampled_from([0, 100, 500, 1000]), label="main")
        sides = {key: data.draw(st.sampled_from([0, 100, 300]), label=key) for key in available}
        with contextlib.suppress(RulesError):
            round_.place_bet(f"p{index}", 1, main or 100, sides, free_amount=balance)
    if not round_.position_count():
        round_.place_bet("rich", 1, 100, {}, free_amount=1000)


def _shoe(game: Game, seed: int) -> Shoe:
    """The seed's shoe; resplit rule sets deal from a shoe rich in pairs."""
    rules = game[0]
    if rules.split.max_hands > 2:
        return pair_rich_shoe(seed)
    return Shoe.shuffled(rules.shoe.decks, 0.75, SeededSource(seed))


def _shared(data: st.DataObject, game: Game, seed: int) -> SharedRound:
    rules, chart = game
    if rules.table.spots == 1:
        round_ = SharedRound(rules, chart=chart, cards=_shoe(game, seed))
        _bet_boundless(data, round_)
        return round_
    round_, _ = _new_round(data, game, _shoe(game, seed), seed)
    return round_


class Split:
    """The same table as K followers around a table dealer."""

    def __init__(
        self,
        game: Game,
        single: SharedRound,
        seed: int,
        owner: dict[str, int],
        cards: Shoe | None = None,
    ) -> None:
        rules, chart = game
        self.rules, self.chart = rules, chart
        self.owner = owner
        opened = single.events[0]
        assert isinstance(opened, ev.RoundOpened)
        self.table = TableDealer(
            rules,
            cards=cards or _shoe(game, seed),
            round_in_shoe=opened.round_in_shoe,
            offered_side_bets=opened.offered_side_bets,
        )
        count = max(owner.values()) + 1
        self.followers = [
            FollowerRound(rules, self.table.opened, chart=chart) for _ in range(count)
        ]
        for event in single.events:
            if isinstance(event, ev.BetsPlaced):
                for row, player in enumerate(event.player_ids):
                    free = int(event.free_amounts[row])
                    self.of(player).place_bet(
                        player,
                        int(event.spots[row]),
                        int(event.main_amounts[row]),
                        {
                            key: int(event.side_amounts[row, c])
                            for c, key in enumerate(event.side_keys)
                        },
                        free_amount=None if free < 0 else free,
                    )

    def restart(self, index: int) -> None:
        """Follower ``index`` restarts: a fresh one replays its log."""
        old = self.followers[index]
        self.followers[index] = FollowerRound.rebuild(self.rules, old.log, chart=self.chart)
        assert self.followers[index].phase == old.phase
        assert self.followers[index].log == old.log

    def of(self, player: str) -> FollowerRound:
        return self.followers[self.owner[player]]

    def publish(self, events: list[ev.TableEvent]) -> None:
        for event in events:
            assert ev.public_event(event) is not None or isinstance(event, ev.TableEvent.__args__)  # type: ignore[attr-defined]
            for follower in self.followers:
                follower.apply_public(event)


def _play_both(
    data: st.DataObject, single: SharedRound, split: Split, cancel: bool = False
) -> None:
    single.deal()
    split.publish(split.table.close_bets(f.bets_report() for f in split.followers))
    cancel_at = data.draw(st.integers(1, 12), label="cancel at") if cancel else 500
    moves = 0
    while not single.over:
        moves += 1
        assert moves < 500
        # The table plays the dealer with the last step, so a cancel comes before that.
        if moves >= cancel_at and single.phase in ("insurance", "decisions"):
            single.cancel("test")
            split.publish(split.table.cancel("test"))
            break
        if cancel and data.draw(st.integers(0, 4), label="pause?") == 0:
            single.pause("test")
            split.publish(split.table.pause("test"))
            assert all(f.paused for f in split.followers)
            single.resume()
            split.publish(split.table.resume())
        assert split.table.phase == single.phase or (
            single.phase in ("dealer", "settling") and split.table.phase == "settling"
        )
        if single.phase == "insurance":
            for position in range(single.position_count()):
                player, spot = single.player_of(position), single.spot_of(position)
                if data.draw(st.booleans(), label="insure"):
                    for take in ("take_even_money", "take_insurance"):
                        with contextlib.suppress(RulesError):
                            getattr(single, take)(player, spot)
                            getattr(split.of(player), take)(player, spot)
            single.close_insurance()
            split.publish(split.table.close_insurance())
        elif single.phase == "decisions":
            if data.draw(st.integers(0, 5), label="restart?") == 0:
                split.restart(data.draw(st.integers(0, len(split.followers) - 1), label="who"))
            assert (split.table.current_spot, split.table.step) == (
                single.current_spot,
                single.step,
            )
            for position in single.positions_awaiting_decision().tolist():
                player, spot = single.player_of(position), single.spot_of(position)
                follower = split.of(player)
                assert sorted(single.legal_actions(player, spot)) == sorted(
                    follower.legal_actions(player, spot)
                )
                legal = sorted(single.legal_actions(player, spot))
                if legal and data.draw(st.booleans(), label="acts"):
                    action = choose_action(data, legal, single.rules)
                    single.decide(player, spot, action)
                    follower.decide(player, spot, action)
            waiting = sum(len(f.positions_awaiting_decision()) for f in split.followers)
            assert waiting == len(single.positions_awaiting_decision())
            reports = [f.step_report() for f in split.followers]
            single.close_step()
            split.publish(split.table.close_step(reports))
        elif single.phase == "dealer":
            single.play_dealer()
        else:
            single.settle()
            spins = [e for e in single.events if isinstance(e, ev.WheelSpun)]
            for index, follower in enumerate(split.followers):
                follower.settle(_local_spins(spins, single, follower, split, index))


def _local_spins(
    spins: list[ev.WheelSpun],
    single: SharedRound,
    follower: FollowerRound,
    split: Split,
    index: int,
) -> list[ev.WheelSpun]:
    """The shared round's wheel results for this follower's positions, in its numbering."""
    local = []
    for spin in spins:
        rows = [
            row
            for row, position in enumerate(spin.positions.tolist())
            if split.owner[single.player_of(position)] == index
        ]
        if not rows:
            continue
        positions = [
            follower.position(single.player_of(p), single.spot_of(p))
            for p in spin.positions[rows].tolist()
        ]
        local.append(
            ev.WheelSpun(
                spin.side_key,
                ev.frozen_array(positions),
                ev.frozen_array(spin.payout_amounts[rows]),
                tuple(spin.labels[row] for row in rows),
            )
        )
    return local


def _games() -> st.SearchStrategy[Game]:
    return st.sampled_from([BOUNDLESS, UNLIMITED, *BOO_BUCKS_PRESETS])


@FOLLOWER_SETTINGS
@given(st.data(), _games(), st.integers(0, 2**32), st.integers(1, 4), st.booleans())
def test_followers_end_exactly_as_the_shared_round(
    data: st.DataObject, game: Game, seed: int, followers: int, operator: bool
) -> None:
    check_followers_end_as_the_shared_round(data, game, seed, followers, operator)


def check_followers_end_as_the_shared_round(
    data: st.DataObject, game: Game, seed: int, followers: int, operator: bool
) -> None:
    """The property: the positions spread over ``followers`` end as in one shared round."""
    single = _shared(data, game, seed)
    owner = {
        player: data.draw(st.integers(0, followers - 1), label=f"owner {player}")
        for player in single.player_ids
    }
    split = Split(game, single, seed, owner)
    _play_both(data, single, split, cancel=operator)
    assert_followers_match(single, split)


def assert_followers_match(single: SharedRound, split: Split) -> None:
    assert single.phase in ("settled", "cancelled")
    for position in range(single.position_count()):
        player, spot = single.player_of(position), single.spot_of(position)
        follower = split.of(player)
        local = follower.position(player, spot)
        assert position_result(follower, local) == position_result(single, position)
        if single.phase == "settled":
            assert follower.final_payouts()[local] == single.final_payouts()[position]
        assert follower.paid()[local] == single.paid()[position]
        assert follower.staked()[local] == single.staked()[position]
        assert follower.player_free_coins(player) == single.player_free_coins(player)
    for index, follower in enumerate(split.followers):
        assert follower.phase == single.phase
        split.restart(index)
        rebuilt = split.followers[index]
        for position in range(follower.position_count()):
            assert position_result(rebuilt, position) == position_result(follower, position)
        assert follower.dealer_cards == single.dealer_cards
        assert follower.step_cards == single.step_cards
        assert follower.step_takers == single.step_takers
        assert follower.spot_cards == single.spot_cards
    assert split.table.dealer_cards == single.dealer_cards


def _table(game: Game, seed: int = 7) -> tuple[TableDealer, FollowerRound]:
    rules, chart = game
    table = TableDealer(rules, cards=Shoe.shuffled(rules.shoe.decks, 0.75, SeededSource(seed)))
    return table, FollowerRound(rules, table.opened, chart=chart)


def test_a_follower_is_never_shown_the_hole_card_at_the_deal() -> None:
    table, follower = _table(BOO_BUCKS_PRESETS[0])
    follower.place_bet("solo", 3, 100, {}, free_amount=1000)
    events = table.close_bets([follower.bets_report()])
    dealt = events[0]
    assert isinstance(dealt, ev.CardsDealt) and dealt.hole_card is None
    assert follower.hole_card is None and follower.hidden_hole is None
    with pytest.raises(EventLogError, match="never shown the hole card"):
        FollowerRound(
            *BOO_BUCKS_PRESETS[0][:1], table.opened, chart=BOO_BUCKS_PRESETS[0][1]
        ).apply_public(ev.CardsDealt(dealt.spot_cards, dealt.up_card, dealt.up_card))


def test_a_step_out_of_order_is_refused_and_changes_nothing() -> None:
    table, follower = _table(BOUNDLESS)
    follower.place_bet("p", 1, 100, {}, free_amount=1000)
    for event in table.close_bets([follower.bets_report()]):
        follower.apply_public(event)
    if not follower.step_open():
        pytest.skip("this shoe deals a natural; the seed is chosen so it does not")
    with unchanged(follower), pytest.raises(EventLogError, match="not open"):
        follower.apply_public(ev.StepDealt(1, 5, None, 0))


def test_table_reports_for_another_step_are_refused() -> None:
    table, follower = _table(BOUNDLESS)
    follower.place_bet("p", 1, 100, {}, free_amount=1000)
    for event in table.close_bets([follower.bets_report()]):
        follower.apply_public(event)
    report = follower.step_report()
    wrong = type(report)(report.spot, report.step + 1, report.takers, report.in_play_if)
    with pytest.raises(EventLogError, match="open is spot 1 step 1"):
        table.close_step([wrong])


def test_a_table_with_no_bets_cannot_deal() -> None:
    table, follower = _table(BOUNDLESS)
    with pytest.raises(RulesError, match="nothing to deal"):
        table.close_bets([follower.bets_report()])
    assert table.phase == "betting" and len(table.events) == 1
    assert np.array_equal(follower.staked(), [])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), _games(), st.integers(0, 2**32))
def test_the_public_stream_survives_the_event_codec(
    data: st.DataObject, game: Game, seed: int
) -> None:
    from boundless.server.event_codec import decode_event, decode_events, encode_event

    single = _shared(data, game, seed)
    split = Split(game, single, seed, dict.fromkeys(single.player_ids, 0))
    _play_both(data, single, split)
    stream = split.table.events
    assert {type(event) for event in stream} <= set(ev.TABLE_EVENT_TYPES)
    for event in stream:
        body = encode_event(event)
        assert encode_event(decode_event(body)) == body
    table_only = [e for e in stream if isinstance(e, ev.StepOpened | ev.StepDealt | ev.PeekResult)]
    if table_only:
        with pytest.raises(EventLogError, match="public stream"):
            decode_events([encode_event(table_only[0])])


def _stacked(game: Game, cards: str) -> tuple[TableDealer, FollowerRound]:
    rules, chart = game
    table = TableDealer(rules, cards=Shoe.stacked(parse_cards(cards.split())))
    return table, FollowerRound(rules, table.opened, chart=chart)


def test_the_hole_card_reaches_a_follower_only_with_a_dealer_blackjack_at_the_peek() -> None:
    # Boo Bucks peeks under an ace or a ten: seat 3 gets 9-7, the dealer shows TS over AH.
    table, follower = _stacked(BOO_BUCKS_PRESETS[0], "9S TS 7S AH")
    follower.place_bet("solo", 3, 100, {}, free_amount=1000)
    dealt = table.close_bets([follower.bets_report()])
    assert [type(event) for event in dealt] == [ev.CardsDealt, ev.PeekResult]
    follower.apply_public(dealt[0])
    assert follower.hidden_hole is None and follower.phase == "decisions"
    follower.apply_public(dealt[1])
    assert str(follower.hidden_hole) == "AH" and follower.hole_revealed
    assert follower.phase == "settling"
    follower.settle()
    assert follower.paid().tolist() == [0]


def test_no_blackjack_at_the_peek_keeps_the_hole_card_until_the_reveal() -> None:
    table, follower = _stacked(BOO_BUCKS_PRESETS[0], "9S TS 8S 7H 5D")
    follower.place_bet("solo", 3, 100, {}, free_amount=1000)
    events = table.close_bets([follower.bets_report()])
    assert [type(event) for event in events] == [ev.CardsDealt, ev.PeekResult, ev.StepOpened]
    assert all(getattr(event, "hole_card", None) is None for event in events)
    for event in events:
        follower.apply_public(event)
    assert follower.hidden_hole is None and follower.step_open()
    follower.decide("solo", 3, "stand")
    reveal = table.close_step([follower.step_report()])
    assert [type(event) for event in reveal] == [ev.StepDealt, ev.DealerRevealed]
    for event in reveal:
        follower.apply_public(event)
    assert str(follower.hidden_hole) == "7H"
    assert [str(card) for card in follower.dealer_cards] == ["TS", "7H"]
    follower.settle()
    assert follower.paid().tolist() == [100]  # 9-8 against T-7: a push returns the stake


def test_bets_and_decisions_after_a_report_are_refused_and_change_nothing() -> None:
    table, follower = _stacked(BOUNDLESS, "9S TS 7S 5D 3C")
    follower.place_bet("p", 1, 100, {}, free_amount=1000)
    report = follower.bets_report()
    with pytest.raises(RulesError, match="betting is closed"):
        follower.place_bet("q", 1, 100, {}, free_amount=1000)
    assert follower.player_ids == ["p"]
    for event in table.close_bets([report]):
        follower.apply_public(event)
    assert follower.legal_actions("p", 1)
    follower.step_report()
    assert follower.legal_actions("p", 1) == frozenset()
    assert not len(follower.positions_awaiting_decision())
    with pytest.raises(RulesError, match="is closing"):
        follower.decide("p", 1, "hit")
    assert follower.pending_action(0) == -1
