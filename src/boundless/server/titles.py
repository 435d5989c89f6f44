"""The titles a server offers: the shipped rule sets, and any an operator's folder adds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.server.errors import NotFoundError
from boundless.titles import load_game, load_titles_dir, shipped_title_keys


@dataclass(slots=True)
class TitleCatalog:
    games: dict[str, tuple[RuleSet, StrategyChart | None]] = field(default_factory=dict)

    @classmethod
    def shipped(cls, keys: tuple[str, ...] | None = None) -> TitleCatalog:
        chosen = shipped_title_keys() if keys is None else list(keys)
        return cls({key: load_game(key) for key in chosen})

    def with_folder(self, folder: Path) -> TitleCatalog:
        """These titles plus every rule file of ``folder`` (same key: the folder's wins).

        A file whose rules need a chart and has none beside it gets one derived in memory.
        """
        from boundless.math.strategy import with_chart

        added = {
            key: (rules, with_chart(rules, chart))
            for key, (rules, chart) in load_titles_dir(folder).items()
        }
        return TitleCatalog({**self.games, **added})

    def get(self, key: str) -> tuple[RuleSet, StrategyChart | None]:
        game = self.games.get(key)
        if game is None:
            raise NotFoundError(f"unknown title {key!r} (titles: {', '.join(sorted(self.games))})")
        return game

    def shared_keys(self) -> list[str]:
        return [key for key, (rules, _) in self.games.items() if rules.table.shared]
