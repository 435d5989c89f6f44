"""Exact main-game figures of a rule set over its finite shoe (see :mod:`.main_game`).

``fast`` and ``fast_kernels`` compute them (numba); ``reference`` and ``reference_values`` are
the same definitions in plain fractions, held equal by the tests on small shoes.
"""

from boundless.math.exact.basic_strategy import derive_basic_strategy
from boundless.math.exact.fast import SPLIT_PLAYS, SplitPlay
from boundless.math.exact.main_game import (
    STRATEGIES,
    InsuranceReport,
    MainGameAnalysis,
    MainGameReport,
    Strategy,
    analyse_main_game,
    first_move_values,
    insurance_return,
    main_game_return,
)
from boundless.math.exact.outcomes import OutcomeDistribution, outcome_distribution, result_label
from boundless.math.exact.params import GameParams, standard_shoe

__all__ = [
    "SPLIT_PLAYS",
    "STRATEGIES",
    "GameParams",
    "InsuranceReport",
    "MainGameAnalysis",
    "MainGameReport",
    "OutcomeDistribution",
    "SplitPlay",
    "Strategy",
    "analyse_main_game",
    "derive_basic_strategy",
    "first_move_values",
    "insurance_return",
    "main_game_return",
    "outcome_distribution",
    "result_label",
    "standard_shoe",
]
