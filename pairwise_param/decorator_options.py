"""The options of ``@pairwise``, declared once: :data:`OPTIONS` (name, default,
validator, doc) and their validators, like Hypothesis declares its settings.

:mod:`pairwise_param.decorator` builds its signature and :class:`PairwiseSpec`'s
fields in this order with these defaults (``tests/core/test_decorator.py`` checks
both) and re-exports :data:`OPTIONS`, :class:`Option` and :data:`RESERVED`, so
``pairwise_param.decorator.OPTIONS`` stays the public name.  Adding an option: one
:class:`Option` here, its keyword in :func:`pairwise_param.decorator.pairwise`
and its field in :class:`~pairwise_param.decorator.PairwiseSpec`.

Each validator takes (value, :class:`Context`) and returns the normalised value or
raises :class:`~pairwise_param.errors.InvalidArgument` naming the test; ``effort``
and ``seed`` are validated by :class:`~pairwise_param.engine.EngineOptions` (through
:func:`pairwise_param.tables.build.engine_options`), ``mode`` by
:func:`pairwise_param.contract.check_mode` (through :func:`pairwise_param.tables.build.check_mode`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, cast

from pairwise_param.constraints import constraint_list
from pairwise_param.contract import ID_STYLES
from pairwise_param.errors import InvalidArgument

__all__ = ["OPTIONS", "RESERVED", "Context", "Option", "close_option"]


@dataclass(frozen=True)
class Context:
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
    check: Callable[[Any, Context], Any]
    doc: str


def _axis_hint(name: str, value: Any) -> str:
    return (
        f"{name!r} is an option of @pairwise, not an axis, and {name}={value!r} is not a valid "
        f"value for it. To use an axis named {name!r}, pass it in the mapping: "
        f"@pairwise({{{name!r}: {value!r}}}, ...)"
    )


def _bad(name: str, value: Any, ctx: Context) -> InvalidArgument:
    return InvalidArgument(_axis_hint(name, value), where=ctx.where)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_strength(value: Any, ctx: Context) -> int | None:
    if value is not None and not _is_int(value):
        raise _bad("strength", value, ctx)
    return None if value is None else int(value)  # the range is the model's to check (at collection, with the run's strength)


def _check_mode(value: Any, ctx: Context) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        from pairwise_param.tables.build import check_mode

        return check_mode(value, ctx.where)
    raise _bad("mode", value, ctx)


def _engine_option(name: str) -> Callable[[Any, Context], Any]:
    """Validator of ``effort`` / ``seed``: :class:`EngineOptions` decides."""

    def check(value: Any, ctx: Context) -> Any:
        from pairwise_param.tables.build import engine_options

        try:
            engine_options(where=ctx.where, **{name: value})
        except InvalidArgument as exc:
            if isinstance(value, (list, tuple)):  # values of an axis meant to be called `name`
                raise _bad(name, value, ctx) from None
            raise exc from None
        return value

    return check


def _check_constraints(value: Any, ctx: Context) -> tuple[Any, ...]:
    try:
        return constraint_list(value, ctx.where)
    except InvalidArgument:
        if isinstance(value, (list, tuple)):  # values of an axis meant to be called `constraints`
            raise _bad("constraints", value, ctx) from None
        raise


def _check_include(value: Any, ctx: Context) -> tuple[Mapping[str, Any], ...]:
    if isinstance(value, Mapping):
        value = [value]
    try:
        rows = tuple(value)
    except TypeError:
        raise _bad("include", value, ctx) from None
    if any(not isinstance(r, Mapping) for r in rows):
        raise _bad("include", value, ctx)
    return rows


def _check_sub_models(value: Any, ctx: Context) -> tuple[tuple[Any, int], ...]:
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
    "gives: bfloat16-True, dtype0), 'stacked' (the node ids of stacked parametrize decorators written "
    "top decorator first, as `pairwise-param convert` writes them) or 'product-index' (case-{index} in "
    "the full product, flashinfer's parametrize_product ids); a callable fn(value) -> str | None as in parametrize (or "
    "fn(argname, value)); a list of one id per value (a table of one axis); or a mapping "
    "{argname: fn(value) or a list of one id per value}"
)


def _check_id_list(name: str, ids: Sequence[Any], ctx: Context) -> tuple[str | None, ...]:
    bad = [i for i in ids if i is not None and not isinstance(i, (str, int, float, bool))]
    if bad:
        raise InvalidArgument(
            f"{name}: every id in the list is a str (or None to keep the default), got {bad[0]!r}. "
            + IDS_ACCEPTED,
            where=ctx.where,
        )
    return tuple(None if i is None else str(i) for i in ids)


def _check_ids(value: Any, ctx: Context) -> Any:
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


def _check_derived(value: Any, ctx: Context) -> Mapping[str, Callable[..., Any]] | None:
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


def _check_compile_axes(value: Any, ctx: Context) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise _bad("compile_axes", value, ctx)
    unknown = [n for n in names if n not in ctx.axes and n not in ctx.argnames]
    if unknown:
        raise InvalidArgument(f"compile_axes names {unknown[0]!r}, which is not an axis (axes: "
                              f"{', '.join(ctx.axes)}); name the axes whose values select a kernel variant",
                              where=ctx.where)
    return tuple(dict.fromkeys(names))


def _check_compile_key(value: Any, ctx: Context) -> Callable[..., Any] | None:
    if value is not None and not callable(value):
        raise _bad("compile_key", value, ctx)
    return cast("Callable[..., Any] | None", value)  # its parameters and keys are checked by the model (pairwise_param.compile_key)


def _check_indirect(value: Any, ctx: Context) -> bool | tuple[str, ...]:
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
    Option("compile_key", None, _check_compile_key,
           "lambda rope_dim, dtype: (block(rope_dim), dtype): with compile_axes, a hashable key of "
           "their values; values with equal keys compile one variant, and the table uses the fewest keys."),
    Option("derived", None, _check_derived,
           "{'atol': fn(dtype, reduction)}: arguments computed from each row's axis values; not "
           "axes (never paired, not in the id), in the JUnit properties."),
)

#: Option names of ``@pairwise``, in declaration order.
RESERVED: tuple[str, ...] = tuple(o.name for o in OPTIONS)


def close_option(name: str) -> Option | None:
    """The option of ``@pairwise`` that ``name`` most likely misspells (``strenght``,
    ``constraint``), or ``None``: the did-you-mean of a keyword that is neither an option
    nor an argument of the test."""
    import difflib

    close = difflib.get_close_matches(name, RESERVED, n=1, cutoff=0.75)
    return next(o for o in OPTIONS if o.name == close[0]) if close else None
