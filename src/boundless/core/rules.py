"""Rule sets: every number and switch of a title, frozen and validated on load.

The engine reads these switches and never asks which title it runs. Shipped titles are TOML
files in ``boundless/titles``; :func:`parse_rule_set` turns TOML text into a :class:`RuleSet` or
raises :class:`InvalidRuleSetError` naming the field and the problem.

A file may extend another rule set and give only what differs (``extends = "<title>"``);
finding the base is the adapters' job (``boundless.titles``), merging it is
:func:`extend_rule_data`, pure like the rest of this module.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from boundless.core.amount_limits import MAX_AMOUNT, MAX_PAYOUT_AMOUNT
from boundless.core.errors import InvalidRuleSetError
from boundless.core.money import Odds, Ratio
from boundless.core.side_bets import SIDE_BET_KINDS

UpValue = Annotated[int, Field(ge=1, le=10)]
Amount = Annotated[int, Field(ge=1, le=MAX_AMOUNT)]
Seconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Item = TypeVar("Item")
# A TOML array arrives as a list; a tuple field takes one (its items stay strict).
Array = Annotated[tuple[Item, ...], Field(strict=False)]


class _Frozen(BaseModel):
    # Strict: a value of another TOML type is refused, never converted (true is not 1, "3" is
    # not 3, 3.0 is not 3); a whole number still stands for a decimal one.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class TitleInfo(_Frozen):
    key: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]
    name: str
    version: str
    documented_rtp: Annotated[float, Field(gt=0, lt=2)] | None = None
    vocabulary: Literal["boundless", "casino"] = "casino"
    example: bool = False


class ShoeRules(_Frozen):
    decks: Annotated[int, Field(ge=1, le=8)]
    penetration: Annotated[float, Field(gt=0, le=1)]
    burn_after_shuffle: bool
    reshuffle_every_round: bool
    min_cards_behind_cut: Annotated[int, Field(ge=0)] = 52


class TableRules(_Frozen):
    spots: Annotated[int, Field(ge=1, le=7)]
    shared: bool
    max_spots_per_player: Annotated[int, Field(ge=1, le=7)]
    main_bet_max_multiple_of_right: Annotated[int, Field(ge=0)] = 0


class LimitRules(_Frozen):
    unit_amount: Amount
    min_main_amount: Amount
    max_main_amount: Amount


class DealerRules(_Frozen):
    hole_card: Literal["peek", "none"]
    peek_up_values: Array[UpValue] = ()
    hits_soft_17: bool


class PayoutRules(_Frozen):
    blackjack: Odds
    win: Odds
    blackjack_paid_at_once_up_values: Array[UpValue] = ()


class DoubleRules(_Frozen):
    allowed: bool
    after_split: bool
    on_split_aces: bool = False


class SplitRules(_Frozen):
    allowed: bool
    # Hands one position may hold after splitting (2 = no resplit; up to 4).
    max_hands: Annotated[int, Field(ge=2, le=4)] = 2
    # Whether a pair of aces made by splitting aces may be split again (within max_hands).
    resplit_aces: bool = False
    pair_by: Literal["value", "rank"] = "value"
    split_aces_one_card: bool
    offered: Literal["any_pair", "basic_strategy_pairs"] = "any_pair"
    decline_refund: Ratio | None = None


class SurrenderRules(_Frozen):
    allowed: bool
    refund: Ratio = Ratio(1, 2)
    up_values: Array[UpValue] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)


class InsuranceRules(_Frozen):
    offered: bool
    cost: Ratio = Ratio(1, 2)
    pays: Odds = Odds(2, 1)
    blackjack_offer: Literal["insurance", "even_money"] = "insurance"


class FallbackRules(_Frozen):
    insufficient_coins: Literal["hit_if_11_or_less_else_stand", "chart_second_choice"]


class AutoplayRules(_Frozen):
    """Autoplay never takes insurance or even money (DECISIONS rule 13)."""

    policy: Literal["hit_until_over_11", "basic_strategy"]


class TimerRules(_Frozen):
    betting_seconds: Seconds
    insurance_seconds: Seconds
    decision_seconds: Seconds


class WheelWedge(_Frozen):
    label: str
    weight: Annotated[int, Field(ge=1)]
    multiplier: Annotated[int, Field(ge=0)] | None = None
    power_up: bool = False


class Jackpot(_Frozen):
    label: str
    amount: Amount
    chance_per_wager_unit: Annotated[float, Field(gt=0, lt=1)]


class WheelRules(_Frozen):
    example: bool
    inner: Array[WheelWedge]
    outer: Array[WheelWedge]
    jackpots: Array[Jackpot] = ()


class SideBetRules(_Frozen):
    key: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
    kind: str
    pays: dict[str, Odds] = Field(default_factory=dict)
    max_round: Annotated[int, Field(ge=1)] | None = None
    min_amount: Amount
    max_amount: Amount
    variant: str | None = None
    target: Literal["spot", "dealer"] = "spot"
    wheel: WheelRules | None = None  # a file may name another bet's instead (_shared_wheels)
    offer_group: str | None = None  # bets offered together (one wheel on seats and dealer)

    @property
    def group(self) -> str:
        return self.offer_group or self.key

    @model_validator(mode="after")
    def _known_kind_and_patterns(self) -> SideBetRules:
        kind = SIDE_BET_KINDS.get(self.kind)
        if kind is None:
            known = ", ".join(sorted(SIDE_BET_KINDS))
            raise ValueError(f"unknown side-bet kind {self.kind!r} (known: {known})")
        unknown = [pattern for pattern in self.pays if pattern not in kind.patterns]
        if unknown:
            raise ValueError(
                f"pays names patterns {unknown} that kind {self.kind!r} never reports "
                f"(it reports {list(kind.patterns)})"
            )
        if kind.variants and self.variant not in kind.variants:
            raise ValueError(f"kind {self.kind!r} needs variant one of {list(kind.variants)}")
        if not kind.variants and self.variant is not None:
            raise ValueError(f"kind {self.kind!r} has no variants")
        if kind.uses_wheel != (self.wheel is not None):
            raise ValueError(
                f"kind {self.kind!r} {'needs' if kind.uses_wheel else 'takes no'} wheel table"
            )
        if not kind.uses_wheel and not self.pays:
            raise ValueError("pays must name at least one pattern")
        if self.min_amount > self.max_amount:
            raise ValueError(f"min_amount {self.min_amount} exceeds max_amount {self.max_amount}")
        return self


class SideBetOffer(_Frozen):
    mode: Literal["all", "player_chooses"] = "all"
    choose_count: Annotated[int, Field(ge=1)] = 1


class RuleSet(_Frozen):
    title: TitleInfo
    shoe: ShoeRules
    table: TableRules
    limits: LimitRules
    dealer: DealerRules
    payouts: PayoutRules
    double: DoubleRules
    split: SplitRules
    surrender: SurrenderRules
    insurance: InsuranceRules
    fallbacks: FallbackRules
    autoplay: AutoplayRules
    timers: TimerRules
    side_bet_offer: SideBetOffer = SideBetOffer()
    side_bets: Array[SideBetRules] = ()

    @model_validator(mode="after")
    def _consistent(self) -> RuleSet:
        problems = list(_contradictions(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def key(self) -> str:
        return self.title.key

    def side_bet(self, key: str) -> SideBetRules | None:
        return next((bet for bet in self.side_bets if bet.key == key), None)

    def side_bet_groups(self) -> dict[str, list[str]]:
        """Offer groups in file order, each with its side-bet keys."""
        groups: dict[str, list[str]] = {}
        for bet in self.side_bets:
            groups.setdefault(bet.group, []).append(bet.key)
        return groups

    def group_of(self, key: str) -> str | None:
        bet = self.side_bet(key)
        return None if bet is None else bet.group

    @property
    def needs_strategy_chart(self) -> bool:
        return (
            self.autoplay.policy == "basic_strategy"
            or self.split.offered == "basic_strategy_pairs"
            or self.fallbacks.insufficient_coins == "chart_second_choice"
        )


def _contradictions(rules: RuleSet) -> list[str]:
    problems: list[str] = []
    limits = rules.limits
    if limits.min_main_amount > limits.max_main_amount:
        problems.append(
            f"limits.min_main_amount {limits.min_main_amount} exceeds "
            f"limits.max_main_amount {limits.max_main_amount}"
        )
    for name in ("min_main_amount", "max_main_amount"):
        if getattr(limits, name) % limits.unit_amount:
            problems.append(f"limits.{name} is not a multiple of limits.unit_amount")
    if rules.dealer.hole_card == "none" and rules.dealer.peek_up_values:
        problems.append("dealer.peek_up_values needs dealer.hole_card = 'peek'")
    if rules.dealer.hole_card == "peek" and not rules.dealer.peek_up_values:
        problems.append("dealer.hole_card = 'peek' needs dealer.peek_up_values")
    if rules.table.max_spots_per_player > rules.table.spots:
        problems.append("table.max_spots_per_player exceeds table.spots")
    if not rules.table.shared and rules.table.max_spots_per_player != rules.table.spots:
        problems.append("a private table (table.shared = false) lets its player use every spot")
    split = rules.split
    if split.offered == "basic_strategy_pairs" and split.decline_refund is None:
        problems.append("split.offered = 'basic_strategy_pairs' needs split.decline_refund")
    if split.offered == "any_pair" and split.decline_refund is not None:
        problems.append("split.decline_refund only applies with 'basic_strategy_pairs'")
    if rules.insurance.blackjack_offer == "even_money" and not rules.insurance.offered:
        problems.append("insurance.blackjack_offer = 'even_money' needs insurance.offered")
    if split.resplit_aces and split.max_hands == 2:
        problems.append("split.resplit_aces needs split.max_hands above 2")
    if split.max_hands > 2 and not split.allowed:
        problems.append("split.max_hands above 2 needs split.allowed")
    if rules.double.on_split_aces and not rules.double.after_split:
        problems.append("double.on_split_aces needs double.after_split")
    shoe_cards = rules.shoe.decks * 52
    behind_cut = shoe_cards - round(shoe_cards * rules.shoe.penetration)
    if rules.shoe.reshuffle_every_round:
        if rules.shoe.burn_after_shuffle:
            problems.append("shoe.burn_after_shuffle makes no sense with reshuffle_every_round")
    elif behind_cut < rules.shoe.min_cards_behind_cut:
        problems.append(
            f"shoe.penetration {rules.shoe.penetration} leaves {behind_cut} cards behind the cut, "
            f"fewer than shoe.min_cards_behind_cut = {rules.shoe.min_cards_behind_cut}"
        )
    keys = [bet.key for bet in rules.side_bets]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        problems.append(f"side_bets repeat the keys {duplicates}")
    for bet in rules.side_bets:
        if bet.min_amount % limits.unit_amount or bet.max_amount % limits.unit_amount:
            problems.append(f"side bet {bet.key!r} limits are not multiples of the unit")
        if bet.max_round is not None and rules.shoe.reshuffle_every_round:
            problems.append(
                f"side bet {bet.key!r} has max_round but the shoe reshuffles each round"
            )
    offer = rules.side_bet_offer
    if offer.mode == "player_chooses" and offer.choose_count > len(rules.side_bet_groups()):
        problems.append("side_bet_offer.choose_count exceeds the number of side-bet groups")
    problems += _payouts_too_large(rules)
    return problems


def _largest_multiple(term: Odds | Ratio) -> int:
    """The most a stake is multiplied by on the way to a payout at ``term`` (stake * win before
    the division, stake * (1 + win) after; a ratio's numerator)."""
    return term.win + 1 if isinstance(term, Odds) else term.numerator


def _payouts_too_large(rules: RuleSet) -> list[str]:
    """Odds that would pay the largest stake the limits allow more than 64-bit arithmetic holds:
    the engine pays in int64 arrays (``MAX_PAYOUT_AMOUNT``), so such a rule set is refused."""
    main = rules.limits.max_main_amount
    terms: list[tuple[str, int, Odds | Ratio | None]] = [
        ("payouts.blackjack", main, rules.payouts.blackjack),
        ("payouts.win", 2 * main, rules.payouts.win),  # a doubled hand
        ("insurance.pays", main, rules.insurance.pays),
        ("insurance.cost", main, rules.insurance.cost),
        ("surrender.refund", main, rules.surrender.refund),
        ("split.decline_refund", main, rules.split.decline_refund),
    ]
    for index, bet in enumerate(rules.side_bets):
        terms += [
            (f"side_bets.{index}.pays.{pattern}", bet.max_amount, odds)
            for pattern, odds in bet.pays.items()
        ]
    problems = [
        f"{where} {term} on a stake of {stake:,} could pay more than the engine can count "
        f"({MAX_PAYOUT_AMOUNT:,}); lower it or the stake limit"
        for where, stake, term in terms
        if term is not None and stake * _largest_multiple(term) > MAX_PAYOUT_AMOUNT
    ]
    for index, bet in enumerate(rules.side_bets):
        wheel = bet.wheel
        if wheel is None:
            continue
        multiple = sum(
            max((w.multiplier or 0) for w in wedges) for wedges in (wheel.inner, wheel.outer)
        )
        jackpot = max((jackpot.amount for jackpot in wheel.jackpots), default=0)
        if bet.max_amount * multiple + jackpot > MAX_PAYOUT_AMOUNT:
            problems.append(
                f"side_bets.{index}.wheel pays {multiple} times a stake of {bet.max_amount:,} "
                f"plus a jackpot of {jackpot:,}: more than the engine can count "
                f"({MAX_PAYOUT_AMOUNT:,}); lower the multipliers or the stake limit"
            )
    return problems


def _describe(error: ValidationError, source: str) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "(top level)"
        message = item["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return f"{source}: " + "; ".join(parts)


def rule_set_from_data(data: object, source: str = "rule set") -> RuleSet:
    try:
        return RuleSet.model_validate(_shared_wheels(data, source))
    except ValidationError as error:
        raise InvalidRuleSetError(_describe(error, source)) from None


def _shared_wheels(data: object, source: str) -> object:
    """``wheel = "<key>"`` in a side bet: the same wheel table as that bet's (a spot bet and
    its dealer twin spin one wheel), resolved before validation, so every rule set holds whole
    wheels."""
    if not isinstance(data, Mapping) or not isinstance(bets := data.get("side_bets"), list):
        return data
    tables = {
        bet.get("key"): bet.get("wheel")
        for bet in bets
        if isinstance(bet, Mapping) and isinstance(bet.get("wheel"), Mapping)
    }
    resolved = []
    for index, bet in enumerate(bets):
        named = bet.get("wheel") if isinstance(bet, Mapping) else None
        if isinstance(named, str):
            if named not in tables:
                raise InvalidRuleSetError(
                    f"{source}: side_bets.{index}.wheel: no side bet {named!r} with a wheel "
                    "table of its own to share"
                )
            bet = {**bet, "wheel": tables[named]}
        resolved.append(bet)
    return {**data, "side_bets": resolved}


def rule_data_from_toml(text: str, source: str = "rule set") -> dict[str, Any]:
    """The TOML text as plain data, not yet validated (it may extend another rule set)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InvalidRuleSetError(f"{source}: not valid TOML: {error}") from None
    except RecursionError:
        raise InvalidRuleSetError(f"{source}: not valid TOML: nested too deeply") from None


def parse_rule_set(text: str, source: str = "rule set") -> RuleSet:
    """Parse and validate TOML text; errors name the source, the field and the problem."""
    data = rule_data_from_toml(text, source)
    if EXTENDS in data:
        raise InvalidRuleSetError(f"{source}: {EXTENDS}: load the file through boundless.titles")
    return rule_set_from_data(data, source)


EXTENDS = "extends"
OMIT = "omit"  # in an extending file's [[side_bets]] entry: drop the base's bet of that key


def extend_rule_data(
    base: Mapping[str, Any], changes: Mapping[str, Any], source: str = "rule set"
) -> dict[str, Any]:
    """``base`` with ``changes`` laid over it: what an extending file means.

    Tables merge key by key, at any depth; any other value replaces the base's. ``side_bets``
    is matched by ``key``: an entry naming a base bet replaces the fields it gives (each whole,
    so a ``pays`` table given is the bet's whole pay table), ``omit = true`` drops that bet, and
    an entry with a new key is added after the base's bets.
    """
    merged = _merge_tables(base, changes, ())
    if "side_bets" in changes:
        merged["side_bets"] = _merge_side_bets(
            base.get("side_bets", []), changes["side_bets"], source
        )
    return merged


def _merge_tables(
    base: Mapping[str, Any], changes: Mapping[str, Any], where: tuple[str, ...]
) -> dict[str, Any]:
    merged = dict(base)
    for key, value in changes.items():
        if key == EXTENDS and not where:
            continue
        old = merged.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            merged[key] = _merge_tables(old, value, (*where, key))
        else:
            merged[key] = value
    return merged


def _merge_side_bets(base: object, changes: object, source: str) -> list[Any]:
    if not isinstance(changes, list):
        raise InvalidRuleSetError(f"{source}: side_bets: must be an array of tables")
    bets = list(base) if isinstance(base, list) else []
    for index, entry in enumerate(changes):
        where = f"{source}: side_bets[{index}]"
        key = entry.get("key") if isinstance(entry, Mapping) else None
        if not isinstance(key, str):
            raise InvalidRuleSetError(f"{where}: needs a key naming the bet to change or add")
        assert isinstance(entry, Mapping)
        found = next(
            (i for i, bet in enumerate(bets) if isinstance(bet, Mapping) and bet.get("key") == key),
            None,
        )
        if entry.get(OMIT, False) is not False:
            if entry[OMIT] is not True or set(entry) != {"key", OMIT}:
                raise InvalidRuleSetError(f"{where}.{OMIT}: must be true, beside the key only")
            if found is None:
                raise InvalidRuleSetError(f"{where}.{OMIT}: the base has no side bet {key!r}")
            del bets[found]
        elif found is None:
            bets.append(dict(entry))
        else:
            bets[found] = {**bets[found], **entry}
    return bets
