"""pytest-compatible edges of ``@pairwise`` (issue 10 section 4), through real inner
sessions: an empty axis, ``ids=`` as ``parametrize`` takes it and pytest-style ids,
unhashable values, derived values."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if re.fullmatch(r"\S+::\S+\[.*\]", line)]


# -- 1. an empty axis ---------------------------------------------------------------------------
EMPTY = """
import pytest
from pairwise_param import pairwise

FP8_DTYPES = []  # e.g. empty on a platform without fp8

@pairwise(fp8=FP8_DTYPES, bias=[False, True], n=[1, 2])
def test_fp8(fp8, bias, n):
    raise AssertionError("never runs")

@pairwise(dtype=["f16", "bf16"], bias=[False, True])
def test_other(dtype, bias):
    pass
"""


@pytest.mark.parametrize("mode", ["cover", "full"])
def test_empty_axis_skips_like_empty_parametrize(pytester: pytest.Pytester, mode: str) -> None:
    pytester.makepyfile(test_e=EMPTY)
    result = pytester.runpytest("-rs", f"--pairwise-mode={mode}")
    result.assert_outcomes(passed=4, skipped=1)  # 2x2 at t=2 is its own full product
    # pytest's own reason (its wording varies by version), the empty axis named first
    result.stdout.fnmatch_lines(["*SKIPPED*got empty parameter set*fp8*bias*n*"])
    # the skipped test holds no table: the summary counts the other test only
    result.stdout.fnmatch_lines(["pairwise-param: 4 items from 1 table stand for 4 full-product items*"])


def test_empty_axis_follows_empty_parameter_set_mark(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_e=EMPTY)
    pytester.runpytest("-o", "empty_parameter_set_mark=xfail").assert_outcomes(passed=4, xfailed=1)
    result = pytester.runpytest("-o", "empty_parameter_set_mark=fail_at_collect")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*Empty parameter set in 'test_fp8' at line 6*"])  # pytest's text


@pytest.mark.parametrize("how", [("-o", "pairwise_empty_axis=error"), ("--pairwise-empty-axis=error",)])
def test_empty_axis_can_be_an_error(pytester: pytest.Pytester, how: tuple[str, ...]) -> None:
    pytester.makepyfile(test_e=EMPTY)
    result = pytester.runpytest(*how)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*in test_e.py::test_fp8: axis 'fp8' of @pairwise has no values (pairwise_empty_axis = error)*"]
    )


def test_empty_axis_bad_setting_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_e=EMPTY)
    result = pytester.runpytest("-o", "pairwise_empty_axis=ignore")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pairwise_empty_axis (ini)='ignore' is not valid; use one of: skip, error*"])


def test_empty_axis_on_one_of_two_tables_skips_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[3, 4])
        @pairwise(c=[], d=[0, 1])
        def test_two(a, b, c, d):
            raise AssertionError
        """
    )
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*got empty parameter set*c*d*a*b*"])


# -- 2. ids -----------------------------------------------------------------------------------
def test_ids_callable_of_one_value_as_parametrize_calls_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(dtype=["float16", "bfloat16"], n=[1, 2], ids=lambda v: v[:2] if isinstance(v, str) else None)
        def test_one(dtype, n):
            pass

        @pairwise(dtype=["float16", "bfloat16"], n=[1, 2], ids=lambda name, v: f"{name[0]}{v}")
        def test_two(dtype, n):
            pass
        """
    )
    ids = collected(pytester.runpytest("--co", "-q"))
    assert "test_ids_callable_of_one_value_as_parametrize_calls_it.py::test_one[dtype=fl-n=1]" in ids
    assert "test_ids_callable_of_one_value_as_parametrize_calls_it.py::test_two[dtype=dfloat16-n=n1]" in ids


def test_ids_lists(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(dtype=[object(), object()], ids=["fp16", "bf16"])
        def test_one_axis(dtype):
            pass

        @pairwise(dtype=[object(), object()], n=[1, 2], ids={"dtype": ["fp16", None]})
        def test_mapping_of_lists(dtype, n):
            pass
        """
    )
    ids = [i.split("::")[1] for i in collected(pytester.runpytest("--co", "-q", "-p", "no:randomly"))]
    assert ids[:2] == ["test_one_axis[dtype=fp16]", "test_one_axis[dtype=bf16]"]
    assert "test_mapping_of_lists[dtype=fp16-n=1]" in ids
    assert "test_mapping_of_lists[dtype=<object>#1-n=1]" in ids  # None: the default text


@pytest.mark.parametrize(
    ("ids", "match"),
    [
        ('["a", "b"]', "a list of ids names the values of a table of ONE axis; this table has 2"),
        ("42", r"ids=42 \(int\) is not usable. ids= takes: 'readable'"),
        ('"short"', "ids='short' is not an id style. ids= takes: 'readable'"),
        ('{"x": "fp16"}', r"ids\['x'\]='fp16' must be a callable value -> str .*or a list of one id per value"),
        ('["a", {}]', "every id in the list is a str"),
    ],
)
def test_unusable_ids_say_what_is_accepted(pytester: pytest.Pytester, ids: str, match: str) -> None:
    n_axis = "" if ids.startswith('["a", {') else ", n=[1, 2]"
    pytester.makepyfile(
        f"""
        from pairwise_param import pairwise

        @pairwise(x=[1, 2]{n_axis}, ids={ids})
        def test_x(x{", n" if n_axis else ""}):
            pass
        """
    )
    result = pytester.runpytest("--co", "-q")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert re.search(match, result.stdout.str()), result.stdout.str()


PYTEST_STYLE = """
import enum
import pytest
from pairwise_param import pairwise

class Kind(enum.Enum):
    A = 1
    B = 2

class Dtype:  # like torch.dtype: no __name__, so pytest names it by position
    def __init__(self, name):
        self.name = name

DTYPES = [Dtype("f16"), Dtype("bf16")]
AXES = dict(dtype=DTYPES, padded=[True, False], kind=[Kind.A, Kind.B], variant=["x", "y", "1", 1], shape=[(1, 2), (3, 4)])

@pytest.mark.parametrize("shape", AXES["shape"])
@pytest.mark.parametrize("variant", AXES["variant"])
@pytest.mark.parametrize("kind", AXES["kind"])
@pytest.mark.parametrize("padded", AXES["padded"])
@pytest.mark.parametrize("dtype", AXES["dtype"])
def test_k(dtype, padded, kind, variant, shape):
    pass

@pairwise(IDS_ARG**AXES)
def test_k_pairwise(dtype, padded, kind, variant, shape):
    pass
"""


@pytest.mark.parametrize("how", ["decorator", "ini", "flag"])
def test_pytest_style_ids_are_those_of_stacked_parametrize(pytester: pytest.Pytester, how: str) -> None:
    pytester.makepyfile(test_s=PYTEST_STYLE.replace("IDS_ARG", 'ids="pytest", ' if how == "decorator" else ""))
    args = {"decorator": [], "ini": ["-o", "pairwise_ids=pytest"], "flag": ["--pairwise-ids=pytest"]}[how]
    for mode in ("cover", "full"):
        ids = collected(pytester.runpytest("--co", "-q", f"--pairwise-mode={mode}", *args))
        stacked = {i.split("[", 1)[1] for i in ids if "::test_k[" in i}
        ours = {i.split("[", 1)[1] for i in ids if "::test_k_pairwise[" in i}
        assert len(stacked) == 2 * 2 * 2 * 4 * 2
        # the axes are written in the order pytest joins stacked ids (bottom decorator first)
        assert ours <= stacked
        assert (ours == stacked) == (mode == "full"), mode
        if mode == "full":  # positions of values (dtype1), pytest's suffix for repeated texts (1_0)
            assert "dtype1-True-Kind.A-1_0-shape0]" in ours


def test_test_ids_readable_wins_over_the_ini(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], ids="readable")
        def test_r(a):
            pass

        @pairwise(a=[1, 2])
        def test_p(a):
            pass
        """
    )
    ids = [i.split("::")[1] for i in collected(pytester.runpytest("--co", "-q", "-p", "no:randomly", "-o", "pairwise_ids=pytest"))]
    assert ids == ["test_r[a=1]", "test_r[a=2]", "test_p[1]", "test_p[2]"]


# -- 3. unhashable values ---------------------------------------------------------------------
UNHASHABLE = """
from pairwise_param import pairwise

SHAPES = [{"m": 1, "n": 64}, {"m": 8, "n": 128}, {"m": 16, "n": 4096, "k": [1, 2]}]

@pairwise(shape=SHAPES, dtype=["f16", "bf16"], bias=[False, True])
def test_shapes(shape, dtype, bias):
    assert shape in SHAPES and type(shape) is dict
"""


def test_unhashable_values_run_with_readable_ids(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_u=UNHASHABLE)
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*test_shapes?shape={m:1,n:64}-dtype=*PASSED*"])
    assert any("test_shapes[shape={m:16,n:4096,k:[1,2]}-" in line for line in result.outlines)
    pytester.runpytest("--pairwise-mode=full").assert_outcomes(passed=12)


def test_unhashable_rows_are_deterministic_across_hash_seeds(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_u=UNHASHABLE)
    outs = set()
    for seed in ("0", "1", "12345"):
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
            cwd=pytester.path,
            capture_output=True,
            text=True,
            env={**_env(), "PYTHONHASHSEED": seed},
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        outs.add(tuple(line for line in proc.stdout.splitlines() if "::" in line))
    assert len(outs) == 1 and len(next(iter(outs))) == 6


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PAIRWISE_"))}


def test_repeated_unhashable_value_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(shape=[{"m": 1}, {"m": 1}], dtype=["a", "b"])
        def test_x(shape, dtype):
            pass
        """
    )
    result = pytester.runpytest("--co", "-q")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*axis 'shape' lists value {'m': 1} twice (positions 0 and 1)*"])


# -- 4. derived values ------------------------------------------------------------------------
DERIVED = """
from pairwise_param import pairwise

TOL = {("sum", "f16"): 1e-2, ("sum", "f32"): 1e-5, ("mean", "f16"): 1e-3, ("mean", "f32"): 1e-6}

@pairwise(
    reduction=["sum", "mean"], dtype=["f16", "f32"], chunked=[False, True],
    derived={"atol": lambda reduction, dtype: TOL[reduction, dtype], "expected": lambda chunked: not chunked},
)
def test_loss(reduction, dtype, chunked, atol, expected):
    assert atol == TOL[reduction, dtype]
    assert expected is (not chunked)
"""


@pytest.mark.parametrize(("mode", "items"), [("cover", 4), ("full", 8)])
def test_derived_values_reach_the_test_not_the_ids(pytester: pytest.Pytester, mode: str, items: int) -> None:
    pytester.makepyfile(test_d=DERIVED)
    result = pytester.runpytest("-v", f"--pairwise-mode={mode}", "--junitxml=out.xml")
    result.assert_outcomes(passed=items)
    result.stdout.fnmatch_lines(["*test_loss?reduction=sum-dtype=f16-chunked=*PASSED*"])
    assert not [line for line in result.outlines if "PASSED" in line and ("atol" in line or "0.01" in line)]
    # derived values are in the JUnit properties, after the axes
    case = ET.parse(pytester.path / "out.xml").getroot().find(".//testcase")
    assert case is not None
    props = [(p.get("name"), p.get("value")) for p in case.iter("property")]
    assert [n for n, _ in props] == [
        "pairwise.reduction", "pairwise.dtype", "pairwise.chunked", "pairwise.atol", "pairwise.expected",
    ]


@pytest.mark.parametrize(
    ("derived", "signature", "match"),
    [
        ('{"atol": lambda dtyp: 1}', "dtype, atol", "derived\\['atol'\\]: parameter 'dtyp' is not an axis"),
        ('{"dtype": lambda dtype: 1}', "dtype", "derived\\['dtype'\\]: 'dtype' is also an axis"),
        ('{"atol": 1e-3}', "dtype, atol", "derived\\['atol'\\]=0.001 is not callable"),
        ('{"atol": lambda dtype: 1}', "dtype", "derived value 'atol' of @pairwise is not an argument of the test"),
        ('{"atol": lambda dtype: 1 / 0}', "dtype, atol",
         "derived\\['atol'\\] raised ZeroDivisionError\\('division by zero'\\) for the row \\{dtype='a'\\}"),
    ],
)
def test_derived_errors_name_test_and_value(pytester: pytest.Pytester, derived: str, signature: str, match: str) -> None:
    pytester.makepyfile(
        f"""
        from pairwise_param import pairwise

        @pairwise(dtype=["a", "b"], derived={derived})
        def test_x({signature}):
            pass
        """
    )
    result = pytester.runpytest("--co", "-q")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    text = result.stdout.str()
    assert "test_x" in text and re.search(match, text), text


def test_derived_with_indirect_axes_goes_to_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from pairwise_param import pairwise

        @pytest.fixture
        def dtype(request):
            return request.param.upper()

        @pairwise(dtype=["a", "b"], n=[1, 2], indirect=["dtype"], derived={"tag": lambda dtype, n: dtype * n})
        def test_x(dtype, n, tag):
            assert n in (1, 2) and tag in ("a", "b", "aa", "bb") and dtype in ("A", "B")
        """
    )
    pytester.runpytest().assert_outcomes(passed=4)


# -- unittest ---------------------------------------------------------------------------------
def test_unittest_testcase_with_pairwise_errors_with_the_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import unittest
        from pairwise_param import pairwise

        class TestK(unittest.TestCase):
            @pairwise(a=[1, 2], b=[3, 4])
            def test_x(self, a, b):
                pass

            def test_plain(self):
                pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*@pairwise on a unittest.TestCase method is never expanded*plain test class*"])
    assert "missing 2 required positional arguments" not in result.stdout.str()
