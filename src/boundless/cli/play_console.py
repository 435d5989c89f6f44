"""The terminal side of ``boundless play``: Rich output and keyboard prompts.

:class:`TerminalTable` is both the observer that draws the table's events and the
:class:`~boundless.cli.table_driver.Decider` of the person at the keyboard. Every prompt
loops until the answer is usable; ``q``, end of input (Ctrl-D) or Ctrl-C leave the table.
Player-facing words come from the title's vocabulary (``rules.title.vocabulary``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console
from rich.markup import escape

from boundless.cli.play_input import (
    ACTION_KEYS,
    ACTION_NAMES,
    parse_action,
    parse_amount,
    parse_bet_line,
    parse_numbers,
    parse_spots,
)
from boundless.cli.play_results import card_markup, cards_markup, results_table, total_text
from boundless.cli.play_screen import TableScreen
from boundless.cli.table_events import (
    BetsTaken,
    DealerPlayed,
    HandsDealt,
    InsuranceAnswered,
    RoundReported,
    RoundStarted,
    RoundVoided,
    SeatLeft,
    ShoeRetired,
    ShoeShuffled,
    SideBetsOffered,
    StepTaken,
    TableEvent,
)
from boundless.cli.table_seats import (
    BetOffer,
    InsuranceOffer,
    PlayerLeft,
    SeatView,
    SideBetChoice,
    SpotBet,
)
from boundless.cli.title_words import in_title_words, words_of
from boundless.cli.words import side_bet_name
from boundless.core.money import format_amount
from boundless.core.round import Action
from boundless.core.round.paths import HandState
from boundless.core.round.results import PositionResult
from boundless.core.rules import RuleSet

InputFn = Callable[[str], str]
QUIT_WORDS = frozenset({"q", "quit", "exit"})
HELP_WORDS = frozenset({"?", "help"})


def rounds_left_text(rounds: int | None) -> str:
    if rounds is None:
        return "every round"
    return f"{rounds} round{'' if rounds == 1 else 's'} left"


class TerminalTable:
    """Draws the table and plays the human seat from the keyboard."""

    def __init__(
        self,
        console: Console,
        rules: RuleSet,
        player_id: str,
        input_fn: InputFn | None = None,
        *,
        redraw: bool = False,
    ) -> None:
        """``redraw``: redraw the table in place before each question (a terminal) rather than
        print a growing log."""
        self.console = console
        self.rules = rules
        self.player_id = player_id
        self.words = words_of(rules)
        self._input: InputFn = input_fn if input_fn is not None else console.input
        self._last_bets: list[SpotBet] = []
        self._last_spots: list[int] = []
        self._names: dict[str, str] = {}
        self.screen = TableScreen(console, rules.title.name) if redraw else None

    # ---- small helpers -------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        if self.screen is not None:
            self.screen.say(text)
        else:
            self.console.print(text, highlight=False)

    def rule(self, text: str = "", style: str = "rule.line") -> None:
        if self.screen is not None:
            self.screen.say(f"[bold]{text}[/bold]" if text else "")
        else:
            self.console.rule(text, style=style)

    def note(self, section: str, lines: list[str]) -> None:
        """What the redrawn table shows in one of its parts (nothing in log mode)."""
        if self.screen is not None:
            self.screen.note(section, lines)

    def refresh(self) -> None:
        """Draw the table now (the end of the game, before its summary)."""
        if self.screen is not None:
            self.screen.redraw()

    def error(self, message: str) -> None:
        line = f"  [red]✗ {escape(message)}[/red]"
        if self.screen is not None:
            self.screen.error(line)
        else:
            self.say(line)

    def engine_error(self, message: str) -> None:
        """A refusal from the engine, retold in the title's words."""
        self.error(in_title_words(message, self.rules))

    def ask(self, prompt: str) -> str:
        """One line from the keyboard; leaving (q, Ctrl-D, Ctrl-C) raises :class:`PlayerLeft`."""
        if self.screen is not None:
            self.screen.redraw()
        try:
            answer = self._input(prompt)
        except (EOFError, KeyboardInterrupt):
            self.say()
            raise PlayerLeft from None
        if self.screen is not None:
            self.screen.answered()
        if answer.strip().lower() in QUIT_WORDS:
            raise PlayerLeft
        if answer.strip() in HELP_WORDS:
            self.say(self.help_text())
            return self.ask(prompt)
        return answer.strip()

    def help_text(self) -> str:
        """What ``?`` shows: the keys, the one-line bet and the actions, in the title's words."""
        words = self.words
        sides = ", ".join(
            f"{side_bet_name(self.rules, bet.key)} ([bold]{bet.key}[/bold])"
            for bet in self.rules.side_bets
        )
        lines = [
            "[bold]Help[/bold] · Enter takes the value in \\[brackets] · q or Ctrl-D leaves",
            f"  A {words.bet}: the main amount (10 or 12.50), or the whole {words.bet} in one line:"
            f" main amount, then each {words.side_bet} and its amount, e.g. 10 "
            + (f"{self.rules.side_bets[0].key.split('_')[0]} 1" if self.rules.side_bets else ""),
        ]
        if sides:
            lines.append(f"  {words.side_bet.capitalize()}s (a name's start is enough): {sides}")
        actions = " ".join(f"{key}={ACTION_NAMES[action]}" for action, key in ACTION_KEYS.items())
        lines.append(f"  Actions: {actions} (the ones allowed are shown at each decision)")
        lines.append("  Spots and seats: numbers such as 1 or 1 3")
        return "\n".join(lines)

    def amount(self, amount: int) -> str:
        return format_amount(amount)

    def name(self, name: str) -> str:
        return "[bold cyan]you[/bold cyan]" if name == self._names.get(self.player_id) else name

    def set_name(self, player_id: str, name: str) -> None:
        self._names[player_id] = name

    # ---- the human's decisions -----------------------------------------------------------
    def bet(self, offer: BetOffer) -> Sequence[SpotBet]:
        words = self.words
        self.say(f"Your {words.coins}: [bold]{self.amount(offer.balance)}[/bold]")
        self._show_side_options(offer)
        last = self._still_valid(offer)
        if last:
            described = "; ".join(self._describe_bet(bet, offer) for bet in last)
            answer = self.ask(
                f"Enter = same {words.bet} ({described}) · b = change · 0 = sit out · q = quit > "
            ).lower()
            while answer not in ("", "b", "0"):
                self.error(f"unknown choice {answer!r}: press Enter, b, 0 or q")
                answer = self.ask("Enter / b / 0 / q > ").lower()
            if answer == "":
                return last
            if answer == "0":
                self.say("You sit this round out.")
                return []
        bets = self._ask_bets(offer)
        if not bets:
            self.say("You sit this round out.")
            return []
        self._last_bets = list(bets)
        return bets

    def _still_valid(self, offer: BetOffer) -> list[SpotBet]:
        if not self._last_bets:
            return []
        open_keys = {option.key for option in offer.side_options}
        bets = [
            SpotBet(
                bet.spot,
                bet.main_amount,
                {k: v for k, v in bet.side_amounts.items() if k in open_keys},
            )
            for bet in self._last_bets
        ]
        bets = [bet for bet in bets if bet.total_amount > 0]
        if not bets or offer.check(bets) is not None:
            return []
        return bets

    def _describe_bet(self, bet: SpotBet, offer: BetOffer) -> str:
        parts = [f"main {self.amount(bet.main_amount)}"] if bet.main_amount else []
        parts += [
            f"{side_bet_name(self.rules, k)} {self.amount(v)}"
            for k, v in bet.side_amounts.items()
            if v
        ]
        text = " + ".join(parts)
        return f"{offer.spot_word} {bet.spot}: {text}" if len(offer.spots) > 1 else text

    def _show_side_options(self, offer: BetOffer) -> None:
        words = self.words
        if offer.side_options and all(option.rounds_left is None for option in offer.side_options):
            names = ", ".join(
                side_bet_name(self.rules, option.key) for option in offer.side_options
            )
            self.say(f"{words.side_bet.capitalize()}s open: {names}")
        elif offer.side_options:
            left = " · ".join(
                f"{side_bet_name(self.rules, option.key)}: " + rounds_left_text(option.rounds_left)
                for option in offer.side_options
            )
            self.say(f"{words.side_bet.capitalize()}s open this shoe: {left}")
        if offer.closed_side_options:
            closed = ", ".join(side_bet_name(self.rules, key) for key in offer.closed_side_options)
            self.say(f"[dim]Closed until the next shoe: {closed}[/dim]")

    def _ask_bets(self, offer: BetOffer) -> list[SpotBet]:
        bets: list[SpotBet] = []
        for spot in self._spots_to_ask(offer):
            if len(bets) >= offer.max_spots:
                break
            where = f" on {offer.spot_word} {spot}" if len(offer.spots) > 1 else ""
            bet = self._ask_spot(offer, spot, where, bets)
            if bet.total_amount > 0:
                bets.append(bet)
        return sorted(bets, key=lambda bet: bet.spot)

    def _spots_to_ask(self, offer: BetOffer) -> list[int]:
        """The spots the player picks (every seat of a private table unless told otherwise).

        Under the seat rule (a main bet at most N times the seat to its right) the seats are
        asked from the right, so an amount the rule refuses is always the one just typed.
        """
        spots = list(offer.spots)
        if len(spots) == 1:
            return spots
        # The seats to play first (a private table offers all of them by default), so only their
        # bets are asked, not every seat's main and side bets in turn.
        chosen = self._choose_spots(offer, spots, spots if offer.private else spots[:1])
        if offer.private and offer.seat_rule_multiple and len(chosen) > 1:
            self.say(
                f"[dim]Seats are asked from the right: a seat's main {self.words.bet} may be "
                f"at most {offer.seat_rule_multiple} times the total on the seat to its "
                "right.[/dim]"
            )
            return chosen[::-1]
        return chosen

    def _choose_spots(self, offer: BetOffer, spots: list[int], first: list[int]) -> list[int]:
        default = self._last_spots or first
        listed = " ".join(map(str, spots))
        while True:
            answer = self.ask(
                f"{offer.spot_word.capitalize()}s to play ({listed}; up to {offer.max_spots}) "
                f"[{' '.join(map(str, default))}] > "
            )
            try:
                chosen = parse_spots(answer) if answer else list(default)
            except ValueError as problem:
                self.error(str(problem))
                continue
            outside = [spot for spot in chosen if spot not in spots]
            if outside:
                word = offer.spot_word
                self.error(f"there is no {word} {outside[0]}: the table has {word}s {listed}")
            elif len(chosen) > offer.max_spots:
                self.error(f"a player may play at most {offer.max_spots} {offer.spot_word}s")
            else:
                self._last_spots = sorted(chosen)
                return self._last_spots

    def _ask_spot(self, offer: BetOffer, spot: int, where: str, earlier: list[SpotBet]) -> SpotBet:
        words = self.words
        previous = next((bet for bet in self._last_bets if bet.spot == spot), None)
        default_main = (
            previous.main_amount
            if previous is not None
            else min(offer.min_main_amount * 10, offer.max_main_amount)
        )
        limits = f"{self.amount(offer.min_main_amount)}–{self.amount(offer.max_main_amount)}"
        keys = [option.key for option in offer.side_options]
        while True:
            answer = self.ask(
                f"Main {words.bet}{where} ({limits}, 0 = none) [{self.amount(default_main)}] > "
            )
            try:
                main, line_sides = parse_bet_line(answer, keys) if answer else (default_main, {})
            except ValueError as unreadable:
                self.error(str(unreadable))
                continue
            bet = SpotBet(spot, main, line_sides)
            problem = offer.check([*earlier, bet]) if bet.total_amount else None
            if problem is None and line_sides:
                return bet  # the whole bet in one line: no side-bet questions
            if problem is None:
                break
            self.engine_error(problem)
        sides: dict[str, int] = {}
        for option in offer.side_options:
            default_side = previous.side_amounts.get(option.key, 0) if previous else 0
            left = "" if option.rounds_left is None else f", {rounds_left_text(option.rounds_left)}"
            label = (
                f"{side_bet_name(self.rules, option.key)}{where} ({self.amount(option.min_amount)}–"
                f"{self.amount(option.max_amount)}{left}) [{self.amount(default_side)}] > "
            )
            while True:
                amount = self._ask_amount(label, default_side)
                if not amount:
                    break
                trial = SpotBet(spot, main, {**sides, option.key: amount})
                problem = offer.check([*earlier, trial])
                if problem is None:
                    sides[option.key] = amount
                    break
                self.engine_error(problem)
        return SpotBet(spot, main, sides)

    def _ask_amount(self, prompt: str, default: int) -> int:
        while True:
            answer = self.ask(prompt)
            if answer == "":
                return default
            try:
                return parse_amount(answer)
            except ValueError as problem:
                self.error(str(problem))

    def choose_side_bets(self, choice: SideBetChoice) -> Sequence[str]:
        """Pick the side bets on offer while no bet is on the table; Enter keeps the last ones."""
        groups = list(choice.groups)
        listed = "  ".join(
            f"[bold]{index}[/bold] {escape(self._group_name(group, choice.groups[group]))}"
            for index, group in enumerate(groups, start=1)
        )
        current = [str(groups.index(group) + 1) for group in choice.current]
        self.say(f"{self.words.side_bet.capitalize()}s: {listed}")
        while True:
            answer = self.ask(
                f"Choose {choice.count} {self.words.side_bet}s to offer [{' '.join(current)}] > "
            )
            if answer == "":
                return choice.current
            try:
                picked = parse_numbers(answer)
            except ValueError:
                self.error(f"{answer!r}: type {choice.count} numbers from the list, e.g. 1 3")
                continue
            if len(set(picked)) != len(picked):
                self.error(f"{answer!r}: choose {choice.count} different {self.words.side_bet}s")
                continue
            if any(not 1 <= number <= len(groups) for number in picked):
                self.error(f"{answer!r}: the numbers run from 1 to {len(groups)}")
                continue
            names = [groups[number - 1] for number in picked]
            problem = choice.check(names)
            if problem is None:
                return names
            self.engine_error(problem)

    def insurance(self, offer: InsuranceOffer) -> bool:
        words = self.words
        hand = f"{cards_markup(offer.cards)} ({total_text(offer.cards)})"
        if self.rules.table.spots > 1:
            hand = f"hand on {self._spot_word()} {offer.spot}, {hand}"
        else:
            hand = f"hand {hand}"
        shows = f"The {words.dealer} shows {card_markup(offer.up_card)}."
        if offer.kind == "even_money":
            question = f"{shows} Your {hand} is a blackjack: take even money (1:1 now)? \\[y/N] > "
        else:
            question = (
                f"{shows} Insure your {hand}? It costs {self.amount(offer.cost_amount)} "
                f"and pays {self.rules.insurance.pays}. \\[y/N] > "
            )
        while True:
            answer = self.ask(question).lower()
            if answer in ("y", "yes"):
                return True
            if answer in ("", "n", "no"):
                return False
            self.error(f"{answer!r}: answer y or n (q to quit)")

    def decide(self, view: SeatView) -> Action | None:
        choices = sorted(view.legal)
        menu = "  ".join(f"[bold]{ACTION_KEYS[a]}[/bold]={ACTION_NAMES[a]}" for a in choices)
        label = "Your hand"
        if len(view.hands) > 1:
            label = f"Your hand {view.hand_index + 1} of {len(view.hands)}"
        if self.rules.table.spots > 1:
            label += f" on {self._spot_word()} {view.spot}"
        self.say(
            f"{label}: {cards_markup(view.cards)} "
            f"({total_text(view.cards, view.hand.from_split)}) · {self.words.dealer} shows "
            f"{card_markup(view.up_card)} · step {view.step}"
        )
        while True:
            answer = self.ask(f"{menu} > ")
            action = parse_action(answer)
            if action is None:
                allowed = ", ".join(f"{ACTION_NAMES[a]} ({ACTION_KEYS[a]})" for a in choices)
                self.error(f"unknown action {answer!r}; choose {allowed}")
                continue
            if action not in view.legal:
                allowed = ", ".join(f"{ACTION_NAMES[a]} ({ACTION_KEYS[a]})" for a in choices)
                self.error(f"{ACTION_NAMES[action]} is not allowed now; allowed: {allowed}")
                continue
            return action

    def rejected(self, message: str) -> None:
        self.engine_error(message)

    def _spot_word(self) -> str:
        return "spot" if self.rules.table.shared else "seat"

    def _where(self, position: PositionResult) -> str:
        """``"seat 2 "`` on a table of several spots, else nothing."""
        return f"{self._spot_word()} {position.spot} " if self.rules.table.spots > 1 else ""

    def _group_name(self, group: str, keys: Sequence[str]) -> str:
        if len(keys) == 1:
            return side_bet_name(self.rules, keys[0])
        places = []
        for key in keys:
            bet = self.rules.side_bet(key)
            target = bet.target if bet is not None else "spot"
            places.append("the dealer's hand" if target == "dealer" else f"a {self._spot_word()}")
        return f"{side_bet_name(self.rules, group)} (on {' or '.join(places)})"

    # ---- drawing the table's events ------------------------------------------------------
    def __call__(self, event: TableEvent) -> None:
        handler = getattr(self, f"_show_{type(event).__name__}")
        handler(event)

    def _show_ShoeRetired(self, event: ShoeRetired) -> None:
        reveal = event.reveal
        verdict = (
            "[green]✓ matches the commitment[/green]"
            if event.verified
            else "[red]✗ DOES NOT match the commitment[/red]"
        )
        first = " ".join(str(card) for card in reveal.cards[:8])
        self.say(
            f"[bold]Shoe {event.shoe_number} revealed[/bold]: salt {reveal.salt_hex}, "
            f"{len(reveal.cards)} cards ({first} …)"
        )
        self.say(f"  sha256(salt:cards) = {reveal.commitment} {verdict}")

    def _show_ShoeShuffled(self, event: ShoeShuffled) -> None:
        shuffled = event.shuffled
        self.rule(f"Shoe {shuffled.shoe_number}: new shuffle of {shuffled.card_count} cards")
        self.say(f"Commitment (SHA-256): [bold]{shuffled.commitment}[/bold]")
        burn = shuffled.burn
        if burn is not None:
            self.say(
                f"Burn: the {self.words.dealer} reveals {card_markup(burn.revealed)} and burns "
                f"{len(burn.burned)} card(s) face down; {event.cards_left} cards left"
            )

    def _show_RoundStarted(self, event: RoundStarted) -> None:
        header = (
            f"Shoe {event.shoe_number} · round {event.round_in_shoe} · "
            f"{event.cards_left} cards left"
        )
        if self.screen is not None:
            self.screen.new_round(header)
            return
        self.say()
        self.rule(header, style="dim")

    def _show_SideBetsOffered(self, event: SideBetsOffered) -> None:
        offered = ", ".join(side_bet_name(self.rules, key) for key in event.keys)
        self.say(f"{self.words.side_bet.capitalize()}s on offer this round: {offered}")

    def _show_BetsTaken(self, event: BetsTaken) -> None:
        words = self.words
        lines: list[str] = []
        for bet in event.bets:
            parts = [f"main {words.bet} {self.amount(bet.main_amount)}"] if bet.main_amount else []
            parts += [
                f"{side_bet_name(self.rules, k)} {self.amount(v)}"
                for k, v in bet.side_amounts.items()
            ]
            spot = f" ({self._spot_word()} {bet.spot})" if self.rules.table.spots > 1 else ""
            self.say(f"  {self.name(bet.name)}{spot}: " + " + ".join(parts))
            lines.append(f"{self.name(bet.name)}{spot}: " + " + ".join(parts))
        self.note("bets", lines)
        if event.sitting_out:
            self.say(f"  [dim]sitting out: {', '.join(event.sitting_out)}[/dim]")

    def _show_HandsDealt(self, event: HandsDealt) -> None:
        words = self.words
        dealt: list[str] = []
        for spot, cards in sorted(event.spot_cards.items()):
            where = f"{self._spot_word().capitalize()} {spot} cards"
            if self.rules.table.spots == 1:
                where = "Shared cards" if self.rules.table.shared else "Your cards"
            self.say(f"{where}: {cards_markup(cards)} ({total_text(cards)})")
            dealt.append(f"{where}: {cards_markup(cards)} ({total_text(cards)})")
        hole = " + [dim]face down[/dim]" if event.hole_card_dealt else ""
        self.say(f"{words.dealer.capitalize()}: {card_markup(event.up_card)}{hole}")
        self.note("dealer", [f"{words.dealer.capitalize()}: {card_markup(event.up_card)}{hole}"])
        self.note("cards", dealt)

    def _show_InsuranceAnswered(self, event: InsuranceAnswered) -> None:
        taken = ", ".join(
            f"{self.name(name)} ({'even money' if kind == 'even_money' else self.amount(cost)})"
            for name, kind, cost in event.taken
        )
        self.say(f"Insurance: {taken or 'nobody'}")

    def _show_StepTaken(self, event: StepTaken) -> None:
        by_action: dict[str, list[str]] = {}
        for move in event.moves:
            who = self.name(move.name)
            if move.hand_count > 1 and move.action != "split":
                who += f" h{move.hand_index + 1}"
            if move.source == "autoplay":
                who += "*"
            elif move.source == "fallback":
                who += "†"
            by_action.setdefault(move.action, []).append(who)
        moves = " · ".join(f"{action}: {', '.join(who)}" for action, who in by_action.items())
        if event.card is None:
            line = f"step {event.step}: no card drawn"
        else:
            takers = ", ".join(self.name(name) for name in event.takers)
            line = f"step {event.step}: {card_markup(event.card)} → {takers}"
        where = f"{self._spot_word()} {event.spot} " if self.rules.table.spots > 1 else ""
        self.say(f"  {where}{line}" + (f"   [dim]({moves})[/dim]" if moves else ""))
        mine = event.hands.get(self.player_id)
        me = self._names.get(self.player_id)
        if mine and (me in event.takers or any(move.name == me for move in event.moves)):
            self.say(f"    your hands: {self._hands_text(mine)}")
            self.note("hands", [f"[bold cyan]your hands[/bold cyan]: {self._hands_text(mine)}"])

    def _hands_text(self, hands: Sequence[HandState]) -> str:
        return " | ".join(
            f"{cards_markup(hand.cards)} ({total_text(hand.cards, hand.from_split)}"
            + (", doubled" if hand.doubled else "")
            + (f", {hand.status}" if hand.status in ("stood", "surrendered") else "")
            + ")"
            for hand in hands
        )

    def _show_DealerPlayed(self, event: DealerPlayed) -> None:
        hand = event.hand
        result = "BJ" if hand.blackjack else f"{hand.total}" + (" bust" if hand.bust else "")
        peek = " (found at the peek: the round ends)" if event.ended_at_peek else ""
        dealer = self.words.dealer.capitalize()
        self.say(f"{dealer}: {cards_markup(hand.cards)} = [bold]{result}[/bold]{peek}")
        self.note("dealer", [f"{dealer}: {cards_markup(hand.cards)} = [bold]{result}[/bold]"])

    def _show_RoundVoided(self, event: RoundVoided) -> None:
        self.say(f"[yellow]Round {event.round_in_shoe} cancelled: {escape(event.reason)}[/yellow]")

    def _show_SeatLeft(self, event: SeatLeft) -> None:
        you = event.name == self._names.get(self.player_id)
        who = "You" if you else event.name
        if event.reason == "out_of_coins":
            text = f"{who} {'are' if you else 'is'} out of {self.words.coins} and can't play on"
        else:
            text = f"{who} left the table"
        if event.mid_round:
            text += "; the autoplay rule finishes the hand(s) in play"
        self.say(f"[yellow]{text}.[/yellow]")

    def _show_RoundReported(self, event: RoundReported) -> None:
        report = event.report
        table = results_table(report, self.rules, self.name)
        if self.screen is not None:
            self.screen.results = table
        else:
            self.console.print(table)
        if report.last_in_shoe and self.rules.shoe.reshuffle_every_round:
            self.say("[dim]The shoe is reshuffled before every round.[/dim]")
        elif report.last_in_shoe:
            self.say(
                f"[yellow]The cut card is out: that was the last round of shoe "
                f"{report.shoe_number}; the next round starts a new shoe.[/yellow]"
            )
