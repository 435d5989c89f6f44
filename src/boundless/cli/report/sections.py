"""The report's content, assembled from figures already computed: pure, so it is tested alone.

:func:`report_sections` turns a rule set and its :class:`ReportFigures` into headed sections of
sentences, tables and one picture; :mod:`.html` writes them out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boundless.cli.report.rule_sentences import (
    fairness_sentences,
    pay_tables,
    rule_groups,
    side_bet_intro,
)
from boundless.cli.words import counted, side_bet_name
from boundless.core.rules import RuleSet
from boundless.math.rng_battery import BatteryReport

MAIN = "main"
MAIN_GAME = "Main game (basic chart)"


@dataclass(frozen=True, slots=True)
class Table:
    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    text_columns: bool = False  # every column reads as text (left), not only the first


@dataclass(frozen=True, slots=True)
class Section:
    heading: str
    paragraphs: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    image_png: bytes | None = None
    image_alt: str = ""
    subsections: tuple[Section, ...] = ()
    items: tuple[str, ...] = ()  # a bulleted list, after the paragraphs


@dataclass(frozen=True, slots=True)
class ExactFigures:
    """As ``boundless rtp --json`` prints them."""

    optimal: float
    optimal_cdz: float  # the optimal return with split hands deciding as CDZ-
    basic: float
    stdev: float
    stdev_optimal: float
    outcomes: dict[str, float]  # net result per initial unit -> chance, basic chart
    win: float
    push: float
    lose: float
    insurance: float | None  # return per unit insured; None where none is offered
    side_bets: dict[str, float]


@dataclass(frozen=True, slots=True)
class SimulatedBet:
    key: str  # MAIN or a side bet's key
    value: float
    low: float  # 95% interval
    high: float
    rounds: int
    exact: float | None  # the exact figure of what the simulator played

    @property
    def inside(self) -> bool | None:
        return None if self.exact is None else self.low <= self.exact <= self.high


@dataclass(frozen=True, slots=True)
class SimulationFigures:
    rounds: int
    spots: int
    seed: int
    bets: tuple[SimulatedBet, ...]


@dataclass(frozen=True, slots=True)
class Provenance:
    # (name, SHA-256 hex) of each file the game was read from: the rule file first, then each
    # file or shipped title it extends and the strategy chart, as ``boundless.titles`` read them
    files: tuple[tuple[str, str], ...]
    software_version: str
    python_version: str
    numpy_version: str
    generated: str  # ISO date and time, UTC


@dataclass(frozen=True, slots=True)
class ReportFigures:
    exact: ExactFigures
    simulation: SimulationFigures
    battery: BatteryReport
    chart_png: bytes | None
    provenance: Provenance
    extra: dict[str, str] = field(default_factory=dict)


def _a(count: int) -> str:
    """The article before a number: "an 8-deck shoe", "a 6-deck shoe"."""
    return "an" if str(count).startswith("8") or count in (11, 18) else "a"


def _pct(value: float, places: int = 4) -> str:
    return f"{value:.{places}%}"


def report_sections(rules: RuleSet, figures: ReportFigures) -> list[Section]:
    return [
        _identity(rules, figures.provenance),
        _rules(rules),
        _returns(rules, figures.exact),
        _outcomes(figures.exact),
        Section(
            "Basic strategy chart",
            ("The chart the basic-strategy figures, autoplay and the simulation use.",),
            image_png=figures.chart_png,
            image_alt=f"{rules.title.name} basic strategy chart",
        ),
        _simulation(rules, figures.simulation),
        _battery(figures.battery),
        _commitment(rules),
    ]


def _identity(rules: RuleSet, provenance: Provenance) -> Section:
    rows = (
        ("Title", f"{rules.title.name} ({rules.key})"),
        ("Rules version", rules.title.version),
        ("Rule-set file", provenance.files[0][0]),
        ("SHA-256 of the rule-set file", provenance.files[0][1]),
        *((f"SHA-256 of {name}", digest) for name, digest in provenance.files[1:]),
        ("Software", f"boundless {provenance.software_version}"),
        ("Python / numpy", f"{provenance.python_version} / {provenance.numpy_version}"),
        ("Generated (UTC)", provenance.generated),
    )
    note: tuple[str, ...] = ()
    if rules.title.example:
        note += ("The rule set is marked as an example set-up.",)
    if len(provenance.files) > 1:
        note += (
            "The game was read from these files: the rule-set file, each file or shipped title "
            "it extends, and its strategy chart file where it has one (a chart derived from the "
            "rules has none); each SHA-256 is of the file's bytes as they were read.",
        )
    return Section("Identification", note, (Table("", ("item", "value"), rows, text_columns=True),))


def _rules(rules: RuleSet) -> Section:
    groups = tuple(Section(group.heading, items=group.sentences) for group in rule_groups(rules))
    bets = tuple(
        Section(table.name, table.notes, (Table("Pays", ("hand", "pays"), table.rows),))
        for table in pay_tables(rules)
    )
    side = Section("Side bets", tuple(side_bet_intro(rules)), subsections=bets)
    return Section(
        "The rules in words",
        ("Generated from the rule set itself, in the words of the game's rules page.",),
        subsections=(*groups, side),
    )


def _returns(rules: RuleSet, exact: ExactFigures) -> Section:
    main = Table(
        f"Main game, {counted(rules.shoe.decks, 'deck')}, exact (fresh shoe, one spot)",
        ("strategy", "return to player", "house edge", "standard deviation per round"),
        (
            (
                "optimal",
                _pct(exact.optimal, 6),
                _pct(1 - exact.optimal),
                f"{exact.stdev_optimal:.4f}",
            ),
            (
                "optimal, split hands CDZ-",
                _pct(exact.optimal_cdz, 6),
                _pct(1 - exact.optimal_cdz),
                "",
            ),
            ("basic chart", _pct(exact.basic, 6), _pct(1 - exact.basic), f"{exact.stdev:.4f}"),
        ),
    )
    rows: list[tuple[str, ...]] = [
        (side_bet_name(rules, key), _pct(value, 6), _pct(1 - value))
        for key, value in exact.side_bets.items()
    ]
    if exact.insurance is not None:
        rows.append(
            ("Insurance (per unit insured)", _pct(exact.insurance, 6), _pct(1 - exact.insurance))
        )
    notes = [
        "Optimal: the best decision in every situation (composition of the hand, dealer up "
        "card; a split hand decides for the cards it sees, its own and the pair cards put "
        "down so far); optimal, split hands CDZ-: the same, except that a split hand decides "
        "as the unsplit hand of its cards would (the convention of most published "
        "analysers); basic chart: the title's strategy chart. Insurance and even money are "
        "never part of the main figure.",
    ]
    if rules.title.documented_rtp is not None:
        gap = exact.optimal - rules.title.documented_rtp
        notes.append(
            f"Documented return {rules.title.documented_rtp:.2%}; the exact optimal return "
            f"differs from it by {gap:+.4%}."
        )
    tables = [main]
    if rows:
        tables.append(
            Table(
                "Side bets and insurance, exact, per unit staked",
                ("bet", "return to player", "house edge"),
                tuple(rows),
            )
        )
    return Section("Exact returns", tuple(notes), tuple(tables))


def _outcomes(exact: ExactFigures) -> Section:
    rows = tuple(
        (f"{float(value):+g}" if float(value) else "0", f"{chance:.6%}")
        for value, chance in exact.outcomes.items()
    )
    summary = Table(
        "",
        ("win", "push", "lose"),
        ((_pct(exact.win), _pct(exact.push), _pct(exact.lose)),),
    )
    return Section(
        "Outcome distribution",
        (
            "The exact chance of each net result of a round, in initial units, under the basic "
            "chart (a blackjack at 3:2 is +1.5; a surrender is a loss).",
        ),
        (Table("Net result per round", ("result", "chance"), rows), summary),
    )


def _simulation(rules: RuleSet, simulation: SimulationFigures) -> Section:
    rows = []
    for bet in simulation.bets:
        name = MAIN_GAME if bet.key == MAIN else side_bet_name(rules, bet.key)
        exact = "-" if bet.exact is None else _pct(bet.exact)
        inside = {None: "-", True: "yes", False: "NO"}[bet.inside]
        rows.append(
            (
                name,
                _pct(bet.value),
                f"{_pct(bet.low)} to {_pct(bet.high)}",
                f"{bet.rounds:,}",
                exact,
                inside,
            )
        )
    outside = sum(1 for bet in simulation.bets if bet.inside is False)
    verdict = (
        "Every exact figure lies in its 95% interval."
        if outside == 0
        else f"{counted(outside, 'exact figure')} outside its 95% interval (about one in "
        "twenty is expected by chance; rerun with more rounds)."
    )
    return Section(
        "Simulation cross-check",
        (
            f"{counted(simulation.rounds, 'round')} on {counted(simulation.spots, 'spot')}, "
            f"seed {simulation.seed}, each round from a freshly shuffled shoe (the model of the "
            "exact figures), the basic chart on every hand and one unit on every side bet.",
            verdict,
        ),
        (
            Table(
                "Simulated return with its 95% confidence interval",
                ("bet", "simulated", "95% interval", "rounds", "exact", "exact inside"),
                tuple(rows),
            ),
        ),
    )


def _battery(battery: BatteryReport) -> Section:
    rows = tuple(
        (
            result.name,
            f"{result.statistic:,.3f}",
            "" if result.degrees_of_freedom is None else f"{result.degrees_of_freedom:,}",
            f"{result.p_value:.4f}",
            "pass" if result.passed else "FAIL",
        )
        for result in battery.results
    )
    overall = "All tests pass." if battery.passed else "At least one test FAILS."
    return Section(
        "RNG battery",
        (
            f"{counted(battery.shuffles, 'shuffle')} of {_a(battery.decks)} "
            f"{battery.decks}-deck shoe with the "
            "production source (the operating system's cryptographic generator through the "
            f"engine's Fisher-Yates shuffle); a test fails when p < {battery.alpha:g} "
            f"(verdict at {1 - battery.alpha:.0%}). {overall}",
        ),
        (Table("", ("test", "statistic", "df", "p-value", "verdict"), rows),),
    )


def _commitment(rules: RuleSet) -> Section:
    scheme = (
        "At each shuffle the table draws a random salt and publishes the commitment "
        'SHA-256(salt in hex + ":" + the card order), the order written as two-letter card '
        'codes in dealing order ("AS9DTH..."), before any card of the shoe is dealt.',
        "When the shoe is finished the salt and the order are revealed; anyone can recompute "
        "the hash and compare (boundless verify-shoe does it), so the order cannot have been "
        "changed after the commitment.",
    )
    return Section("Shoe commitment", (*fairness_sentences(rules), *scheme))
