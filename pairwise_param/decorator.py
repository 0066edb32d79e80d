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
indirect, compile_axes, derived`` (see :func:`pairwise`).

The mark contract (stable, read by the plugin and by ``pairwise-param``'s CLI)
------------------------------------------------------------------------------
The decorator attaches exactly ONE mark, ``pytest.mark.pairwise(spec)``, where
``spec = mark.args[0]`` is a frozen :class:`PairwiseSpec`:

* ``spec.axes``: read-only ordered mapping axis name (``"dtype"`` or grouped
  ``"n,k,m"``) -> tuple of values; ``spec.argnames``: the bound argument
  names, grouped axes flattened;
* ``spec.strength`` (``None`` = the model's default, ``min(2, number of axes)``),
  ``spec.sub_models``, ``spec.constraints``, ``spec.include``, ``spec.mode`` (``None``,
  ``"cover"`` or ``"full"``), ``spec.effort``, ``spec.seed``, ``spec.ids``,
  ``spec.indirect``, ``spec.compile_axes``, ``spec.derived`` (argument name -> function
  of axis values, or ``None``); ``spec.value_params``: axis name -> {value position:
  (marks, id)} for values written ``pytest.param(value, marks=..., id=...)``;
* ``spec.model(where, strength=None)`` -> the validated
  :class:`~pairwise_param.model.Model` (``where``: the test's nodeid, named in
  every error; ``strength`` overrides the spec's).

Read it with ``for mark in item.iter_markers("pairwise"): spec = mark.args[0]``.
A test may carry several ``pairwise`` marks (stacked decorators, or one on the
class and one on the method): their tables multiply, and they must not share
an argument name.

It also adds ``pytest.mark.usefixtures("_pairwise_param_plugin")``, a fixture the
plugin defines: a run without the plugin fails loudly instead of running nothing.

Options are declared once, in :data:`OPTIONS` (name, default, validator, doc).
Everything given is checked when the decorator is applied (every message names the
test): option misuse raises :class:`~pairwise_param.errors.InvalidArgument`; ``effort``
and ``seed`` are validated by :class:`~pairwise_param.engine.EngineOptions`; the model
itself (values, constraints, include rows, strength range) when the plugin expands the
mark during collection (a collection error of that test).

Nothing here imports pytest or the engine at import time (``pairwise_param``
must import without them); the decorator imports them when applied.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar, cast

from pairwise_param.constraints import constraint_list
from pairwise_param.contract import ID_STYLES, MARK, PLUGIN_FIXTURE
from pairwise_param.errors import DuplicateAxis, InvalidArgument, PairwiseError
from pairwise_param.model import Model
from pairwise_param.tables.invalid import Split, split_model, unwrap_invalid

__all__ = ["OPTIONS", "PLUGIN_FIXTURE", "RESERVED", "Option", "PairwiseSpec", "pairwise"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class _Context:
    """What a validator may need besides the value: the test and its axes."""

    where: str
    argnames: tuple[str, ...]
    axes: tuple[str, ...] = ()  # axis names as written (grouped: "n,k,m")


@dataclass(frozen=True)
class Option:
    """One option of ``@pairwise``: its default, its validator (value,
    context) -> normalised value, and its documentation."""

    name: str
    default: Any
    check: Callable[[Any, _Context], Any]
    doc: str


def _axis_hint(name: str, value: Any) -> str:
    return (
        f"{name!r} is an option of @pairwise, not an axis, and {name}={value!r} is not a valid "
        f"value for it. To use an axis named {name!r}, pass it in the mapping: "
        f"@pairwise({{{name!r}: {value!r}}}, ...)"
    )


def _bad(name: str, value: Any, ctx: _Context) -> InvalidArgument:
    return InvalidArgument(_axis_hint(name, value), where=ctx.where)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_strength(value: Any, ctx: _Context) -> int | None:
    if value is not None and not _is_int(value):
        raise _bad("strength", value, ctx)
    return None if value is None else int(value)  # the range is the model's to check (at collection, with the run's strength)


def _check_mode(value: Any, ctx: _Context) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        from pairwise_param.tables.build import check_mode

        return check_mode(value, ctx.where)
    raise _bad("mode", value, ctx)


def _engine_option(name: str) -> Callable[[Any, _Context], Any]:
    """Validator of ``effort`` / ``seed``: :class:`EngineOptions` decides."""

    def check(value: Any, ctx: _Context) -> Any:
        from pairwise_param.tables.build import engine_options

        try:
            engine_options(where=ctx.where, **{name: value})
        except InvalidArgument as exc:
            if isinstance(value, (list, tuple)):  # values of an axis meant to be called `name`
                raise _bad(name, value, ctx) from None
            raise exc from None
        return value

    return check


def _check_constraints(value: Any, ctx: _Context) -> tuple[Any, ...]:
    try:
        return constraint_list(value, ctx.where)
    except InvalidArgument:
        if isinstance(value, (list, tuple)):  # values of an axis meant to be called `constraints`
            raise _bad("constraints", value, ctx) from None
        raise


def _check_include(value: Any, ctx: _Context) -> tuple[Mapping[str, Any], ...]:
    if isinstance(value, Mapping):
        value = [value]
    try:
        rows = tuple(value)
    except TypeError:
        raise _bad("include", value, ctx) from None
    if any(not isinstance(r, Mapping) for r in rows):
        raise _bad("include", value, ctx)
    return rows


def _check_sub_models(value: Any, ctx: _Context) -> tuple[tuple[Any, int], ...]:
    try:
        subs = tuple(value)
    except TypeError:
        raise _bad("sub_models", value, ctx) from None
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
                + _axis_hint("sub_models", value).split(". ", 1)[1],
                where=ctx.where,
            )
    return tuple((tuple(s[0]) if not isinstance(s[0], str) else s[0], s[1]) for s in subs)


#: What ``ids=`` accepts, shown by every error about it.
IDS_ACCEPTED = (
    "ids= takes: 'readable' (default: dtype=bfloat16-padded=True), 'pytest' (the ids parametrize "
    "gives: bfloat16-True, dtype0) or 'stacked' (the node ids of stacked parametrize decorators written "
    "top decorator first, as `pairwise-param convert` writes them); a callable fn(value) -> str | None as in parametrize (or "
    "fn(argname, value)); a list of one id per value (a table of one axis); or a mapping "
    "{argname: fn(value) or a list of one id per value}"
)


def _check_id_list(name: str, ids: Sequence[Any], ctx: _Context) -> tuple[str | None, ...]:
    bad = [i for i in ids if i is not None and not isinstance(i, (str, int, float, bool))]
    if bad:
        raise InvalidArgument(
            f"{name}: every id in the list is a str (or None to keep the default), got {bad[0]!r}. "
            + IDS_ACCEPTED,
            where=ctx.where,
        )
    return tuple(None if i is None else str(i) for i in ids)


def _check_ids(value: Any, ctx: _Context) -> Any:
    if value is None or callable(value):
        return value
    if isinstance(value, str):
        if value in ID_STYLES:
            return value
        raise InvalidArgument(f"ids={value!r} is not an id style. " + IDS_ACCEPTED, where=ctx.where)
    if isinstance(value, (list, tuple)):
        if len(ctx.axes) != 1:
            raise InvalidArgument(
                f"ids={list(value)!r}: a list of ids names the values of a table of ONE axis; this table "
                f"has {len(ctx.axes)} ({', '.join(ctx.axes)}): give {{argname: [ids]}} per axis. "
                + IDS_ACCEPTED + ". " + _axis_hint("ids", value),
                where=ctx.where,
            )
        return {ctx.axes[0]: _check_id_list("ids", value, ctx)}
    if not isinstance(value, Mapping):
        raise InvalidArgument(
            f"ids={value!r} ({type(value).__name__}) is not usable. " + IDS_ACCEPTED, where=ctx.where
        )
    out: dict[str, Any] = {}
    for k, fn in value.items():
        if isinstance(fn, (list, tuple)):
            if k not in ctx.axes:
                raise InvalidArgument(
                    f"ids[{k!r}]: a list of ids names the values of an axis, and {k!r} is not one "
                    f"(axes: {', '.join(ctx.axes)})",
                    where=ctx.where,
                )
            out[k] = _check_id_list(f"ids[{k!r}]", fn, ctx)
        elif not callable(fn):
            raise InvalidArgument(
                f"ids[{k!r}]={fn!r} must be a callable value -> str (or None to keep the default), "
                "or a list of one id per value",
                where=ctx.where,
            )
        else:
            out[k] = fn
    return MappingProxyType(out)


def _check_derived(value: Any, ctx: _Context) -> Mapping[str, Callable[..., Any]] | None:
    """``{"atol": fn(dtype, reduction)}``: values the test receives, computed from the
    row's axis values, never axes themselves (so never paired, never in the id)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):  # values of an axis meant to be called `derived`
        raise _bad("derived", value, ctx)
    if not isinstance(value, Mapping):
        raise InvalidArgument(
            f"derived={value!r} must be a mapping of argument name -> function of axis values, "
            "e.g. derived={'atol': lambda dtype: 1e-2 if dtype == 'bf16' else 1e-5}",
            where=ctx.where,
        )
    import inspect

    out: dict[str, Callable[..., Any]] = {}
    for name, fn in value.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise InvalidArgument(f"derived: {name!r} is not an argument name", where=ctx.where)
        if name in ctx.argnames:
            raise InvalidArgument(
                f"derived[{name!r}]: {name!r} is also an axis; a derived value is computed from the "
                "axes, not one of them (rename it, or drop the axis)",
                where=ctx.where,
            )
        if not callable(fn):
            raise InvalidArgument(
                f"derived[{name!r}]={fn!r} is not callable; give a function whose parameters are axis "
                f"names (axes: {', '.join(ctx.argnames)})",
                where=ctx.where,
            )
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            raise InvalidArgument(
                f"derived[{name!r}]: the signature of {fn!r} cannot be read; wrap it in a def or lambda "
                "whose parameters are axis names",
                where=ctx.where,
            ) from None
        unknown = [
            p.name for p in params
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ctx.argnames
            and p.default is p.empty
        ]
        if unknown:
            raise InvalidArgument(
                f"derived[{name!r}]: parameter {', '.join(map(repr, unknown))} is not an axis "
                f"(axes: {', '.join(ctx.argnames)}); a derived value is a function of axis values",
                where=ctx.where,
            )
        out[name] = fn
    return MappingProxyType(out)


def _check_indirect(value: Any, ctx: _Context) -> bool | tuple[str, ...]:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        value = [value]
    try:
        names = tuple(value)
    except TypeError:
        raise _bad("indirect", value, ctx) from None
    if any(not isinstance(n, str) for n in names):
        raise _bad("indirect", value, ctx)
    unknown = [n for n in names if n not in ctx.argnames]
    if unknown:
        raise InvalidArgument(
            f"indirect={list(names)!r} names {', '.join(map(repr, unknown))}, which "
            f"{'is not an axis' if len(unknown) == 1 else 'are not axes'} (axes: {', '.join(ctx.argnames)}). "
            + _axis_hint("indirect", value).split(". ", 1)[1],
            where=ctx.where,
        )
    return names


def _check_compile_axes(value: Any, ctx: _Context) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise _bad("compile_axes", value, ctx)
    unknown = [n for n in names if n not in ctx.axes and n not in ctx.argnames]
    if unknown:
        raise InvalidArgument(f"compile_axes names {unknown[0]!r}, which is not an axis (axes: "
                              f"{', '.join(ctx.axes)}); name the axes whose values select a kernel variant",
                              where=ctx.where)
    return tuple(dict.fromkeys(names))


#: Every option of ``@pairwise``, declared once: the decorator's signature and
#: :class:`PairwiseSpec`'s fields follow this order and these defaults (a test
#: checks both); an axis with one of these names goes in the mapping.
OPTIONS: tuple[Option, ...] = (
    Option("strength", None, _check_strength,
           "t: every t axes see every combination of their values; None: min(2, number of axes). "
           "A run-time --pairwise-strength may raise it, never lower it."),
    Option("sub_models", (), _check_sub_models,
           "[(('dtype', 'bias_mode', 'xnorm'), 3)]: a higher strength on a subset of axes."),
    Option("constraints", (), _check_constraints,
           "predicates over axis names, or declarative rules (pairwise_param.language); "
           "rows where one is false never run."),
    Option("include", (), _check_include, "(partial) rows that must appear, first."),
    Option("mode", None, _check_mode,
           "'full' keeps this test exhaustive (the full product minus forbidden rows) even in "
           "cover mode; 'cover' (or None) follows the run."),
    Option("effort", 0, _engine_option("effort"), "engine improver effort (0 = quick); see EngineOptions."),
    Option("seed", 0, _engine_option("seed"), "seed of the engine's improver."),
    Option("ids", None, _check_ids,
           "'readable' | 'pytest' (id style); fn(value) -> str | None (or fn(argname, value)); "
           "[one id per value] of a one-axis table; {'argname': fn(value) or [ids]}."),
    Option("indirect", False, _check_indirect,
           "as in pytest.mark.parametrize: True or a list of axis names whose values go to the "
           "same-named fixture as request.param."),
    Option("compile_axes", (), _check_compile_axes,
           "['dtype', 'has_bias']: the axes whose values select a kernel variant (Triton constexprs); "
           "the table then compiles as few variants as a covering array of those axes alone."),
    Option("derived", None, _check_derived,
           "{'atol': fn(dtype, reduction)}: arguments computed from each row's axis values; not "
           "axes (never paired, not in the id), in the JUnit properties."),
)

#: Option names of ``@pairwise``, in declaration order.
RESERVED: tuple[str, ...] = tuple(o.name for o in OPTIONS)


@dataclass(frozen=True, eq=False)
class PairwiseSpec:
    """Everything ``@pairwise`` was given, validated and frozen; see the module
    docstring.  The option fields follow :data:`OPTIONS`."""

    axes: Mapping[str, Any]
    strength: int | None = None
    sub_models: tuple[tuple[Any, int], ...] = ()
    constraints: tuple[Any, ...] = ()
    include: tuple[Mapping[str, Any], ...] = ()
    mode: str | None = None
    effort: Any = 0
    seed: int = 0
    ids: Any = None
    indirect: bool | tuple[str, ...] = False
    compile_axes: tuple[str, ...] = ()
    derived: Mapping[str, Callable[..., Any]] | None = None
    #: axis name -> {value position: (marks, id)} for values given as ``pytest.param(value,
    #: marks=..., id=...)``; ``axes`` holds the bare values.
    value_params: Mapping[str, Mapping[int, tuple[tuple[Any, ...], str | None]]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    #: axis name -> {value position: reason} for values given as ``invalid(value, reason=...)``
    #: (:mod:`pairwise_param.tables.invalid`); ``axes`` holds the bare values.
    invalid: Mapping[str, Mapping[int, str | None]] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def argnames(self) -> tuple[str, ...]:
        """Bound argument names in axis order (grouped axes flattened); computed once
        (the spec is frozen; the plugin reads it once per row)."""
        cached: tuple[str, ...] | None = self.__dict__.get("_argnames")
        if cached is None:
            cached = _argnames(self.axes)
            object.__setattr__(self, "_argnames", cached)
        return cached

    def _model_args(self, strength: int | None) -> dict[str, Any]:
        return {"strength": strength if strength is not None else self.strength, "constraints": self.constraints,
                "include": self.include, "sub_models": self.sub_models, "compile_axes": self.compile_axes}

    def model(self, where: str | None = None, *, strength: int | None = None) -> Model:
        """Build (and thereby validate) the model; ``strength`` overrides the
        spec's.  With neither, the model's default applies (``min(2, number of axes)``).
        With invalid values this is the model of the valid part (the covering table);
        :meth:`split` gives both parts."""
        if self.invalid:
            return self.split(where, strength=strength).valid
        return Model(dict(self.axes), **self._model_args(strength), where=where)

    def split(self, where: str | None = None, *, strength: int | None = None) -> Split:
        """The model split into its valid part and one strength-1 part per invalid
        value (:func:`pairwise_param.tables.invalid.split_model`); without invalid values
        the split has no cases."""
        return split_model(dict(self.axes), **self._model_args(strength), where=where,
                           invalid_positions=self.invalid)

    def __repr__(self) -> str:
        axes = ", ".join(f"{k}[{len(v) if isinstance(v, tuple) else '?'}]" for k, v in self.axes.items())
        opts = [f"strength={self.strength}"] if self.strength is not None else []
        if self.mode is not None:
            opts.append(f"mode={self.mode!r}")
        return f"PairwiseSpec({', '.join([axes, *opts])})"


def _argnames(axes: Iterable[Any]) -> tuple[str, ...]:
    return tuple(n.strip() for name in axes for n in str(name).split(","))


def _freeze_values(values: Any) -> Any:
    """Tuple of the values; strings/mappings/non-iterables are kept so the
    model reports them with its own message."""
    if isinstance(values, (str, bytes, Mapping, set, frozenset)):
        return values  # a set's order follows the hash seed: Model refuses it, as cover() does
    try:
        return tuple(values)
    except TypeError:
        return values


def _unwrap_params(
    name: str, values: Any, where: str
) -> tuple[Any, dict[int, tuple[tuple[Any, ...], str | None]]]:
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
                    "single-name axis is pytest.param(value, marks=..., id=...)",
                    where=where,
                )
            if v.id is not None and grouped:
                raise InvalidArgument(
                    f"axis {name!r}: id= of pytest.param is not supported on a grouped axis; use "
                    "ids={part name: fn} of @pairwise",
                    where=where,
                )
            out.append(value)
            extra[pos] = (tuple(v.marks), None if v.id is None else str(v.id))
        else:
            out.append(v)
    return tuple(out), extra


def _axes(axes_mapping: Any, axes: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The mapping axes, then the keyword axes, each in the order written."""
    mapping: dict[str, Any] = {}
    if axes_mapping is not None:
        if not isinstance(axes_mapping, Mapping):
            raise InvalidArgument(
                f"the positional argument of @pairwise is a mapping of axis name -> values, "
                f"got {type(axes_mapping).__name__} {axes_mapping!r}",
                where=where,
            )
        for name, values in axes_mapping.items():
            mapping[name] = _freeze_values(values)
    for name, values in axes.items():
        if name in mapping:
            raise DuplicateAxis(
                f"axis {name!r} is given both in the mapping and as a keyword argument; give it once",
                where=where,
            )
        mapping[name] = _freeze_values(values)
    if not mapping:
        raise InvalidArgument(
            "@pairwise needs at least one axis, e.g. @pairwise(dtype=[...], padded=[False, True])",
            where=where,
        )
    return mapping


def _spec(where: str, axes_mapping: Any, axes: Mapping[str, Any], given: Mapping[str, Any]) -> PairwiseSpec:
    """Validate everything ``@pairwise(...)`` was given into a spec; every error names ``where``."""
    mapping = _axes(axes_mapping, axes, where)
    value_params: dict[str, Any] = {}
    invalid: dict[str, Any] = {}
    for name in list(mapping):
        mapping[name], extra = _unwrap_params(str(name), mapping[name], where)
        if extra:
            value_params[name] = MappingProxyType(extra)
        mapping[name], marked = unwrap_invalid(mapping[name])
        if marked:
            invalid[name] = MappingProxyType(marked)
    ctx = _Context(where, _argnames(mapping), tuple(str(n) for n in mapping))
    checked = {o.name: o.check(given[o.name], ctx) for o in OPTIONS}
    return PairwiseSpec(
        axes=MappingProxyType(mapping), value_params=MappingProxyType(value_params),
        invalid=MappingProxyType(invalid), **checked
    )


def pairwise(
    axes_mapping: Mapping[str, Iterable[Any]] | None = None,
    /,
    *,
    strength: int | None = None,
    sub_models: Iterable[tuple[Sequence[str] | str, int]] = (),
    constraints: Iterable[Callable[..., Any] | Mapping[str, Any] | str] = (),
    include: Iterable[Mapping[str, Any]] = (),
    mode: str | None = None,
    effort: Any = 0,
    seed: int = 0,
    ids: Any = None,
    indirect: bool | Sequence[str] = False,
    compile_axes: Sequence[str] = (),
    derived: Mapping[str, Callable[..., Any]] | None = None,
    **axes: Iterable[Any],
) -> Callable[[F], F]:
    """Parametrize a test over a covering table of its option axes.

    ``axes_mapping`` (optional, positional): axis name -> values, for names
    that are not identifiers, collide with an option, or group several
    arguments (``{"n,k,m": [(1, 64, 128), (4, 32, 256)]}``); ``**axes``: axis
    name -> list of values.  The options (keyword-only) are declared in
    :data:`OPTIONS`, each with its default and meaning:

    * ``strength``: t (default ``min(2, number of axes)``); a run-time
      ``--pairwise-strength`` may raise it, never lower it;
    * ``sub_models``: ``[(("dtype", "bias_mode", "xnorm"), 3)]``;
    * ``constraints``: predicates over axis names or declarative rules;
    * ``include``: (partial) rows that must appear, first;
    * ``mode``: ``"full"`` keeps this test exhaustive even in cover mode;
    * ``effort``, ``seed``: the engine's improver effort and seed;
    * ``ids``: ``"readable"`` / ``"pytest"`` (id style), ``fn(value) -> str | None`` as
      in ``parametrize`` (or ``fn(argname, value)``), a list of one id per value (a table
      of one axis), or ``{"argname": fn(value) or [ids]}``;
    * ``indirect``: as in ``pytest.mark.parametrize``;
    * ``compile_axes``: the axes that select a kernel variant (fewest variants);
    * ``derived``: ``{"atol": lambda dtype, reduction: ...}``: arguments computed from
      each row's values (not axes: never paired, not in the id; in full mode too).

    Nothing is checked until the decorator is applied, so every error names
    the test.
    """
    given = {name: value for name, value in locals().items() if name in RESERVED}

    def apply(obj: F) -> F:
        __tracebackhide__ = True  # pytest shows the user's decorator line, not ours
        import pytest

        where = f"{getattr(obj, '__module__', '?')}::{getattr(obj, '__qualname__', repr(obj))}"
        try:
            spec = _spec(where, axes_mapping, axes, given)
        except PairwiseError as exc:
            error = exc
        else:
            obj = getattr(pytest.mark, MARK)(spec)(obj)
            return cast(F, pytest.mark.usefixtures(PLUGIN_FIXTURE)(obj))
        # raised from here, without our inner frames: the user's decorator line is what counts
        raise error.with_traceback(None)

    return apply


