"""The coordinator's shoe dealer: the machine's cryptographic source by default, and the same
cards again from the same seed (what a benchmark needs to compare runs like with like)."""

from __future__ import annotations

from boundless.core.random_source import SeededSource
from boundless.server.cluster.processes import ShoeDealer, load_rules


def first_commitment(dealer: ShoeDealer) -> str:
    dealer(1)
    assert dealer.cycle.shoe is not None
    return dealer.cycle.shoe.reveal().commitment


def test_the_same_seed_deals_the_same_shoe_and_another_seed_does_not() -> None:
    rules, _ = load_rules("boundless")
    first = first_commitment(ShoeDealer(rules, SeededSource(7)))
    assert first_commitment(ShoeDealer(rules, SeededSource(7))) == first
    assert first_commitment(ShoeDealer(rules, SeededSource(8))) != first


def test_without_a_seed_every_dealer_shuffles_afresh() -> None:
    rules, _ = load_rules("boundless")
    assert first_commitment(ShoeDealer(rules)) != first_commitment(ShoeDealer(rules))
