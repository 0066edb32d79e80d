"""Sort / top-k tests."""

import pytest


@pytest.mark.parametrize("k", [1, 8, 64])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.parametrize("stable", [True, False])
@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
@pytest.mark.parametrize("algo", ["radix", "bitonic", "merge"])
def test_topk(k, largest, sorted_, stable, dtype, algo):
    pass


@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize("n", [1, 1000])
def test_sort(descending, n):  # two options at most: nothing to gain
    pass
