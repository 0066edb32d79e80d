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
indirect, compile_axes, compile_key, derived`` (see :func:`pairwise`).

The mark contract (stable, read by the plugin and by ``pairwise-param``'s CLI)
------------------------------------------------------------------------------
The decorator attaches exactly ONE mark, ``pytest.mark.pairwise(spec)``, where
``spec = mark.args[0]`` is a frozen :class:`PairwiseSpec`:

* ``spec.axes``: read-only ordered mapping axis name (``"dtype"`` or grouped
  ``"n,k,m"``) -> tuple of values; ``spec.argnames``: the bound argument
  names, grouped axes flattened;
* ``spec.strength`` (``None`` = the model's default, ``min(2, number of
  axes)``), ``spec.sub_models``,
  ``spec.constraints``, ``spec.include``, ``spec.mode`` (``None``, ``"cover"``
  or ``"full"``), ``spec.effort``, ``spec.seed``, ``spec.ids``,
  ``spec.indirect``, ``spec.compile_axes``, ``spec.derived`` (argument name -> function of axis
  values, or ``None``); ``spec.value_params``: axis name -> {value position:
  (marks, id)} for values written ``pytest.param(value, marks=..., id=...)``
  (``spec.axes`` holds the bare values);
* ``spec.model(where, strength=None)`` -> the validated
  :class:`~pairwise_param.model.Model` (``where``: the test's nodeid, named in
  every error; ``strength`` overrides the spec's).

Read it with ``for mark in item.iter_markers("pairwise"): spec = mark.args[0]``.
A test may carry several ``pairwise`` marks (stacked decorators, or one on the
class and one on the method): their tables multiply, and they must not share
an argument name.

It also adds ``pytest.mark.usefixtures("_pairwise_param_plugin")``: the plugin
defines that (empty) fixture, so a run without the plugin
(``-p no:pairwise_param``) fails loudly with "fixture '_pairwise_param_plugin'
not found" instead of silently running nothing (with ``--strict-markers`` the
unknown ``pairwise`` mark fails collection already).

Options are declared once, in :data:`OPTIONS` (name, default, validator,
doc; it and the validators live in :mod:`pairwise_param.decorator_options` and are
re-exported here), like Hypothesis declares its settings.  Everything given to
``@pairwise(...)`` is checked when the decorator is applied to the test (so
every message names the test): option misuse (a reserved name used as an
axis, a wrong type) raises :class:`~pairwise_param.errors.InvalidArgument`,
``effort`` and ``seed`` are validated by
:class:`~pairwise_param.engine.EngineOptions` (their one home); everything about the model itself (values, constraints, include rows,
strength range) is checked when the plugin expands the mark during
collection, so it is reported as a collection error of that test.

Nothing here imports pytest or the engine at import time (``pairwise_param``
must import without them); the decorator imports them when applied.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar, cast

from pairwise_param.contract import MARK, PLUGIN_FIXTURE
from pairwise_param.decorator_options import OPTIONS, RESERVED, Context, Option, close_option
from pairwise_param.errors import DuplicateAxis, InvalidArgument, PairwiseError
from pairwise_param.model import Model
from pairwise_param.tables.invalid import Split, split_model, unwrap_invalid

__all__ = ["OPTIONS", "PLUGIN_FIXTURE", "RESERVED", "Option", "PairwiseSpec", "pairwise"]

F = TypeVar("F", bound=Callable[..., Any])


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
    compile_key: Callable[..., Any] | None = None
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

    def model(self, where: str | None = None, *, strength: int | None = None) -> Model:
        """Build (and thereby validate) the model; ``strength`` overrides the
        spec's.  With neither, the model's default applies (``min(2, number of axes)``).
        With invalid values this is the model of the valid part (the covering table);
        :meth:`split` gives both parts."""
        if self.invalid:
            return self.split(where, strength=strength).valid
        return Model(
            dict(self.axes),
            strength=strength if strength is not None else self.strength,
            constraints=self.constraints,
            include=self.include,
            sub_models=self.sub_models,
            compile_axes=self.compile_axes,
            compile_key=self.compile_key,
            where=where,
        )

    def split(self, where: str | None = None, *, strength: int | None = None) -> Split:
        """The model split into its valid part and one strength-1 part per invalid
        value (:func:`pairwise_param.tables.invalid.split_model`); without invalid values
        the split has no cases."""
        return split_model(
            dict(self.axes),
            strength=strength if strength is not None else self.strength,
            constraints=self.constraints,
            include=self.include,
            sub_models=self.sub_models,
            compile_axes=self.compile_axes,
            compile_key=self.compile_key,
            where=where,
            invalid_positions=self.invalid,
        )

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


def _where(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}::{getattr(obj, '__qualname__', repr(obj))}"


def _check_option_typos(obj: Any, axes: Mapping[str, Any], where: str) -> None:
    """A keyword axis that is no argument of the test and looks like an option
    (``strenght=3``, ``constraint=[...]``) is a misspelt option: say which one (the
    plugin would only say "add 'strenght' to the signature")."""
    import inspect

    if not inspect.isfunction(obj):
        return  # a class (its methods take the axes) or a wrapped callable: the plugin checks
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    for name, values in axes.items():
        option = close_option(name) if name not in params else None
        if option is not None:
            shown = ", ".join(params) or "none"
            raise InvalidArgument(
                f"{name}={values!r}: {name!r} is not an option of @pairwise; did you mean "
                f"{option.name}={values!r}? (as an axis, {name!r} is not an argument of the test "
                f"either; its arguments: {shown})",
                where=where,
            )


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
    ctx = Context(where, _argnames(mapping), tuple(str(n) for n in mapping))
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
    compile_key: Callable[..., Any] | None = None,
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
    * ``compile_key``: ``lambda rope_dim, dtype: (block(rope_dim), dtype)``: compile-axis
      values with equal keys are one variant;
    * ``derived``: ``{"atol": lambda dtype, reduction: ...}``: arguments computed from
      each row's values (not axes: never paired, not in the id; in full mode too).

    Nothing is checked until the decorator is applied, so every error names
    the test.
    """
    given = {name: value for name, value in locals().items() if name in RESERVED}
    if callable(axes_mapping) and not isinstance(axes_mapping, Mapping) and not axes:
        # `@pairwise` without a call: the test itself arrived as the axes (pytest would say
        # "fixture 'obj' not found" of the function returned here)
        raise InvalidArgument(
            "@pairwise is used without arguments; call it with the axes: "
            "@pairwise(dtype=[torch.float16, torch.bfloat16], padded=[False, True])",
            where=_where(axes_mapping),
        ).with_traceback(None)

    def apply(obj: F) -> F:
        __tracebackhide__ = True  # pytest shows the user's decorator line, not ours
        import pytest

        where = _where(obj)
        try:
            _check_option_typos(obj, axes, where)
            spec = _spec(where, axes_mapping, axes, given)
        except PairwiseError as exc:
            error = exc
        else:
            obj = getattr(pytest.mark, MARK)(spec)(obj)
            return cast(F, pytest.mark.usefixtures(PLUGIN_FIXTURE)(obj))
        # raised from here, without our inner frames: the user's decorator line is what counts
        raise error.with_traceback(None)

    return apply


