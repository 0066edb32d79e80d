"""Collecting a pytest suite in-process, recording what the report needs.

:func:`collect` runs pytest's collection (``--collect-only``, no test runs)
with a small plugin that records, per collected item, its nodeid,
``callspec.params`` and the ``parametrize`` / ``pairwise`` marks that apply to
it.  pytest is imported only when :func:`collect` runs.

Counting from the marks (``from_marks=True``) uses pytest's public hooks only, with
one exception, on purpose:

* the rows: in ``pytest_generate_tests`` each ``parametrize`` mark of a function is
  replaced by a one-row mark in ``metafunc.definition.own_markers`` (the marks of the
  node pytest generates that function's calls from, used for nothing else); the
  function's ``pytestmark`` is never touched (it once was swapped for the time of
  ``pytest_pycollect_makeitem``, which a suite's own hooks could see);
* the exception: while the suite's ``pytest_collection_modifyitems`` hooks run, the
  ``callspec`` of each item that stands for several rows is a proxy that records who
  reads its parameters (:class:`_WatchedCallspec`), restored in a ``finally``.  It must:
  such an item carries its first row only, so a hook that selects rows by their values
  (deselects ``b == "w"``) would be silently over-counted, and nothing public says
  which hook reads which item's parameters; scanning the hooks' source instead would
  miss a helper defined elsewhere, and comparing the items kept misses a hook that
  drops a later row but keeps the first (``tests/report/test_counting_auto.py``).  A
  read sends the report back to pytest's own expansion (``--expand-items``).  The
  objects watched are items of this in-process ``--collect-only`` run, never run.
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from pairwise_param.contract import INVALID_MARK, ROW_MARK_FLAG
from pairwise_param.report.helpers import CiRange, HelperTable, ci_ranges, match_ranges, product_spec

__all__ = ["AuditMark", "CollectedItem", "Collection", "CollectionError", "MarkInfo", "collect", "conftest_error"]

#: The marks that tell the audit what a hand-written list is (registered by the plugin).
CASES_MARK = "pairwise_cases"
OPTIONS_MARK = "pairwise_options"


@dataclass(frozen=True)
class MarkInfo:
    """A ``parametrize`` mark as declared: argument names and rows of values."""

    argnames: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    #: the list names its rows (``ids=`` or ``pytest.param(..., id=)``): a sign of scenarios
    ids: bool = False


@dataclass(frozen=True)
class AuditMark:
    """``@pytest.mark.pairwise_cases(["a,b", ...])`` (kind ``"case"``) or
    ``@pytest.mark.pairwise_options(["a,b", ...], constraints=[...])`` (kind
    ``"option"``): the lists whose names are ``names`` (``None``: every list of the
    test) are case tables / option tables audited against ``constraints``."""

    kind: str
    names: tuple[frozenset[str], ...] | None
    constraints: tuple[Any, ...] = ()

    def applies(self, argnames: Sequence[str]) -> bool:
        return self.names is None or frozenset(argnames) in self.names


def _audit_mark(mark: Any, kind: str) -> AuditMark:
    specs: list[str] = []
    for a in mark.args:
        specs.extend([a] if isinstance(a, str) else [str(x) for x in a])
    names = tuple(frozenset(n.strip() for n in s.split(",") if n.strip()) for s in specs) or None
    constraints = tuple(mark.kwargs.get("constraints", ()))
    return AuditMark(kind, names, constraints)


@dataclass
class CollectedItem:
    """One collected test item, reduced to what the report needs."""

    nodeid: str
    test_id: str  # nodeid without the parameter id: path::Class::function
    path: str
    cls: str | None
    function: str
    params: dict[str, Any]
    #: the item holds an invalid value (``pairwise_invalid`` mark): the negative part of a table
    invalid: bool = False
    #: counting from the marks (``collect(from_marks=True)``): the ``parametrize`` marks this
    #: item stands for, unexpanded (their names are not in ``params``), and how many items
    #: pytest would collect for it: the product of their row counts
    static: tuple[MarkInfo, ...] = ()
    weight: int = 1


@dataclass
class CollectionError:
    """A file or test that failed to collect; ``where`` names it.  ``first``: an
    explanation that makes the numbers of some tests meaningless (the plugin is not
    loaded, a ``unittest.TestCase`` carries ``@pairwise``): shown before them, and
    those tests (``tests``) are left out of the table and its totals."""

    where: str
    message: str
    first: bool = False
    tests: tuple[str, ...] = ()


@dataclass
class Collection:
    """The result of :func:`collect`."""

    items: list[CollectedItem]
    marks: dict[str, tuple[list[MarkInfo], list[Any]]]  # test_id -> (parametrize marks, pairwise specs)
    errors: list[CollectionError]
    pytest_exit: int
    output: str = ""  # what pytest printed (shown on usage errors)
    seconds: float = 0.0
    audit_marks: dict[str, list[AuditMark]] = field(default_factory=dict)  # test_id -> marks
    #: ``collect(from_marks=True)`` could not honour a selection of rows (-k, -m, a
    #: deselecting hook): its numbers are per function; the error says so
    from_marks_lost: bool = False
    #: test_id -> the in-house helper table it uses (:mod:`pairwise_param.report.helpers`)
    helpers: dict[str, HelperTable] = field(default_factory=dict)


def _parameter_set_type() -> type:
    import pytest

    return type(pytest.param(None))


def _mark_info(mark: Any, pset: type) -> MarkInfo | None:
    args = list(mark.args)
    kwargs = dict(mark.kwargs)
    argnames = args[0] if args else kwargs.get("argnames")
    argvalues = args[1] if len(args) > 1 else kwargs.get("argvalues", ())
    if isinstance(argnames, str):
        names = tuple(n.strip() for n in argnames.split(",") if n.strip())
    elif isinstance(argnames, (list, tuple)):
        names = tuple(str(n).strip() for n in argnames)
    else:
        return None
    if not names:
        return None
    rows: list[tuple[Any, ...]] = []
    try:
        values = list(argvalues)
    except TypeError:
        return None
    ids = kwargs.get("ids") is not None
    for v in values:
        if isinstance(v, pset):
            ids = ids or getattr(v, "id", None) is not None
            v = v.values  # type: ignore[attr-defined]
            rows.append(tuple(v))
        elif len(names) == 1:
            rows.append((v,))
        else:
            try:
                rows.append(tuple(v))
            except TypeError:
                rows.append((v,))
    return MarkInfo(names, tuple(rows), ids)


def _short_error(longrepr: str) -> str:
    """The gist of a collection failure: the ``E`` lines of pytest's report, or
    its last non-empty line."""
    lines = [ln.rstrip() for ln in longrepr.splitlines()]
    e_lines = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    if e_lines:
        # the last exception of a chain is the one that matters; keep its lines
        text = " ".join(e_lines[-6:])
    else:
        nonempty = [ln.strip() for ln in lines if ln.strip()]
        text = nonempty[-1] if nonempty else "collection failed"
    return " ".join(text.split())


class _Progress:
    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.files = 0
        self.items = 0
        self.last = 0.0
        self.shown = False

    def update(self, force: bool = False) -> None:
        if self.stream is None:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.1:
            return
        self.last = now
        self.stream.write(f"\rcollecting ... {self.items} items from {self.files} files")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.stream is not None and self.shown:
            self.update(force=True)
            self.stream.write("\n")
            self.stream.flush()


class _FromMarks:
    """The plugin of ``collect(from_marks=True)``: a report that scales with test functions.

    In ``pytest_generate_tests`` (public: ``metafunc.definition`` is the node pytest
    generates a function's calls from, and ``Node.own_markers`` its marks), before
    pytest's own implementation turns the ``parametrize`` marks into calls, each
    ``parametrize`` mark written on the function is replaced, in that definition's own
    marks only, by a one-row mark over the same names (so direct parametrization still
    shadows fixtures, ``indirect=`` still applies and fixture ``params`` still multiply
    as pytest would).  The definition serves this one generation: the items are built
    afresh from the function, whose marks are never touched, so they carry the original
    marks, and :class:`_Collector` reads their rows back through :meth:`counted`: an item
    then stands for the product of those marks' rows.  Marks of classes and modules,
    ``@pairwise`` tests and marks whose rows are not a list are expanded by pytest as usual."""

    def __init__(self) -> None:
        #: (id(function), id(original mark)) -> (the mark, its rows): the marks counted
        #: from their rows (the mark is kept so that its id is never reused)
        self.originals: dict[tuple[int, int], tuple[Any, MarkInfo]] = {}
        self._pset = _parameter_set_type()

    def counted(self, item: Any) -> list[MarkInfo]:
        """The rows of the ``parametrize`` marks of ``item``'s function that were counted
        from their rows (the item carries their first row only)."""
        if not self.originals:
            return []
        function = getattr(item, "function", None)
        key = id(getattr(function, "__func__", function))
        return [self.originals[(key, id(m))][1] for m in item.iter_markers("parametrize")
                if (key, id(m)) in self.originals]

    def _swap(self, mark: Any, function: Any) -> Any:
        import pytest

        if mark.name != "parametrize" or mark.kwargs.get(ROW_MARK_FLAG):
            return mark
        args = list(mark.args)
        values = args[1] if len(args) > 1 else mark.kwargs.get("argvalues")
        if not isinstance(values, (list, tuple)) or len(values) < 2 or "argvalues" in mark.kwargs:
            return mark
        info = _mark_info(mark, self._pset)
        if info is None:
            return mark
        kwargs = {k: v for k, v in mark.kwargs.items() if k != "ids"}
        first = values[0]
        if isinstance(first, self._pset):  # keep the row's values, not its id or marks
            first = pytest.param(*first.values)  # type: ignore[attr-defined]
        one = pytest.mark.parametrize(args[0], [first], **kwargs).mark
        self.originals[(id(function), id(mark))] = (mark, info)
        return one

    @staticmethod
    def _pairwise(marks: Sequence[Any]) -> bool:
        return any(getattr(m, "name", None) == "pairwise" for m in marks)


class _WatchedCallspec:
    """An item's ``callspec`` while the suite's ``pytest_collection_modifyitems`` hooks run,
    counting from the marks: a hook outside pytest and this package that reads the
    parameters of an item standing for many rows decides on its first row only (it may
    deselect other rows by their values), so the read is recorded in ``seen``."""

    _PARAMS = frozenset({"params", "getparam", "id", "indices", "_idlist"})

    def __init__(self, real: Any, seen: list[str]) -> None:
        self._real = real
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        if name in self._PARAMS:
            import sys

            frame = sys._getframe(1)
            while frame.f_code.co_name.startswith("<") and frame.f_back is not None:  # <listcomp>, <genexpr>
                frame = frame.f_back
            code = frame.f_code
            where = code.co_filename.replace("\\", "/")
            if not any(part in where for part in ("/_pytest/", "/pluggy/", "/pairwise_param/")):
                self._seen.append(f"{where}:{code.co_name}")
        return getattr(self._real, name)


def _from_marks_hooks(plugin: _FromMarks, collector: _Collector) -> Any:
    """The hooks of counting from the marks: one-row marks in the definition pytest
    generates a function's calls from, and the suite's hooks watched reading the
    parameters of counted items."""
    import pytest

    class _Wrapper:
        @pytest.hookimpl(wrapper=True, tryfirst=True)
        def pytest_collection_modifyitems(self, items: list[Any]) -> Any:
            seen: list[str] = []
            watched = [(it, it.callspec) for it in collector._counted if hasattr(it, "callspec")]
            for it, real in watched:
                it.callspec = _WatchedCallspec(real, seen)
            try:
                return (yield)
            finally:
                for it, real in watched:
                    it.callspec = real
                collector.hook_reads = sorted(set(seen))

        @pytest.hookimpl(tryfirst=True)
        def pytest_generate_tests(self, metafunc: Any) -> None:
            own = metafunc.definition.own_markers
            if plugin._pairwise(own):
                return
            function = getattr(metafunc.function, "__func__", metafunc.function)
            swapped = [plugin._swap(m, function) for m in own]
            if any(a is not b for a, b in zip(swapped, own)):
                own[:] = swapped  # this definition's marks only: the function's stay as written

    return _Wrapper()


class _Collector:
    """The plugin object handed to ``pytest.main``: it records, runs nothing."""

    def __init__(self, progress: _Progress, from_marks: _FromMarks | None = None) -> None:
        self.from_marks = from_marks
        self._counted: list[Any] = []  # from the marks: the items built that stand for rows
        self.lost = False
        #: counting from the marks: the suite's hooks that read a counted item's parameters
        self.hook_reads: list[str] = []
        self.items: list[CollectedItem] = []
        self.marks: dict[str, tuple[list[MarkInfo], list[Any]]] = {}
        self.audit_marks: dict[str, list[AuditMark]] = {}
        self.helpers: dict[str, HelperTable] = {}
        self._ranges: dict[str, list[CiRange]] = {}  # module name -> its get_ci_test_range lists
        self.errors: list[CollectionError] = []
        self.unittest: list[str] = []  # unittest.TestCase tests carrying @pairwise
        self.progress = progress
        self._pset = _parameter_set_type()

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            where = report.nodeid or str(getattr(report, "fspath", "")) or "<session>"
            text = getattr(report, "longreprtext", "") or str(report.longrepr)
            self.errors.append(CollectionError(where, _short_error(text)))
        elif report.nodeid.endswith(".py"):
            self.progress.files += 1
            self.progress.update()

    def pytest_itemcollected(self, item: Any) -> None:
        weight = 1  # from the marks: the items this one stands for
        if self.from_marks is not None:
            for info in self.from_marks.counted(item):
                weight *= len(info.rows)
            if weight > 1:
                self._counted.append(item)
        self.progress.items += weight
        self.progress.update()

    def pytest_collection_finish(self, session: Any) -> None:
        for item in session.items:
            self._record(item)
        self.progress.done()
        opt = session.config.option
        selected = bool(getattr(opt, "keyword", None)) or bool(getattr(opt, "markexpr", None))
        # --deselect ROW and --lf / --sw name rows by id: counted from the marks a function's one
        # item carries its first row's id, so the rows they name are silently kept (or all lost)
        by_id = bool(getattr(opt, "deselect", None)) or bool(getattr(opt, "lf", False)) or bool(
            getattr(opt, "stepwise", False))
        if self.from_marks is not None and selected:
            self.lost = True
            self.errors.append(CollectionError(
                "<session>",
                "--from-marks with -k / -m: they select test functions by their first row's id, not "
                "rows; run without --from-marks for pytest's own numbers",
            ))
        elif self._counted:
            kept = {id(it) for it in session.items}
            lost = sorted({it.nodeid.split("[")[0] for it in self._counted if id(it) not in kept})
            if lost:
                self.lost = True
                # -k / -m / --deselect or a hook chose among rows: counted from the marks, a
                # function stands for all its rows or none, so its numbers would be wrong
                self.errors.append(CollectionError(
                    "<session>",
                    f"--from-marks: {len(lost)} test function(s) lost items to -k, -m, --deselect or a "
                    f"deselecting hook ({', '.join(lost[:3])}{' ...' if len(lost) > 3 else ''}); counted "
                    "from the marks a function keeps all its rows or none: run without --from-marks for "
                    "pytest's own numbers",
                ))
        if self.from_marks is not None and self.hook_reads and not self.lost:
            self.lost = True
            self.errors.append(CollectionError(
                "<session>",
                f"--from-marks: a pytest_collection_modifyitems hook ({', '.join(self.hook_reads[:3])}) read "
                "the parameters of items that stand for many rows, so it may select rows by their values, "
                "which counting from the marks cannot honour; run without --from-marks for pytest's own numbers",
            ))
        if self.from_marks is not None and by_id and not self.lost:
            self.lost = True
            self.errors.append(CollectionError(
                "<session>",
                "--from-marks with --deselect / --lf / --sw: they select rows by id, which counting from "
                "the marks cannot honour; run without --from-marks for pytest's own numbers",
            ))
        pm = session.config.pluginmanager
        with_pairwise = [t for t, (_, specs) in self.marks.items() if specs]
        if with_pairwise and not pm.has_plugin("pairwise_param"):
            # without the plugin the marks are never expanded: every @pairwise test would be
            # counted as one unparametrized item with 0% coverage, a silent wrong report
            self.errors.append(
                CollectionError(
                    "<session>",
                    "the pairwise-param pytest plugin is not loaded (-p no:pairwise_param?), so no "
                    f"@pairwise table was expanded; the {len(with_pairwise)} @pairwise test(s) are left "
                    "out of this report; remove -p no:pairwise_param",
                    first=True,
                    tests=tuple(with_pairwise),
                )
            )
        elif self.unittest:
            self.errors.append(
                CollectionError(
                    "<session>",
                    f"{', '.join(self.unittest)}: @pairwise on a unittest.TestCase method is never "
                    "expanded (pytest parametrizes no unittest test, with parametrize or @pairwise), so "
                    "these tests are left out of this report; make the class a plain test class "
                    "(no unittest.TestCase base)",
                    first=True,
                    tests=tuple(self.unittest),
                )
            )

    def _record(self, item: Any) -> None:
        nodeid = item.nodeid
        name = getattr(item, "name", "")
        original = getattr(item, "originalname", None) or name.split("[")[0]
        base = nodeid[: len(nodeid) - len(name)] if name and nodeid.endswith(name) else nodeid.split("[")[0]
        test_id = base + original if name and nodeid.endswith(name) else base
        parts = test_id.split("::")
        path = parts[0]
        cls = "::".join(parts[1:-1]) or None
        callspec = getattr(item, "callspec", None)
        params = dict(callspec.params) if callspec is not None else {}
        invalid = item.get_closest_marker(INVALID_MARK) is not None
        static: tuple[MarkInfo, ...] = ()
        weight = 1
        if self.from_marks is not None:
            static = tuple(self.from_marks.counted(item))
            for one in static:
                weight *= len(one.rows)
                for n in one.argnames:
                    params.pop(n, None)
        self.items.append(CollectedItem(nodeid, test_id, path, cls, original, params, invalid, static, weight))
        if test_id not in self.marks:
            marks: list[MarkInfo] = []
            specs: list[Any] = []
            try:
                for m in item.iter_markers("parametrize"):
                    if m.kwargs.get(ROW_MARK_FLAG):
                        continue  # the plugin's one-row mark: the pairwise mark describes the table
                    info = _mark_info(m, self._pset)
                    if info is not None:
                        marks.append(info)
                for m in item.iter_markers("pairwise"):
                    if m.args:
                        specs.append(m.args[0])
                if specs and _is_unittest(item):
                    self.unittest.append(test_id)
                audit = [_audit_mark(m, "case") for m in item.iter_markers(CASES_MARK)]
                audit += [_audit_mark(m, "option") for m in item.iter_markers(OPTIONS_MARK)]
                if audit:
                    self.audit_marks[test_id] = audit
            except (TypeError, ValueError, AttributeError):
                # marks we cannot read: the names are then counted by their observed values
                marks, specs = [], []
            # iter_markers yields closest first; keep declaration order (outermost last) stable
            self.marks[test_id] = (marks, specs)
            helper = self._helper(item, marks)
            if helper is not None:
                self.helpers[test_id] = helper

    def _helper(self, item: Any, marks: list[MarkInfo]) -> HelperTable | None:
        """The in-house helper table of a test (flashinfer's spec, SGLang's CI ranges)."""
        found = product_spec(getattr(item, "function", None))
        module = getattr(item, "module", None)
        if found is not None or not marks or module is None:
            return found
        name = getattr(module, "__name__", "")
        if name not in self._ranges:
            self._ranges[name] = ci_ranges(module)
        ranges = self._ranges[name]
        return match_ranges([(m.argnames, m.rows) for m in reversed(marks)], ranges) if ranges else None


def _is_unittest(item: Any) -> bool:
    import unittest

    cls = getattr(item, "cls", None)
    return isinstance(cls, type) and issubclass(cls, unittest.TestCase)


def conftest_error(output: str) -> CollectionError | None:
    """pytest's "ImportError while loading conftest" (exit 4, before any collection: any
    exception a conftest raises) as a collection error naming the conftest."""
    lines = output.strip().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("ImportError while loading conftest"):
            where = line.split("'")[1] if line.count("'") >= 2 else "conftest.py"
            return CollectionError(where, "error while loading conftest: " + _short_error("\n".join(lines[i + 1 :])))
    return None


def collect(
    paths: Sequence[str] = (),
    pytest_args: Sequence[str] = (),
    *,
    progress: TextIO | None = None,
    rootdir: str | None = None,
    from_marks: bool = False,
) -> Collection:
    """Collect ``paths`` with pytest in-process and return what was found.

    Nothing runs: ``--collect-only``.  pytest's own output is captured (it is
    returned in :attr:`Collection.output`) so the caller decides what to show.
    ``progress``: a stream for a progress line, or ``None``.  ``from_marks``: count the
    rows of the ``parametrize`` marks written on test functions instead of building one
    item per row (:class:`_FromMarks`): the time and memory follow the test functions,
    and each :class:`CollectedItem` carries its ``weight``; a ``-k`` / ``-m`` given to
    pytest then selects functions, not rows.
    """
    import pytest

    prog = _Progress(progress)
    marks_plugin = _FromMarks() if from_marks else None
    collector = _Collector(prog, marks_plugin)
    args = [
        *paths,
        # the report lists tests in the suite's own order, whatever plugins are installed:
        # pytest-randomly would shuffle the collection (a no-op where it is absent)
        "-p",
        "no:randomly",
        # nothing runs, so no assert needs rewriting: rewriting every test module's AST was
        # half of the report's time on flashinfer (a --assert=... after -- still wins)
        "--assert=plain",
        *pytest_args,
        "--collect-only",
        "-qq",
        "--continue-on-collection-errors",
    ]
    if rootdir is not None:
        args += ["--rootdir", rootdir]
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            plugins: list[Any] = [collector]
            if marks_plugin is not None:
                plugins.append(_from_marks_hooks(marks_plugin, collector))
            code = int(pytest.main(args, plugins=plugins))
        except SystemExit as exc:  # argparse inside pytest on bad options
            code = int(exc.code) if isinstance(exc.code, int) else 4
    return Collection(
        items=collector.items,
        marks=collector.marks,
        errors=collector.errors,
        pytest_exit=code,
        output=out.getvalue(),
        seconds=time.perf_counter() - start,
        audit_marks=collector.audit_marks,
        from_marks_lost=collector.lost,
        helpers=collector.helpers,
    )

