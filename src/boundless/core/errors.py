"""The rules error tree. Every rejected operation raises one of these and changes nothing."""


class RulesError(ValueError):
    """Base of every error the core raises for bad input or an illegal operation."""

    code = "rules_error"


class InvalidCardError(RulesError):
    code = "invalid_card"


class InvalidRuleSetError(RulesError):
    code = "invalid_rule_set"


class PhaseError(RulesError):
    """The operation is not possible in the round's current phase (or while paused)."""

    code = "wrong_phase"


class IllegalActionError(RulesError):
    """A decision that the rules do not allow for this hand right now."""

    code = "illegal_action"


class InvalidBetError(RulesError):
    """A bet outside the table limits, on an unavailable option, or malformed."""

    code = "invalid_bet"


class InsufficientCoinsError(RulesError):
    code = "insufficient_coins"


class UnknownPositionError(RulesError):
    code = "unknown_position"


class ShoeExhaustedError(RulesError):
    """The card source ran out of cards in the middle of a round."""

    code = "shoe_exhausted"


class EventLogError(RulesError):
    """An event log that does not rebuild into a round (out of order or inconsistent)."""

    code = "invalid_event_log"
