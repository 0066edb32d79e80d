"""``pairwise-param convert`` of flashinfer's ``parametrize_product`` (issue 37;
cli/convert_helpers.py): ``@pairwise(..., ids="product-index")`` whose full mode lists the
helper's ``--full`` node ids, the helper's imports dropped once unused, ``--keep-rows``,
and a file that passes ruff's formatter and import order as it did."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("libcst")

from pairwise_param.cli import main
from pairwise_param.cli.convert import convert_source
from tests.report.inhouse import FI_CONFTEST

# ruff-formatted (line length 88), imports in isort's order, modelled on flashinfer's
# test_batch_prefill_fp16_qk_reduction (its mapping form, a grouped heads axis, an axis named
# like an option of @pairwise) and a positional form with hand-written regular rows
SUITE = textwrap.dedent('''\
    """A flashinfer-style test module."""

    import math

    import pytest

    from conftest import pairwise_product_cases, parametrize_product


    @pytest.mark.parametrize("head_dim", [64, 128])
    @parametrize_product(
        {
            "wrapper": ["paged", "ragged"],
            "dtype": ["fp16", "bf16"],
            "num_qo_heads,num_kv_heads": [(8, 2), (4, 4)],
            "causal": [True, False],  # masks
            "seed": [0, 1],
        },
        regular=pairwise_product_cases,
    )
    def test_prefill(wrapper, dtype, num_qo_heads, num_kv_heads, causal, seed, head_dim):
        assert math.isfinite(1.0)


    @parametrize_product(
        "dtype,causal,page_size",
        [["fp16", "bf16"], [False, True], [1, 16]],
        regular=[("fp16", False, 1), ("bf16", True, 16)],
    )
    def test_decode(dtype, causal, page_size):
        pass
    ''')


def _ids(path: Path, *args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         *args, str(path)],
        capture_output=True, text=True, cwd=path.parent, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [ln.split("::", 1)[1] for ln in proc.stdout.splitlines() if "::" in ln]


def _ruff(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("ruff")
    # from the file's folder: its conftest is first-party there, pairwise_param third-party
    return subprocess.run([sys.executable, "-m", "ruff", *args, "--isolated", str(path)],
                          capture_output=True, text=True, check=False, cwd=path.parent)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "conftest.py").write_text(FI_CONFTEST)
    f = tmp_path / "test_fi.py"
    f.write_text(SUITE)
    return f


def test_write_keeps_the_helpers_full_ids_and_the_formatting(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the original is formatted and its imports in isort's order
    assert _ruff(suite, "format", "--check").returncode == 0
    assert _ruff(suite, "check", "--select", "I,F401").returncode == 0
    full = _ids(suite, "--full")
    assert main(["convert", "--write", str(suite)]) == 0
    err = capsys.readouterr().err
    assert f"--pairwise-mode=full gives the {len(full)} original node ids" in err
    assert "ids case-{index} kept" in err
    text = suite.read_text()
    assert "parametrize_product" not in text and "pairwise_product_cases" not in text  # imports dropped
    assert 'ids="product-index"' in text and '"seed": [0, 1],' in text  # seed forces the mapping form
    assert '"causal": [True, False],  # masks\n' in text  # the entry's comment stays on its line
    assert _ids(suite, "--pairwise-mode=full") == full
    cover = _ids(suite)
    assert set(cover) < set(full)
    # formatter-clean and isort-clean as the original was (issue 35's import placement)
    assert _ruff(suite, "format", "--check").returncode == 0, _ruff(suite, "format", "--diff").stdout
    assert _ruff(suite, "check", "--select", "I,F401").returncode == 0


def test_keep_rows_makes_the_regular_rows_include_rows(suite: Path) -> None:
    res = convert_source(SUITE, "test_fi.py", keep_rows=True)
    assert 'include=[{"dtype": "fp16", "causal": False, "page_size": 1}' in res.new
    suite.write_text(res.new)
    # the helper's two regular rows are case-0 and case-7: both rows of the table
    assert {"test_decode[case-0]", "test_decode[case-7]"} <= set(_ids(suite))


def test_a_helper_with_ids_is_left_and_named() -> None:
    source = SUITE.replace("regular=pairwise_product_cases,", "regular=pairwise_product_cases,\n    ids=str,")
    res = convert_source(source, "t.py")
    assert "test_prefill" in res.skipped and "ids=" in res.skipped["test_prefill"]
    assert "test_decode" in res.converted
    assert "pairwise_product_cases, parametrize_product" in res.new  # still used: kept


def test_the_import_lands_where_isort_puts_it(tmp_path: Path) -> None:
    """Issue 35: in the block of the third-party imports, among its from-imports by name
    (not after the module's last import, the first-party block here)."""
    source = textwrap.dedent('''\
        import os

        import pytest
        import torch
        from triton import language

        from helpers import reference


        @pytest.mark.parametrize("dtype", ["fp16", "bf16"])
        @pytest.mark.parametrize("flag", [True, False])
        @pytest.mark.parametrize("act", ["gelu", "silu", None])
        def test_k(dtype, flag, act):
            assert os and torch and language and reference
        ''')
    (tmp_path / "helpers.py").write_text("reference = 1\n")
    f = tmp_path / "test_i.py"
    f.write_text(source)
    assert _ruff(f, "check", "--select", "I").returncode == 0
    new = convert_source(source, "test_i.py").new
    assert "import torch\nfrom pairwise_param import pairwise\nfrom triton import language\n" in new
    f.write_text(new)
    assert _ruff(f, "check", "--select", "I").returncode == 0
    assert _ruff(f, "format", "--check").returncode == 0


def test_sglang_ci_ranges_become_pairwise_axes_of_the_full_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.report.inhouse import SG_TEST

    f = tmp_path / "test_sg.py"
    f.write_text(SG_TEST)
    full = _ids(f)  # CI_RUN unset: get_ci_test_range gives the FULL lists
    assert main(["convert", "--write", str(f)]) == 0
    err = capsys.readouterr().err
    assert f"--pairwise-mode=full gives the {len(full)} original node ids" in err
    text = f.read_text()
    # the FULL list gets a name above its line; what CI runs stays for every other user
    assert "BS_LIST_FULL = BS_LIST\nBS_LIST = get_ci_test_range(BS_LIST_FULL, [2, 11])\n" in text
    assert '@pairwise(bs=BS_LIST_FULL, hidden=HIDDEN_FULL, dtype=DTYPES, ids="pytest")' in text
    assert "import itertools" not in text  # the product it replaced was its only use
    assert "test_stacked: unchanged (2 option axes" in err  # two axes: pairwise = their product
    assert '@pytest.mark.parametrize("k,s", CASES)' in text  # a range of whole cases stays
    monkeypatch.setenv("CI_RUN", "1")
    ci = _ids(f)
    assert len([i for i in ci if i.startswith("test_stacked")]) == 4  # still the CI lists
    prod = [i for i in ci if i.startswith("test_prod")]
    assert 24 <= len(prod) < 48 and set(prod) < set(full)  # every pair of the FULL values


def test_ids_on_an_option_decorator_is_named_as_the_reason() -> None:
    """Issue 35: a table left because a list carries ids= says so."""
    source = textwrap.dedent('''\
        import pytest


        @pytest.mark.parametrize("dtype", ["fp16", "bf16"], ids=["half", "bf"])
        @pytest.mark.parametrize("flag", [True, False])
        @pytest.mark.parametrize("act", ["gelu", "silu", None])
        def test_k(dtype, flag, act):
            pass
        ''')
    res = convert_source(source, "t.py")
    assert "dtype has ids=" in res.skipped["test_k"] and not res.converted


def test_options_refuse_a_table_conversion_would_not_change() -> None:
    """Issue 35: two axes named by --options: pairwise is their full product; refused, named."""
    source = textwrap.dedent('''\
        import pytest


        @pytest.mark.parametrize("dtype", ["fp16", "bf16"])
        @pytest.mark.parametrize("flag", [True, False])
        def test_k(dtype, flag):
            pass
        ''')
    res = convert_source(source, "t.py", options=["dtype", "flag"])
    assert not res.converted and "changes nothing" in res.skipped["test_k"]
    assert res.new == source
