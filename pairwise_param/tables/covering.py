"""``cover()`` and :class:`CoveringArray`: the library's verb outside pytest.

:func:`cover` validates its inputs into a :class:`~pairwise_param.model.Model` (or,
with invalid values, a :class:`~pairwise_param.tables.invalid.Split`), asks
:mod:`pairwise_param.tables.build` for its table (the one way any face gets rows)
and decodes them back to the user's own values (the very objects given, never
copies or strings).  :func:`build_array` does the same for an already validated
model (the CLI's ``generate``, the Hypothesis strategies).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from pairwise_param.model import Model, RowLike
from pairwise_param.tables.build import Table, build_table, build_with_invalid, check_mode, engine_options

if TYPE_CHECKING:
    from pairwise_param.engine import EngineOptions, Progress, TupleRef
    from pairwise_param.tables.build import WithInvalid
    from pairwise_param.tables.invalid import InvalidCase, Split

__all__ = ["CoveringArray", "build_array", "cover"]


class CoveringArray(Sequence[dict[str, Any]]):
    """The rows of a covering array, with what a caller may want to know.

    It is a sequence of ``dict`` rows (argument name -> value, grouped axes
    flattened); ``index_rows`` holds the same rows as value indices,
    ``infeasible`` the t-tuples that constraints make impossible (each a dict),
    ``method`` the construction that produced the rows.

    Two arrays are equal when they hold the same rows of the same model (same
    fingerprint): ``cover(m) == cover(m)``, the promise of identical rows.

    Outside the plugin, hand the rows to pytest directly::

        table = cover({"dtype": [...], "bias": [0, 1, 2]})

        @table.parametrize()             # == pytest.mark.parametrize(table.argnames, table.argvalues(), ids=...)
        def test_kernel(dtype, bias): ...
    """

    def __init__(self, model: Model, table: Table, invalid: WithInvalid | None = None) -> None:
        self.model = model if invalid is None else invalid.split.full
        valid = table if invalid is None else invalid.valid
        self.index_rows: tuple[tuple[int, ...], ...] = table.rows if invalid is None else invalid.rows
        self.method = valid.method
        #: True when Ctrl-C ended the improver early (the CLI's ``generate``): the rows
        #: are the best verified array found by then
        self.interrupted = valid.interrupted
        self._infeasible_refs = valid.infeasible
        self._rows = [self.model.decode(r) for r in self.index_rows]
        #: with invalid values (:mod:`pairwise_param.tables.invalid`): the split, and per row
        #: its :class:`~pairwise_param.tables.invalid.InvalidCase` (None for a valid row)
        self.split: Split | None = None if invalid is None else invalid.split
        self.invalid: tuple[InvalidCase | None, ...] = (
            (None,) * len(self._rows)
            if invalid is None
            else tuple(None if k is None else invalid.split.case(k) for k in invalid.cases)
        )
        self._invalid_infeasible: tuple[TupleRef, ...] = () if invalid is None else invalid.negative_infeasible

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        return self._rows[i]

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def valid_count(self) -> int:
        """Rows of the valid part (every row, without invalid values): the covering table."""
        return sum(1 for c in self.invalid if c is None)

    @property
    def invalid_count(self) -> int:
        """Rows of the negative part: each holds exactly one invalid value."""
        return len(self.invalid) - self.valid_count

    @property
    def invalid_infeasible(self) -> list[dict[str, Any]]:
        """Pairs (invalid value, valid value of another axis) that constraints forbid,
        as ``{axis name: value}`` dicts (the negative part's uncoverable tuples)."""
        return [self._as_dict(ref) for ref in self._invalid_infeasible]

    def _as_dict(self, ref: TupleRef) -> dict[str, Any]:
        scope, values = ref
        return {self.model.axes[a].name: self.model.axes[a].values[v] for a, v in zip(scope, values)}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CoveringArray):
            return NotImplemented
        return self.index_rows == other.index_rows and self.fingerprint == other.fingerprint

    def __hash__(self) -> int:
        return hash((self.fingerprint, self.index_rows))

    @property
    def argnames(self) -> tuple[str, ...]:
        """The argument names of every row, in axis order (grouped axes flattened)."""
        return self.model.argnames

    def argvalues(self) -> list[tuple[Any, ...]]:
        """Rows as tuples in :attr:`argnames` order: ``parametrize``'s argvalues."""
        names = self.argnames
        return [tuple(row[n] for n in names) for row in self._rows]

    def ids(self) -> list[str]:
        """Readable, unique test ids, the ones the plugin gives the same rows."""
        from pairwise_param.tables.ids import row_ids

        return row_ids([(a.names, a.values) for a in self.model.axes], self.index_rows, None)

    def parametrize(self, **kwargs: Any) -> Any:
        """``pytest.mark.parametrize(argnames, argvalues(), ids=ids(), **kwargs)``:
        a plain parametrize mark carrying these rows, for use without the plugin
        (it cannot switch modes at run time; ``@pairwise`` can)."""
        import pytest

        kwargs.setdefault("ids", self.ids())
        values: list[Any] = self.argvalues()
        if self.invalid_count:
            from pairwise_param.contract import INVALID_MARK

            mark = getattr(pytest.mark, INVALID_MARK)
            values = [
                v if c is None else pytest.param(*v, marks=mark(axis=c.axis, value=c.value, reason=c.reason))
                for v, c in zip(values, self.invalid)
            ]
        return pytest.mark.parametrize(list(self.argnames), values, **kwargs)

    @property
    def infeasible(self) -> list[dict[str, Any]]:
        """t-tuples no valid row can contain, as ``{axis name: value}`` dicts."""
        return [self._as_dict(ref) for ref in self._infeasible_refs]

    def describe_infeasible(self, limit: int = 10) -> str:
        """Readable list of infeasible tuples (for messages and summaries)."""
        return self.model.describe_tuples(self._infeasible_refs, limit)

    @property
    def fingerprint(self) -> str:
        """The model's fingerprint; with invalid values, also which values are invalid."""
        if self.split is None:
            return self.model.fingerprint()
        import hashlib

        blob = self.model.fingerprint() + repr([(a, v) for a, v, _ in self.split.cases])
        return hashlib.sha256(blob.encode()).hexdigest()

    def values(self) -> list[tuple[Any, ...]]:
        """Rows as tuples of axis values in axis order (grouped axes as tuples)."""
        return [self.model.axis_values(r) for r in self.index_rows]

    def __repr__(self) -> str:
        neg = f" + {self.invalid_count} invalid-value rows" if self.invalid_count else ""
        return f"<CoveringArray {self.valid_count} rows{neg}, t={self.model.strength}, {self.model!r}, method={self.method}>"


def build_array(
    model: Model,
    *,
    mode: str = "cover",
    effort: Any = 0,
    seed: Any = 0,
    on_progress: Callable[[Progress], None] | None = None,
    interruptible: bool = False,
) -> CoveringArray:
    """The array of an already validated model in ``mode`` (``"cover"`` or ``"full"``).
    ``on_progress`` / ``interruptible``: see :class:`~pairwise_param.engine.EngineOptions`
    (the CLI's progress line and Ctrl-C); neither changes the rows of a full run."""
    options = _options(mode, effort, seed, model.where, on_progress, interruptible)
    return CoveringArray(model, build_table(model, mode, options))


def _options(
    mode: str,
    effort: Any,
    seed: Any,
    where: str | None,
    on_progress: Callable[[Progress], None] | None = None,
    interruptible: bool = False,
) -> EngineOptions:
    import dataclasses

    options = engine_options(effort, seed, where)  # bad options fail before any model work
    check_mode(mode, where)
    if on_progress is not None or interruptible:
        options = dataclasses.replace(options, on_progress=on_progress, interruptible=interruptible)
    return options


def cover(
    axes: Mapping[str, Iterable[Any]] | Sequence[tuple[str, Iterable[Any]]],
    *,
    strength: int | None = None,
    constraints: Iterable[Callable[..., Any] | Mapping[str, Any] | str] | None = (),
    include: Iterable[RowLike] | None = (),
    sub_models: Iterable[tuple[Sequence[str], int]] | None = (),
    compile_axes: Iterable[str] | None = (),
    compile_key: Callable[..., Any] | None = None,
    mode: str = "cover",
    effort: Any = 0,
    seed: int = 0,
    where: str | None = None,
) -> CoveringArray:
    """Rows covering every ``strength``-wise combination of the axes' values.

    >>> rows = cover({"dtype": ["fp16", "bf16"], "padded": [False, True], "bias": [0, 1, 2]})
    >>> len(rows)
    6

    ``strength`` defaults to ``min(2, number of axes)``; ``constraints`` are
    predicates over axis names or declarative rules
    (:mod:`pairwise_param.language`); ``include`` rows come first;
    ``sub_models`` raise the strength on a subset of axes; ``compile_axes`` name the
    axes whose values select a kernel variant (the rows then hold as few distinct
    combinations of them as a covering array of those axes alone; see
    :mod:`pairwise_param.engine.variants`), and ``compile_key`` (a function of their
    values by parameter name, returning a hashable key) says which combinations are one
    variant (:mod:`pairwise_param.compile_key`); ``effort`` > 0 runs
    the improver (deterministic for a given ``seed``).  ``mode="full"`` gives
    every row of the full product that breaks no constraint instead (the rows
    ``pytest --pairwise-mode=full`` runs).  Values wrapped in
    :func:`pairwise_param.invalid` are tested one at a time after the covering
    rows (see :mod:`pairwise_param.tables.invalid`).
    """
    options = _options(mode, effort, seed, where)
    from pairwise_param.tables.invalid import has_invalid

    if has_invalid(axes):
        from pairwise_param.tables.invalid import split_model

        split = split_model(axes, strength=strength, constraints=constraints, include=include,
                            sub_models=sub_models, compile_axes=compile_axes, compile_key=compile_key, where=where)
        valid = build_table(split.valid, mode, options)
        return CoveringArray(split.full, valid, build_with_invalid(split, valid, mode, options))
    model = Model(
        axes, strength=strength, constraints=constraints, include=include, sub_models=sub_models,
        compile_axes=compile_axes, compile_key=compile_key, where=where,
    )
    return CoveringArray(model, build_table(model, mode, options))
