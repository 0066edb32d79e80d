"""The model: named axes, constraints, must-include rows, strength.

:class:`Model` is the user-facing description (names and real Python values,
predicates); :class:`IndexModel` is what it compiles to for the engine (axis
sizes, exclusions over value indices, include rows as index tuples, the
interactions to cover).  Names, values and predicates are translated here at
the front, so the engine never sees a user object and its output is a pure
function of the index model: the basis of determinism and of the cache
fingerprint.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pairwise_param.axis import Axis
from pairwise_param.compile_key import compile_classes
from pairwise_param.constraints import (
    Binding,
    Constraint,
    bind_constraint,
    constraint_list,
    never_equal_constants,
    tabulate,
)
from pairwise_param.errors import (
    ConstraintsTooHard,
    DuplicateAxis,
    InvalidArgument,
    InvalidInclude,
    PairwiseError,
    PairwiseWarning,
    StrengthError,
    UnknownAxis,
    UnsatisfiableConstraints,
)
from pairwise_param.feasibility import Exclusion, Feasibility, merge_exclusions, too_hard
from pairwise_param.values import loose_eq, stable_label, value_label

__all__ = ["Axis", "IndexModel", "Model", "RowLike", "SubModel", "default_strength", "value_label"]

#: Row as given by a user: axis (or bound) name -> value; may be partial.
RowLike = Mapping[str, Any]


def _outside_stacklevel() -> int:
    """The ``stacklevel`` that names the first frame outside this package (the user's
    call of ``cover()`` or ``Model``), for a warning raised by the caller of this function."""
    here = os.path.dirname(os.path.abspath(__file__)) + os.sep
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


@dataclass(frozen=True)
class SubModel:
    """A subset of axes covered at a higher (or lower) strength, PICT's
    ``{A, B, C} @ 3``."""

    axes: tuple[int, ...]
    strength: int


@dataclass(frozen=True)
class IndexModel:
    """The engine's view: sizes, exclusions, include rows and interactions.

    ``interactions`` lists every axis scope (sorted index tuple) whose value
    combinations must all appear; scopes contained in a larger one are dropped.
    """

    sizes: tuple[int, ...]
    strength: int
    interactions: tuple[tuple[int, ...], ...]
    exclusions: tuple[Exclusion, ...]
    include: tuple[tuple[int | None, ...], ...]
    #: the axes whose values select a kernel variant (sorted indices; ``()``: none
    #: declared): the engine then builds the table with the fewest variants
    #: (:mod:`pairwise_param.engine.variants`)
    compile_axes: tuple[int, ...] = ()
    #: with a ``compile_key``: the variant of each combination of the compile axes' values
    #: (``itertools.product`` order), dense ids in first-seen order; ``()``: each
    #: combination is its own variant (no key, or a key that merges none)
    compile_classes: tuple[int, ...] = ()

    def variant(self, row: Sequence[int | None]) -> tuple[int, ...]:
        """The kernel variant of ``row`` (a full index row): its values on the compile
        axes, or with :attr:`compile_classes` the first combination of its class (equal
        for every row of one variant)."""
        combo = tuple(int(row[a]) for a in self.compile_axes)  # type: ignore[arg-type]
        if not self.compile_classes:
            return combo
        reps: dict[int, tuple[int, ...]] | None = self.__dict__.get("_reps")
        if reps is None:
            reps = {}
            for c, cls in zip(itertools.product(*(range(self.sizes[a]) for a in self.compile_axes)),
                              self.compile_classes):
                reps.setdefault(cls, c)
            self.__dict__["_reps"] = reps
        index = 0
        for a, v in zip(self.compile_axes, combo):
            index = index * self.sizes[a] + v
        return reps[self.compile_classes[index]]

    def canonical(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sizes": list(self.sizes),
            "strength": self.strength,
            "interactions": [list(s) for s in self.interactions],
            "exclusions": [[list(sc), [list(f) for f in fb]] for sc, fb in (e.canonical() for e in self.exclusions)],
            "include": [[-1 if v is None else v for v in row] for row in self.include],
        }
        if self.compile_axes:  # only then: every other model keeps its fingerprint (and cache key)
            out["compile_axes"] = list(self.compile_axes)
        if self.compile_classes:
            out["compile_classes"] = list(self.compile_classes)
        return out

    def fingerprint(self) -> str:
        """Stable SHA-256 of the canonical index model (hex); computed once (the
        model is frozen; the table cache asks for it up to three times per table)."""
        cached: str | None = self.__dict__.get("_fingerprint")
        if cached is None:
            blob = json.dumps(self.canonical(), separators=(",", ":"), sort_keys=True)
            cached = hashlib.sha256(blob.encode()).hexdigest()
            self.__dict__["_fingerprint"] = cached
        return cached


def _interactions(n: int, strength: int, subs: Sequence[SubModel]) -> tuple[tuple[int, ...], ...]:
    """Every scope to cover, shortest first; a scope inside a larger one is dropped
    (covering the larger covers it).

    Only sub-model scopes can be larger than others, and there are few of them, so
    the subsumed scopes are found by enumerating the subsets of those larger scopes
    (linear in the number of scopes, which is C(n, t): 161700 for 3^100 at t=3).
    """
    if not subs:  # the common case: combinations() is already in that order (2^3000: 4.5 M scopes, no set)
        return tuple(itertools.combinations(range(n), strength))
    lengths = {strength} | {sub.strength for sub in subs}
    scopes: set[tuple[int, ...]] = set(itertools.combinations(range(n), strength))
    for sub in subs:
        scopes.update(itertools.combinations(sub.axes, sub.strength))
    if len(lengths) > 1:
        inside: set[tuple[int, ...]] = set()
        for big in (s for s in scopes if len(s) > min(lengths)):
            for size in lengths:
                if size < len(big):
                    inside.update(itertools.combinations(big, size))
        scopes -= inside
    return tuple(sorted(scopes, key=lambda s: (len(s), s)))


def default_strength(strength: int | None, n_axes: int) -> int | None:
    """THE default strength rule: ``None`` means 2, or 1 for a one-axis model
    (``min(2, number of axes)``); an explicit value is returned as given (the
    model checks its range).  Every entry point (``cover()``, ``@pairwise``,
    the plugin's run-time strength, ``rows()``, model files) leaves ``None``
    to the model, which applies this rule."""
    return min(2, n_axes) if strength is None else strength


class Model:
    """A validated model: the single source of truth for axes and constraints.

    Parameters
    ----------
    axes:
        Mapping of axis name -> values (ordered), or a sequence of
        ``(name, values)`` pairs.  A name with commas (``"n,k,m"``) makes a
        grouped axis whose values are tuples.
    strength:
        t, 1..number of axes; ``None`` (the default) is ``min(2, number of
        axes)`` (see :func:`default_strength`).
    constraints:
        Predicates whose parameter names are axis (or bound) names, or
        declarative rules of :mod:`pairwise_param.language` (``{"if": ...,
        "then": ...}``, ``{"never": ...}``, expression strings).
    include:
        Must-include rows (mappings, possibly partial), emitted first; a row
        given twice (the same cells) is kept once.
    sub_models:
        ``[(("dtype", "bias_mode", "xnorm"), 3), ...]``: axes covered at
        another strength on top of the global one.
    compile_axes:
        Names of the axes whose values select a kernel variant (Triton
        constexprs, JIT template arguments): the table then uses as few
        distinct combinations of them as a covering array of those axes alone.
    compile_key:
        With ``compile_axes``: a function of (some of) the compile axes' values, by
        parameter name, returning a hashable variant key (``lambda rope_dim, dtype:
        (block_r(rope_dim), dtype)``): rows with equal keys compile one variant, and the
        table uses as few distinct keys as it can (:mod:`pairwise_param.engine.variants`).
    where:
        The test (or other context) named in every error message.
    """

    def __init__(
        self,
        axes: Mapping[str, Iterable[Any]] | Sequence[tuple[str, Iterable[Any]]],
        *,
        strength: int | None = None,
        constraints: Iterable[Callable[..., Any] | Mapping[str, Any] | str] | None = (),
        include: Iterable[RowLike] | None = (),
        sub_models: Iterable[tuple[Sequence[str], int]] | None = (),
        compile_axes: Iterable[str] | None = (),
        compile_key: Callable[..., Any] | None = None,
        where: str | None = None,
    ) -> None:
        self.where = where
        # None means none, for each optional list (cover(..., include=None))
        constraints = () if constraints is None else constraints
        include = () if include is None else include
        sub_models = () if sub_models is None else sub_models
        self.axes, self._resolve = self._build_axes(axes)
        n = len(self.axes)
        self.strength = self._check_strength(default_strength(strength, n))
        self.sub_models: tuple[SubModel, ...] = tuple(self._sub_model(item) for item in sub_models)
        self.constraints: tuple[Constraint, ...] = self._bind_constraints(constraints)
        values = [a.values for a in self.axes]
        labels = [a.name for a in self.axes]
        self.exclusions: tuple[Exclusion, ...] = merge_exclusions(
            (c.scope, tabulate(c, values, labels, where)) for c in self.constraints
        )
        self.feasibility = Feasibility(self.sizes, self.exclusions)
        self._check_satisfiable()
        # one rule for repeated include rows: the same cells twice add nothing
        self.include: tuple[tuple[int | None, ...], ...] = tuple(
            dict.fromkeys(self._include_row(r, i) for i, r in enumerate(include))
        )
        self.index_model = IndexModel(
            sizes=self.sizes,
            strength=self.strength,
            interactions=_interactions(n, self.strength, self.sub_models),
            exclusions=self.exclusions,
            include=self.include,
            compile_axes=(caxes := self._compile_axes(compile_axes)),
            compile_classes=compile_classes(self.axes, caxes, compile_key, where),
        )

    @property
    def compile_axes(self) -> tuple[int, ...]:
        """The declared compile axes (sorted axis indices; ``()``: none)."""
        return self.index_model.compile_axes

    # -- validation steps of __init__ -------------------------------------------
    def _build_axes(
        self, axes: Mapping[str, Iterable[Any]] | Sequence[tuple[str, Iterable[Any]]]
    ) -> tuple[tuple[Axis, ...], dict[str, Binding]]:
        where = self.where
        if isinstance(axes, Mapping):
            pairs = list(axes.items())
        elif isinstance(axes, (list, tuple)):
            pairs = list(axes)
        else:
            raise InvalidArgument(
                f"axes must be a mapping of axis name -> values, got {type(axes).__name__}",
                where=where,
            )
        if not pairs:
            raise InvalidArgument("a model needs at least one axis", where=where)
        built: list[Axis] = []
        resolve: dict[str, Binding] = {}
        for pair in pairs:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise InvalidArgument(f"expected (name, values) pairs, got {pair!r}", where=where)
            name, values = pair
            axis = Axis.build(name, values, where)
            idx = len(built)
            for key in dict.fromkeys((axis.name, *axis.names)):
                if key in resolve:
                    raise DuplicateAxis(
                        f"axis name {key!r} is used twice; each axis and each name bound "
                        "by a grouped axis must be unique",
                        where=where,
                    )
            resolve[axis.name] = (idx, None)
            if axis.grouped:
                for j, part in enumerate(axis.names):
                    resolve[part] = (idx, j)
            built.append(axis)
        return tuple(built), resolve

    def _compile_axes(self, names: Iterable[str] | None) -> tuple[int, ...]:
        """Sorted axis indices of ``compile_axes`` (axis names or names a grouped axis binds)."""
        if names is None:
            return ()
        if isinstance(names, str):
            names = [names]
        try:
            listed = list(names)
        except TypeError:
            raise InvalidArgument(
                f"compile_axes must be a list of axis names, got {names!r}", where=self.where
            ) from None
        out: set[int] = set()
        for name in listed:
            if not isinstance(name, str):
                raise InvalidArgument(
                    f"compile_axes must be a list of axis names, got {name!r} in {listed!r}", where=self.where
                )
            try:
                out.add(self.axis_index(name))
            except UnknownAxis as exc:
                raise UnknownAxis(f"compile_axes: {exc.detail}", where=self.where) from None
        return tuple(sorted(out))

    def _check_strength(self, strength: Any) -> int:
        n = len(self.axes)
        if isinstance(strength, bool) or not isinstance(strength, int):
            raise InvalidArgument(f"strength must be an int, got strength={strength!r}", where=self.where)
        if not 1 <= strength <= n:
            raise StrengthError(
                f"strength={strength} is out of range: the model has {n} "
                f"ax{'i' if n == 1 else 'e'}s ({', '.join(self.names)}), so strength must be 1..{n}",
                where=self.where,
            )
        return strength

    def _sub_model(self, item: Any) -> SubModel:
        where = self.where
        try:
            raw_names, sub_t = item
        except (TypeError, ValueError):
            raise InvalidArgument(
                f"sub_models entries are (axis names, strength) pairs, got {item!r}", where=where
            ) from None
        if isinstance(raw_names, str):
            split = "," in raw_names and raw_names not in self._resolve
            sub_names: list[str] = [s.strip() for s in raw_names.split(",")] if split else [raw_names]
        else:
            try:
                sub_names = list(raw_names)
            except TypeError:
                raise InvalidArgument(
                    f"sub_models entries are (axis names, strength) pairs, got {item!r}", where=where
                ) from None
        try:
            idxs = sorted({self.axis_index(s) for s in sub_names})
        except UnknownAxis as exc:
            raise UnknownAxis(f"sub-model {sub_names!r}: {exc.detail}", where=where) from None
        if isinstance(sub_t, bool) or not isinstance(sub_t, int) or not 1 <= sub_t <= len(idxs):
            raise StrengthError(
                f"sub-model {list(sub_names)} @ {sub_t!r}: strength must be an int in "
                f"1..{len(idxs)} (its number of axes)",
                where=where,
            )
        return SubModel(tuple(idxs), sub_t)

    def _bind_constraints(self, constraints: Any) -> tuple[Constraint, ...]:
        """Predicates bound to axes; declarative rules compiled first."""
        items = constraint_list(constraints, self.where)
        known: dict[str, list[Any]] | None = None
        predicates = []
        for i, c in enumerate(items):
            if not callable(c):
                from pairwise_param.language import compile_constraint, known_values

                if known is None:
                    known = known_values([(a.names, a.values) for a in self.axes])
                try:
                    c = compile_constraint(c, known, where=self.where)
                except PairwiseError as exc:
                    raise type(exc)(f"constraints[{i}]: {exc.detail}", where=self.where) from None
            predicates.append(c)
        bound = tuple(bind_constraint(p, self._resolve, self.names, self.where) for p in predicates)
        values = [a.values for a in self.axes]
        for c in bound:
            for hit in never_equal_constants(c, values):
                name, _, const = hit.partition(" vs ")
                warnings.warn(
                    PairwiseWarning(
                        f"constraint {c.label} compares {name!r} with {const}, "
                        f"which no value of its axis equals: that comparison never holds (a typo?)",
                        where=self.where,
                    ),
                    stacklevel=_outside_stacklevel(),
                )
        return bound

    def _check_satisfiable(self) -> None:
        feas = self.feasibility
        empty_row: list[int | None] = [None] * len(self.axes)
        for ci, comp in enumerate(feas.components):  # the first questions: name the hard group
            try:
                feas.completable_component(ci, empty_row)
            except ConstraintsTooHard:
                raise too_hard(", ".join(self.axes[a].name for a in comp), self.where) from None
        if feas.satisfiable():
            return
        empty: list[int | None] = [None] * len(self.axes)
        failing = {
            a
            for ci, comp in enumerate(feas.components)
            if not feas.completable_component(ci, empty)
            for a in comp
        }
        involved = list(
            dict.fromkeys(
                f"{c.label} (over {', '.join(self.axes[a].name for a in c.scope)})"
                for c in self.constraints
                if not failing or set(c.scope) & failing
            )
        )
        raise UnsatisfiableConstraints(
            "no row satisfies all constraints together: "
            + "; ".join(involved)
            + ". Relax one of them or add values",
            where=self.where,
        )

    # -- lookups ---------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        """Axis names, in order (grouped axes as ``"n,k,m"``)."""
        return tuple(a.name for a in self.axes)

    @property
    def argnames(self) -> tuple[str, ...]:
        """Every bound argument name, flattened (``n``, ``k``, ``m`` for a grouped axis)."""
        return tuple(n for a in self.axes for n in a.names)

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(a) for a in self.axes)

    @property
    def full_product(self) -> int:
        """Number of rows of the full product (constraints not applied)."""
        total = 1
        for a in self.axes:
            total *= len(a)
        return total

    def axis_index(self, name: str) -> int:
        """Axis index for an axis name or a name bound by a grouped axis."""
        try:
            return self._resolve[name][0]
        except (KeyError, TypeError):
            import difflib

            close = difflib.get_close_matches(str(name), list(self._resolve), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownAxis(
                f"unknown axis {name!r}{hint} (axes: {', '.join(self.names)})", where=self.where
            ) from None

    def fingerprint(self) -> str:
        """Stable SHA-256 (hex) of the canonical model: the index model (sizes,
        strength, interactions, exclusions, include rows) plus the axis names
        and a stable label of every value, so two models that would decode to
        different rows never share a fingerprint.  Independent of the process,
        ``PYTHONHASHSEED`` and ``id()`` of values.  Computed once per model (a model
        does not change after it is built; the plugin asks for it three times per table)."""
        cached: str | None = self.__dict__.get("_fingerprint")
        if cached is not None:
            return cached
        blob = json.dumps(
            {
                "index": self.index_model.canonical(),
                "axes": [[list(a.names), [stable_label(v) for v in a.values]] for a in self.axes],
            },
            separators=(",", ":"),
            sort_keys=True,
        )
        digest = hashlib.sha256(blob.encode()).hexdigest()
        self.__dict__["_fingerprint"] = digest
        return digest

    # -- rows ------------------------------------------------------------------
    def _include_row(self, row: RowLike, position: int) -> tuple[int | None, ...]:
        where = self.where
        if not isinstance(row, Mapping):
            raise InvalidArgument(
                f"include rows must be mappings of axis name -> value, row #{position} is {row!r}",
                where=where,
            )
        cells: list[int | None] = [None] * len(self.axes)
        grouped_parts: dict[int, dict[int, Any]] = {}
        for key, value in row.items():
            try:
                axis, element = self._resolve[key]
            except (KeyError, TypeError):
                import difflib

                close = difflib.get_close_matches(str(key), list(self._resolve), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise InvalidInclude(
                    f"include row #{position} names unknown axis {key!r}{hint} "
                    f"(axes: {', '.join(self.names)})",
                    where=where,
                ) from None
            if element is None:
                try:
                    cells[axis] = self.axes[axis].index_of(value, where)
                except InvalidInclude as exc:
                    raise InvalidInclude(f"include row #{position}: {exc.detail}", where=where) from None
            else:
                grouped_parts.setdefault(axis, {})[element] = value
        for axis, parts in grouped_parts.items():
            ax = self.axes[axis]
            if cells[axis] is not None:
                whole = ax.values[cells[axis]]  # type: ignore[index]
                clash = [(ax.names[j], pv) for j, pv in sorted(parts.items()) if not loose_eq(whole[j], pv)]
                if clash:
                    shown = ", ".join(f"{n}={pv!r}" for n, pv in clash)
                    raise InvalidInclude(
                        f"include row #{position} gives {ax.name!r}={whole!r} and also {shown}, "
                        "which disagree; give the grouped axis one way only",
                        where=where,
                    )
                continue
            matches = [
                i
                for i, v in enumerate(ax.values)
                if all(loose_eq(v[j], pv) for j, pv in parts.items())
            ]
            if len(matches) != 1:
                shown = ", ".join(f"{ax.names[j]}={pv!r}" for j, pv in sorted(parts.items()))
                what = "matches no value" if not matches else f"matches {len(matches)} values"
                raise InvalidInclude(
                    f"include row #{position}: {shown} of grouped axis {ax.name!r} {what}; "
                    "name all of its parts",
                    where=where,
                )
            cells[axis] = matches[0]
        broken = self.feasibility.violates(cells)
        if broken is not None:
            ex = self.exclusions[broken]
            labels = [c.label for c in self.constraints if c.scope == ex.scope]
            raise InvalidInclude(
                f"include row #{position} {self.describe_row(cells)} breaks constraint "
                f"{' / '.join(labels)}",
                where=where,
            )
        if not self.feasibility.completable(cells):
            raise InvalidInclude(
                f"include row #{position} {self.describe_row(cells)} cannot be completed to a row "
                "that satisfies all constraints together",
                where=where,
            )
        return tuple(cells)

    def describe_row(self, cells: Sequence[int | None]) -> str:
        """``{dtype=float16, bias_mode=2}`` for the assigned cells."""
        parts = [
            f"{a.name}={value_label(a.values[v])}" for a, v in zip(self.axes, cells) if v is not None
        ]
        return "{" + ", ".join(parts) + "}"

    def describe_tuples(self, refs: Sequence[tuple[Sequence[int], Sequence[int]]], limit: int = 10) -> str:
        """``{a=1, b=x}, {a=2, c=None} (+3 more)``: t-tuples given as (axis
        indices, value indices), e.g. the infeasible tuples of a table."""
        items = []
        for scope, values in refs[:limit]:
            cells: list[int | None] = [None] * len(self.axes)
            for a, v in zip(scope, values):
                cells[a] = v
            items.append(self.describe_row(cells))
        more = len(refs) - limit
        return ", ".join(items) + (f" (+{more} more)" if more > 0 else "")

    def decode(self, index_row: Sequence[int]) -> dict[str, Any]:
        """Index row -> mapping of every bound argument name to its value."""
        out: dict[str, Any] = {}
        for axis, i in zip(self.axes, index_row):
            value = axis.values[i]
            if axis.grouped:
                out.update(zip(axis.names, value))
            else:
                out[axis.name] = value
        return out

    def axis_values(self, index_row: Sequence[int]) -> tuple[Any, ...]:
        """Index row -> tuple of axis values (grouped axes stay tuples)."""
        return tuple(a.values[i] for a, i in zip(self.axes, index_row))

    def __repr__(self) -> str:
        axes = ", ".join(f"{a.name}[{len(a)}]" for a in self.axes)
        return f"Model({axes}, strength={self.strength}, constraints={len(self.constraints)})"

