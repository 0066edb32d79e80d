"""Planted faults (docs/how-to/broken-combination.md): a stand-in kernel with a pair
fault (bias_mode=2 with padded_a=True gives wrong numbers) and a second bug with
another error (fp32 inputs are refused: a single-value fault)."""

import pytest

from pairwise_param import pairwise


def kernel(x, dtype, bias_mode, padded_a, acc):
    if dtype == "fp32":
        raise NotImplementedError(f"no {dtype} path in this build")
    bias = [0.0, 1.0, 2.0][bias_mode]
    if bias_mode == 2 and padded_a:
        bias += 0.5  # the planted bug: the padded path adds the bias twice (half of it)
    return [v + bias for v in x]


@pairwise(dtype=["fp16", "bf16", "fp32"], bias_mode=[0, 1, 2], padded_a=[False, True],
          xnorm=[False, True], acc=["fp32", "fp16"])
@pytest.mark.parametrize("n", [1, 64])
def test_wvsplitk(n, dtype, bias_mode, padded_a, xnorm, acc):
    x = [float(i) for i in range(n)]
    got = kernel(x, dtype, bias_mode, padded_a, acc)
    want = [v + [0.0, 1.0, 2.0][bias_mode] for v in x]
    bad = sum(g != w for g, w in zip(got, want))
    assert bad == 0, f"{bad} of {n} elements differ"
