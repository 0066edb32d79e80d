"""``cover()``: the public entry point for use outside pytest.

It validates the inputs into a :class:`~pairwise_param.model.Model`, asks the
engine for index rows and decodes them back to the user's own values (the very
objects given, never copies or strings).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

from pairwise_param.engine import EngineOptions, Generated, generate
from pairwise_param.model import Model, RowLike, value_label

__all__ = ["CoveringArray", "build_array", "cover"]


class CoveringArray(Sequence[dict[str, Any]]):
    """The rows of a covering array, with what a caller may want to know.

    It is a sequence of ``dict`` rows (argument name -> value, grouped axes
    flattened); ``index_rows`` holds the same rows as value indices,
    ``infeasible`` the t-tuples that constraints make impossible (each a dict),
    ``method`` the construction that produced the rows.
    """

    def __init__(self, model: Model, generated: Generated) -> None:
        self.model = model
        self.index_rows: tuple[tuple[int, ...], ...] = generated.rows
        self.method = generated.method
        self._infeasible_refs = generated.infeasible
        self._rows = [model.decode(r) for r in generated.rows]

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        return self._rows[i]

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._rows)

    @property
    def infeasible(self) -> list[dict[str, Any]]:
        """t-tuples no valid row can contain, as ``{axis name: value}`` dicts."""
        out = []
        for scope, values in self._infeasible_refs:
            out.append({self.model.axes[a].name: self.model.axes[a].values[v] for a, v in zip(scope, values)})
        return out

    def describe_infeasible(self, limit: int = 10) -> str:
        """Readable list of infeasible tuples (for messages and summaries)."""
        items = [
            "{" + ", ".join(f"{self.model.axes[a].name}={value_label(self.model.axes[a].values[v])}" for a, v in zip(s, vs)) + "}"
            for s, vs in self._infeasible_refs[:limit]
        ]
        more = len(self._infeasible_refs) - limit
        return ", ".join(items) + (f" (+{more} more)" if more > 0 else "")

    @property
    def fingerprint(self) -> str:
        return self.model.fingerprint()

    def values(self) -> list[tuple[Any, ...]]:
        """Rows as tuples of axis values in axis order (grouped axes as tuples)."""
        return [self.model.axis_values(r) for r in self.index_rows]

    def __repr__(self) -> str:
        return f"<CoveringArray {len(self)} rows, t={self.model.strength}, {self.model!r}, method={self.method}>"


def build_array(model: Model, *, effort: int = 0, seed: int = 0) -> CoveringArray:
    """Generate the covering array of an already validated model."""
    generated = generate(model.index_model, EngineOptions(effort=effort, seed=seed), model.feasibility)
    return CoveringArray(model, generated)


def cover(
    axes: Mapping[str, Iterable[Any]] | Sequence[tuple[str, Iterable[Any]]],
    *,
    strength: int = 2,
    constraints: Iterable[Callable[..., Any]] = (),
    include: Iterable[RowLike] = (),
    sub_models: Iterable[tuple[Sequence[str], int]] = (),
    effort: int = 0,
    seed: int = 0,
    where: str | None = None,
) -> CoveringArray:
    """Rows covering every ``strength``-wise combination of the axes' values.

    >>> rows = cover({"dtype": ["fp16", "bf16"], "padded": [False, True], "bias": [0, 1, 2]})
    >>> len(rows)
    6

    ``constraints`` are predicates over axis names; ``include`` rows come
    first; ``sub_models`` raise the strength on a subset of axes; ``effort``
    > 0 runs the improver (deterministic for a given ``seed``).
    """
    model = Model(
        axes, strength=strength, constraints=constraints, include=include, sub_models=sub_models, where=where
    )
    return build_array(model, effort=effort, seed=seed)
