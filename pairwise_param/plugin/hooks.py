"""The pytest plugin of pairwise-param (registered through the ``pytest11`` entry point).

Hooks only; the logic lives in :mod:`pairwise_param.plugin.modes` (run-time
options), :mod:`pairwise_param.plugin.expand` (a mark -> parametrize
arguments), :mod:`pairwise_param.tables` (the rows, their ids and their cache)
and :mod:`pairwise_param.decorator` (the mark contract).  At import time this
module imports only pytest, the tiny ``modes`` module and
:mod:`pairwise_param.contract` (the facade
``pairwise_param`` is lazy, so importing it costs one small file): pytest loads
this module in every run, most of which use no pairwise table, and no engine
module is loaded until a table is built (``tests/plugin/test_hooks_import.py``
asserts it).

* ``pytest_generate_tests`` expands each ``pairwise`` mark into ONE
  ``metafunc.parametrize`` over all of its argument names, with the rows of
  the covering table (or of the full product in full mode) as
  ``pytest.param(..., id=...)``.  Model errors, unknown or doubly
  parametrized arguments become a collection error whose text is our message.
* Run-time options: every flag and ini key registered from its one declaration,
  ``modes.RUN_OPTIONS``, and resolved by ``modes.resolve``.  A bad flag or ini
  value is a ``pytest.UsageError`` at start-up naming the option and its choices;
  a bad environment value is a collection error of each ``@pairwise`` test only
  (the environment is shared by every pytest run, most of which use no table).
* A terminal summary line (items, tables, full product, reduction) and a
  list of the t-tuples constraints forbid, per test, once.  Under
  pytest-xdist the workers collect, so each worker sends its numbers through
  ``config.workeroutput`` and the controller reports the first worker's.
* What the rows did (:mod:`pairwise_param.plugin.outcomes`, imported only
  when a table was collected): executed coverage, lost tuples and suspicious
  combinations, in the terminal summary, in ``--pairwise-report=FILE`` and in
  pytest's cache; under xdist each worker sends the outcomes of its items.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import pytest

from pairwise_param.contract import INVALID_FIXTURE, INVALID_MARK, MARK, PLUGIN_FIXTURE
from pairwise_param.plugin import modes

if TYPE_CHECKING:
    from pairwise_param.plugin.expand import Record

_STATE = pytest.StashKey["_State"]()
_WORKER_KEY = "pairwise_param"
_RUN_KEY = "pairwise_param.run"
_ROTATION_KEY = "pairwise_param.rotation"


#: configured pytest sessions of this process with this plugin registered (pytest_configure
#: adds one, pytest_unconfigure takes it back): ``pairwise_param.compat`` reads it through
#: :func:`sessions` to know whether ``@pairwise`` will be expanded
_SESSIONS = [0]


def sessions() -> int:
    """How many pytest sessions of this process have the plugin configured now."""
    return _SESSIONS[0]


class _State:
    """The session's state (a plain class: a dataclass costs about a millisecond
    to define, in every pytest run)."""

    __slots__ = ("collected", "empty", "extra", "mirror", "records", "results", "rows_for", "run", "settings", "shard",
                 "summary", "tables", "use_disk")

    def __init__(self, settings: modes.Settings, use_disk: bool) -> None:
        self.settings = settings
        self.use_disk = use_disk
        self.tables: Any = None  # pairwise_param.tables.cache.TableCache, created on first use
        self.records: dict[str, list[Record]] = {}
        self.empty: dict[str, list[str]] = {}  # test -> its empty axes (a table that is a hole)
        self.summary: dict[str, Any] | None = None
        self.extra: dict[str, list[dict[str, Any]]] | None = None  # --pairwise-extra-rows: test -> requests
        self.run: Any = None  # pairwise_param.plugin.outcomes.Run: tables and what their items did
        self.results: list[Any] | None = None  # the analysed tables (runs.document.RunTable), at session end
        self.rows_for: Any = None  # plugin.rotation.Rotation / Replay: --pairwise-rotate / --pairwise-replay
        self.shard: Any = None  # runs.where.Shard: which shard of how many this run is (None: not sharded)
        self.mirror: Any = None  # runs.where.Mirror: --pairwise-mirror (None: not a mirror job)
        self.collected: int | None = None  # @pairwise items collected before a splitter chose

    def tables_for(self, config: pytest.Config) -> Any:
        """The session's table cache, created on first use (it imports the engine's side)."""
        if self.tables is None:
            from pairwise_param.plugin.outcomes import guarded_cache
            from pairwise_param.tables.cache import TableCache

            # one pack of entries, read once and written once (at session end: flush)
            self.tables = TableCache(guarded_cache(config) if self.use_disk else None, pack=True)
        return self.tables


# -- options -------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    """Every run-time option from its one declaration, ``modes.RUN_OPTIONS``."""
    group = parser.getgroup("pairwise-param", "pairwise-param: covering tables of option axes")
    for option in modes.RUN_OPTIONS:
        if option.flag and option.switch:
            group.addoption(option.flag, dest=option.dest, action="store_true", default=None,
                            help=modes.flag_help(option))
        elif option.flag:
            group.addoption(option.flag, dest=option.dest, default=None, metavar=modes.metavar(option),
                            help=modes.flag_help(option))
        if option.ini_type == "int":
            _add_int_ini(parser, option.ini, modes.ini_help(option))
        elif option.ini_type == "args":
            parser.addini(option.ini, modes.ini_help(option), type="args", default=[])
        elif option.ini:
            parser.addini(option.ini, modes.ini_help(option), default="")


def _add_int_ini(parser: pytest.Parser, name: str, help_text: str) -> None:
    """Register an integer ini key (``pairwise_strength``) so that a native TOML
    integer works on every supported pytest (``pairwise_strength = 3``), as well as a string:

    * pytest >= 9.1 takes the union ``int | str``;
    * pytest 9.0 knows ``"int"`` but no union, and checks native TOML values
      (``[tool.pytest]``) strictly: registered as a string, an int there is an
      INTERNALERROR, so it is registered as ``"int"`` (ini files and ``-o``
      give text, which pytest converts; a bad text is our usage error);
    * pytest 8.x has neither type for this; it turns every value of
      ``[tool.pytest.ini_options]`` into text, so a string option is right.
    """
    kinds: tuple[Any, ...] = (int | str, "int")
    for kind in kinds:
        try:
            parser.addini(name, help_text, type=kind, default=None)
            return
        except Exception:  # noqa: BLE001, S112 - an older pytest rejects the type (AssertionError, TypeError ...)
            continue
    parser.addini(name, help_text, default="")


def _ini_text(config: pytest.Config, option: modes.RunOption) -> str:
    """The ini value as text (``""`` when unset); a native TOML ``0`` stays
    ``"0"`` (an error), never unset.  A value pytest itself refuses (a text
    that is no int where the key is typed ``int``) is a usage error."""
    try:
        value = config.getini(option.ini)
    except (TypeError, ValueError) as exc:
        raise pytest.UsageError(f"pairwise-param: {option.ini} (ini) is not valid: {exc}") from None
    if isinstance(value, list):  # an "args" key: its words
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "pairwise(spec): covering table of option axes, added by @pairwise_param.pairwise "
        "(expanded by the pairwise-param plugin)",
    )
    config.addinivalue_line(
        "markers",
        f"{INVALID_MARK}(axis, value, reason): this row holds the invalid value axis=value "
        "(pairwise_param.invalid); the test should expect the code to reject it",
    )
    config.addinivalue_line(
        "markers",
        "pairwise_cases(names...): the hand-written parametrize lists named (all if none) are case "
        "tables; `pairwise-param report` does not audit them",
    )
    config.addinivalue_line(
        "markers",
        "pairwise_options(names..., constraints=[...]): the lists named (all if none) are option "
        "tables; `pairwise-param report` audits them (against the constraints)",
    )
    try:
        settings = modes.resolve(
            flags={o.name: config.getoption(o.dest) for o in modes.RUN_OPTIONS if o.flag},
            environ=os.environ,
            ini={o.name: _ini_text(config, o) for o in modes.RUN_OPTIONS if o.ini},
            option_value=config.getoption,  # pairwise_full_when's flags (a conftest's --full)
        )
    except modes.ModeError as exc:
        raise pytest.UsageError(f"pairwise-param: {exc}") from None
    use_disk = not settings.no_cache and getattr(config, "cache", None) is not None
    config.stash[_STATE] = state = _State(settings=settings, use_disk=use_disk)
    _SESSIONS[0] += 1  # taken back by pytest_unconfigure, which finds the state
    if settings.shard:
        state.shard = _shard(config, settings.shard)  # said by the user: a bad value fails now
    if settings.extra_rows is not None:
        from pairwise_param.plugin.followup import read_requests

        state.extra = read_requests(settings.extra_rows)
    _rows_for(config, state)


def _shard(config: pytest.Config, given: str | None, usage: bool = True) -> Any:
    """Which shard of how many this run is (``runs/where.py``: --pairwise-shard, the
    splitters' options, the CI's variables).  A bad value is a usage error (``usage``),
    or, read at session end from the CI's variables, a warning: the run file then says
    no shard."""
    options = {dest: config.getoption(dest, None) for dest in ("shard_id", "num_shards", "splits", "group")}
    from pairwise_param.errors import PairwiseError, PairwiseWarning
    from pairwise_param.runs.where import shard

    try:
        return shard(given, options, os.environ)
    except PairwiseError as exc:
        if usage:
            raise pytest.UsageError(f"pairwise-param: {exc}") from None
        import warnings

        warnings.warn(PairwiseWarning(f"the run file says no shard: {exc}"), stacklevel=1)
        return None


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_STATE, None) is not None:
        _SESSIONS[0] -= 1


def _rows_for(config: pytest.Config, state: _State) -> None:
    """``--pairwise-replay`` (wins) or ``--pairwise-rotate``: read what picks the rows,
    here at configure, so the controller and every xdist worker read the same file."""
    replay = state.settings.replay
    if state.settings.mirror:
        if replay is not None or state.settings.rotate:
            raise pytest.UsageError(
                "pairwise-param: --pairwise-mirror runs each mirror job's own table; it does not combine with "
                f"--pairwise-{'replay' if replay is not None else 'rotate'} (give one of them)")
        from pairwise_param.plugin.rotation import Mirror
        from pairwise_param.runs.where import parse_mirror

        state.mirror = parse_mirror(state.settings.mirror, "--pairwise-mirror")
        state.rows_for = Mirror(state.mirror)
        return
    if replay is not None:
        from pairwise_param.plugin.rotation import read_replay

        try:
            state.rows_for = read_replay(str(replay), getattr(config, "cache", None))
        except ValueError as exc:
            raise pytest.UsageError(f"pairwise-param: {exc}") from None
        return
    if not state.settings.rotate:
        return
    from pathlib import Path

    from pairwise_param.plugin.rotation import Rotation, default_history_path

    named = state.settings.history
    path = Path(named) if named else default_history_path(getattr(config, "cache", None))
    if path is not None and not path.is_absolute():
        path = Path(str(config.invocation_params.dir)) / path
    import os

    from pairwise_param.plugin.rotation import build_id

    sharded = any((config.getoption(name, None) or 0) > 1 for name in ("num_shards", "splits"))
    state.rows_for = rotation = Rotation.open(path, _rerun(config), build_id(os.environ, sharded))
    if rotation.problem and not rotation.missing and getattr(config, "workerinput", None) is None:
        from pairwise_param.errors import PairwiseWarning

        why = rotation.problem + (
            "; this run uses the fixed tables and writes a fresh history" if rotation.path else "")
        try:
            config.issue_config_time_warning(PairwiseWarning(f"--pairwise-rotate: {why}"), stacklevel=2)
        except PairwiseWarning as exc:  # -W error / filterwarnings = error
            raise pytest.UsageError(f"pairwise-param: {exc} (a warning, made an error by -W error)") from None


def _rerun(config: pytest.Config) -> frozenset[str]:
    """--lf / --ff / --sw: the tests (node ids without ``[...]``) with a failure in
    pytest's cache to rerun; their tables run the last run's rows again.  Without a
    failure to rerun (or without those options) every table rotates as usual, so the
    options in ``addopts`` do not stop rotation."""
    if not any(config.getoption(name, False) for name in ("lf", "failedfirst", "stepwise")):
        return frozenset()
    cache = getattr(config, "cache", None)
    if cache is None:
        return frozenset()
    failed: list[str] = []
    if config.getoption("lf", False) or config.getoption("failedfirst", False):
        failed += [str(k) for k in (cache.get("cache/lastfailed", {}) or {})]
    if config.getoption("stepwise", False):
        last = cache.get("cache/stepwise", None)
        failed += [last] if isinstance(last, str) else [str(k) for k in (last or {}).values() if isinstance(k, str)]
    return frozenset(nodeid.split("[", 1)[0] for nodeid in failed)


@pytest.fixture(name=PLUGIN_FIXTURE)
def _plugin_fixture() -> None:
    """Requested by every ``@pairwise`` test: proves the plugin is loaded.
    Its name starts with ``_`` so ``pytest --fixtures`` of every project with
    the package installed does not list it (``-v`` does).  It takes no ``request``:
    pytest builds a fixture definition for each ``request`` a fixture asks for, on
    every item (issue 39: the warm GPU job's per-item cost); the unittest check it
    once made is :func:`_refuse_unittest`, in ``pytest_runtest_setup``."""


def _refuse_unittest(item: pytest.Item, cls: type) -> None:
    """A ``unittest.TestCase`` method is never parametrized by pytest, so its table was
    never expanded: say so (it would fail with "missing 2 required positional arguments")."""
    unittest = sys.modules.get("unittest")
    if unittest is not None and issubclass(cls, unittest.TestCase) and item.get_closest_marker(MARK) is not None:
        pytest.fail(
            f"pairwise-param: {item.nodeid}: @pairwise on a unittest.TestCase method is never "
            "expanded (pytest parametrizes no unittest test); make the class a plain test class "
            "(no unittest.TestCase base)",
            pytrace=False,
        )


@pytest.fixture(name=INVALID_FIXTURE)
def _invalid_fixture(request: pytest.FixtureRequest) -> Any:
    """The invalid value this row holds, as a ``pairwise_param.InvalidCase``
    (``.axis``, ``.value``, ``.reason``), or ``None`` when every value is valid::

        def test_op(k, dtype, pairwise_invalid):
            if pairwise_invalid is None:
                check(op(k, dtype))
            else:
                with pytest.raises(ValueError):
                    op(k, dtype)
    """
    mark = request.node.get_closest_marker(INVALID_MARK)
    if mark is None:
        return None
    from pairwise_param.tables.invalid import InvalidCase

    return InvalidCase(**mark.kwargs)


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marks = list(metafunc.definition.iter_markers(MARK))
    if not marks:
        return
    from pairwise_param.errors import PairwiseError
    from pairwise_param.plugin.expand import expand

    state = metafunc.config.stash[_STATE]
    message = None
    try:
        plans, records, empty = expand(
            metafunc, marks, state.settings, state.tables_for(metafunc.config), state.extra, state.rows_for
        )
        if records:  # none: an empty axis made the test one skipped item (no table)
            state.records[metafunc.definition.nodeid] = records
        if empty:
            state.empty[metafunc.definition.nodeid] = empty
    except PairwiseError as exc:
        message = f"pairwise-param: {exc}"
    if message is not None:
        # A CollectError's report is the message itself (a string), not a
        # traceback object: pytest prints exactly our text, and pytest-xdist,
        # which de-duplicates collection errors by their report, shows it once
        # instead of once per worker (pytest.fail(pytrace=False) gave N copies).
        raise pytest.Collector.CollectError(message)
    for argnames, params, indirect in plans:
        metafunc.parametrize(argnames, params, indirect=indirect)


_DESELECTED = "pairwise-param-deselected"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks, and before a splitter chooses
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The @pairwise items collected before a splitter (pytest-shard, pytest-split: they
    choose later) took this shard's part, less those a selection (``-k``, ``-m``) drops
    (counted by ``summary.Deselected`` until the collection ends): a merge of the shards
    counts what never ran.  With ``--pairwise-extra-rows``: keep only the follow-up
    rows, each for the shapes asked (the rest is deselected, as ``-k`` would).  A table with compile axes
    runs variant by variant (:mod:`pairwise_param.plugin.variants`)."""
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    if state.records:
        from pairwise_param.plugin.summary import Deselected, test_base

        state.collected = sum(1 for item in items if test_base(item) in state.records)
        config.pluginmanager.register(Deselected(state.records), _DESELECTED)  # -k / -m come later
    if state.extra is not None:
        from pairwise_param.plugin.followup import select

        keep, drop = select(items, state.records)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    if state.records:
        from pairwise_param.plugin import variants

        if variants.compile_aware(state.records):
            items[:] = variants.group_items(items, state.records, config.pluginmanager.hasplugin("xdist"))


# -- per-row data for CI tools ---------------------------------------------------------
_ROW_SHOWN = pytest.StashKey[bool]()
@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Record the row's axis values where CI tools read them: JUnit XML
    properties (``record_property`` style: ``pairwise.<axis>``) and a report
    section (shown with a failure; in every report's ``sections``), so
    dashboards can group failures by option value.  Once per item (reruns).
    A ``@pairwise`` unittest method errors here (:func:`_refuse_unittest`)."""
    cls = getattr(item, "cls", None)
    if cls is not None:
        _refuse_unittest(item, cls)
    state = item.config.stash.get(_STATE, None)
    if state is None or not state.records or item.stash.get(_ROW_SHOWN, False):
        return  # no @pairwise test in this session: no per-item work
    item.stash[_ROW_SHOWN] = True
    from pairwise_param.plugin.summary import ROW_PROPERTY_PREFIX, ROW_SECTION, row_values

    values = row_values(item, state.records)
    if not values:
        return
    item.user_properties.extend((ROW_PROPERTY_PREFIX + name, text) for name, text in values)
    item.add_report_section("setup", ROW_SECTION, "".join(f"{name} = {text}\n" for name, text in values))


# -- reporting ---------------------------------------------------------------------
def _summarize(items: list[pytest.Item], state: _State) -> dict[str, Any]:
    from pairwise_param.plugin import variants
    from pairwise_param.plugin.summary import summarize

    summary = summarize(items, state.records, state.tables)
    if variants.compile_aware(state.records):
        summary["variants"] = sum(variants.variant_counts(items, state.records).values())
    return summary


def pytest_collection_finish(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is None or not (state.records or state.empty):
        return  # no @pairwise test was collected: do not walk the (maybe huge) item list
    counter = session.config.pluginmanager.get_plugin(_DESELECTED)
    if counter is not None:  # the suite every shard counts: what -k / -m / --lf left of it
        state.collected = counter.finish(session, state.collected)
    if state.records:
        state.summary = _summarize(session.items, state)
    if session.config.getoption("collectonly", False):
        return  # nothing runs, and no run file is written: no item is matched to its row
    from pairwise_param.plugin.outcomes import Run

    # a plugin object for the rest of the session: only now does any hook run per item
    state.run = Run.collect(session.items, state.records, state.empty)
    state.run.collected = state.collected
    if state.run.tracked:
        session.config.pluginmanager.register(state.run, "pairwise-param-outcomes")


def pytest_sessionstart(session: pytest.Session) -> None:
    """pytest-xdist's controller: record the reports forwarded to it, so a crashed
    worker's items keep their outcomes (plugin/outcomes.py)."""
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None or getattr(config, "workerinput", None) is not None:
        return
    if not config.pluginmanager.has_plugin("dsession"):
        return
    from pairwise_param.plugin.outcomes import Run

    state.run = Run()
    state.run.controller = True
    config.pluginmanager.register(state.run, "pairwise-param-outcomes")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is None:
        return
    if state.tables is not None:
        state.tables.flush()  # the tables built this session, into the cache's pack
    workeroutput = getattr(session.config, "workeroutput", None)
    if isinstance(workeroutput, dict):
        if state.summary is not None:
            workeroutput[_WORKER_KEY] = state.summary
        if state.run is not None and (state.run.tracked or state.run.empty):
            workeroutput[_RUN_KEY] = state.run.export()
        if hasattr(state.rows_for, "export"):
            workeroutput[_ROTATION_KEY] = state.rows_for.export()
        return
    if state.run is not None and state.shard is None:
        state.shard = _shard(session.config, state.settings.shard, usage=False)
    if state.run is not None and not session.config.getoption("collectonly", False) and (
            state.run.payloads or state.run.empty or state.shard is not None):  # a shard writes even when empty
        state.run.shard = state.shard
        state.run.mirror = state.mirror
        state.results = state.run.finish(session.config, int(exitstatus))
        if _record_history(session.config, state) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if state.run.raised and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # -W error::...PairwiseWarning asked for it


def _record_history(config: pytest.Config, state: _State) -> bool:
    """``--pairwise-rotate``: add this run's tables to the history (controller only;
    not for a replay / follow-up run, nor the tables --lf ran again).  True when the
    history could not be written and -W error makes that a failure (the terminal
    summary says why either way)."""
    rotation = state.rows_for
    if rotation is None or not hasattr(rotation, "record") or state.extra is not None or not state.results:
        return False
    from pairwise_param.runs.document import table_to_json

    try:
        note = rotation.record([table_to_json(t) for t in state.results])
    except OSError as exc:
        note = f"cannot write the history file {rotation.path}: {exc}; this run is not in the history"
        rotation.notes.append(note)
        import warnings

        from pairwise_param.errors import PairwiseWarning

        try:
            warnings.warn(PairwiseWarning(f"--pairwise-rotate: {note}"), stacklevel=1)
        except PairwiseWarning:  # -W error: the run fails, the summary says why
            return True
        return False
    if note:
        rotation.notes.append(note)
    return False


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist: keep the first worker's numbers (every worker collects the same)."""
    state = node.config.stash.get(_STATE, None)
    output = getattr(node, "workeroutput", {})
    summary = output.get(_WORKER_KEY)
    if state is not None and summary is not None and state.summary is None:
        state.summary = summary
    rotation = output.get(_ROTATION_KEY)
    if state is not None and rotation and hasattr(state.rows_for, "merge"):
        state.rows_for.merge(rotation)
    part = output.get(_RUN_KEY)
    if state is not None and part is not None:
        if state.run is None:
            from pairwise_param.plugin.outcomes import Run

            state.run = Run()
        state.run.merge(part)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or getattr(config, "workerinput", None) is not None:
        return
    verbosity = config.getoption("verbose", 0)
    if verbosity <= -2 or (verbosity < 0 and config.getoption("collectonly", False)):
        return  # -qq asks for the bare minimum; a `--co -q` listing is read line by line by tools
    tr = terminalreporter
    holes = state.run.empty if state.run is not None and state.run.empty else [
        {"test": test, "axes": axes} for test, axes in sorted(state.empty.items())]
    if holes:  # a table that is a hole: pytest shows one skipped item, we say what it lost
        from pairwise_param.runs.text import empty_line

        tr.write_sep("-", "pairwise-param: empty tables (an axis without values: none of the table ran)", yellow=True)
        for entry in holes:
            tr.write_line(empty_line(str(entry["test"]), entry["axes"]), yellow=True)
    rotation = state.rows_for
    if getattr(rotation, "notes", None) is not None:
        lines = list(rotation.notes)
        if rotation.missing and not config.getoption("collectonly", False):
            lines.insert(0, f"no history at {rotation.path} yet: this run used the fixed tables and starts it")
        for text in lines:
            tr.write_line(f"pairwise-param: rotation: {text}", yellow=True)
    if not state.summary or not state.summary["items"]:
        return
    summary = state.summary
    if summary["infeasible"]:
        tr.write_sep("-", "pairwise-param: t-tuples not covered (constraints or collection skips)", yellow=True)
        for base, n, text in summary["infeasible"]:
            tr.write_line(f"{base}: {n} tuple{'s' if n != 1 else ''}: {text}", yellow=True)
    if summary.get("invalid_infeasible"):
        tr.write_sep("-", "pairwise-param: (invalid, valid) pairs forbidden by constraints", yellow=True)
        for base, text in summary["invalid_infeasible"]:
            tr.write_line(f"{base}: {text}", yellow=True)
    from pairwise_param.plugin.summary import summary_line

    if state.results:
        from pairwise_param.plugin.outcomes import terminal_sections

        terminal_sections(tr, state.results, verbosity)
        if state.run.raised:
            tr.write_line(
                "pairwise-param: exit status 1: -W error turns the executed-coverage PairwiseWarning into a failure",
                red=True,
            )
    line = summary_line(summary, modes.mode_why(state.settings))
    if config.getoption("verbose", 0) > 0:
        c = summary["cache"]
        line += f" [tables: {c['built']} built, {c['disk']} from cache, {c['memo']} reused]"
    tr.write_line(line)
