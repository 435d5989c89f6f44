"""One round from a stacked shoe, as ``docs/scenario-format.md`` describes.

Pure: it takes the parsed JSON and a function that finds a title's rules; it returns the
result as plain data. Every problem raises :class:`ScenarioError` (or another RulesError)
with a message that names the field, player or card at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from boundless.core.amount_limits import MAX_AMOUNT
from boundless.core.cards import parse_cards
from boundless.core.errors import RulesError, ShoeExhaustedError
from boundless.core.random_source import SeededSource
from boundless.core.round import DECISIONS, INSURANCE, SharedRound
from boundless.core.round.results import hand_json, position_result
from boundless.core.rules import RuleSet
from boundless.core.shoe import Shoe
from boundless.core.strategy_chart import StrategyChart

TitleLoader = Callable[[str], tuple[RuleSet, StrategyChart | None]]
PLAYER_KEYS = frozenset({"id", "balance", "bets", "insurance", "actions"})
TOP_KEYS = frozenset(
    {"game", "round_in_shoe", "cards", "players", "side_bets_offered", "wheel_seed"}
)


class ScenarioError(RulesError):
    code = "invalid_scenario"


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ScenarioError(message)


def _int(value: object, where: str, minimum: int = 0) -> int:
    _require(
        isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= MAX_AMOUNT,
        f"{where} must be an integer from {minimum} to {MAX_AMOUNT:,}, got {value!r}",
    )
    assert isinstance(value, int)
    return value


def _per_spot(value: object, where: str, multi: bool) -> dict[int, Any]:
    """Single-spot titles give one value; multi-spot titles give {"1": value, ...}."""
    if not multi:
        return {1: value}
    _require(isinstance(value, dict), f"{where} must be an object keyed by spot number")
    assert isinstance(value, dict)
    result: dict[int, Any] = {}
    for key, item in value.items():
        _require(
            isinstance(key, str) and key.isdigit() and int(key) >= 1,
            f'{where} has key {key!r}; spots are "1", "2", ...',
        )
        result[int(key)] = item
    return result


@dataclass(slots=True)
class ScenarioPlayer:
    id: str
    balance: int
    bets: dict[int, dict[str, int]]  # spot -> {"main": amount, side key: amount}
    actions: dict[int, list[str]]  # spot -> action words still to play, in order
    insurance: dict[int, bool]  # spot -> takes insurance (or even money) when offered


def _player(data: object, index: int, rules: RuleSet) -> ScenarioPlayer:
    where = f"players[{index}]"
    _require(isinstance(data, dict), f"{where} must be an object")
    assert isinstance(data, dict)
    unknown = set(data) - PLAYER_KEYS
    _require(not unknown, f"{where} has unknown keys {sorted(unknown)}")
    player_id = data.get("id")
    _require(isinstance(player_id, str) and player_id != "", f"{where}.id must be text")
    assert isinstance(player_id, str)
    balance = _int(data.get("balance"), f"{where}.balance")
    multi = rules.table.spots > 1
    bets: dict[int, dict[str, int]] = {}
    _require("bets" in data, f"{where}.bets is missing")
    for spot, spot_bets in _per_spot(data["bets"], f"{where}.bets", multi).items():
        _require(isinstance(spot_bets, dict), f"{where}.bets for spot {spot} must be an object")
        bets[spot] = {key: _int(amount, f"{where}.bets.{key}") for key, amount in spot_bets.items()}
    actions: dict[int, list[str]] = {}
    for spot, words in _per_spot(
        data.get("actions", [] if not multi else {}), f"{where}.actions", multi
    ).items():
        _require(
            isinstance(words, list) and all(isinstance(word, str) for word in words),
            f"{where}.actions must be a list of action words",
        )
        actions[spot] = list(words)
    wanted = data.get("insurance", False)
    if isinstance(wanted, list):
        _require(all(isinstance(x, bool) for x in wanted), f"{where}.insurance: booleans")
        insurance = {
            spot: bool(wanted[i]) if i < len(wanted) else False
            for i, spot in enumerate(sorted(bets))
        }
    else:
        _require(isinstance(wanted, bool), f"{where}.insurance must be true/false")
        insurance = {spot: bool(wanted) for spot in bets}
    return ScenarioPlayer(player_id, balance, bets, actions, insurance)


def run_scenario(data: object, load: TitleLoader) -> dict[str, Any]:
    """Play the scenario's round and return the result JSON as a dict."""
    _require(isinstance(data, dict), "a scenario must be a JSON object")
    assert isinstance(data, dict)
    unknown = set(data) - TOP_KEYS
    _require(not unknown, f"unknown top-level keys {sorted(unknown)}")
    game = data.get("game")
    _require(isinstance(game, str), "'game' must name a title")
    assert isinstance(game, str)
    rules, chart = load(game)
    round_in_shoe = _int(data.get("round_in_shoe", 1), "round_in_shoe", minimum=1)
    cards_text = data.get("cards")
    _require(isinstance(cards_text, list), "'cards' must be a list of card codes")
    assert isinstance(cards_text, list)
    cards = parse_cards(cards_text)
    offered = data.get("side_bets_offered")
    if offered is not None:
        _require(
            isinstance(offered, list) and all(isinstance(key, str) for key in offered),
            "'side_bets_offered' must be a list of side-bet keys",
        )
    players_data = data.get("players")
    _require(
        isinstance(players_data, list) and len(players_data) > 0,
        "'players' must be a non-empty list",
    )
    assert isinstance(players_data, list)
    players = [_player(item, index, rules) for index, item in enumerate(players_data)]
    ids = [player.id for player in players]
    _require(len(set(ids)) == len(ids), "player ids must be unique")

    wheel_seed = _int(data.get("wheel_seed", 0), "wheel_seed")
    round_ = SharedRound(
        rules,
        round_in_shoe=round_in_shoe,
        chart=chart,
        cards=Shoe.stacked(cards),
        offered_side_bets=offered,
        randomness=SeededSource(wheel_seed),
    )
    for player in players:
        for number, (spot, bets) in enumerate(sorted(player.bets.items())):
            sides = {key: amount for key, amount in bets.items() if key != "main"}
            # The balance is the player's free coins before the first bet; later bets use the rest.
            free = player.balance if number == 0 else None
            round_.place_bet(player.id, spot, bets.get("main", 0), sides, free_amount=free)
    try:
        _play(round_, players)
    except ShoeExhaustedError:
        raise ScenarioError(f"'cards' has {len(cards)} cards, too few for this round") from None
    return _output(game, round_, players)


def _play(round_: SharedRound, players: list[ScenarioPlayer]) -> None:
    round_.deal()
    if round_.phase == INSURANCE:
        for player in players:
            for spot, wanted in player.insurance.items():
                if not wanted or round_.main_stake(round_.position(player.id, spot)) <= 0:
                    continue
                if round_.can_take_even_money(player.id, spot):
                    round_.take_even_money(player.id, spot)
                else:
                    round_.take_insurance(player.id, spot)
        round_.close_insurance()
    while round_.phase == DECISIONS:
        spot = round_.current_spot
        for player in players:
            queue = player.actions.get(spot)
            if not queue or spot not in player.bets:
                continue
            position = round_.position(player.id, spot)
            if round_.path_of(position).needs_decision:
                round_.decide(player.id, spot, queue.pop(0))
        round_.close_step()
    round_.run_to_end()


def _output(game: str, round_: SharedRound, players: list[ScenarioPlayer]) -> dict[str, Any]:
    dealer = round_.dealer_hand
    output_players = []
    for player in players:
        results = [position_result(round_, p) for p in round_.positions_of(player.id)]
        staked = sum(result.staked_amount for result in results)
        paid = sum(result.paid_amount for result in results)
        insurance: Mapping[str, Any] | None = None
        insured = [result for result in results if result.insurance is not None]
        if insured:
            entries = [
                {
                    "spot": result.spot,
                    "kind": result.insurance.kind,
                    "stake": result.insurance.stake,
                    "outcome": result.insurance.outcome,
                    "payout": result.insurance.payout_amount,
                }
                for result in insured
                if result.insurance is not None
            ]
            insurance = entries[0] if round_.rules.table.spots == 1 else {"spots": entries}
        side_bets: dict[str, Any] = {}
        for result in results:
            for side in result.side_bets:
                entry: dict[str, Any] = {
                    "stake": side.stake,
                    "outcome": side.outcome,
                    "payout": side.payout_amount,
                }
                if side.pattern is not None:
                    entry["pattern"] = side.pattern
                if side.wheel_labels:
                    entry["wheel"] = list(side.wheel_labels)
                if round_.rules.table.spots == 1:
                    side_bets[side.key] = entry
                else:
                    side_bets.setdefault(str(result.spot), {})[side.key] = entry
        output_players.append(
            {
                "id": player.id,
                "balance_before": player.balance,
                "balance_after": player.balance - staked + paid,
                "hands": [
                    hand_json(hand, spot=True, fallback=True)
                    for result in results
                    for hand in result.hands
                ],
                "insurance": insurance,
                "side_bets": side_bets,
            }
        )
    return {
        "game": game,
        "round_in_shoe": round_.round_in_shoe,
        "dealer": {
            "cards": [str(card) for card in dealer.cards],
            "total": dealer.total,
            "blackjack": dealer.blackjack,
            "bust": dealer.bust,
        },
        "players": output_players,
    }
