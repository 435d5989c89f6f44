"""The title's numbers, computed: four subpackages, each with its public API in ``__init__``.

* :mod:`boundless.math.exact`: the exact main game (returns, standard deviation, insurance,
  the basic-strategy derivation), numba kernels beside a plain reference in fractions.
* :mod:`boundless.math.side_bets`: exact returns of the side bets by enumeration.
* :mod:`boundless.math.strategy`: the basic-strategy chart of a rule set, shipped or derived.
* :mod:`boundless.math.simulation`: Monte-Carlo play of a title, with the exact figures beside.

Imports point down that list's reverse: ``simulation`` > ``strategy`` > ``exact`` | ``side_bets``
(an import-linter contract). This module imports nothing, so the CLI stays quick to start.
"""
