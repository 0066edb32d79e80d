"""Test ids: short readable forms, uniqueness, stability (unit level)."""

from __future__ import annotations

import enum
import subprocess
import sys

import pytest

from pairwise_param.plugin.ids import axis_segments, row_ids
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
        "from pairwise_param.plugin.ids import row_ids\n"
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
