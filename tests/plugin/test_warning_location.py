"""A PairwiseWarning points at the user's code, not into the library (issue 38 item 21:
a constraint's never-true comparison was reported at ``pairwise_param/plugin/absent.py:62``)."""

from __future__ import annotations

import warnings

import pytest

from pairwise_param import cover
from pairwise_param.errors import PairwiseWarning


def test_cover_warns_at_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cover({"dtype": ["fp16", "bf16"], "x": [1, 2]}, constraints=[lambda dtype: dtype != "bf61"])
    hits = [w for w in caught if issubclass(w.category, PairwiseWarning)]
    assert hits and hits[0].filename == __file__, [(w.filename, w.lineno) for w in hits]


def test_the_plugin_reports_a_tables_warning_at_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_typo='''
        from pairwise_param import pairwise


        @pairwise(dtype=["fp16", "bf16"], fused=[False, True], act=["relu", "gelu"],
                  constraints=[lambda dtype, fused: not (dtype == "bf61" and fused)])
        def test_k(dtype, fused, act):
            pass
        ''')
    res = pytester.runpytest("-p", "pairwise_param.pytest_plugin", "-p", "no:cacheprovider", "-W",
                             "always::pairwise_param.errors.PairwiseWarning")
    res.assert_outcomes(passed=4, warnings=1)
    out = res.stdout.str()
    assert "test_typo.py:4: PairwiseWarning" in out, out  # the @pairwise line
    assert "pairwise_param/" not in out.split("warnings summary")[1], out
