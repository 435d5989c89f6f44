"""The exact main-game return of each title, computed once and kept beside the code.

Computing a title's exact return takes about a second (after numba's first compile, much
longer), too slow for a listing. ``title_returns.json`` holds the figure of every shipped title
with a fingerprint of the rules it was computed from; a title whose rules no longer match its
fingerprint (or any title not in the file) is computed afresh. A test recomputes every entry.

Regenerate after a rule or math change: ``python -m boundless.cli.title_returns``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from boundless.core.rules import RuleSet

RETURNS_FILE = Path(__file__).with_name("title_returns.json")


def rules_fingerprint(rules: RuleSet) -> str:
    """SHA-256 of everything in the rule set but its name, version and timers."""
    text = rules.model_dump_json(exclude={"title": {"name", "version"}, "timers": True})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stored_returns() -> dict[str, dict[str, object]]:
    try:
        data = json.loads(RETURNS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def compute_return(rules: RuleSet) -> float:
    """The exact return under optimal play (the figure ``boundless rtp`` calls optimal)."""
    from boundless.math.exact import analyse_main_game

    return float(analyse_main_game(rules).optimal.return_to_player)


def exact_return(rules: RuleSet, stored: dict[str, dict[str, object]] | None = None) -> float:
    """The stored figure when it was computed from these rules, else a fresh computation."""
    entry = (stored if stored is not None else stored_returns()).get(rules.key)
    if entry is not None and entry.get("rules_sha256") == rules_fingerprint(rules):
        value = entry.get("optimal_return")
        if isinstance(value, float):
            return value
    return compute_return(rules)


def write_returns() -> None:
    """Recompute every shipped title and rewrite :data:`RETURNS_FILE`."""
    from boundless.titles import load_title, shipped_title_keys

    entries = {}
    for key in shipped_title_keys():
        rules = load_title(key)
        entries[key] = {
            "rules_sha256": rules_fingerprint(rules),
            "optimal_return": compute_return(rules),
        }
    RETURNS_FILE.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_returns()
    print(f"wrote {RETURNS_FILE}")
