"""Test ids: short readable forms, uniqueness, stability (unit level)."""

from __future__ import annotations

import enum
import subprocess
import sys

import pytest

from pairwise_param.tables.ids import axis_segments, pytest_value_id, row_ids
from pairwise_param.values import value_id


class Color(enum.Enum):
    RED = 1


class Level(enum.IntEnum):
    LOW = 0


class Opaque:
    pass


def kernel() -> None:
    pass


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "True"),
        (False, "False"),
        (None, "None"),
        (3, "3"),
        (1e-5, "1e-05"),
        ("bf16", "bf16"),
        ("", "''"),
        (Color.RED, "RED"),
        (Level.LOW, "LOW"),
        ((1, "a", None), "(1,a,None)"),
        (kernel, "kernel"),
        (Opaque, "Opaque"),
        (frozenset({2, 1}), "{1,2}"),
    ],
)
def test_value_id(value: object, text: str) -> None:
    assert value_id(value) == text


def test_torch_dtypes_drop_the_prefix() -> None:
    torch = pytest.importorskip("torch")
    assert [value_id(d) for d in (torch.float16, torch.bfloat16, torch.float32)] == [
        "float16",
        "bfloat16",
        "float32",
    ]


def test_objects_with_addresses_get_a_stable_positional_id() -> None:
    assert value_id(Opaque(), 3) == "<Opaque>#3"
    assert value_id(lambda: 0, 1).startswith("<function>#1")


def test_segments_unique_and_disambiguated() -> None:
    assert axis_segments(["x"], [1, "1", 2]) == ["x=1#0", "x=1#1", "x=2"]
    assert axis_segments(["n", "k"], [(1, 2), (3, 4)]) == ["n=1-k=2", "n=3-k=4"]
    assert axis_segments(["x"], [Opaque(), Opaque()]) == ["x=<Opaque>#0", "x=<Opaque>#1"]


def test_custom_id_functions() -> None:
    assert axis_segments(["dtype"], ["float16", "bfloat16"], {"dtype": lambda v: v[:1] + v[-2:]}) == [
        "dtype=f16",
        "dtype=b16",
    ]
    # a global function, None keeps the default; collisions still disambiguated
    assert axis_segments(["x"], [1, 2], lambda name, v: "same" if v else None) == ["x=same#0", "x=same#1"]


def test_row_ids() -> None:
    axes = [(["a"], [0, 1]), (["b"], ["x", "y"])]
    assert row_ids(axes, [(0, 0), (1, 1)]) == ["a=0-b=x", "a=1-b=y"]


def test_ids_stable_across_hash_seeds() -> None:
    code = (
        "from pairwise_param.tables.ids import row_ids\n"
        "axes=[(['s'], [frozenset({'a','b','c'}), 'x', ('p','q')]), (['t'], [None, 1.5])]\n"
        "print(row_ids(axes, [(0,0),(1,1),(2,0)]))\n"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": str(seed), "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in (1, 2, 3)
    }
    # frozenset repr order may vary with the hash seed: such values must not leak into ids unstably
    assert len(outs) == 1, outs


def test_disambiguation_suffix_cannot_collide_with_another_value() -> None:
    # 1 and "1" both read "1" and get their positions; "1#1" then read the same as the
    # second one (x=1#0, x=1#1, x=1#1): strict_parametrization_ids rejected the table
    segs = axis_segments(["x"], [1, "1", "1#1"])
    assert len(set(segs)) == 3
    assert segs[0] == "x=1#0"
    segs = axis_segments(["x"], ["", "''", 2])
    assert len(set(segs)) == 3 and segs[2] == "x=2"


def test_disambiguated_ids_pass_strict_parametrization_ids(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_ids="""
        from pairwise_param import pairwise

        @pairwise(x=[1, "1", "1#1"])
        def test_a(x):
            pass
        """
    )
    result = pytester.runpytest("-o", "strict_parametrization_ids=true", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=3)


def test_pytest_value_id_follows_pytests_rules() -> None:
    assert pytest_value_id("bf16", "dtype", 3) == "bf16"
    assert pytest_value_id(b"ab", "x", 0) == "ab"
    assert pytest_value_id("x" * 101, "s", 2) == "s2"  # pytest's limit for strings shown as they are
    assert [pytest_value_id(v, "x", 0) for v in (True, None, 2, 1.5)] == ["True", "None", "2", "1.5"]
    assert pytest_value_id(Color.RED, "c", 0) == "Color.RED"
    # an IntEnum is an int first, as in pytest: str() of it, which is "0" on Python >= 3.11
    # and "Level.LOW" on 3.10 (Python changed IntEnum.__str__ in 3.11)
    assert pytest_value_id(Level.LOW, "c", 0) == str(Level.LOW)
    assert pytest_value_id(len, "fn", 0) == "len"
    assert pytest_value_id((1, 2), "shape", 4) == "shape4"
    assert pytest_value_id({"m": 1}, "cfg", 1) == "cfg1"


def test_pytest_style_segments_and_suffixes() -> None:
    assert axis_segments(["x"], ["1", 1, "a"], style="pytest") == ["1_0", "1_1", "a"]
    assert axis_segments(["x"], ["a", "a", "a0"], style="pytest") == ["a1", "a2", "a0"]  # a0 taken: skipped
    assert axis_segments(["n", "k"], [(1, 2), (3, object())], style="pytest") == ["1-2", "3-k1"]
    assert axis_segments(["x"], [1, 2], {"x": ["one", None]}, style="pytest") == ["one", "2"]


def test_ids_callable_arity() -> None:
    # fn(value) as parametrize calls it; fn(argname, value) when it takes two parameters
    assert axis_segments(["x"], [1, 2], lambda v: f"v{v}") == ["x=v1", "x=v2"]
    assert axis_segments(["x"], [1, 2], lambda name, v: f"{name}{v}") == ["x=x1", "x=x2"]
    assert axis_segments(["x"], [1, 2], str) == ["x=1", "x=2"]  # a builtin: one argument
    assert axis_segments(["x"], [1, 2], lambda v, scale=10: v * scale) == ["x=10", "x=20"]
    assert axis_segments(["n", "k"], [(1, 2)], {"n,k": ["small"]}) == ["small"]  # a grouped axis, whole
