"""Cross-entropy tests (a case table next to the options)."""

import pytest

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("B, T, V", [(2, 4096, 32000), (1, 4096, 128256)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("softcap", [None, 30.0])
@pytest.mark.parametrize("return_z_loss", [True, False])
@pytest.mark.parametrize("scalar, dtype, atol, rtol", [(1.0, "bfloat16", 1e-8, 5e-2), (1.0, "float32", 1e-8, 1e-6)])
def test_correctness(B, T, V, reduction, ignore_index, label_smoothing, softcap, return_z_loss, scalar, dtype,
                     atol, rtol):
    pass
