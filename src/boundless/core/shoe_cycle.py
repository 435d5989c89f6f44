"""A table's shoe over many rounds: shuffle, commitment, reveal-and-burn, round counter.

The round in progress when the cut card comes out is the shoe's last; the next round starts
a new shoe (DECISIONS rule 15). A finished shoe's order and salt are published so anyone can
check them against the commitment given at the shuffle.
"""

from __future__ import annotations

from dataclasses import dataclass

from boundless.core.random_source import RandomSource
from boundless.core.rules import RuleSet
from boundless.core.shoe import BurnRecord, Shoe, ShoeReveal


@dataclass(frozen=True, slots=True)
class Shuffled:
    """Announced at a shuffle: the commitment now, the burn for everyone to see."""

    shoe_number: int
    commitment: str
    burn: BurnRecord | None
    card_count: int


@dataclass(frozen=True, slots=True)
class RoundStart:
    shoe_number: int
    round_in_shoe: int
    commitment: str
    shuffled: Shuffled | None
    finished_shoe: ShoeReveal | None


class ShoeCycle:
    def __init__(self, rules: RuleSet, source: RandomSource) -> None:
        self.rules = rules
        self._source = source
        self.shoe: Shoe | None = None
        self.shoe_number = 0
        self.round_in_shoe = 0
        self._must_shuffle = True

    @property
    def must_shuffle(self) -> bool:
        return self._must_shuffle

    def start_round(self) -> RoundStart:
        """Shuffle first if the last shoe is finished, then count the round."""
        shuffled: Shuffled | None = None
        finished: ShoeReveal | None = None
        if self._must_shuffle or self.shoe is None:
            finished = self.shoe.reveal() if self.shoe is not None else None
            shuffled = self._shuffle()
        assert self.shoe is not None
        self.round_in_shoe += 1
        return RoundStart(
            self.shoe_number, self.round_in_shoe, self.shoe.commitment, shuffled, finished
        )

    def _shuffle(self) -> Shuffled:
        shoe_rules = self.rules.shoe
        self.shoe = Shoe.shuffled(shoe_rules.decks, shoe_rules.penetration, self._source)
        self.shoe_number += 1
        self.round_in_shoe = 0
        self._must_shuffle = False
        burn = self.shoe.burn() if shoe_rules.burn_after_shuffle else None
        return Shuffled(self.shoe_number, self.shoe.commitment, burn, len(self.shoe))

    def end_round(self, voided_by_exhaustion: bool = False) -> bool:
        """Mark the shoe finished when the cut card is out; returns whether it is."""
        assert self.shoe is not None
        if voided_by_exhaustion or self.shoe.cut_card_out or self.rules.shoe.reshuffle_every_round:
            self._must_shuffle = True
        return self._must_shuffle

    def finish_now(self) -> ShoeReveal | None:
        """Retire the current shoe at once (operator action); returns its reveal."""
        self._must_shuffle = True
        return self.shoe.reveal() if self.shoe is not None else None
