"""The pytest plugin through real inner sessions (pytester): counts, ids,
composition with pytest's own features, collection errors, the summary line."""

from __future__ import annotations

import re
import sys

import pytest

from pairwise_param import cover

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

KERNEL = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], padded_a=[False, True], bias_mode=[0, 1, 2], xnorm=[False, True])
@pytest.mark.parametrize("n", [1, 8, 64])
def test_kernel(n, dtype, padded_a, bias_mode, xnorm):
    pass
"""


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if re.fullmatch(r"\S+::\S+\[.*\]", line)]


def pairs_covered(rows: list[dict], names: list[str]) -> bool:
    values = {n: sorted({r[n] for r in rows}, key=repr) for n in names}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for va in values[a]:
                for vb in values[b]:
                    if not any(r[a] == va and r[b] == vb for r in rows):
                        return False
    return True


def test_counts_ids_and_pair_coverage(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=KERNEL)
    result = pytester.runpytest("--collect-only", "-q")
    ids = collected(result)
    # 2x2x3x2 options -> 6 rows (3 is the largest x 2 the next: optimal), x 3 shapes
    assert len(ids) == 18
    option_ids = sorted({re.search(r"\[(.*)-\d+\]$", i).group(1) for i in ids})  # type: ignore[union-attr]
    assert len(option_ids) == 6
    rows = []
    for oid in option_ids:
        assert re.fullmatch(
            r"dtype=(fp16|bf16)-padded_a=(True|False)-bias_mode=[012]-xnorm=(True|False)", oid
        )
        rows.append(dict(part.split("=") for part in oid.split("-")))
    assert pairs_covered(rows, ["dtype", "padded_a", "bias_mode", "xnorm"])
    assert "pairwise-param:" not in result.stdout.str()  # silent inside a `--co -q` listing
    pytester.runpytest("--collect-only").stdout.fnmatch_lines(
        ["pairwise-param: 18 items from 1 table stand for 72 full-product items (4.0x fewer), t=2"]
    )


def test_values_reach_the_test_and_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=["x", "y"], c=[None, 3.5])
        def test_types(a, b, c):
            assert a in (1, 2) and b in ("x", "y") and c in (None, 3.5)
            assert type(a) is int
        """
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=len(cover({"a": [0, 1], "b": [0, 1], "c": [0, 1]})))
    result.stdout.fnmatch_lines(["*test_types?a=1-b=x-c=None?*PASSED*"])


def test_ids_short_forms_and_disambiguation(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import enum
        from pairwise_param import pairwise

        class Color(enum.Enum):
            RED = 1
            BLUE = 2

        @pairwise(flag=[True, False], color=[Color.RED, Color.BLUE], odd=[1, "1"], kind=["a"])
        def test_x(flag, color, odd, kind):
            pass
        """
    )
    result = pytester.runpytest("--collect-only", "-q")
    ids = collected(result)
    expected = len(cover({"flag": [0, 1], "color": [0, 1], "odd": [0, 1], "kind": [0]}))
    assert len(ids) == len(set(ids)) == expected
    text = "\n".join(ids)
    assert "flag=True-color=RED-odd=1#0-kind=a" in text
    assert "odd=1#1" in text


def test_torch_dtype_ids(pytester: pytest.Pytester) -> None:
    pytest.importorskip("torch")
    pytester.makepyfile(
        """
        import torch
        from pairwise_param import pairwise

        @pairwise(dtype=[torch.float16, torch.bfloat16, torch.float32], xnorm=[False, True])
        def test_x(dtype, xnorm):
            assert isinstance(dtype, torch.dtype)
        """
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*test_x?dtype=bfloat16-xnorm=True?*"])


def test_grouped_axis_and_mapping_form(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise({"n,k,m": [(1, 64, 128), (4, 32, 256)], "mode": ["a", "b"]}, bias=[0, 1])
        def test_x(n, k, m, mode, bias):
            assert (n, k, m) in [(1, 64, 128), (4, 32, 256)]
        """
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=len(cover({"a": [0, 1], "b": [0, 1], "c": [0, 1]})))
    result.stdout.fnmatch_lines(["*test_x?n=1-k=64-m=128-mode=a-bias=0?*"])


def test_composes_with_fixtures_classes_and_param_marks(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from pairwise_param import pairwise

        @pytest.fixture
        def device():
            return "cpu"

        @pairwise(a=[0, 1], b=[0, 1], c=[0, 1])
        class TestK:
            def test_one(self, device, a, b, c):
                assert device == "cpu"

            @pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.skip(reason="big"))])
            def test_two(self, n, a, b, c):
                assert n == 1
        """
    )
    result = pytester.runpytest()
    rows = len(cover({"a": [0, 1], "b": [0, 1], "c": [0, 1]}))  # 4 for an optimal engine
    result.assert_outcomes(passed=2 * rows, skipped=rows)
    result.stdout.fnmatch_lines(
        [f"pairwise-param: {3 * rows} items from 2 tables stand for {3 * 8} full-product items*"]
    )


def test_axis_that_is_a_fixture_direct_and_indirect(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from pairwise_param import pairwise

        @pytest.fixture
        def device(request):
            return "fixture:" + getattr(request, "param", "none")

        @pairwise(device=["cpu", "gpu"], a=[0, 1])
        def test_direct(device, a):
            # a direct axis overrides a same-named fixture (pytest's rule for parametrize)
            assert device in ("cpu", "gpu")

        @pairwise(device=["cpu", "gpu"], a=[0, 1], indirect=["device"])
        def test_indirect(device, a):
            assert device in ("fixture:cpu", "fixture:gpu")
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=8)


def test_indirect_axis_may_be_a_fixture_only(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from pairwise_param import pairwise

        @pytest.fixture
        def backend(request):
            return request.param.upper()

        @pytest.fixture
        def runner(backend):
            return "run-" + backend

        @pairwise(backend=["a", "b"], x=[0, 1], indirect=True)
        @pytest.mark.usefixtures("backend")
        def test_it(runner, x):
            assert runner in ("run-A", "run-B")
        """
    )
    # backend is a fixture of the test (through runner) but not an argument; x is
    # an argument but with indirect=True it would need a fixture -> pytest's error.
    result = pytester.runpytest()
    assert result.ret != 0


def test_two_pairwise_tables_multiply(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(a=[0, 1], b=[0, 1], c=[0, 1])
        @pairwise(x=["p", "q"], y=["r", "s"])
        def test_x(a, b, c, x, y):
            pass
        """
    )
    result = pytester.runpytest("--collect-only", "-q")
    rows = len(cover({"a": [0, 1], "b": [0, 1], "c": [0, 1]}))
    assert len(collected(result)) == rows * 4
    result = pytester.runpytest("--collect-only")
    result.stdout.fnmatch_lines(
        [f"pairwise-param: {rows * 4} items from 2 tables stand for 32 full-product items*"]
    )


def test_constraints_include_and_infeasible_listing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(
            dtype=["fp16", "bf16", "fp32"],
            bias=[0, 1, 2],
            x=[False, True],
            constraints=[lambda dtype, bias: not (dtype == "fp32" and bias == 2)],
            include=[{"dtype": "bf16", "bias": 1, "x": True}],
        )
        def test_x(dtype, bias, x):
            assert not (dtype == "fp32" and bias == 2)
        """
    )
    result = pytester.runpytest("-v", "-p", "no:randomly")  # the listing is in collection order
    assert result.ret == 0
    ids = [line for line in result.outlines if "PASSED" in line]
    assert "dtype=bf16-bias=1-x=True" in ids[0]
    result.stdout.fnmatch_lines(
        [
            "*pairwise-param: t-tuples not covered (constraints or collection skips)*",
            "test_constraints_include_and_infeasible_listing.py::test_x: 1 tuple: {dtype=fp32, bias=2}",
            # full product 18, 2 forbidden rows -> 16 feasible
            "pairwise-param: * items from 1 table stand for 16 full-product items*",
        ]
    )


# -- collection errors -------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "@pairwise(a=[1, 2], nope=[1, 2])\ndef test_e(a):\n    pass",
            (
                "*pairwise-param: in test_err.py::test_e: axis 'nope' of @pairwise is not an argument "
                "of the test (its arguments: a)*"
            ),
        ),
        (
            "@pairwise(a=[1, 2], b=[1, 2])\n@pytest.mark.parametrize('b', [3])\ndef test_e(a, b):\n    pass",
            "*in test_err.py::test_e: axis 'b' of @pairwise is also parametrized by @pytest.mark.parametrize*",
        ),
        (
            "@pairwise(a=[1, 2], b=[1, 2])\n@pairwise(b=[3, 4])\ndef test_e(a, b):\n    pass",
            "*in test_err.py::test_e: argument 'b' is an axis of two @pairwise tables*",
        ),
        (
            "@pairwise(a=[1, 2], b=[1, 2], constraints=[lambda a: a > 5])\ndef test_e(a, b):\n    pass",
            "*in test_err.py::test_e: no row satisfies all constraints together*",
        ),
        (
            "@pairwise(a=[1, 2], b=[1, 1])\ndef test_e(a, b):\n    pass",
            "*in test_err.py::test_e: axis 'b' lists value 1 twice*",
        ),
        (
            "@pairwise(a=[1, 2], b=[1, 2], strength=3)\ndef test_e(a, b):\n    pass",
            "*in test_err.py::test_e: strength=3 is out of range*",
        ),
        (
            "@pairwise(a=[1, 2], b=[1, 2])\ndef test_e(a, b=3):\n    pass",
            "*axis 'b' of @pairwise has a default value*",
        ),
        (
            "@pairwise(a=[1, 2], b=[1, 2], include=[{'a': 7}])\ndef test_e(a, b):\n    pass",
            "*in test_err.py::test_e: include row #0: axis 'a' has no value 7*",
        ),
        (
            # indirect=True on an axis that has no fixture: pytest alone only fails at set-up,
            # once per item ("fixture 'b' not found"); we say it once, at collection
            (
                "@pytest.fixture\ndef a(request):\n    return request.param\n\n"
                "@pairwise(a=[1, 2], b=[1, 2], indirect=True)\ndef test_e(a, b):\n    pass"
            ),
            "*in test_err.py::test_e: axis 'b' of @pairwise is indirect, but there is no fixture 'b'*",
        ),
    ],
    ids=[
        "unknown-arg",
        "also-parametrized",
        "two-tables-share",
        "unsat",
        "dup-value",
        "strength",
        "default",
        "include",
        "indirect-no-fixture",
    ],
)
def test_collection_errors_name_the_test(pytester: pytest.Pytester, source: str, expected: str) -> None:
    pytester.makepyfile(test_err="import pytest\nfrom pairwise_param import pairwise\n\n" + source + "\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_err.py*", expected])
    # our message, not a traceback of the plugin (its modules live in pairwise_param/plugin/)
    out = result.stdout.str()
    assert not any(f in out for f in ("hooks.py", "expand.py", "tables.py", "model.py")), out
    assert "Traceback" not in out


def test_reserved_option_used_as_axis_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_err="""
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], strength=[1, 2])
        def test_e(a, strength):
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    out = result.stdout.str()
    assert "in test_err::test_e: 'strength' is an option of @pairwise, not an axis" in out
    assert "pass it in the mapping: @pairwise({'strength': [1, 2]}, ...)" in out
    # the user's line is shown; Python 3.10 places a decorator's error on the `def` line
    user_line = "@pairwise(a=[1, 2], strength=[1, 2])" if sys.version_info >= (3, 11) else "def test_e(a, strength):"
    assert f"test_err.py:{3 if sys.version_info >= (3, 11) else 4}: in <module>" in out and user_line in out
    assert "decorator.py" not in out and "constraints.py" not in out and "covering.py" not in out


def test_raw_mark_without_spec_is_an_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_err="""
        import pytest

        @pytest.mark.pairwise(a=[1, 2])
        def test_e(a):
            pass
        """
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        ["*the 'pairwise' mark takes one PairwiseSpec; apply it with @pairwise(...)*"]
    )


# -- without the plugin, strict markers --------------------------------------------------
def test_without_plugin_fails_loudly(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from pairwise_param import pairwise

        @pytest.fixture
        def a(request):
            return getattr(request, "param", 0)

        @pytest.fixture
        def b(request):
            return getattr(request, "param", 0)

        # without the plugin this would silently run once with a = b = 0
        @pairwise(a=[1, 2], b=[3, 4], indirect=True)
        def test_x(a, b):
            assert a and b
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=4)
    result = pytester.runpytest("-p", "no:pairwise_param")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*fixture '_pairwise_param_plugin' not found*"])
    # a subprocess: in-process runs share pytest's global registry of known marks
    result = pytester.runpytest_subprocess("-p", "no:pairwise_param", "--strict-markers")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*'pairwise' not found in `markers` configuration option*"])


def test_strict_markers_clean_and_marker_listed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(KERNEL)
    result = pytester.runpytest("--strict-markers", "-W", "error::pytest.PytestUnknownMarkWarning")
    result.assert_outcomes(passed=18)
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.pairwise(spec)*"])


def test_strict_parametrization_ids(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nstrict_parametrization_ids = true\n")
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(a=[1, "1", 1.0], b=[(1, 2), (1, "2")], c=[object, None])
        def test_x(a, b, c):
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == 0, result.stdout.str()


def test_no_summary_without_pairwise_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "pairwise-param:" not in result.stdout.str()


def test_summary_is_silent_at_qq_and_in_quiet_listings(pytester: pytest.Pytester) -> None:
    # was: printed at -qq and inside `--co -q` listings (which tools parse line by line)
    pytester.makepyfile(KERNEL)
    line = "pairwise-param: 18 items*"
    pytester.runpytest("-q").stdout.fnmatch_lines([line])
    pytester.runpytest("--collect-only").stdout.fnmatch_lines([line])
    for args in (["-qq"], ["--collect-only", "-q"], ["--collect-only", "-qq"]):
        result = pytester.runpytest(*args)
        assert result.ret == 0
        assert "pairwise-param:" not in result.stdout.str(), args


def test_summary_walks_no_item_without_pairwise_tests(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was: the summary walked every collected item of every suite, @pairwise or not
    from pairwise_param.plugin import hooks

    walked: list[int] = []
    real = hooks._summarize
    monkeypatch.setattr(hooks, "_summarize", lambda items, state: walked.append(len(items)) or real(items, state))
    pytester.makepyfile(test_plain="import pytest\n@pytest.mark.parametrize('n', range(50))\ndef test_plain(n):\n    pass\n")
    pytester.runpytest("-q").assert_outcomes(passed=50)
    assert walked == []
    pytester.makepyfile(test_k=KERNEL)
    pytester.runpytest("-q").assert_outcomes(passed=68)
    assert walked == [68]


def test_deselection_counts_only_selected_items(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(KERNEL)
    result = pytester.runpytest("-k", "bf16", "--collect-only", "-q")
    ids = collected(result)
    assert len(ids) == 9
    result = pytester.runpytest("-k", "bf16", "-q")
    result.stdout.fnmatch_lines(["pairwise-param: 9 items from 1 table stand for 36 full-product items*"])


def test_custom_ids_sub_models_and_full_with_constraints(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(
            dtype=["float16", "bfloat16"], a=[0, 1], b=[0, 1], c=[0, 1],
            sub_models=[(("a", "b", "c"), 3)],
            ids={"dtype": lambda v: v[0] + v[-2:]},
        )
        def test_sub(dtype, a, b, c):
            pass

        @pairwise(a=[0, 1, 2], b=[0, 1], mode="full", constraints=[lambda a, b: a + b < 3])
        def test_full(a, b):
            assert a + b < 3
        """
    )
    # pytest-shard (a dev extra) lists every node id on one line of its own in verbose mode
    result = pytester.runpytest("-v", "-p", "no:pytest-shard")
    assert result.ret == 0
    sub = [line for line in result.outlines if "::test_sub[" in line and not line.startswith("Running ")]
    assert len(sub) >= 8  # a, b, c at t=3: all 8 combinations
    assert all("dtype=f16-" in line or "dtype=b16-" in line for line in sub)
    full = [line for line in result.outlines if "::test_full[" in line and not line.startswith("Running ")]
    assert len(full) == 5  # 6 rows minus (2, 1)


def test_failing_ids_function_and_unused_indirect(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_err="""
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[1, 2], ids={"a": lambda v: 1 / 0})
        def test_e(a, b):
            pass
        """
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        ["*in test_err.py::test_e: an ids= function of @pairwise raised ZeroDivisionError*"]
    )
    pytester.makepyfile(
        test_err="""
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[1, 2], indirect=["b"])
        def test_e(a):
            pass
        """
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*axis 'b' of @pairwise is indirect, but the test uses no fixture 'b'*"])


def test_axis_values_given_as_pytest_param_keep_their_marks_and_ids(pytester: pytest.Pytester) -> None:
    # pytest.param in an axis was rejected as "value ... is unhashable (ParameterSet)";
    # kernel suites mark values (skipif no fp8, xfail on a backend) exactly like this
    pytester.makepyfile(
        test_pp="""
        import pytest
        from pairwise_param import pairwise

        # a string condition is pytest's to evaluate per item: the value stays in the table
        # (an unconditional skip leaves it out: tests/plugin/test_outcomes.py)
        @pairwise(dtype=["a", pytest.param("b", marks=pytest.mark.skipif("1 + 1 == 2", reason="no b"), id="B")],
                  bias=[0, 1], ids={"bias": lambda v: f"bias{v}"})
        def test_pp(dtype, bias):
            assert dtype == "a"

        @pairwise({"n,k": [(1, 2), pytest.param(3, 4, marks=pytest.mark.xfail(strict=True))]}, x=[0, 1])
        def test_grouped(n, k, x):
            assert n == 1
        """
    )
    result = pytester.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, skipped=2, xfailed=2)
    out = result.stdout.str()
    assert "test_pp[dtype=B-bias=bias0] SKIPPED" in out and "test_pp[dtype=a-bias=bias1] PASSED" in out
    assert "test_grouped[n=3-k=4-x=0] XFAIL" in out


def test_pytest_param_in_axis_bad_shapes_are_clear_errors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_bad="""
        import pytest
        from pairwise_param import pairwise

        @pairwise(dtype=[pytest.param("a", "b")], bias=[0, 1])
        def test_pp(dtype, bias):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*axis 'dtype': pytest.param('a', 'b') gives 2 values*"])


def test_row_values_as_junit_properties_and_report_sections(pytester: pytest.Pytester) -> None:
    # dashboards group failures by option value: each row's axis values are JUnit XML
    # properties and a report section (the user's own parametrize values are not ours)
    import xml.etree.ElementTree as ET

    pytester.makepyfile(
        test_rows="""
        import pytest
        from pairwise_param import pairwise

        @pairwise(dtype=["fp16", "bf16"], bias=[0, 1])
        @pytest.mark.parametrize("n", [7])
        def test_rows(dtype, bias, n):
            assert not (dtype == "bf16" and bias == 1)
        """
    )
    result = pytester.runpytest("--junitxml=out.xml", "-p", "no:randomly")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*Captured pairwise-param row setup*", "dtype = bf16", "bias = 1"])
    cases = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    props = {
        c.get("name"): [(p.get("name"), p.get("value")) for p in c.iter("property")] for c in cases
    }
    assert props["test_rows[dtype=bf16-bias=1-7]"] == [("pairwise.dtype", "bf16"), ("pairwise.bias", "1")]
    assert len(props) == 4 and all(len(v) == 2 for v in props.values())


def test_no_row_data_without_pairwise_tests(pytester: pytest.Pytester) -> None:
    import xml.etree.ElementTree as ET

    pytester.makepyfile("import pytest\n@pytest.mark.parametrize('n', [1])\ndef test_p(n):\n    assert 0\n")
    result = pytester.runpytest("--junitxml=out.xml")
    result.assert_outcomes(failed=1)
    assert "pairwise-param row" not in result.stdout.str()
    assert not list(ET.parse(pytester.path / "out.xml").getroot().iter("property"))
