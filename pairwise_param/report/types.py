"""The report's result types: per strength, per option table, per test, per suite.

Plain data with a few derived numbers; :mod:`pairwise_param.report.analyze`
builds them, :mod:`pairwise_param.report.render` turns them into text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pairwise_param.coverage.reach import Reach, gated
from pairwise_param.model import Model
from pairwise_param.report.collect import CollectionError

__all__ = ["AxisReport", "StrengthCoverage", "SuiteReport", "TableReport", "TestReport", "Totals", "Variants", "WithPairwise"]



def ratio(full: int, rows: int) -> float:
    """``full / rows`` as a float (inf for no rows, and past the largest float, 1.8e308:
    a 3^700 product; the text columns use
    :func:`pairwise_param.tables.product.reduction_text`, exact at any size)."""
    if not rows:
        return math.inf
    try:
        return full / rows
    except OverflowError:
        return math.inf

@dataclass
class StrengthCoverage:
    """t-way coverage of one option table at one strength."""

    strength: int
    coverable: int
    covered: int
    infeasible: int
    missing_tuples: list[dict[str, str]] = field(default_factory=list)
    infeasible_tuples: list[dict[str, str]] = field(default_factory=list)
    cumulative: list[int] = field(default_factory=list)  # covered count after each row
    label: str | None = None  # the model's own mixed interactions: "t=2 + {a,b,c}@3"
    #: tuples only values skipped at collection hold (not runnable here; in ``coverable`` and
    #: ``missing_tuples`` only under --strict-platform), their texts and the values' reasons
    unrunnable: int = 0
    unrunnable_tuples: list[dict[str, str]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    strict: bool = False  # --strict-platform: the unrunnable tuples are counted as missing

    @property
    def missing(self) -> int:
        return self.coverable - self.covered

    @property
    def percent(self) -> float:
        return 100.0 if self.coverable == 0 else 100.0 * self.covered / self.coverable

    @property
    def complete(self) -> bool:
        return self.covered >= self.coverable

    @property
    def reach(self) -> Reach:
        """The one model of what the table covers here (:mod:`pairwise_param.coverage.reach`)."""
        runnable = self.coverable - (self.unrunnable if self.strict else 0)
        return Reach(self.strength, runnable, self.covered, self.unrunnable, tuple(self.reasons))


@dataclass(frozen=True)
class Variants:
    """Kernel variants of a compile-aware table (``compile_axes=``): collected, the plain
    (not compile-aware) table's, and the full product's."""

    collected: int
    plain: int
    full: int


@dataclass
class TableReport:
    """One option table of a test: its axes, full product and coverage."""

    source: str  # "pairwise" | "parametrize" | "option-axes" | "parametrize_product" | "get_ci_test_range"
    axes: tuple[str, ...]
    sizes: tuple[int, ...]
    full_product: int
    rows: int  # distinct option rows among the collected items
    violating_rows: int
    coverage: list[StrengthCoverage]
    outside_rows: int = 0  # rows with a value the model does not have
    #: coverage of the model's own interactions when it has sub-models (its promise)
    model_coverage: StrengthCoverage | None = None
    model: Model | None = field(default=None, repr=False, compare=False)
    #: distinct rows holding an invalid value (a @pairwise table's negative part): not in ``rows``
    #: nor in the coverage, which measure the valid part
    invalid_rows: int = 0
    #: False when ``full_product`` is only an upper bound (:class:`pairwise_param.tables.product.Count`)
    full_exact: bool = True
    #: ``"option"``, or ``"uncertain"``: a hand-written list the audit's rule cannot place
    #: (:func:`pairwise_param.report.classify.classify`): shown, counted by its rows in FULL,
    #: left out of the totals and of ``--fail-under`` (``pairwise_options`` makes it an option table)
    verdict: str = "option"
    verdict_reason: str = ""
    #: the table's axes without values: a hole (no row; the gate fails it, naming them)
    empty_axes: tuple[str, ...] = ()
    #: with ``compile_axes=``: the kernel variants (distinct rows on the compile axes) the
    #: collected rows compile, the plain table's and the full product's; None without
    variants: Variants | None = None

    @property
    def gated(self) -> bool:
        """An option table: in the totals and under ``--fail-under`` (not uncertain)."""
        return self.verdict != "uncertain"

    @property
    def built_strength(self) -> int:
        """The strength the table was built for (the gate's default)."""
        return self.model.strength if self.model is not None else min(2, len(self.axes))

    def reach(self, c: StrengthCoverage) -> Reach:
        """The table at ``c``'s strength, empty axes included."""
        r = c.reach
        return Reach(r.strength, r.runnable, r.covered, r.unrunnable, r.reasons, self.empty_axes)

    def at(self, strength: int) -> StrengthCoverage | None:
        for c in self.coverage:
            if c.strength == strength:
                return c
        return None


@dataclass
class AxisReport:
    """One parametrized axis of a test."""

    name: str  # "dtype" or grouped "n,k,m"
    kind: str  # "option" | "grouped" | "axis"
    size: int  # values (option, axis) or rows (grouped)
    source: str  # "pairwise" | "parametrize" | "observed"
    table: int | None = None  # index into TestReport.tables for option axes


@dataclass
class WithPairwise:
    """The items a test would collect if its stacked option axes went through
    ``@pairwise`` (strength 2), the other axes kept as they are."""

    axes: tuple[str, ...]
    rows: int  # covering rows of the option axes
    product: int  # their full product today
    items: int  # the test's full product with the product replaced by the rows
    #: the axes ``pairwise-param convert --options`` needs (the split is unsure of some
    #: of them: ``report/whatif.axis_kind``); empty: ``convert`` alone converts the test
    convert_options: tuple[str, ...] = ()
    #: ``convert`` needs ``--reorder``: some of the axes sit above a shape ``parametrize``
    #: (converting them changes the order of the node id parts)
    convert_reorder: bool = False
    #: the items ``convert --reorder`` would reach where the default keeps the node ids
    #: (options above a shape ``parametrize`` stay); None unless fewer than ``items``
    items_reorder: int | None = None


@dataclass
class TestReport:
    """Per test function: axes, counts, tables and their coverage."""

    __test__ = False  # not a pytest test class

    test_id: str
    path: str
    cls: str | None
    function: str
    axes: list[AxisReport]
    tables: list[TableReport]
    full_product: int
    collected: int
    notes: list[str] = field(default_factory=list)
    #: what ``@pairwise`` over the stacked option axes would collect (None: nothing to gain)
    with_pairwise: WithPairwise | None = None
    #: hand-written multi-name lists the audit took as case tables (one grouped axis each)
    case_tables: int = 0

    @property
    def pairwise(self) -> bool:
        return any(t.source == "pairwise" for t in self.tables)

    @property
    def full_exact(self) -> bool:
        """False when some table's count is an upper bound: ``full_product`` is then one too."""
        return all(t.full_exact for t in self.tables)

    @property
    def reduction(self) -> float:
        return ratio(self.full_product, self.collected)

    def coverage(self, strength: int) -> StrengthCoverage | None:
        """The option table with the lowest coverage at ``strength`` (None: no option
        table has ``strength`` axes or more; uncertain tables: :meth:`uncertain_coverage`)."""
        found = [c for t in self.tables if t.gated and (c := t.at(strength)) is not None]
        if not found:
            return None
        return min(found, key=lambda c: (c.percent, -c.missing))

    def uncertain_coverage(self, strength: int) -> StrengthCoverage | None:
        """The uncertain table with the lowest coverage at ``strength`` (None: none)."""
        found = [c for t in self.tables if not t.gated and (c := t.at(strength)) is not None]
        return min(found, key=lambda c: (c.percent, -c.missing)) if found else None


@dataclass
class Totals:
    tests: int
    full_product: int
    collected: int
    coverage: dict[int, tuple[int, int]]  # strength -> (covered, coverable) summed over tables
    min_percent: dict[int, float | None]
    full_exact: bool = True  # False: some test's full product is an upper bound
    option_tables: int = 0  # tables in the coverage totals (@pairwise and audited option tables)
    case_tables: int = 0  # hand-written lists taken as case tables (rows counted, never audited)
    uncertain_tables: int = 0  # lists the rule cannot place: shown, not in totals nor the gate

    @property
    def reduction(self) -> float:
        return ratio(self.full_product, self.collected)

    def percent(self, strength: int) -> float | None:
        cov, total = self.coverage.get(strength, (0, 0))
        if strength not in self.coverage:
            return None
        return 100.0 if total == 0 else 100.0 * cov / total


@dataclass
class SuiteReport:
    tests: list[TestReport]
    errors: list[CollectionError]
    strengths: tuple[int, ...]
    unparametrized: int
    collected_items: int
    fail_under: float | None = None
    seconds: float = 0.0
    #: --strict-platform: tuples not runnable here count as missing
    strict_platform: bool = False
    #: --strength as the user gave it (None: each table is gated at the strength it was built for)
    gate_strengths: tuple[int, ...] | None = None

    @property
    def totals(self) -> Totals:
        cov: dict[int, tuple[int, int]] = {}
        mins: dict[int, float | None] = {}
        for t in self.strengths:
            covered = coverable = 0
            lowest: float | None = None
            any_table = False
            for test in self.tests:
                for table in test.tables:
                    c = table.at(t) if table.gated else None
                    if c is None:
                        continue
                    any_table = True
                    covered += c.covered
                    coverable += c.coverable
                    lowest = c.percent if lowest is None else min(lowest, c.percent)
            if any_table:
                cov[t] = (covered, coverable)
            mins[t] = lowest
        return Totals(
            tests=len(self.tests),
            full_product=sum(t.full_product for t in self.tests),
            collected=sum(t.collected for t in self.tests),
            coverage=cov,
            min_percent=mins,
            full_exact=all(t.full_exact for t in self.tests),
            option_tables=sum(tb.gated for t in self.tests for tb in t.tables),
            case_tables=sum(t.case_tables for t in self.tests),
            uncertain_tables=sum(not tb.gated for t in self.tests for tb in t.tables),
        )

    def below(self, fail_under: float) -> list[tuple[TestReport, TableReport, StrengthCoverage]]:
        """Every (test, option table, coverage) below ``fail_under`` percent (uncertain
        tables never fail the gate)."""
        return [(test, table, c) for test in self.tests for table, c in self.test_below(test, fail_under)]

    def test_below(self, test: TestReport, fail_under: float) -> list[tuple[TableReport, StrengthCoverage]]:
        """The (table, coverage) pairs of ``test`` that the gate fails: each table at the
        strength it was built for (or ``gate_strengths``), its runnable tuples (all of them
        under ``strict_platform``); an empty table always (:class:`~pairwise_param.coverage.reach.Reach`)."""
        out = []
        for table in test.tables:
            if table.empty_axes:
                out.append((table, StrengthCoverage(min(self.strengths, default=2), 0, 0, 0)))
                continue
            if not table.gated:  # an uncertain table never fails the gate
                continue
            held = gated(self.strengths, table.built_strength, self.gate_strengths)
            for c in table.coverage:
                if c.strength in held and table.reach(c).below(fail_under, self.strict_platform):
                    out.append((table, c))
        return out

    def find(self, name: str) -> list[TestReport]:
        """Tests matching ``name``: the exact id, else ids ending in
        ``::name`` or functions named ``name``, else ids containing ``name``."""
        exact = [t for t in self.tests if t.test_id == name]
        if exact:
            return exact
        suffix = [t for t in self.tests if t.test_id.endswith("::" + name) or t.function == name]
        if suffix:
            return suffix
        return [t for t in self.tests if name in t.test_id]

