"""``compile_key=`` (pairwise_param/compile_key.py, engine/variants.py): compile-axis values
with equal keys are one kernel variant, and the table uses as few keys as it can.

Coverage is checked by :mod:`pairwise_param.coverage`, and the variants are counted here by
calling the key on the decoded rows (never through the model's classes)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairwise_param import cover
from pairwise_param.coverage import measure
from pairwise_param.errors import InvalidArgument

ROPE = {"gqa": [1, 2, 4], "kv": [1, 2, 8], "rope_dim": [64, 128, 256, 512], "is_neox": [False, True],
        "dtype": ["bf16", "fp16"]}
ROPE_COMPILE = ["rope_dim", "is_neox", "dtype"]


def block_r(rope_dim: int) -> int:
    """RoPE's GPU bucket of the rotated half: 64 holds rope_dim <= 128, 256 the rest."""
    return 64 if rope_dim // 2 <= 64 else 256


def rope_key(rope_dim, is_neox, dtype):
    return block_r(rope_dim), is_neox, dtype


def _keys(table, key, names):
    return {key(**{n: row[n] for n in names}) for row in table}


def _checked(table):
    report = measure(table.model, [table.model.decode(r) for r in table.index_rows])
    assert report.complete and not report.violations
    return table


def test_rope_compiles_one_variant_per_bucket_not_per_rope_dim():
    plain = _checked(cover(ROPE, compile_axes=ROPE_COMPILE))
    keyed = _checked(cover(ROPE, compile_axes=ROPE_COMPILE, compile_key=rope_key))
    assert len({(r["rope_dim"], r["is_neox"], r["dtype"]) for r in plain}) == 8  # the combinations' own array
    assert len(_keys(plain, rope_key, ROPE_COMPILE)) == 6  # what they compile
    # (bucket, is_neox, dtype): 3 two-valued keys, so 4 cover every pair of them
    assert len(_keys(keyed, rope_key, ROPE_COMPILE)) == 4
    assert keyed.method.startswith("variants 4: ")
    assert {r["rope_dim"] for r in keyed} == set(ROPE["rope_dim"])  # every value still runs
    assert len(keyed) <= 1.25 * len(cover(ROPE))


def test_a_key_of_some_compile_axes_only():
    keyed = _checked(cover(ROPE, compile_axes=ROPE_COMPILE, compile_key=lambda rope_dim: block_r(rope_dim)))
    assert len({block_r(r["rope_dim"]) for r in keyed}) == 2
    assert keyed.method.startswith("variants 2: ")


def test_a_key_that_merges_nothing_is_no_key():
    axes = {"a": [0, 1, 2], "b": [0, 1], "c": [0, 1, 2]}
    plain = cover(axes, compile_axes=["a", "b"])
    keyed = cover(axes, compile_axes=["a", "b"], compile_key=lambda a, b: (a, b))
    assert keyed.model.index_model.fingerprint() == plain.model.index_model.fingerprint()
    assert list(keyed.index_rows) == list(plain.index_rows)


def test_a_parameter_with_a_default_that_is_no_compile_axis_keeps_it():
    def key(rope_dim, is_neox, dtype="bf16"):
        return block_r(rope_dim), is_neox, dtype

    keyed = _checked(cover({k: v for k, v in ROPE.items() if k != "dtype"}, compile_axes=["rope_dim", "is_neox"],
                           compile_key=key))
    assert keyed.method.startswith("variants 4: ")  # (bucket, is_neox): 2 x 2


def test_grouped_axes_bind_their_names():
    axes = {"n,k": [(1, 64), (2, 64), (1, 128), (2, 128)], "dtype": ["a", "b"], "x": [0, 1, 2]}
    keyed = _checked(cover(axes, compile_axes=["n,k", "dtype"], compile_key=lambda k, dtype: (k, dtype)))
    assert len({(r["k"], r["dtype"]) for r in keyed}) == 4
    assert keyed.method.startswith("variants 4: ")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"compile_key": lambda a: a}, "compile_key=.* needs compile_axes="),
    ({"compile_axes": ["a"], "compile_key": lambda b: b}, "parameter 'b' is not a compile axis .*add it to compile_axes"),
    ({"compile_axes": ["a"], "compile_key": lambda a: [a]}, r"compile_key\(a=0\) .*unhashable"),
    ({"compile_axes": ["a"], "compile_key": lambda a: 1 // a}, r"compile_key\(a=0\) failed .*ZeroDivisionError"),
    ({"compile_axes": ["a"], "compile_key": "a"}, "compile_key='a' needs compile_axes= and must be a function"),
])
def test_bad_keys_are_refused_with_the_fix(kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        cover({"a": [0, 1], "b": [0, 1, 2]}, where="test_k", **kwargs)


def test_the_decorator_refuses_a_key_that_is_no_function():
    from pairwise_param import pairwise

    with pytest.raises(InvalidArgument, match="compile_key"):
        pairwise(a=[0, 1], b=[0, 1], compile_axes=["a"], compile_key=3)(lambda a, b: None)


# -- the property: over random models ------------------------------------------------------------


@st.composite
def keyed_models(draw):
    """Axes, 2..4 compile axes, strength 2 or 3, a constraint sometimes, and a key that
    buckets each compile axis's values (value // width, width 1..3) over some of them."""
    n = draw(st.integers(4, 7))
    sizes = draw(st.lists(st.integers(2, 5), min_size=n, max_size=n))
    axes = {f"a{i}": list(range(s)) for i, s in enumerate(sizes)}
    names = list(axes)
    k = draw(st.integers(2, min(4, n - 1)))
    compile_axes = sorted(draw(st.permutations(names))[:k], key=names.index)
    keyed = draw(st.lists(st.sampled_from(compile_axes), min_size=1, max_size=k, unique=True))
    widths = {a: draw(st.integers(1, 3)) for a in keyed}
    rules = []
    if draw(st.booleans()):
        a, b = draw(st.permutations(names))[:2]
        rules.append(f"not ({a} == 0 and {b} == 1)")
    t = draw(st.sampled_from([2, 2, 3]))
    return axes, compile_axes, widths, t, rules


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keyed_models())
def test_variants_are_the_distinct_keys_and_every_tuple_is_covered(case):
    axes, compile_axes, widths, t, rules = case

    def key(**values):
        return tuple(sorted((a, v // widths[a]) for a, v in values.items() if a in widths))

    table = _checked(cover(axes, strength=t, constraints=rules, compile_axes=compile_axes, compile_key=key))
    used = _keys(table, key, compile_axes)
    assert table.method.startswith(f"variants {len(used)}")
    assert re.match(r"variants \d+", table.method)
    unkeyed = cover(axes, strength=t, constraints=rules, compile_axes=compile_axes)
    assert len(used) <= len(_keys(unkeyed, key, compile_axes))  # the key never costs a variant
    assert len(set(table.index_rows)) == len(list(table.index_rows))


def test_a_rotated_run_keeps_the_fixed_tables_keys():
    """Rotation (tables/rotate_variants.py) restricts a keyed model to the fixed table's
    keys: every combination of a kept key may rotate in, no other key."""
    from pairwise_param.model import Model
    from pairwise_param.tables.build import build_table
    from pairwise_param.tables.rotate_variants import rotate_compile_aware

    model = Model(ROPE, compile_axes=ROPE_COMPILE, compile_key=rope_key)
    fixed = build_table(model)

    def keys(rows):
        return {rope_key(**{n: model.decode(r)[n] for n in ROPE_COMPILE}) for r in rows}

    runs: list = []
    for _ in range(2):
        rotated = rotate_compile_aware(model, fixed, runs)
        assert keys(rotated.rows) <= keys(fixed.rows) and len(keys(fixed.rows)) == 4
        report = measure(model, [model.decode(r) for r in rotated.rows])
        assert report.complete and not report.violations
        runs.append(rotated.rows)
