"""SGLang's JIT RMSNorm test parametrization in CI, as upstream wrote it (audit input only).

Source (facts, re-stated): SGLang ``test_rmsnorm.py`` (JIT kernels, registered for CUDA
and AMD CI). Its ``RMSNORM_CASES = get_ci_test_range(full, ci)`` is the full product
of ``BS_LIST x SUPPORTED_HIDDEN_SIZE_LIST`` (504 pairs, 2016 cases with dtype and
specify_out) in nightly runs and the 7 hand-picked pairs below in CI (28 cases). Dtypes
are spelled as strings so this file needs no torch; what is audited is the
parametrization (``pairwise-param report kernel_tests/rmsnorm/upstream_ci.py
--option-axes batch_size,hidden_size,dtype,specify_out``, or
``python benchmarks/upstream_ci_audit.py``).

Not named ``test_*.py``: a normal ``pytest kernel_tests`` run does not collect it.
"""

import pytest

#: Read by benchmarks/upstream_ci_audit.py.
AUDIT_SUITE = "test_rmsnorm.py"
AUDIT_OPTION_AXES = ["batch_size", "hidden_size", "dtype", "specify_out"]

DTYPES = ["float16", "bfloat16"]

RMSNORM_CASES = [
    (1, 256),
    (18, 1024),
    (38, 4096),
    (1240, 1536),
    (2500, 1024),
    (4109, 1024),
    (7807, 128),
]


@pytest.mark.parametrize("batch_size,hidden_size", RMSNORM_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("specify_out", [True, False])
def test_rmsnorm(batch_size, hidden_size, dtype, specify_out):
    assert batch_size >= 1 and hidden_size >= 64
