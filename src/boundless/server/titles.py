"""The titles a server offers: the shipped rule sets (and any a test or operator adds)."""

from __future__ import annotations

from dataclasses import dataclass, field

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.server.errors import NotFoundError
from boundless.titles import load_game, shipped_title_keys


@dataclass(slots=True)
class TitleCatalog:
    games: dict[str, tuple[RuleSet, StrategyChart | None]] = field(default_factory=dict)

    @classmethod
    def shipped(cls, keys: tuple[str, ...] | None = None) -> TitleCatalog:
        chosen = shipped_title_keys() if keys is None else list(keys)
        return cls({key: load_game(key) for key in chosen})

    def get(self, key: str) -> tuple[RuleSet, StrategyChart | None]:
        game = self.games.get(key)
        if game is None:
            raise NotFoundError(f"unknown title {key!r} (titles: {', '.join(sorted(self.games))})")
        return game

    def shared_keys(self) -> list[str]:
        return [key for key, (rules, _) in self.games.items() if rules.table.shared]
