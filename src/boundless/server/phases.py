"""The round's phase names (part of the wire protocol), as the core defines them."""

from boundless.core.round.phases import (
    BETTING,
    CANCELLED,
    DEALER,
    DECISIONS,
    INSURANCE,
    SETTLED,
    SETTLING,
)

__all__ = ["BETTING", "CANCELLED", "DEALER", "DECISIONS", "INSURANCE", "SETTLED", "SETTLING"]
