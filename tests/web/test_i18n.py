"""The web client's strings: English, Korean and Japanese hold the same keys, the same
placeholders and no empty text; every key the pages and scripts use exists; and every name the
engine can report (actions, statuses, side bets and their patterns, error codes...) has words.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import pytest

from boundless.core import errors as core_errors
from boundless.core.round.actions import Action, Source
from boundless.core.round.paths import HandStatus
from boundless.core.rules import TitleInfo
from boundless.core.side_bets import SIDE_BET_KINDS
from boundless.ledger import errors as ledger_errors
from boundless.server.protection.gate import SESSION_END_REASONS
from boundless.server.protection.schemas import RealityChoice
from boundless.server.protection.stakes import LIMIT_REACHED
from boundless.titles import shipped_title_keys
from boundless.wallet import port as wallet_port

WEB = Path(__file__).resolve().parents[2] / "web"
LANGUAGES = ("en", "ko", "ja")
PLACEHOLDER = re.compile(r"\{([a-z_0-9]+)\}")
TERM = re.compile(r"\[\[([A-Za-z_]+)\]\]")


def load(lang: str) -> dict[str, str]:
    data = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


STRINGS = {lang: load(lang) for lang in LANGUAGES}
ENGLISH = STRINGS["en"]


def scripts() -> list[Path]:
    return sorted((WEB / "js").rglob("*.js"))


def pages() -> list[Path]:
    return sorted(WEB.rglob("*.html"))


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_key_sets_are_equal(lang: str) -> None:
    keys = set(STRINGS[lang])
    assert sorted(set(ENGLISH) - keys) == [], f"{lang} lacks these keys"
    assert sorted(keys - set(ENGLISH)) == [], f"{lang} has keys English lacks"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_empty_strings(lang: str) -> None:
    empty = [
        key for key, text in STRINGS[lang].items() if not isinstance(text, str) or not text.strip()
    ]
    assert empty == []


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_placeholders_match_english(lang: str) -> None:
    different = {
        key: (
            sorted(set(PLACEHOLDER.findall(ENGLISH[key]))),
            sorted(set(PLACEHOLDER.findall(text))),
        )
        for key, text in STRINGS[lang].items()
        if set(PLACEHOLDER.findall(ENGLISH[key])) != set(PLACEHOLDER.findall(text))
    }
    assert different == {}


VOCABULARIES = get_args(TitleInfo.model_fields["vocabulary"].annotation)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_vocabulary_terms_exist(lang: str) -> None:
    """Every [[term]] token names a word that each title vocabulary defines."""
    table = STRINGS[lang]
    terms_by_vocabulary = {
        vocabulary: {key.split(".")[2] for key in table if key.startswith(f"vocab.{vocabulary}.")}
        for vocabulary in VOCABULARIES
    }
    first = next(iter(terms_by_vocabulary.values()))
    assert first, "no vocabulary words"
    for vocabulary, terms in terms_by_vocabulary.items():
        assert terms == first, f"vocabulary {vocabulary!r} defines other words"
    unknown = {
        key: term
        for key, text in table.items()
        for term in TERM.findall(text)
        if term[0].lower() + term[1:] not in first
    }
    assert unknown == {}


def test_pages_reference_existing_keys() -> None:
    used: set[str] = set()
    for page in pages():
        text = page.read_text(encoding="utf-8")
        used |= set(re.findall(r'data-i18n="([^"]+)"', text))
        for pairs in re.findall(r'data-i18n-attr="([^"]+)"', text):
            used |= {pair.split(":", 1)[1].strip() for pair in pairs.split(",")}
    assert used, "the pages use no strings"
    assert sorted(used - set(ENGLISH)) == []


def test_scripts_reference_existing_keys() -> None:
    literal = re.compile(r"""\b(?:t|hasKey)\(\s*["']([A-Za-z0-9_.\-]+)["']""")
    used = {key for script in scripts() for key in literal.findall(script.read_text("utf-8"))}
    assert len(used) > 100
    assert sorted(used - set(ENGLISH)) == []


def _error_codes() -> set[str]:
    codes: set[str] = set()
    codes.add(LIMIT_REACHED)  # a wallet refusal's code (LimitedWallet), not a class's
    for module in (core_errors, ledger_errors, wallet_port):
        for value in vars(module).values():
            if isinstance(value, type) and isinstance(getattr(value, "code", None), str):
                codes.add(value.code)
    try:
        from boundless.server import errors as server_errors
    except ImportError:  # the server package may not define its errors yet
        return codes
    for value in vars(server_errors).values():
        if isinstance(value, type) and isinstance(getattr(value, "code", None), str):
            codes.add(value.code)
    return codes


# The kinds of protection rows a player's history shows (storage/models.py ProtectionEvent.kind).
PROTECTION_KINDS = (
    "limit",
    "time_out",
    "self_exclusion",
    "reality_check",
    "reality_answer",
    "session_end",
)

# The round's phases as the public view names them (core/round), plus the lobby's two extras.
PHASES = ("betting", "insurance", "decisions", "dealer", "settling", "settled", "cancelled")

# Every family of keys the scripts build from data ("action.${word}"), with the names the engine,
# the ledger and the protocol can produce for it.
DYNAMIC_FAMILIES: dict[str, set[str]] = {
    "action": {f"action.{action.word}" for action in Action},
    "by": {f"by.{source.word}" for source in Source},
    "status": {f"status.{status}" for status in HandStatus},
    "outcome": {
        f"outcome.{outcome}"
        for outcome in (
            "win",
            "lose",
            "push",
            "blackjack",
            "surrender",
            "surrender20",
            "even_money",
            "paid",
        )
    },
    "phase": {f"phase.{phase}" for phase in (*PHASES, "paused", "waiting")},
    "side": {f"side.{kind}" for kind in SIDE_BET_KINDS},
    "side_short": {f"side_short.{kind}" for kind in SIDE_BET_KINDS},
    "side_desc": {f"side_desc.{kind}" for kind in SIDE_BET_KINDS},
    "pattern": {
        f"pattern.{kind}.{pattern}"
        for kind, spec in SIDE_BET_KINDS.items()
        for pattern in spec.patterns
    },
    "variant": {
        f"variant.{kind}.{variant}"
        for kind, spec in SIDE_BET_KINDS.items()
        for variant in spec.variants
    },
    "error": {f"error.{code}" for code in _error_codes()},
    "title": {f"title.{key}" for key in shipped_title_keys()},
    "timer": {f"timer.{kind}" for kind in ("betting", "insurance", "decision")},
    "timer_kind": {f"timer_kind.{kind}" for kind in ("betting", "insurance", "decision")},
    "notice": {
        f"notice.{kind}"
        for kind in ("paused", "resumed", "cancelled", "shuffle", "shoe_finished", "closed")
    },
    "insurance": {
        f"insurance.{name}"
        for kind in ("insurance", "even_money")
        for name in (kind, f"take_{kind}")
    },
    "protect": {
        *(f"protect.{name}" for name in ("loss", "wager", "day", "week", "month")),
        *(f"protect.history_{kind}" for kind in PROTECTION_KINDS),
        *(f"protect.actor_{actor}" for actor in ("player", "operator")),
        *(f"protect.col_{column}" for column in ("when", "what", "who", "effective")),
    },
    "reality": {f"reality.{choice}" for choice in get_args(RealityChoice)},
    "session_ended": {f"session_ended.{reason}" for reason in SESSION_END_REASONS},
    "rank": {f"rank.{rank}" for rank in "A23456789TJQK"},
    "suit": {f"suit.{suit}" for suit in "SHDC"},
    "record_status": {f"record_status.{status}" for status in ("settled", "cancelled")},
    "card_kind": {f"card_kind.{kind}" for kind in ("spot", "dealer_up", "hole", "step", "dealer")},
    "wager": {
        f"wager.{kind}"
        for kind in (
            "main",
            "double",
            "split",
            "insurance",
            "even_money",
            "settle",
            "close",
            "cancel",
        )
    },
    "vocab": {
        f"vocab.{vocabulary}.{term}"
        for vocabulary in VOCABULARIES
        for term in ("bet", "bets", "coins", "dealer", "win", "loss", "push")
    },
}


def test_every_key_family_built_from_data_is_known() -> None:
    """A script that builds keys from data (`pattern.${kind}...`) uses a family checked below."""
    template = re.compile(r"(?:\b(?:t|hasKey)\(|=\s*)`([a-z_]+)\.[a-z_]*\$\{")
    families = {
        family for script in scripts() for family in template.findall(script.read_text("utf-8"))
    }
    assert families, "no key is built from data"
    assert sorted(families - set(DYNAMIC_FAMILIES)) == []


@pytest.mark.parametrize("family", sorted(DYNAMIC_FAMILIES))
def test_every_name_from_data_has_words(family: str) -> None:
    expected = DYNAMIC_FAMILIES[family]
    assert expected
    assert sorted(expected - set(ENGLISH)) == []


def test_no_english_left_in_translations() -> None:
    """Korean and Japanese strings are written out, not copied (names and symbols aside)."""
    allowed_same = re.compile(r"^[\s\d{}\[\]A-Za-z_:/.,%+×\-–()!?·]*$")
    for lang in LANGUAGES[1:]:
        copied = [
            key
            for key, text in STRINGS[lang].items()
            if text == ENGLISH[key]
            and re.search(r"[a-z]{4,}", text)
            and not allowed_same.match(text)
        ]
        assert copied == [], f"{lang} copies English text"
