"""Property tests: on random models, ``cover()`` is complete, valid and
deterministic, as judged by the independent coverage module.

Models: 2-12 axes of 1-8 values (mixed kinds: ints, strings, None, tuples,
enum members, dtype-like objects), random constraints (predicates over 1-3
axes forbidding random value combinations), random must-include rows,
t = 1..3, sometimes a grouped axis and a sub-model.  Every model is
satisfiable by construction (a hidden *witness* row is never forbidden), so
``assume`` almost never discards an example.  Under the ``ci`` and ``dev``
profiles the tests below run 100 + 100 + 100 + 120 + 100 + 40 = 560 models
(sizes scale with the profile, see ``tests/sizing.py``; ``HYPOTHESIS_PROFILE=quick``
runs a tenth).  Measured on 2026-12-01 on a shared 2-core machine (load ~6):
63 s wall for this module under ``pytest -n 2`` with ``ci``, 13 s with
``quick``; the wide-model test is the largest.  The largest axes of a drawn
model are trimmed until its t-tuples fit a budget, which bounds each example.
"""

from __future__ import annotations

import enum
import inspect
import itertools
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param import Model, cover
from pairwise_param.coverage import extendable, measure
from pairwise_param.errors import InvalidInclude, UnsatisfiableConstraints


class Mode(enum.Enum):
    OFF = 0
    ON = 1


class FakeDtype:
    def __init__(self, name: str) -> None:
        self.name_ = name

    def __repr__(self) -> str:
        return f"torch.{self.name_}"


# Pairwise distinct under == (no bool next to 1, no 0.0 next to 0).
POOL: tuple[Any, ...] = (
    0, 1, 2, 3, "a", "b", "fp16", None, (1, 2), ("x",), Mode.OFF, Mode.ON,
    FakeDtype("float16"), FakeDtype("bfloat16"),
)


@dataclass
class Spec:
    axes: dict[str, list[Any]]
    strength: int
    constraints: list[Any]
    include: list[dict[str, Any]]
    rejected: list[dict[str, Any]]  # include candidates that no valid row extends
    sub_models: list[tuple[tuple[str, ...], int]]
    effort: int = 0

    def kwargs(self) -> dict[str, Any]:
        return {
            "axes": self.axes,
            "strength": self.strength,
            "constraints": self.constraints,
            "include": self.include,
            "sub_models": self.sub_models,
            "effort": self.effort,
        }


def forbid(index: int, params: list[str], forbidden: set[tuple[Any, ...]]):
    """A predicate over ``params`` that is false exactly on ``forbidden``
    (tuples of the parameters' values).  Its signature names the axes, as a
    user's ``def`` would."""

    def predicate(**kw: Any) -> bool:
        return tuple(kw[p] for p in params) not in forbidden

    predicate.__name__ = predicate.__qualname__ = f"forbid_{index}"
    predicate.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params]
    )
    return predicate


def _tuples(sizes: list[int], t: int) -> int:
    total = 0
    for scope in itertools.combinations(sizes, t):
        p = 1
        for s in scope:
            p *= s
        total += p
    return total


@st.composite
def specs(
    draw: st.DrawFn,
    *,
    axes: tuple[int, int] = (2, 12),
    values: tuple[int, int] = (1, 8),
    strengths: tuple[int, ...] = (2,),
    grouped: bool = False,
    sub_model: bool = False,
    effort: int = 0,
    budget: int = 1200,
) -> Spec:
    n = draw(st.integers(*axes))
    sizes = [draw(st.integers(*values)) for _ in range(n)]
    t = draw(st.sampled_from([t for t in strengths if t <= n]))
    # Keep the run time moderate: shrink the largest axes until the number of
    # t-tuples fits the budget (most drawn models already do).
    while _tuples(sizes, t) > budget:
        sizes[sizes.index(max(sizes))] -= 1
    group = grouped and draw(st.booleans())
    names: list[str] = []
    axis_values: list[list[Any]] = []
    params: list[str] = []  # the name a predicate uses for each axis
    for i, size in enumerate(sizes):
        pool = list(draw(st.permutations(POOL)))[:size]
        if group and i == 0:
            names.append(f"g{i},h{i}")
            axis_values.append([(j, v) for j, v in enumerate(pool)])
            params.append(f"g{i}")  # the first part identifies the value
        else:
            names.append(f"a{i}")
            axis_values.append(pool)
            params.append(f"a{i}")

    def seen(a: int, value: Any) -> Any:  # what the predicate's parameter for axis a sees
        return value[0] if "," in names[a] else value

    witness = [draw(st.integers(0, s - 1)) for s in sizes]
    constraints = []
    for c in range(draw(st.integers(0, 4))):
        scope = sorted(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=min(3, n), unique=True)))
        combos = [
            combo
            for combo in itertools.product(*(range(sizes[a]) for a in scope))
            if combo != tuple(witness[a] for a in scope)
        ]
        if not combos:
            continue
        chosen = draw(st.lists(st.sampled_from(combos), min_size=1, max_size=min(len(combos), 12), unique=True))
        forbidden = {tuple(seen(a, axis_values[a][v]) for a, v in zip(scope, combo)) for combo in chosen}
        constraints.append(forbid(c, [params[a] for a in scope], forbidden))

    subs: list[tuple[tuple[str, ...], int]] = []
    if sub_model and n >= 3 and draw(st.booleans()):
        sub_axes = draw(st.lists(st.integers(0, n - 1), min_size=3, max_size=3, unique=True))
        subs.append((tuple(names[a] for a in sub_axes), 3))

    axes_map = dict(zip(names, axis_values))
    base = Model(axes_map, strength=t, constraints=constraints, sub_models=subs)

    def row_value(a: int, v: int) -> dict[str, Any]:
        value = axis_values[a][v]
        if "," in names[a]:
            how = draw(st.sampled_from(["whole", "parts", "first part"]))
            parts = names[a].split(",")
            if how == "parts":
                return dict(zip(parts, value))
            if how == "first part":  # unique: first parts are distinct
                return {parts[0]: value[0]}
        return {names[a]: value}

    include: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 3))):
        cells = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        from_witness = draw(st.booleans())
        row: dict[str, Any] = {}
        for a in range(n):
            if cells[a]:
                v = witness[a] if from_witness else draw(st.integers(0, sizes[a] - 1))
                row.update(row_value(a, v))
        (include if extendable(base, row) else rejected).append(row)
    return Spec(axes_map, t, constraints, include, rejected, subs, effort)


def _agrees(wanted: dict[str, Any], row: dict[str, Any]) -> bool:
    """``row`` holds every value of the (partial) row ``wanted``, the very objects or equal ones
    of the same type."""
    for key, value in wanted.items():
        got = tuple(row[part] for part in key.split(",")) if "," in key else row[key]
        if not (got is value or (type(got) is type(value) and got == value)):
            return False
    return True


def check(spec: Spec) -> None:
    try:
        rows = cover(**spec.kwargs())
    except UnsatisfiableConstraints:  # impossible by construction; kept as a guard
        assume(False)
        raise
    model = rows.model
    report = measure(model, rows)

    # 1. complete and valid, by the independent measure
    assert report.overall.missing == (), report.summary()
    assert report.violations == () and report.out_of_model == (), report.summary()
    assert report.percent == 100.0
    if not spec.sub_models:
        assert report.overall.strength == spec.strength

    # 2. must-include rows first, with the values given; no row twice (a repeated include
    #    row, or two partial ones completed alike, is kept once: one rule for every face)
    assert len(set(rows.index_rows)) == len(rows)
    head = rows[: len(model.include)]
    for wanted in spec.include:
        assert any(_agrees(wanted, row) for row in head), (wanted, head)

    # 3. the infeasible tuples cover() reports are exactly the coverage module's
    engine = set()
    for t in rows.infeasible:
        scope = tuple(model.axis_index(name) for name in t)
        engine.add((scope, tuple(model.axes[a].index_of(v) for a, v in zip(scope, t.values()))))
    interactions = set(model.index_model.interactions)
    mine = {c.index for c in report.overall.infeasible if c.index[0] in interactions}
    assert engine == mine

    # 4. deterministic
    again = cover(**spec.kwargs())
    assert again.index_rows == rows.index_rows
    assert list(again) == list(rows)

    # 5. include rows rejected by the model are exactly the non-extendable ones
    for bad in spec.rejected:
        try:
            Model(spec.axes, strength=spec.strength, constraints=spec.constraints, include=[bad])
        except InvalidInclude:
            pass
        else:
            raise AssertionError(f"include row {bad} cannot be extended, yet the model accepted it")


COMMON: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
}


@settings(max_examples=examples(100), **COMMON)
@given(specs(axes=(2, 6), strengths=(2,)))
def test_pairwise_random_small_models(spec: Spec) -> None:
    check(spec)


@settings(max_examples=examples(100), **COMMON)
@given(specs(axes=(7, 12), strengths=(2,)))
def test_pairwise_random_wide_models(spec: Spec) -> None:
    check(spec)


@settings(max_examples=examples(100), **COMMON)
@given(specs(strengths=(1,)))
def test_strength_one_random_models(spec: Spec) -> None:
    check(spec)


@settings(max_examples=examples(120), **COMMON)
@given(specs(axes=(3, 7), values=(1, 4), strengths=(3,)))
def test_strength_three_random_models(spec: Spec) -> None:
    check(spec)


@settings(max_examples=examples(100), **COMMON)
@given(specs(axes=(2, 8), values=(1, 5), strengths=(1, 2), grouped=True, sub_model=True))
def test_mixed_strength_and_grouped_random_models(spec: Spec) -> None:
    check(spec)


@settings(max_examples=examples(40), **COMMON)
@given(specs(axes=(2, 6), values=(1, 4), strengths=(1, 2, 3), grouped=True, effort=1))
def test_improver_keeps_the_invariants(spec: Spec) -> None:
    check(spec)
