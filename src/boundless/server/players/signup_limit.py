"""Sign-ups per client address: each one grants coins, so a script must not mint wallets.

The counting is the ``limits`` library's moving window (in memory: one server process); a
cluster's gateways count in their shared database instead (``shared_signup_limit``). The rate
is a ``limits`` string such as ``"10/minute;100/day"`` (``ServerConfig.signup_rate``).
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from boundless.server.errors import RateLimitedError

NAMESPACE = "signup"


class SignUpLimit:
    def __init__(self, rate: str) -> None:
        try:
            self.items: list[RateLimitItem] = parse_many(rate)
        except ValueError:
            raise ValueError(
                f"sign-up rate {rate!r} is not a rate such as '10/minute' or '10/minute;100/day'"
            ) from None
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    def check(self, address: str) -> None:
        """Count one sign-up from ``address``; ``rate_limited`` once any window is full."""
        for item in self.items:
            if not self.limiter.hit(item, NAMESPACE, address):
                reset = self.limiter.get_window_stats(item, NAMESPACE, address).reset_time
                raise refusal(item, reset - time.time())


def refusal(item: RateLimitItem, seconds_left: float) -> RateLimitedError:
    """The one refusal of a sign-up over the rate, whichever process counted it."""
    wait = max(1, math.ceil(seconds_left))
    return RateLimitedError(
        f"at most {item.amount:,} sign-ups per {_window(item)} from one address;"
        f" try again in {wait} s"
    )


def _window(item: RateLimitItem) -> str:
    name = item.GRANULARITY.name
    return name if item.multiples == 1 else f"{item.multiples} {name}s"
