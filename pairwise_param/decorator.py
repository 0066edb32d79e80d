"""``@pairwise``: declare a covering table over a test's option axes.

Usage::

    @pairwise(dtype=[torch.float16, torch.bfloat16], padded_a=[False, True],
              bias_mode=[0, 1, 2], xnorm=[False, True])
    @pytest.mark.parametrize("n", N_FACTORS)        # shapes stay a full product
    def test_kernel(n, dtype, padded_a, bias_mode, xnorm): ...

Axes are keyword arguments; a positional mapping takes axes whose names are
not identifiers or collide with an option name, and grouped axes
(``{"n,k,m": [(1, 64, 128), ...]}``).  Mapping axes come first, then keyword
axes, each in the order written.  Options are keyword-only and reserved:
``strength, sub_models, constraints, include, mode, effort, seed, ids,
indirect`` (see :func:`pairwise`).

The mark contract (stable, read by the plugin and by ``pairwise-param``'s CLI)
------------------------------------------------------------------------------
The decorator attaches exactly ONE mark, ``pytest.mark.pairwise(spec)``, where
``spec = mark.args[0]`` is a frozen :class:`PairwiseSpec`:

* ``spec.axes``: read-only ordered mapping axis name (``"dtype"`` or grouped
  ``"n,k,m"``) -> tuple of values; ``spec.argnames``: the bound argument
  names, grouped axes flattened;
* ``spec.strength`` (``None`` = default 2), ``spec.sub_models``,
  ``spec.constraints``, ``spec.include``, ``spec.mode`` (``None``, ``"cover"``
  or ``"full"``), ``spec.effort``, ``spec.seed``, ``spec.ids``,
  ``spec.indirect``; ``spec.value_params``: axis name -> {value position:
  (marks, id)} for values written ``pytest.param(value, marks=..., id=...)``
  (``spec.axes`` holds the bare values);
* ``spec.model(where, strength=None)`` -> the validated
  :class:`~pairwise_param.model.Model` (``where``: the test's nodeid, named in
  every error; ``strength`` overrides the spec's).

Read it with ``for mark in item.iter_markers("pairwise"): spec = mark.args[0]``.
A test may carry several ``pairwise`` marks (stacked decorators, or one on the
class and one on the method): their tables multiply, and they must not share
an argument name.

It also adds ``pytest.mark.usefixtures("pairwise_param_plugin")``: the plugin
defines that (empty) fixture, so a run without the plugin
(``-p no:pairwise_param``) fails loudly with "fixture 'pairwise_param_plugin'
not found" instead of silently running nothing (with ``--strict-markers`` the
unknown ``pairwise`` mark fails collection already).

Option misuse (a reserved name used as an axis, a wrong type) raises
:class:`~pairwise_param.errors.InvalidArgument` at decoration time, naming the
test; everything about the model itself (values, constraints, include rows,
strength range) is checked when the plugin expands the mark during
collection, so it is reported as a collection error of that test.

Nothing here imports pytest at import time (``pairwise_param`` must import
without it); the decorator imports it when applied.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from pairwise_param.errors import DuplicateAxis, InvalidArgument
from pairwise_param.model import Model

__all__ = ["PLUGIN_FIXTURE", "RESERVED", "PairwiseSpec", "pairwise"]

#: Option names of ``@pairwise``; an axis with one of these names goes in the mapping.
RESERVED = ("strength", "sub_models", "constraints", "include", "mode", "effort", "seed", "ids", "indirect")

#: Fixture defined by the plugin and requested by every decorated test.
PLUGIN_FIXTURE = "pairwise_param_plugin"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, eq=False)
class PairwiseSpec:
    """Everything ``@pairwise`` was given, frozen; see the module docstring."""

    axes: Mapping[str, Any]
    strength: int | None = None
    sub_models: tuple[tuple[Any, int], ...] = ()
    constraints: tuple[Callable[..., Any], ...] = ()
    include: tuple[Mapping[str, Any], ...] = ()
    mode: str | None = None
    effort: int = 0
    seed: int = 0
    ids: Any = None
    indirect: bool | tuple[str, ...] = False
    #: axis name -> {value position: (marks, id)} for values given as ``pytest.param(value,
    #: marks=..., id=...)``; ``axes`` holds the bare values.
    value_params: Mapping[str, Mapping[int, tuple[tuple[Any, ...], str | None]]] = field(
        default_factory=lambda: MappingProxyType({})
    )

    @property
    def argnames(self) -> tuple[str, ...]:
        """Bound argument names in axis order (grouped axes flattened)."""
        return tuple(n.strip() for name in self.axes for n in name.split(","))

    def model(self, where: str | None = None, *, strength: int | None = None) -> Model:
        """Build (and thereby validate) the model; ``strength`` overrides the
        spec's.  With neither, the strength is 2 (1 for a single-axis table)."""
        t = strength if strength is not None else self.strength
        if t is None:
            t = min(2, len(self.axes))
        return Model(
            dict(self.axes),
            strength=t,
            constraints=self.constraints,
            include=self.include,
            sub_models=self.sub_models,
            where=where,
        )

    def __repr__(self) -> str:
        axes = ", ".join(f"{k}[{len(v) if isinstance(v, tuple) else '?'}]" for k, v in self.axes.items())
        opts = [f"strength={self.strength}"] if self.strength is not None else []
        if self.mode is not None:
            opts.append(f"mode={self.mode!r}")
        return f"PairwiseSpec({', '.join([axes, *opts])})"


def _axis_hint(name: str, value: Any) -> str:
    return (
        f"{name!r} is an option of @pairwise, not an axis, and {name}={value!r} is not a valid "
        f"value for it. To use an axis named {name!r}, pass it in the mapping: "
        f"@pairwise({{{name!r}: {value!r}}}, ...)"
    )


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _freeze_values(values: Any) -> Any:
    """Tuple of the values; strings/mappings/non-iterables are kept so the
    model reports them with its own message."""
    if isinstance(values, (str, bytes, Mapping)):
        return values
    try:
        return tuple(values)
    except TypeError:
        return values


def _unwrap_params(name: str, values: Any) -> tuple[Any, dict[int, tuple[tuple[Any, ...], str | None]]]:
    """Split ``pytest.param(value, marks=..., id=...)`` entries of an axis into the
    bare value and its (marks, id).  A grouped axis takes ``pytest.param(1, 64, 128)``
    (or ``pytest.param((1, 64, 128))``).  Detected by shape (pytest's ParameterSet is a
    NamedTuple ``values, marks, id``), so pytest is not imported here."""
    if not isinstance(values, tuple):
        return values, {}
    out: list[Any] = []
    extra: dict[int, tuple[tuple[Any, ...], str | None]] = {}
    grouped = "," in name
    for pos, v in enumerate(values):
        if type(v).__name__ == "ParameterSet" and hasattr(v, "marks") and hasattr(v, "values"):
            inner = tuple(v.values)
            if len(inner) == 1 and not (grouped and not isinstance(inner[0], tuple)):
                value = inner[0]
            elif grouped:
                value = inner
            else:
                raise InvalidArgument(
                    f"axis {name!r}: pytest.param{inner!r} gives {len(inner)} values; a value of a "
                    "single-name axis is pytest.param(value, marks=..., id=...)"
                )
            if v.id is not None and grouped:
                raise InvalidArgument(
                    f"axis {name!r}: id= of pytest.param is not supported on a grouped axis; use "
                    "ids={part name: fn} of @pairwise"
                )
            out.append(value)
            extra[pos] = (tuple(v.marks), None if v.id is None else str(v.id))
        else:
            out.append(v)
    return tuple(out), extra


def _check_options(
    where: str,
    axes: Mapping[str, Any],
    *,
    strength: Any,
    sub_models: Any,
    constraints: Any,
    include: Any,
    mode: Any,
    effort: Any,
    seed: Any,
    ids: Any,
    indirect: Any,
) -> dict[str, Any]:
    __tracebackhide__ = True

    def bad(name: str, value: Any) -> InvalidArgument:
        return InvalidArgument(_axis_hint(name, value), where=where)

    if strength is not None and not _is_int(strength):
        raise bad("strength", strength)
    if mode is not None and mode not in ("cover", "full"):
        if isinstance(mode, str):
            raise InvalidArgument(f"mode={mode!r} is not a mode; use 'cover' or 'full'", where=where)
        raise bad("mode", mode)
    if not _is_int(effort) or effort < 0:
        if _is_int(effort):
            raise InvalidArgument(f"effort={effort!r} must be an int >= 0", where=where)
        raise bad("effort", effort)
    if not _is_int(seed):
        raise bad("seed", seed)
    if callable(constraints) or isinstance(constraints, (str, Mapping)):
        raise InvalidArgument(
            f"constraints={constraints!r} must be a list of predicates, e.g. constraints=[lambda a, b: ...]",
            where=where,
        )
    try:
        cons = tuple(constraints)
    except TypeError:
        raise bad("constraints", constraints) from None
    if any(not callable(c) for c in cons):
        raise bad("constraints", constraints)
    if isinstance(include, Mapping):
        include = [include]
    try:
        inc = tuple(include)
    except TypeError:
        raise bad("include", include) from None
    if any(not isinstance(r, Mapping) for r in inc):
        raise bad("include", include)
    try:
        subs = tuple(sub_models)
    except TypeError:
        raise bad("sub_models", sub_models) from None
    for s in subs:
        names_ok = (
            isinstance(s, (tuple, list))
            and len(s) == 2
            and (
                isinstance(s[0], str)
                or isinstance(s[0], (tuple, list))
                and all(isinstance(n, str) for n in s[0])
            )
        )
        if not (names_ok and _is_int(s[1])):
            raise InvalidArgument(
                f"sub_models entries are (axis names, strength) pairs, e.g. "
                f"sub_models=[(('dtype', 'bias_mode', 'xnorm'), 3)]; got {s!r}. "
                + _axis_hint("sub_models", sub_models).split(". ", 1)[1],
                where=where,
            )
    subs = tuple((tuple(s[0]) if not isinstance(s[0], str) else s[0], s[1]) for s in subs)
    if ids is not None and not callable(ids):
        if not isinstance(ids, Mapping):
            raise bad("ids", ids)
        for k, fn in ids.items():
            if not callable(fn):
                raise InvalidArgument(
                    f"ids[{k!r}]={fn!r} must be a callable value -> str (or None to keep the default)",
                    where=where,
                )
    argnames = tuple(n.strip() for name in axes for n in str(name).split(","))
    if isinstance(indirect, bool):
        ind: bool | tuple[str, ...] = indirect
    else:
        if isinstance(indirect, str):
            indirect = [indirect]
        try:
            ind = tuple(indirect)
        except TypeError:
            raise bad("indirect", indirect) from None
        if any(not isinstance(n, str) for n in ind):
            raise bad("indirect", indirect)
        unknown = [n for n in ind if n not in argnames]
        if unknown:
            raise InvalidArgument(
                f"indirect={list(ind)!r} names {', '.join(map(repr, unknown))}, which "
                f"{'is not an axis' if len(unknown) == 1 else 'are not axes'} (axes: {', '.join(argnames)}). "
                + _axis_hint("indirect", indirect).split(". ", 1)[1],
                where=where,
            )
    return {
        "strength": strength,
        "sub_models": subs,
        "constraints": cons,
        "include": inc,
        "mode": mode,
        "effort": effort,
        "seed": seed,
        "ids": ids,
        "indirect": ind,
    }


def pairwise(
    axes_mapping: Mapping[str, Iterable[Any]] | None = None,
    /,
    *,
    strength: int | None = None,
    sub_models: Iterable[tuple[Sequence[str] | str, int]] = (),
    constraints: Iterable[Callable[..., Any]] = (),
    include: Iterable[Mapping[str, Any]] = (),
    mode: str | None = None,
    effort: int = 0,
    seed: int = 0,
    ids: Mapping[str, Callable[[Any], Any]] | Callable[[str, Any], Any] | None = None,
    indirect: bool | Sequence[str] = False,
    **axes: Iterable[Any],
) -> Callable[[F], F]:
    """Parametrize a test over a covering table of its option axes.

    Parameters
    ----------
    axes_mapping:
        Optional positional mapping of axis name -> values, for names that are
        not identifiers, collide with an option below, or group several
        arguments (``{"n,k,m": [(1, 64, 128), (4, 32, 256)]}``).
    strength:
        t (default 2): every t axes see every combination of their values.
        A run-time ``--pairwise-strength`` may raise it, never lower it.
    sub_models:
        ``[(("dtype", "bias_mode", "xnorm"), 3)]``: a higher strength on a subset.
    constraints:
        Predicates over axis names; rows where one is false never run.
    include:
        (Partial) rows that must appear, first.
    mode:
        ``"full"`` keeps this test exhaustive (the full product minus
        forbidden rows) even in cover mode; ``"cover"`` (or ``None``) follows
        the run.
    effort, seed:
        Engine improver effort (0 = quick) and its seed.
    ids:
        ``{"argname": fn(value) -> str}`` or ``fn(argname, value) -> str | None``.
    indirect:
        As in ``pytest.mark.parametrize``: ``True`` or a list of axis names
        whose values go to the same-named fixture as ``request.param``.
    **axes:
        Axis name -> list of values.
    """
    mapping: dict[str, Any] = {}
    if axes_mapping is not None:
        if not isinstance(axes_mapping, Mapping):
            raise InvalidArgument(
                f"the positional argument of @pairwise is a mapping of axis name -> values, "
                f"got {type(axes_mapping).__name__} {axes_mapping!r}"
            )
        for name, values in axes_mapping.items():
            mapping[name] = _freeze_values(values)
    for name, values in axes.items():
        if name in mapping:
            raise DuplicateAxis(
                f"axis {name!r} is given both in the mapping and as a keyword argument; give it once"
            )
        mapping[name] = _freeze_values(values)
    value_params: dict[str, Any] = {}
    for name in list(mapping):
        mapping[name], extra = _unwrap_params(str(name), mapping[name])
        if extra:
            value_params[name] = MappingProxyType(extra)
    options = {
        "strength": strength,
        "sub_models": sub_models,
        "constraints": constraints,
        "include": include,
        "mode": mode,
        "effort": effort,
        "seed": seed,
        "ids": ids,
        "indirect": indirect,
    }

    def apply(obj: F) -> F:
        __tracebackhide__ = True  # pytest shows the user's decorator line, not ours
        import pytest

        where = f"{getattr(obj, '__module__', '?')}::{getattr(obj, '__qualname__', repr(obj))}"
        if not mapping:
            raise InvalidArgument(
                "@pairwise needs at least one axis, e.g. @pairwise(dtype=[...], padded=[False, True])",
                where=where,
            )
        checked = _check_options(where, mapping, **options)
        spec = PairwiseSpec(
            axes=MappingProxyType(dict(mapping)), value_params=MappingProxyType(value_params), **checked
        )
        obj = pytest.mark.pairwise(spec)(obj)
        return pytest.mark.usefixtures(PLUGIN_FIXTURE)(obj)

    return apply
