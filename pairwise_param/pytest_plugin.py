"""The pytest plugin of pairwise-param (registered through the ``pytest11`` entry point).

Hooks only; the logic lives in :mod:`pairwise_param.modes` (run-time options),
:mod:`pairwise_param.cache` (tables), :mod:`pairwise_param.ids` (test ids) and
:mod:`pairwise_param.decorator` (the mark contract).  At import time this
module imports only pytest and the tiny ``modes`` module: pytest loads it in
every run, most of which use no pairwise table.

* ``pytest_generate_tests`` expands each ``pairwise`` mark into ONE
  ``metafunc.parametrize`` over all of its argument names, with the rows of
  the covering table (or of the full product in full mode) as
  ``pytest.param(..., id=...)``.  Model errors, unknown or doubly
  parametrized arguments become a collection error whose text is our message.
* Run-time options: ``--pairwise-mode``, ``--pairwise-strength``,
  ``--pairwise-no-cache``; env ``PAIRWISE_MODE`` / ``PAIRWISE_STRENGTH``; ini
  ``pairwise_mode`` / ``pairwise_strength``.  Bad values: ``pytest.UsageError``.
* A terminal summary line (items, tables, full product, reduction) and a
  list of the t-tuples constraints forbid, per test, once.  Under
  pytest-xdist the workers collect, so each worker sends its numbers through
  ``config.workeroutput`` and the controller reports the first worker's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pytest

from pairwise_param import modes

_STATE = pytest.StashKey["_State"]()
_WORKER_KEY = "pairwise_param"
PLUGIN_FIXTURE = "pairwise_param_plugin"  # same as decorator.PLUGIN_FIXTURE (kept import-free)


@dataclass
class _Record:
    """What one ``pairwise`` mark of one test produced."""

    rows: int
    full: int
    strength: int
    mode: str
    infeasible: str = ""
    n_infeasible: int = 0


@dataclass
class _State:
    settings: modes.Settings
    use_disk: bool
    tables: Any = None  # pairwise_param.cache.TableCache, created on first use
    records: dict[str, list[_Record]] = field(default_factory=dict)
    summary: dict[str, Any] | None = None


# -- options -------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pairwise-param", "pairwise-param: covering tables of option axes")
    group.addoption(
        "--pairwise-mode",
        dest="pairwise_mode",
        default=None,
        metavar="cover|full",
        help="cover: run the covering table of each @pairwise test (default); "
        "full: the full product of the same axes minus rows a constraint forbids. "
        f"Env: {modes.ENV_MODE}; ini: pairwise_mode.",
    )
    group.addoption(
        "--pairwise-strength",
        dest="pairwise_strength",
        default=None,
        metavar="N",
        help="strength t of every table (a test's own strength= is a floor; clamped to the "
        f"test's number of axes). Env: {modes.ENV_STRENGTH}; ini: pairwise_strength.",
    )
    group.addoption(
        "--pairwise-no-cache",
        dest="pairwise_no_cache",
        action="store_true",
        default=False,
        help="do not read or write covering tables in pytest's cache directory.",
    )
    parser.addini("pairwise_mode", "pairwise-param mode: cover (default) or full", default="")
    help_strength = "pairwise-param strength t for every table (integer >= 1)"
    try:
        # pytest >= 9.1 checks the types of native TOML config ([tool.pytest]), where
        # `pairwise_strength = 3` is an int: accept it as well as a string
        parser.addini("pairwise_strength", help_strength, type=int | str, default="")
    except Exception:  # noqa: BLE001 - older pytest: only the string tags exist (AssertionError, ...)
        parser.addini("pairwise_strength", help_strength, default="")


def _ini_text(config: pytest.Config, name: str) -> str:
    """The ini value as text; a native TOML ``0`` stays ``"0"`` (an error), never unset."""
    value = config.getini(name)
    return "" if value is None else str(value)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "pairwise(spec): covering table of option axes, added by @pairwise_param.pairwise "
        "(expanded by the pairwise-param plugin)",
    )
    try:
        settings = modes.resolve(
            flag_mode=config.getoption("pairwise_mode"),
            flag_strength=config.getoption("pairwise_strength"),
            environ=os.environ,
            ini_mode=_ini_text(config, "pairwise_mode"),
            ini_strength=_ini_text(config, "pairwise_strength"),
        )
    except modes.ModeError as exc:
        raise pytest.UsageError(f"pairwise-param: {exc}") from None
    use_disk = not config.getoption("pairwise_no_cache") and getattr(config, "cache", None) is not None
    config.stash[_STATE] = _State(settings=settings, use_disk=use_disk)


@pytest.fixture
def pairwise_param_plugin() -> None:
    """Requested by every ``@pairwise`` test: proves the plugin is loaded."""
    return


# -- expansion -------------------------------------------------------------------
def _parametrized_names(metafunc: pytest.Metafunc) -> set[str]:
    names: set[str] = set()
    for mark in metafunc.definition.iter_markers("parametrize"):
        argnames = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
        if isinstance(argnames, str):
            names.update(n.strip() for n in argnames.split(",") if n.strip())
        else:
            names.update(str(n) for n in argnames)
    return names


def _signature_info(metafunc: pytest.Metafunc) -> tuple[list[str], set[str]]:
    """(argument names shown in messages, names that have a default value)."""
    import inspect

    try:
        params = list(inspect.signature(metafunc.function).parameters.values())
    except (TypeError, ValueError):
        return [], set()
    if metafunc.cls is not None and params and params[0].name in ("self", "cls"):
        params = params[1:]
    shown = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    defaults = {p.name for p in params if p.default is not p.empty}
    return shown, defaults


def _given_names(metafunc: pytest.Metafunc) -> set[str]:
    """Arguments a Hypothesis ``@given`` draws (they vanish from the test's
    signature, so pytest cannot parametrize them).  No Hypothesis import: the
    handle ``@given`` attaches is read duck-typed."""
    import inspect

    inner = getattr(getattr(metafunc.function, "hypothesis", None), "inner_test", None)
    if inner is None:
        return set()
    try:
        outer = set(inspect.signature(metafunc.function).parameters)
        return set(inspect.signature(inner).parameters) - outer
    except (TypeError, ValueError):
        return set()


def _expand(
    metafunc: pytest.Metafunc, marks: list[Any], state: _State
) -> list[tuple[list[str], list[Any], Any]]:
    from pairwise_param.cache import TableCache
    from pairwise_param.decorator import PairwiseSpec
    from pairwise_param.errors import AxisCollision, InvalidArgument
    from pairwise_param.ids import row_ids, with_value_ids

    nodeid = metafunc.definition.nodeid
    if state.tables is None:
        state.tables = TableCache(metafunc.config.cache if state.use_disk else None)
    elsewhere = _parametrized_names(metafunc)
    shown, defaults = _signature_info(metafunc)
    seen: dict[str, int] = {}
    plans = []
    records = []
    specs = []
    for k, mark in enumerate(marks):
        spec = mark.args[0] if mark.args else None
        if not isinstance(spec, PairwiseSpec) or len(mark.args) != 1 or mark.kwargs:
            raise InvalidArgument(
                "the 'pairwise' mark takes one PairwiseSpec; apply it with @pairwise(...) from "
                "pairwise_param, not @pytest.mark.pairwise(...)",
                where=nodeid,
            )
        argnames = list(spec.argnames)
        for name in argnames:
            if name in seen:
                raise AxisCollision(
                    f"argument {name!r} is an axis of two @pairwise tables on this test; "
                    "each argument may belong to one table only (merge them into one @pairwise)",
                    where=nodeid,
                )
            seen[name] = k
            if name in elsewhere:
                raise AxisCollision(
                    f"axis {name!r} of @pairwise is also parametrized by @pytest.mark.parametrize; "
                    "give it in one place only (an axis of the table, or a parametrize of its own)",
                    where=nodeid,
                )
            indirect = spec.indirect is True or (not isinstance(spec.indirect, bool) and name in spec.indirect)
            known = getattr(metafunc, "_arg2fixturedefs", None)
            if indirect and name in metafunc.fixturenames and isinstance(known, dict) and name not in known:
                # pytest would only fail at set-up, once per item: "fixture 'x' not found"
                raise AxisCollision(
                    f"axis {name!r} of @pairwise is indirect, but there is no fixture {name!r} to receive "
                    "its values as request.param; define the fixture, or leave the axis out of "
                    "indirect= to pass its values directly",
                    where=nodeid,
                )
            if name not in metafunc.fixturenames:
                if name in defaults:
                    why = "has a default value (pytest cannot pass it); remove the default"
                elif indirect:
                    why = (
                        f"is indirect, but the test uses no fixture {name!r}; request the fixture "
                        "(argument or usefixtures) or drop it from indirect="
                    )
                elif name in _given_names(metafunc):
                    why = (
                        "is also an argument of @given (Hypothesis draws it, so pytest cannot pass it); "
                        "give it in one place only: an axis of the table, or a strategy of @given"
                    )
                else:
                    args = ", ".join(shown) if shown else "none"
                    why = (
                        f"is not an argument of the test (its arguments: {args}); add {name!r} "
                        "to the signature, or make it a fixture and list it in indirect="
                    )
                raise AxisCollision(f"axis {name!r} of @pairwise {why}", where=nodeid)
        specs.append((spec, argnames))
    for spec, argnames in specs:
        mode, strength = modes.effective(state.settings, spec.mode, spec.strength, len(spec.axes))
        model = spec.model(nodeid, strength=strength)
        table = state.tables.get(model, mode, spec.effort, spec.seed)
        # values given as pytest.param(value, marks=..., id=...): model axes are in spec order
        value_params = getattr(spec, "value_params", None) or {}
        extra = [value_params.get(name, {}) for name in spec.axes]
        try:
            ids = row_ids(
                [(a.names, a.values) for a in model.axes], table.rows, with_value_ids(spec.ids, model, extra)
            )
        except Exception as exc:  # noqa: BLE001 - a user's id function may raise anything
            raise InvalidArgument(f"an ids= function of @pairwise raised {exc!r}", where=nodeid) from None
        params = []
        for row, rid in zip(table.rows, ids):
            values = model.decode(row)
            row_marks = [m for a, v in enumerate(row) if v in extra[a] for m in extra[a][v][0]]
            params.append(pytest.param(*(values[n] for n in argnames), id=rid, marks=row_marks))
        plans.append((argnames, params, spec.indirect))
        records.append(
            _Record(
                rows=len(table.rows),
                full=table.full_count,
                strength=model.strength,
                mode=mode,
                infeasible=table.describe_infeasible(model) if mode == "cover" and table.infeasible else "",
                n_infeasible=len(table.infeasible) if mode == "cover" else 0,
            )
        )
    state.records[nodeid] = records
    return plans


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marks = list(metafunc.definition.iter_markers("pairwise"))
    if not marks:
        return
    from pairwise_param.errors import PairwiseError

    state = metafunc.config.stash[_STATE]
    message = None
    try:
        plans = _expand(metafunc, marks, state)
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


# -- reporting ---------------------------------------------------------------------
def _summarize(items: list[pytest.Item], state: _State) -> dict[str, Any]:
    per_test: dict[str, int] = {}
    for item in items:
        name = getattr(item, "originalname", None)
        parent = item.parent
        if name is None or parent is None:
            continue
        base = f"{parent.nodeid}::{name}"
        if base in state.records:
            per_test[base] = per_test.get(base, 0) + 1
    n_items = 0
    n_tables = 0
    stand_for = 0.0
    strengths: set[int] = set()
    modes_used: set[str] = set()
    infeasible: list[list[Any]] = []
    for base, count in per_test.items():
        recs = state.records[base]
        factor = 1.0
        for r in recs:
            factor *= r.full / r.rows
            strengths.add(r.strength)
            modes_used.add(r.mode)
            if r.infeasible:
                infeasible.append([base, r.n_infeasible, r.infeasible])
        n_items += count
        n_tables += len(recs)
        stand_for += count * factor
    stats = dict(state.tables.stats) if state.tables is not None else {"built": 0, "disk": 0, "memo": 0}
    return {
        "items": n_items,
        "tables": n_tables,
        "full": round(stand_for),
        "strengths": sorted(strengths),
        "modes": sorted(modes_used),
        "infeasible": infeasible,
        "cache": stats,
    }


def pytest_collection_finish(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is None:
        return
    state.summary = _summarize(session.items, state)


def pytest_sessionfinish(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    workeroutput = getattr(session.config, "workeroutput", None)
    if state is not None and state.summary is not None and isinstance(workeroutput, dict):
        workeroutput[_WORKER_KEY] = state.summary


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist: keep the first worker's numbers (every worker collects the same)."""
    state = node.config.stash.get(_STATE, None)
    summary = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
    if state is not None and summary is not None and state.summary is None:
        state.summary = summary


def summary_line(summary: dict[str, Any]) -> str:
    items, full = summary["items"], summary["full"]
    ts = summary["strengths"]
    t = f"t={ts[0]}" if len(ts) == 1 else f"t={ts[0]}..{ts[-1]}"
    mode = "" if summary["modes"] == ["cover"] else f", mode={'+'.join(summary['modes'])}"
    ratio = full / items if items else 1.0
    tables = summary["tables"]
    return (
        f"pairwise-param: {items} item{'s' if items != 1 else ''} from {tables} table{'s' if tables != 1 else ''} "
        f"stand for {full} full-product items ({ratio:.1f}x fewer), {t}{mode}"
    )


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or not state.summary or not state.summary["items"]:
        return
    if getattr(config, "workerinput", None) is not None:
        return
    summary = state.summary
    tr = terminalreporter
    if summary["infeasible"]:
        tr.write_sep("-", "pairwise-param: t-tuples forbidden by constraints (not covered)", yellow=True)
        for base, n, text in summary["infeasible"]:
            tr.write_line(f"{base}: {n} tuple{'s' if n != 1 else ''}: {text}", yellow=True)
    line = summary_line(summary)
    if config.getoption("verbose", 0) > 0:
        c = summary["cache"]
        line += f" [tables: {c['built']} built, {c['disk']} from cache, {c['memo']} reused]"
    tr.write_line(line)
