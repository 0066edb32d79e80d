"""``ids="product-index"`` (contract.ID_STYLES): flashinfer's ``case-{index}`` ids, and which
id style survives an axis growing."""

from __future__ import annotations

import itertools

import pytest

from pairwise_param.contract import ID_STYLES
from pairwise_param.tables.ids import product_index, row_ids

# A conftest modelled on flashinfer's tests/test_helpers/parametrize.py (4fd7fff):
# the regular rows by default, the full product under --full, ids case-{index in the product}.
HELPER = """
from itertools import product

def parametrize_product(argnames, axes, *, regular):
    names = [n.strip() for n in argnames.split(",")]
    axes = [tuple(a) for a in axes]
    def index(case):
        i = 0
        for axis, value in zip(axes, case):
            i = i * len(axis) + axis.index(value)
        return i
    def decorate(fn):
        fn._spec = (names, axes, [tuple(r) for r in regular], index)
        return fn
    return decorate

def pytest_addoption(parser):
    parser.addoption("--full", action="store_true")

def pytest_generate_tests(metafunc):
    spec = getattr(metafunc.function, "_spec", None)
    if spec is None:
        return
    names, axes, regular, index = spec
    cases = list(product(*axes)) if metafunc.config.getoption("--full") else regular
    metafunc.parametrize(names, cases, ids=[f"case-{index(c)}" for c in cases])
"""
AXES = {"dtype": ["fp16", "bf16"], "page_size": [1, 16], "head_dim": [64, 128, 256], "causal": [False, True]}
HELPER_TEST = """
from conftest import parametrize_product

@parametrize_product("dtype,page_size,head_dim,causal", {axes}, regular={regular})
def test_k(dtype, page_size, head_dim, causal):
    pass
"""
PAIRWISE_TEST = """
from pairwise_param import pairwise

@pairwise({kwargs}, ids="product-index")
def test_k(dtype, page_size, head_dim, causal):
    pass
"""


def test_the_style_is_declared_once() -> None:
    assert "product-index" in ID_STYLES


def test_the_index_is_the_rows_position_in_itertools_product() -> None:
    sizes = [2, 3, 4]
    rows = list(itertools.product(*(range(n) for n in sizes)))
    assert [product_index(sizes, r) for r in rows] == list(range(24))
    axes = [(["a"], ["x", "y"]), (["b", "c"], [(1, 2), (3, 4), (5, 6)])]
    assert row_ids(axes, [(1, 2), (0, 0)], None, "product-index") == ["case-5", "case-0"]


def _ids(pytester: pytest.Pytester, name: str, *args: str) -> list[str]:
    res = pytester.runpytest_inprocess(name, "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args)
    return [ln.split("::", 1)[1] for ln in res.stdout.lines if "::" in ln]


def test_full_mode_keeps_every_helper_id_in_order_and_cover_rows_are_helper_ids(pytester: pytest.Pytester) -> None:
    axes = list(AXES.values())
    regular = [("fp16", 1, 64, False), ("bf16", 16, 256, True)]
    pytester.makeconftest(HELPER)
    pytester.makepyfile(
        test_a=HELPER_TEST.format(axes=axes, regular=regular),
        test_b=PAIRWISE_TEST.format(kwargs=", ".join(f"{k}={v!r}" for k, v in AXES.items())),
    )
    full = _ids(pytester, "test_a.py", "--full")
    assert len(full) == 24 and full[5] == "test_k[case-5]"
    assert _ids(pytester, "test_b.py", "--pairwise-mode=full") == full
    cover = _ids(pytester, "test_b.py")
    assert 6 <= len(cover) < 24 and set(cover) < set(full)
    # a row of the table has the id the helper gives the same values
    assert _ids(pytester, "test_a.py") == ["test_k[case-0]", "test_k[case-23]"]


@pytest.mark.parametrize("grown", ["dtype", "head_dim", "causal"])
def test_which_style_survives_an_axis_growing(grown: str) -> None:
    """Appending a value to an axis: readable ids of the old rows never change; product-index
    ids change unless the grown axis is the first (the documented rule)."""
    before = [([n], list(v)) for n, v in AXES.items()]
    after = [([n], list(v) + (["new"] if n == grown else [])) for n, v in AXES.items()]
    rows = list(itertools.product(*(range(len(v)) for _, v in before)))
    for style in ("readable", "product-index"):
        same = row_ids(before, rows, None, style) == row_ids(after, rows, None, style)
        assert same == (style == "readable" or grown == "dtype"), (style, grown)
