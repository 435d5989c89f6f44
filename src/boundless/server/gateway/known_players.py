"""Who said ``hello`` on this process lately, so a player can still sign in while the database
is briefly away.

``hello`` reads the player behind a token and their wallet. When that read fails because the
database cannot be reached, a token this process authenticated recently is taken as it was then
(the player sees their wallet as last read); a token never seen here is refused
``ledger_unavailable``. A revoked token therefore keeps working on this process only for as long
as the database is away. Bounded: the least recently seen players are forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from boundless.server.players.service import PlayerIdentity, hash_token

KNOWN_PLAYERS_MAX = 100_000
"""Tokens remembered per process (a few hundred bytes each)."""


@dataclass(frozen=True, slots=True)
class KnownPlayer:
    identity: PlayerIdentity
    balance: int
    """The wallet as last read at a ``hello``."""


class KnownPlayers:
    def __init__(self, limit: int = KNOWN_PLAYERS_MAX) -> None:
        self.limit = limit
        self._by_token: OrderedDict[str, KnownPlayer] = OrderedDict()

    def remember(self, token: str, identity: PlayerIdentity, balance: int) -> None:
        key = hash_token(token)
        self._by_token[key] = KnownPlayer(identity, balance)
        self._by_token.move_to_end(key)
        while len(self._by_token) > self.limit:
            self._by_token.popitem(last=False)

    def recall(self, token: str | None) -> KnownPlayer | None:
        """The player this token named when last seen here; None if never (or forgotten)."""
        if not token:
            return None
        return self._by_token.get(hash_token(token))

    def forget_player(self, player_id: str) -> None:
        """Forget every token of this player (a time-out or a self-exclusion began)."""
        mine = [
            key for key, known in self._by_token.items() if known.identity.player_id == player_id
        ]
        for key in mine:
            del self._by_token[key]
