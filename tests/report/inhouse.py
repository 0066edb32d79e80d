"""Synthetic suites modelled on the in-house helpers issue 37 adopts from (no repository
code): flashinfer's ``tests/test_helpers/parametrize.py`` (``parametrize_product`` with a
spec left on the function, its ``--full`` flag, ``case-{index}`` ids; the mapping form with
a grouped ``"num_qo_heads,num_kv_heads"`` axis, as its ``test_hopper.py`` writes it) and
SGLang's ``get_ci_test_range(full_range, ci_range)`` lists (here the CI side when
``CI_RUN`` is set), shared by the report's and convert's tests."""

FI_CONFTEST = """
import itertools
from types import SimpleNamespace


def pairwise_product_cases(axes):
    # naive greedy pairwise pick over the product (enough for a synthetic suite)
    axes = [tuple(a) for a in axes]
    need = {(i, a, j, b) for i in range(len(axes)) for j in range(i + 1, len(axes))
            for a in range(len(axes[i])) for b in range(len(axes[j]))}
    cands = list(itertools.product(*(range(len(a)) for a in axes)))
    out = []
    while need:
        best = max(cands, key=lambda c: len({(i, c[i], j, c[j]) for i in range(len(c)) for j in range(i + 1, len(c))} & need))
        need -= {(i, best[i], j, best[j]) for i in range(len(best)) for j in range(i + 1, len(best))}
        out.append(tuple(axes[i][v] for i, v in enumerate(best)))
    return out


def parametrize_product(argnames, axes=None, *, regular, ids=None):
    if isinstance(argnames, dict):
        argnames, axes = list(argnames), list(argnames.values())
    groups = [tuple(n.strip() for n in g.split(",")) for g in (argnames.split(",") if isinstance(argnames, str) else argnames)]
    if isinstance(argnames, str):
        groups = [(g[0],) for g in groups]
    axes = [tuple(a) for a in axes]
    rows = regular(axes) if callable(regular) else regular
    spec = SimpleNamespace(argnames=[n for g in groups for n in g], argname_groups=groups, axes=axes,
                           regular=[tuple(r) for r in rows])

    def decorate(fn):
        fn._flashinfer_product_spec = spec
        return fn
    return decorate


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true")


def pytest_generate_tests(metafunc):
    spec = getattr(metafunc.function, "_flashinfer_product_spec", None)
    if spec is None:
        return
    cases = list(itertools.product(*spec.axes)) if metafunc.config.getoption("--full") else spec.regular

    def index(c):
        i = 0
        for a, v in zip(spec.axes, c):
            i = i * len(a) + a.index(v)
        return i

    def expand(c):
        out = []
        for g, v in zip(spec.argname_groups, c):
            out.extend(v if len(g) > 1 else (v,))
        return out
    metafunc.parametrize(spec.argnames, [expand(c) for c in cases], ids=[f"case-{index(c)}" for c in cases])
"""

FI_TEST = """
import pytest
from conftest import pairwise_product_cases, parametrize_product


@pytest.mark.parametrize("head_dim", [64, 128])
@parametrize_product(
    {
        "batch_size": [1, 4, 8, 16],
        "page_size": [1, 16],
        "num_qo_heads,num_kv_heads": [(q, k) for q in [1, 4, 8] for k in [1, 4, 8] if q % k == 0],
        "causal": [False, True],
    },
    regular=pairwise_product_cases,
)
def test_paged(batch_size, page_size, num_qo_heads, num_kv_heads, causal, head_dim):
    pass


@parametrize_product("dtype,causal", [["fp16", "bf16"], [False, True]], regular=[("fp16", False), ("bf16", True)])
def test_holes(dtype, causal):
    pass
"""

SG_TEST = """
import itertools
import os

import pytest


def get_ci_test_range(full_range, ci_range):
    return ci_range if os.environ.get("CI_RUN") else full_range


BS_LIST = [2**n for n in range(1, 5)]
BS_LIST += [x + 1 + i for i, x in enumerate(BS_LIST)]
BS_LIST = get_ci_test_range(BS_LIST, [2, 11])
HIDDEN = get_ci_test_range([64, 128, 96], [64, 128])
DTYPES = ["bf16", "fp16"]
CASES = get_ci_test_range([(k, s) for k in (512, 896) for s in (1, 17)], [(512, 1), (896, 17)])


@pytest.mark.parametrize("bs,hidden,dtype", list(itertools.product(BS_LIST, HIDDEN, DTYPES)))
def test_prod(bs, hidden, dtype):
    pass


@pytest.mark.parametrize("bs", BS_LIST)
@pytest.mark.parametrize("hidden", HIDDEN)
def test_stacked(bs, hidden):
    pass


@pytest.mark.parametrize("k,s", CASES)
def test_cases(k, s):
    pass
"""
