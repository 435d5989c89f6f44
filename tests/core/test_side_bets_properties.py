"""Properties every side-bet evaluator keeps, and the card scopes the exact math relies on."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from boundless.core.cards import Card
from boundless.core.side_bets import PENDING, SIDE_BET_KINDS, SideBetKind
from boundless.math.side_bets import KIND_SCOPES

cards = st.integers(min_value=0, max_value=51).map(Card)
# Jacks often, so the Jack A-Tack four-jack paths are exercised.
jack_heavy = st.one_of(cards, st.sampled_from([Card.parse(text) for text in ("JH", "JS", "JD")]))
some_card = st.one_of(cards, jack_heavy)
dealer_hands = st.lists(some_card, min_size=2, max_size=9)

KIND_VARIANTS = [
    (name, variant) for name, kind in SIDE_BET_KINDS.items() for variant in kind.variants or (None,)
]
kind_variants = st.sampled_from(KIND_VARIANTS)


Deal = tuple[SideBetKind, str | None, tuple[Card, Card], Card, list[Card] | None]


@st.composite
def deals(draw: st.DrawFn) -> Deal:
    """A kind and variant, the player's two cards, the up card and the dealer's hand so far
    (None before the dealer's cards are known; otherwise it starts with the up card)."""
    name, variant = draw(kind_variants)
    first, second, up = draw(some_card), draw(some_card), draw(some_card)
    dealer = draw(st.none() | dealer_hands)
    if dealer is not None:
        dealer = [up, *dealer[1:]]
    return SIDE_BET_KINDS[name], variant, (first, second), up, dealer


@settings(max_examples=400)
@given(deals())
def test_reports_only_listed_patterns_and_waits_only_without_dealer_cards(deal: Deal) -> None:
    kind, variant, player, up, dealer = deal
    matched = kind.evaluate(player, up, dealer, variant)
    if matched is PENDING:
        assert dealer is None
    else:
        assert isinstance(matched, frozenset)
        assert matched <= set(kind.patterns)


@settings(max_examples=300)
@given(deals())
def test_the_order_of_the_players_two_cards_does_not_matter(deal: Deal) -> None:
    kind, variant, (first, second), up, dealer = deal
    assert kind.evaluate((first, second), up, dealer, variant) == kind.evaluate(
        (second, first), up, dealer, variant
    )


@settings(max_examples=300)
@given(st.sampled_from(KIND_VARIANTS), some_card, some_card, some_card, some_card, dealer_hands)
def test_kinds_read_only_the_cards_their_scope_declares(
    kind_variant: tuple[str, str | None],
    first: Card,
    second: Card,
    up: Card,
    other_up: Card,
    dealer: list[Card],
) -> None:
    name, variant = kind_variant
    kind = SIDE_BET_KINDS[name]
    scope = KIND_SCOPES.get(name)
    dealer = [up, *dealer[1:]]
    full = kind.evaluate((first, second), up, dealer, variant)
    if scope == "player":
        assert full == kind.evaluate((first, second), other_up, None, variant)
    elif scope == "player_up":
        # Beyond the up card, at most the hole card is read.
        assert full == kind.evaluate((first, second), up, dealer[:2], variant)
        early = kind.evaluate((first, second), up, None, variant)
        assert early is PENDING or early == full
    elif scope == "dealer_final":
        assert full == kind.evaluate((other_up, up), up, dealer, variant)


@settings(max_examples=300)
@given(some_card, some_card, some_card, some_card, some_card, dealer_hands)
def test_wheel_triggers_read_their_own_cards_only(
    first: Card, second: Card, other: Card, up: Card, other_up: Card, dealer: list[Card]
) -> None:
    kind = SIDE_BET_KINDS["bonus_spin_xtreme"]
    dealer = [up, *dealer[1:]]
    full = kind.evaluate((first, second), up, dealer, None)
    moved_dealer = kind.evaluate((first, second), other_up, [other_up, *dealer[1:]], None)
    assert isinstance(full, frozenset) and isinstance(moved_dealer, frozenset)
    assert ("player_blackjack" in full) == ("player_blackjack" in moved_dealer)
    other_player = kind.evaluate((first, other), up, dealer[:2], None)
    assert isinstance(other_player, frozenset)
    assert ("xtreme_16" in full) == ("xtreme_16" in other_player)
