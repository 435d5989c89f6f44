"""A rule set in words, from the web client's English strings (``web/i18n/en.json``).

The sentences are the rules page's own (``rules.*`` keys), filled with the rule set's numbers
and read in the title's vocabulary, so a rule is worded in one place for the page and the report.
"""

from __future__ import annotations

from dataclasses import dataclass

from boundless.cli.words import fill_words, side_bet_name, string_of
from boundless.core.money import format_amount
from boundless.core.rules import RuleSet, SideBetRules, SplitRules


@dataclass(frozen=True, slots=True)
class RuleGroup:
    heading: str
    sentences: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PayTable:
    """One side bet: its name, what it pays for each pattern, and when it is open."""

    name: str
    rows: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]


def _card_name(value: int) -> str:
    if value == 1:
        return "an ace"
    return "a 10-value card" if value == 10 else f"{'an' if value == 8 else 'a'} {value}"


def _up_cards(values: tuple[int, ...]) -> str:
    names = [_card_name(value) for value in sorted(values, key=lambda v: 11 if v == 1 else v)]
    if len(names) == 10:
        return "any card"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _pct(value: float) -> str:
    return f"{value:.0%}" if abs(value * 100 - round(value * 100)) < 1e-9 else f"{value:.1%}"


def _seconds(value: float) -> str:
    return f"{value:g}"


def _group(rules: RuleSet, heading: str, keys: list[tuple[str, dict[str, str]]]) -> RuleGroup:
    vocabulary = rules.title.vocabulary
    said = [fill_words(string_of(key, key), vocabulary, **values) for key, values in keys]
    return RuleGroup(fill_words(string_of(heading, heading), vocabulary), tuple(said))


def rule_groups(rules: RuleSet) -> list[RuleGroup]:
    """The rules, grouped as on the rules page: table, cards, limits, round, dealer, decisions,
    insurance, payouts, timers."""
    shoe, table, dealer = rules.shoe, rules.table, rules.dealer
    overview: list[tuple[str, dict[str, str]]] = []
    if table.shared:
        overview.append(("rules.overview.shared", {}))
        if table.spots == 1:
            overview.append(("rules.overview.one_spot", {}))
        else:
            spots = {"spots": str(table.spots), "max": str(table.max_spots_per_player)}
            overview.append(("rules.overview.spots", spots))
    else:
        overview.append(("rules.overview.private", {"spots": str(table.spots)}))
    overview.append(("rules.overview.goal", {}))
    cards: list[tuple[str, dict[str, str]]] = [
        ("rules.cards.one_deck", {})
        if shoe.decks == 1
        else ("rules.cards.decks", {"n": str(shoe.decks)}),
        ("rules.cards.values", {}),
        ("rules.cards.blackjack", {}),
    ]
    if shoe.reshuffle_every_round:
        cards.append(("rules.cards.reshuffle_each_round", {}))
    else:
        cards.append(("rules.cards.cut_card", {"pct": _pct(shoe.penetration)}))
    if shoe.burn_after_shuffle:
        cards.append(("rules.cards.burn", {}))
    unit = rules.limits.unit_amount
    limits: list[tuple[str, dict[str, str]]] = [
        (
            "rules.limits.main",
            {
                "min": format_amount(rules.limits.min_main_amount),
                "max": format_amount(rules.limits.max_main_amount),
                "unit": format_amount(unit),
            },
        ),
    ]
    if table.main_bet_max_multiple_of_right:
        limits.append(("rules.limits.right_seat", {"n": str(table.main_bet_max_multiple_of_right)}))
    autoplay = (
        "rules.round.autoplay_strategy"
        if rules.autoplay.policy == "basic_strategy"
        else ("rules.round.autoplay_hit11")
    )
    round_steps = [
        ("rules.round.betting", {"seconds": _seconds(rules.timers.betting_seconds)}),
        ("rules.round.deal_spots" if table.spots > 1 else "rules.round.deal", {}),
        ("rules.round.steps" if table.shared else "rules.round.spot_order", {}),
        (autoplay, {}),
    ]
    dealer_words: list[tuple[str, dict[str, str]]] = [
        ("rules.dealer.hits_soft_17" if dealer.hits_soft_17 else "rules.dealer.stands_soft_17", {})
    ]
    if dealer.hole_card == "peek":
        dealer_words.append(("rules.dealer.hole_card", {}))
        if dealer.peek_up_values:
            dealer_words.append(("rules.dealer.peek", {"cards": _up_cards(dealer.peek_up_values)}))
    else:
        dealer_words += [("rules.dealer.no_hole_card", {}), ("rules.dealer.no_hole_blackjack", {})]
    return [
        _group(rules, "rules.overview", overview),
        _group(rules, "rules.cards", cards),
        _group(rules, "rules.limits", limits),
        _group(rules, "rules.round", round_steps),
        _group(rules, "rules.dealer", dealer_words),
        _group(rules, "rules.actions", _actions(rules)),
        _group(rules, "rules.insurance", _insurance(rules)),
        _group(rules, "rules.payouts", _payouts(rules)),
        _group(
            rules,
            "rules.timers",
            [
                ("rules.timers.betting", {"seconds": _seconds(rules.timers.betting_seconds)}),
                ("rules.timers.insurance", {"seconds": _seconds(rules.timers.insurance_seconds)}),
                ("rules.timers.decision", {"seconds": _seconds(rules.timers.decision_seconds)}),
            ],
        ),
    ]


def _actions(rules: RuleSet) -> list[tuple[str, dict[str, str]]]:
    double, split, surrender = rules.double, rules.split, rules.surrender
    said: list[tuple[str, dict[str, str]]] = [("rules.action.hit", {}), ("rules.action.stand", {})]
    if double.allowed:
        said.append(("rules.action.double", {}))
        said.append(
            (
                "rules.action.double_after_split"
                if double.after_split
                else "rules.action.double_no_split",
                {},
            )
        )
        if split.allowed:
            said.append(
                (
                    "rules.action.double_split_aces"
                    if double.on_split_aces
                    else "rules.action.double_no_split_aces",
                    {},
                )
            )
    if split.allowed:
        said.append(
            (
                "rules.action.split_value"
                if split.pair_by == "value"
                else "rules.action.split_rank",
                {},
            )
        )
        said += _split_limit(split)
        said.append(
            (
                "rules.action.split_aces_one"
                if split.split_aces_one_card
                else "rules.action.split_aces_hit",
                {},
            )
        )
        said.append(("rules.action.split_21", {}))
        if split.offered == "basic_strategy_pairs":
            declined = split.decline_refund
            kept = 0.0 if declined is None else declined.numerator / declined.denominator
            name = fill_words(
                string_of("action.surrender20", "{pct}"), rules.title.vocabulary, pct=_pct(1 - kept)
            )
            said.append(("rules.action.split_chart", {"action": name}))
            if declined is not None:
                said.append(("rules.action.surrender20", {"pct": _pct(kept)}))
    if surrender.allowed:
        back = surrender.refund.numerator / surrender.refund.denominator
        cards = _up_cards(surrender.up_values)
        said.append(("rules.action.surrender", {"pct": _pct(back), "cards": cards}))
    fallback = rules.fallbacks.insufficient_coins
    said.append(
        (
            "rules.action.fallback_chart"
            if fallback == "chart_second_choice"
            else "rules.action.fallback_hit11",
            {},
        )
    )
    return said


def _split_limit(split: SplitRules) -> list[tuple[str, dict[str, str]]]:
    """Once, or again up to ``max_hands`` hands with aces by their switch (as rule_text.js)."""
    if split.max_hands <= 2:
        return [("rules.action.split_once", {})]
    aces = "rules.action.resplit_aces" if split.resplit_aces else "rules.action.no_resplit_aces"
    return [("rules.action.resplit", {"n": str(split.max_hands)}), (aces, {})]


def _insurance(rules: RuleSet) -> list[tuple[str, dict[str, str]]]:
    insurance = rules.insurance
    if not insurance.offered:
        return [("rules.insurance.none", {})]
    said: list[tuple[str, dict[str, str]]] = [
        (
            "rules.insurance.offer",
            {
                "cost": str(insurance.cost),
                "pays": str(insurance.pays),
                "seconds": _seconds(rules.timers.insurance_seconds),
            },
        ),
    ]
    if insurance.blackjack_offer == "even_money":
        said.append(("rules.insurance.even_money", {"pays": "1:1"}))
    else:
        said.append(("rules.insurance.with_blackjack", {}))
    said.append(("rules.insurance.not_autoplayed", {}))
    return said


def _payouts(rules: RuleSet) -> list[tuple[str, dict[str, str]]]:
    payouts = rules.payouts
    said: list[tuple[str, dict[str, str]]] = [
        ("rules.payouts.blackjack", {"pays": str(payouts.blackjack)}),
        ("rules.payouts.win", {"pays": str(payouts.win)}),
        ("rules.payouts.push", {}),
    ]
    if payouts.blackjack_paid_at_once_up_values:
        cards = _up_cards(payouts.blackjack_paid_at_once_up_values)
        said.append(("rules.payouts.blackjack_at_once", {"cards": cards}))
    said.append(("rules.payouts.rounding", {}))
    if rules.title.documented_rtp is not None:
        said.append(("rules.payouts.rtp", {"pct": f"{rules.title.documented_rtp:.2%}"}))
    return said


def side_bet_intro(rules: RuleSet) -> list[str]:
    vocabulary = rules.title.vocabulary
    if not rules.side_bets:
        return [fill_words(string_of("rules.side_bets.none", ""), vocabulary)]
    if rules.side_bet_offer.mode == "player_chooses":
        choose = string_of("rules.side_bets.choose", "")
        return [fill_words(choose, vocabulary, n=str(rules.side_bet_offer.choose_count))]
    return []


def pay_tables(rules: RuleSet) -> list[PayTable]:
    """Each side bet's pay table, limits and round availability, in the players' words."""
    return [_pay_table(rules, bet) for bet in rules.side_bets]


def _pay_table(rules: RuleSet, bet: SideBetRules) -> PayTable:
    vocabulary = rules.title.vocabulary
    rows = tuple(
        (string_of(f"pattern.{bet.kind}.{pattern}", pattern.replace("_", " ")), str(odds))
        for pattern, odds in bet.pays.items()
    )
    if bet.wheel is not None:
        rows += _wheel_rows(bet, vocabulary)
    described = string_of(f"side_desc.{bet.kind}", "")
    notes = [fill_words(described, vocabulary)] if described else []
    notes += [
        fill_words(
            string_of("rules.side_bets.limits", ""),
            vocabulary,
            min=format_amount(bet.min_amount),
            max=format_amount(bet.max_amount),
        )
    ]
    if bet.max_round is not None:
        notes.append(
            fill_words(string_of("rules.side_bets.max_round", ""), vocabulary, n=str(bet.max_round))
        )
    if bet.wheel is not None:
        notes.append(fill_words(string_of("rules.wheel.jackpot_chance", ""), vocabulary))
        if bet.wheel.example:
            notes.append(fill_words(string_of("rules.wheel.example", ""), vocabulary))
    if bet.pays:
        notes.append(fill_words(string_of("rules.side_bets.highest_only", ""), vocabulary))
    if bet.target == "dealer":
        notes.append(fill_words(string_of("rules.side_bets.dealer_target", ""), vocabulary))
    return PayTable(side_bet_name(rules, bet.key), rows, tuple(notes))


def fairness_sentences(rules: RuleSet) -> list[str]:
    vocabulary = rules.title.vocabulary
    keys = ["rules.fairness.commitment", "rules.fairness.errors"]
    if rules.shoe.reshuffle_every_round:
        keys.insert(1, "rules.fairness.every_round")
    return [fill_words(string_of(key, ""), vocabulary) for key in keys]


def _wheel_rows(bet: SideBetRules, vocabulary: str) -> tuple[tuple[str, str], ...]:
    """Each wedge of the bonus and power-up wheels with its chance, and each jackpot's amount."""
    assert bet.wheel is not None
    rows: list[tuple[str, str]] = []
    for key, wedges in (
        ("rules.wheel.inner", bet.wheel.inner),
        ("rules.wheel.outer", bet.wheel.outer),
    ):
        wheel = fill_words(string_of(key, key), vocabulary)
        total = sum(wedge.weight for wedge in wedges)
        rows += [(f"{wheel}: {wedge.label}", f"chance {wedge.weight}/{total}") for wedge in wedges]
    rows += [(f"Jackpot {pot.label}", format_amount(pot.amount)) for pot in bet.wheel.jackpots]
    return tuple(rows)
