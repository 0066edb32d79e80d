"""Hypothesis integration (optional extra: ``pip install pairwise-param[hypothesis]``).

Nothing else in pairwise-param imports this module or Hypothesis.

* ``@pairwise`` composes with ``@given`` as it is: the table's axes are
  ordinary pytest parameters, the ``@given`` arguments are drawn per item::

      @pairwise(dtype=[torch.float16, torch.bfloat16], bias_mode=[0, 1, 2])
      @given(m=st.integers(1, 64), n=st.integers(1, 64))
      def test_kernel(dtype, bias_mode, m, n): ...

* :func:`rows` is a strategy of valid rows of a model: every draw respects the
  constraints (values are drawn among those that keep the partial row
  completable, axis by axis), and it shrinks towards the first value of each
  axis (value indices come from ``integers(0, k - 1)``).

* :func:`covering_examples` seeds a ``@given`` test with the rows of the
  covering table as explicit ``@example``\\ s, so every run starts from full
  t-wise coverage of the options and then explores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

try:
    import hypothesis
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "pairwise_param.strategies needs Hypothesis: pip install 'pairwise-param[hypothesis]'"
    ) from exc

from pairwise_param.constraints import constraint_list
from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model

__all__ = ["covering_examples", "rows"]

F = TypeVar("F", bound=Callable[..., Any])


def _as_model(
    model_or_axes: Any,
    *,
    strength: int | None,
    constraints: Iterable[Callable[..., Any]],
    include: Iterable[Mapping[str, Any]],
    sub_models: Iterable[tuple[Sequence[str], int]],
    where: str | None,
) -> Model:
    from pairwise_param.decorator import PairwiseSpec

    constraints = constraint_list(constraints, where)
    include, sub_models = tuple(include), tuple(sub_models)
    extra = bool(constraints or include or sub_models)
    if isinstance(model_or_axes, Model):
        if extra or strength is not None:
            raise InvalidArgument(
                "pass strength/constraints/include/sub_models only with a mapping of axes, "
                "not with a Model (it already has them)",
                where=where,
            )
        return model_or_axes
    if isinstance(model_or_axes, PairwiseSpec):
        if extra:
            raise InvalidArgument(
                "pass constraints/include/sub_models only with a mapping of axes, not with a PairwiseSpec",
                where=where,
            )
        return model_or_axes.model(where, strength=strength)
    if isinstance(model_or_axes, Mapping):
        return Model(
            model_or_axes,
            strength=strength,  # None: the model's default, min(2, number of axes)
            constraints=constraints,
            include=include,
            sub_models=sub_models,
            where=where,
        )
    raise InvalidArgument(
        f"expected a Model, a PairwiseSpec or a mapping of axis name -> values, got "
        f"{type(model_or_axes).__name__}",
        where=where,
    )


def rows(
    model_or_axes: Model | Mapping[str, Iterable[Any]] | Any,
    *,
    constraints: Iterable[Callable[..., Any]] = (),
) -> st.SearchStrategy[dict[str, Any]]:
    """A strategy of valid rows (``dict`` argument name -> value, grouped axes
    flattened) of a model or of a mapping of axes (with ``constraints``).

    Draws axis by axis among the values that keep the row completable, so no
    draw is ever rejected; shrinks towards each axis's first valid value.
    """
    model = _as_model(
        model_or_axes, strength=None, constraints=constraints, include=(), sub_models=(), where="rows()"
    )
    feas = model.feasibility
    sizes = model.sizes

    @st.composite
    def draw_row(draw: Callable[[st.SearchStrategy[Any]], Any]) -> dict[str, Any]:
        cells: list[int | None] = [None] * len(sizes)
        for a, size in enumerate(sizes):
            ok = []
            for v in range(size):
                cells[a] = v
                if feas.violates(cells) is None and feas.completable(cells):
                    ok.append(v)
            # the model is satisfiable and the prefix completable, so ok is non-empty
            cells[a] = ok[draw(st.integers(0, len(ok) - 1))]
        return model.decode([c for c in cells if c is not None])

    return draw_row()


def covering_examples(
    model_or_axes: Model | Mapping[str, Iterable[Any]] | Any,
    *,
    strength: int | None = None,
    constraints: Iterable[Callable[..., Any]] = (),
    include: Iterable[Mapping[str, Any]] = (),
    sub_models: Iterable[tuple[Sequence[str], int]] = (),
    effort: int = 0,
    seed: int = 0,
    argname: str | None = None,
    fill: Mapping[str, Any] | None = None,
) -> Callable[[F], F]:
    """Add one ``hypothesis.example`` per row of the covering table.

    Hypothesis requires every explicit example to give every ``@given``
    argument, so:

    * by default each row's arguments are passed by name (the ``@given``
      arguments include the axes' names);
    * with ``argname="row"`` the row is passed whole, as a dict, to that
      argument (pair it with ``@given(row=rows(...))``);
    * ``fill`` gives fixed values for the other ``@given`` arguments in these
      examples (e.g. the smallest shape); Hypothesis fuzzes them afterwards.

    Use it under ``@given`` (decorators apply bottom-up, ``@example`` must
    wrap the function before ``@given`` sees it, or above it: Hypothesis
    accepts both orders).
    """
    from pairwise_param.tables.covering import build_array

    model = _as_model(
        model_or_axes,
        strength=strength,
        constraints=constraints,
        include=include,
        sub_models=sub_models,
        where="covering_examples()",
    )
    table = build_array(model, effort=effort, seed=seed)
    extra = dict(fill or {})
    clash = (
        sorted(set(extra) & set(model.argnames))
        if argname is None
        else ([argname] if argname in extra else [])
    )
    if clash:
        raise InvalidArgument(
            f"fill= names {', '.join(clash)}, which the covering rows already give",
            where="covering_examples()",
        )
    examples = []
    for row in table:
        kwargs = {argname: dict(row)} if argname is not None else dict(row)
        kwargs.update(extra)
        examples.append(hypothesis.example(**kwargs))

    def apply(fn: F) -> F:
        # Hypothesis runs explicit examples in the order the decorators were
        # written, top-down; apply bottom-up so the table's first row runs first.
        for ex in reversed(examples):
            fn = ex(fn)
        return fn

    return apply
