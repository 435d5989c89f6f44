"""The report's player-protection section: the chosen jurisdiction profile's figures, then each
of its requirements with the feature that meets it and the tests that prove it (pure)."""

from __future__ import annotations

from boundless.cli.report.sections import Section, Table
from boundless.jurisdictions import JurisdictionProfile


def protection_section(profile: JurisdictionProfile) -> Section:
    reality = profile.reality_check
    exclusion = profile.self_exclusion
    default = f"every {reality.default_minutes} minutes" if reality.default_minutes else "none"
    figures = Table(
        "The profile's figures, enforced by the server (docs/player-protection.md)",
        ("Setting", "Value"),
        (
            ("Profile", f"{profile.name} ({profile.key})"),
            ("Mandatory tools", ", ".join(sorted(profile.mandatory)) or "none"),
            (
                "Reality check",
                f"{default} until the player chooses; {reality.min_minutes} to"
                f" {reality.max_minutes} minutes",
            ),
            (
                "Cooling-off before a limit increase",
                f"{profile.limit_increase_cooling_off_hours:g} hours",
            ),
            ("Shortest game cycle (private table)", f"{profile.min_cycle_seconds:g} seconds"),
            ("Time-out", f"{profile.time_out.min_hours} to {profile.time_out.max_hours} hours"),
            (
                "Self-exclusion",
                f"{exclusion.min_months} to {exclusion.max_months} months",
            ),
            ("Always shown", ", ".join(sorted(profile.always_show)).replace("_", " ")),
        ),
        text_columns=True,
    )
    tables = [figures]
    if profile.requirements:
        tables.append(
            Table(
                "Each requirement, the feature that meets it and the tests that prove it",
                ("Requirement", "What it asks", "Feature", "Tests"),
                tuple(
                    (item.id, item.text, item.feature, "; ".join(item.tests))
                    for item in profile.requirements
                ),
                text_columns=True,
            )
        )
    return Section(
        f"Player protection: {profile.name}",
        (
            "Limits, reality checks, time-outs, self-exclusion, the session's figures and the "
            "game-cycle pacing are decided by the server on every process that serves players, "
            "so no client can skip them.",
        ),
        tables=tuple(tables),
    )
