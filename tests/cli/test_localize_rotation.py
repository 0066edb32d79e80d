"""``localize`` never answers a wrong combination with exit 0 (issue 38 item 2, QA round 4
D2): a failure found by rotation is often a (t+1)-value fault; a single candidate
is only an answer once the failing rows that hold it share nothing else (a follow-up
row with every other value changed), and the search goes past t when the
candidates of t are cleared."""

from __future__ import annotations

import sys

import pytest

from pairwise_param.runs.localize import Group

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

AXES = [{"name": n, "names": [n], "values": vs, "reprs": [repr(v) for v in vs]} for n, vs in (
    ("dtype", ["bf16", "fp16", "fp32"]), ("padded_a", [False, True]), ("padded_b", [False, True]),
    ("bias_mode", [0, 1, 2]), ("xnorm", [False, True]))]


def test_a_single_candidate_of_one_failing_row_is_unconfirmed() -> None:
    """The failing row holds {fp32, bias_mode=2} and also xnorm=True: unconfirmed, not found."""
    g = Group("t::t", 0, "", "E", 2, AXES, failing=[(2, 1, 1, 2, 1)],
              passing=[(0, 0, 0, 0, 0), (2, 0, 1, 1, 0), (1, 1, 0, 2, 0), (0, 1, 1, 2, 1), (2, 0, 0, 0, 1),
                       (1, 0, 1, 1, 1), (2, 1, 0, 1, 1), (0, 0, 1, 1, 1), (1, 1, 1, 0, 0)])
    kind, cands = g.answer()
    assert kind != "found", cands
    # the follow-up row keeps the candidate, changes the rest: it passes (the fault needs xnorm=True)
    g.add((2, 0, 0, 2, 0), "passed", None, "t::t[f1]")
    kind, cands = g.answer()
    assert kind != "found"
    assert ((0, 2), (3, 2), (4, 1)) in cands  # past t: the triple is a candidate now
    # a failing row holding the triple, every other value changed: found, the triple
    g.add((2, 0, 0, 2, 1), "failed", "E", "t::t[f2]")
    assert g.answer() == ("found", [((0, 2), (3, 2), (4, 1))])


SUITE = """
from pairwise_param import pairwise

@pairwise(dtype=["bf16", "fp16", "fp32"], padded_a=[False, True], padded_b=[False, True],
          bias_mode=[0, 1, 2], xnorm=[False, True])
def test_lr(dtype, padded_a, padded_b, bias_mode, xnorm):
    assert not (dtype == "fp32" and bias_mode == 2 and xnorm), "triple bug"
"""


def test_a_triple_fault_found_by_rotation_is_not_answered_as_a_pair(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_lr=SUITE)
    pytester.makeini("[pytest]\npairwise_rotate = true\npairwise_history = h.json\n")
    outcomes = []
    for _ in range(4):
        result = pytester.runpytest("-q", "-p", "no:randomly")
        outcomes.append(result.ret)
        if result.ret == 1:
            break
    assert outcomes[-1] == 1, "rotation exposes the triple within 4 runs"
    result = pytester.run(sys.executable, "-m", "pairwise_param.cli", "localize", "test_lr.py", "--budget", "30")
    out = result.stdout.str()
    assert "found: {dtype=fp32, bias_mode=2} " not in out, out
    assert "found: {dtype=fp32, bias_mode=2, xnorm=True}" in out, out
    assert result.ret == 0
