"""The pure core: cards, shoe, rule sets, side bets and the shared round.

Nothing in this package performs I/O, reads a clock or uses global randomness;
randomness arrives as a :class:`~boundless.core.random_source.RandomSource`.
"""
