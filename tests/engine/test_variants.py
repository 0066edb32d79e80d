"""Compile-aware tables (engine/variants.py): every t-tuple covered, with as few kernel
variants (distinct rows on the compile axes) as the compile axes' own covering array.

Coverage is checked by :mod:`pairwise_param.coverage` (never by the engine itself); the
size of "the engine's covering array of the compile axes alone" is ``cover()`` of
those axes, with the constraints among them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairwise_param import cover
from pairwise_param.coverage import measure
from pairwise_param.errors import InvalidArgument, UnknownAxis
from pairwise_param.model import Model
from tests.sizing import examples


def _variants(model: Model, rows: list[tuple[int, ...]]) -> set[tuple[int, ...]]:
    return {tuple(r[a] for a in model.compile_axes) for r in rows}


FUSED = {
    "norm_type": ["rms", "layer"], "dtype": ["bf16", "fp16", "fp32"], "eps": [1e-6, 1e-5],
    "has_gate": [False, True], "gate_layout": ["none", "scalar", "C", "1C", "B1C", "BLC", "BF1C"],
    "has_weight": [False, True], "has_bias": [False, True],
    "scale_layout": ["scalar", "C", "1C", "B1C", "BLC", "BF1C"],
    "shift_layout": ["scalar", "C", "1C", "B1C", "BLC", "BF1C"], "padded": [False, True],
}
FUSED_RULES = [lambda has_gate, gate_layout: has_gate == (gate_layout != "none"),
               lambda has_weight, has_bias: has_weight or not has_bias]
FUSED_COMPILE = ["norm_type", "dtype", "has_gate", "has_weight", "has_bias"]


def test_fused_norm_model_compiles_the_compile_axes_covering_array():
    plain = cover(FUSED, constraints=FUSED_RULES)
    aware = cover(FUSED, constraints=FUSED_RULES, compile_axes=FUSED_COMPILE)
    model = aware.model
    rows = list(aware.index_rows)
    alone = cover({k: FUSED[k] for k in FUSED_COMPILE}, constraints=[FUSED_RULES[1]])
    assert len(_variants(model, rows)) == len(alone) == 7  # 6 is impossible: has_bias needs has_weight
    assert len(_variants(model, list(plain.index_rows))) == 15
    assert len(rows) <= 1.25 * len(plain)
    report = measure(model, [model.decode(r) for r in rows])
    assert report.complete and not report.violations
    assert aware.method.startswith("variants 7: ")


def test_a_tuple_the_variants_cannot_hold_costs_one_more_variant():
    """x=1 only runs with a=b=c=1, a variant the compile axes' own array (even parity,
    4 rows) lacks: the engine adds exactly that variant, and says so."""
    axes = {"a": [0, 1], "b": [0, 1], "c": [0, 1], "x": [0, 1], "y": [0, 1, 2]}
    rule = "x == 0 or (a == 1 and b == 1 and c == 1)"
    aware = cover(axes, constraints=[rule], compile_axes=["a", "b", "c"])
    model = aware.model
    rows = list(aware.index_rows)
    alone = cover({k: axes[k] for k in "abc"})
    variants = _variants(model, rows)
    assert len(variants) == len(alone) + 1 and (1, 1, 1) in variants
    assert "(+1)" in aware.method
    report = measure(model, [model.decode(r) for r in rows])
    assert report.complete and not report.violations


def test_no_compile_axes_leaves_model_and_rows_alone():
    plain = Model(FUSED, constraints=FUSED_RULES)
    assert "compile_axes" not in plain.index_model.canonical()
    aware = Model(FUSED, constraints=FUSED_RULES, compile_axes=FUSED_COMPILE)
    assert aware.fingerprint() != plain.fingerprint()
    assert aware.compile_axes == (0, 1, 3, 5, 6)
    # two compile axes at t=2: their array is their full product, nothing to restrict
    axes = {"dtype": ["a", "b"], "bias": [0, 1, 2], "p": [0, 1], "q": [0, 1]}
    assert list(cover(axes, compile_axes=["dtype", "bias"])) == list(cover(axes))


def test_bad_compile_axes_are_refused_with_the_axis_named():
    with pytest.raises(UnknownAxis, match=r"compile_axes: unknown axis 'dtyp'; did you mean 'dtype'"):
        cover({"dtype": [1, 2], "x": [0, 1]}, compile_axes=["dtyp"])
    with pytest.raises(InvalidArgument, match="compile_axes must be a list of axis names"):
        cover({"dtype": [1, 2], "x": [0, 1]}, compile_axes=[3])
    wide = {f"a{i}": list(range(10)) for i in range(6)}
    with pytest.raises(InvalidArgument, match=r"compile_axes span 1000000 value combinations"):
        cover(wide, compile_axes=list(wide))


def test_include_rows_keep_a_variant_that_holds_them():
    axes = {"a": [0, 1], "b": [0, 1], "c": [0, 1], "x": [0, 1, 2]}
    aware = cover(axes, compile_axes=["a", "b", "c"], include=[{"a": 1, "b": 1, "c": 1, "x": 2}])
    first = dict(next(iter(aware)))
    assert first == {"a": 1, "b": 1, "c": 1, "x": 2}
    report = measure(aware.model, list(aware))
    assert report.complete and not report.violations


def test_model_files_declare_compile_axes(tmp_path):
    from pairwise_param.cli.modelfile import load_model

    path = tmp_path / "m.toml"
    path.write_text('compile_axes = ["a", "b", "c"]\n[axes]\na = [0, 1]\nb = [0, 1]\nc = [0, 1]\nx = [0, 1, 2]\n')
    spec = load_model(path)
    assert spec.model.compile_axes == (0, 1, 2)
    path.write_text('compile_axes = "a"\n[axes]\na = [0, 1]\n')
    with pytest.raises(Exception, match="'compile_axes' must be a list of axis names"):
        load_model(path)


# -- the property: over random models ------------------------------------------------------------


@st.composite
def compile_models(draw):
    """Axes, compile axes (2..4 of them), strength 2 or 3, and constraints that keep the
    compile axes and the others apart (one among compile axes, one among the others),
    so the compile axes' own array is cover() of them with their constraints."""
    n = draw(st.integers(4, 7))
    sizes = draw(st.lists(st.integers(2, 4), min_size=n, max_size=n))
    axes = {f"a{i}": list(range(s)) for i, s in enumerate(sizes)}
    names = list(axes)
    k = draw(st.integers(2, min(4, n - 1)))
    compile_axes = draw(st.permutations(names))[:k]
    others = [a for a in names if a not in compile_axes]
    t = draw(st.sampled_from([2, 2, 3]))
    rules = []
    if draw(st.booleans()):
        a, b = compile_axes[0], compile_axes[1]
        rules.append(f"not ({a} == 0 and {b} == 1)")
    if len(others) >= 2 and draw(st.booleans()):
        a, b = others[0], others[1]
        rules.append(f"not ({a} == 1 and {b} == 0)")
    return axes, sorted(compile_axes, key=names.index), t, rules


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(compile_models())
def test_variants_are_the_compile_axes_own_covering_array(case):
    axes, compile_axes, t, rules = case
    aware = cover(axes, strength=t, constraints=rules, compile_axes=compile_axes)
    model = aware.model
    rows = list(aware.index_rows)
    inside = [r for r in rules if all(f"{a} " not in r for a in axes if a not in compile_axes)]
    alone = cover({a: axes[a] for a in compile_axes}, strength=min(t, len(compile_axes)), constraints=inside)
    assert len(_variants(model, rows)) == len(alone)
    report = measure(model, [model.decode(r) for r in rows])
    assert report.complete and not report.violations
    assert len(set(rows)) == len(rows) >= len(alone)
