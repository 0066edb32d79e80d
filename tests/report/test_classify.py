"""The audit's case/option rule (report/classify.py), measured on the labelled corpus."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairwise_param import cover
from pairwise_param.report.classify import classify, duplicate_rows
from tests.report.corpus.tables import CORPUS


def _confusion() -> dict[str, int]:
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for label, names, rows, _ in CORPUS:
        said = classify(names.split(","), rows).kind
        key = ("t" if said == label else "f") + ("p" if said == "case" else "n")
        counts[key] += 1
    return counts


def test_corpus_is_big_enough_and_labelled():
    assert len(CORPUS) >= 40
    assert {label for label, *_ in CORPUS} == {"case", "option"}
    assert sum(label == "option" for label, *_ in CORPUS) >= 10


def test_rule_precision_and_recall_on_the_corpus():
    """Positive = "case table" (what must not be audited as options).  The numbers are
    quoted in docs/cli.md; a change of the rule that loses either fails here."""
    c = _confusion()
    precision = c["tp"] / (c["tp"] + c["fp"])
    recall = c["tp"] / (c["tp"] + c["fn"])
    print(f"case-table rule on {len(CORPUS)} tables: {c}, precision {precision:.3f}, recall {recall:.3f}")
    assert precision >= 0.95
    assert recall >= 0.9


@pytest.mark.parametrize("label, names, rows, what", CORPUS, ids=[e[3] for e in CORPUS])
def test_every_verdict_has_a_reason(label, names, rows, what):
    v = classify(names.split(","), rows)
    assert v.kind in ("case", "option", "uncertain") and v.reason


def test_each_rule_decides():
    assert classify(["x", "expected"], [(1, 2), (1, 3)]).reason.startswith("column 'expected'")
    assert "exceptions" in classify(["a", "b"], [(1, ValueError), (1, TypeError)]).reason
    assert "None" in classify(["shape", "flag"], [((2, None), True), (None, False)]).reason
    assert "one-hot" in classify(["a", "b", "c"], [(True, False, False), (False, True, False)]).reason
    assert classify(["a", "b"], [(True, True), (True, False), (False, True), (False, False)]).kind == "option"
    assert "valid combinations" in classify(["a", "b"], [("x", 1), ("y", 1), ("y", 2)]).reason
    # 'fast' follows dtype (tied settings: two holes where a covering list's one hole
    # removes at most one of dtype x fast's four combinations); balanced otherwise
    three = [("f16", "x", True), ("f16", "y", True), ("bf16", "x", False), ("bf16", "y", False)]
    tied = classify(["dtype", "layout", "fast"], three)
    assert tied.kind == "case" and "'fast' follows 'dtype'" in tied.reason or "'dtype' follows 'fast'" in tied.reason
    # a covering list of the three with a row dropped: options with a hole
    holed = [("f16", "x", True), ("f16", "y", False), ("bf16", "x", False)]
    assert classify(["dtype", "layout", "fast"], holed).kind == "option"


def test_short_of_product_signs():
    """A list short of its product is read from the list, never from its coverage: each
    sign of a case list names itself; options at a covering table's size are an option table."""
    sizes = [("bf16", 1, True), ("f16", 2, False), ("bf16", 2, False), ("f16", 1, False)]
    assert "sizes tied" in classify(["dtype", "n", "flag"], sizes).reason
    # three rows of a 2x2x2 list are a covering table's four less one row: options with a hole
    assert classify(["a", "b", "c"], [(True, True, True), (True, False, False), (False, True, False)]).kind == "option"
    # four rows where pairs of a 3x3 need nine: fewer than 3/4 of any covering table
    short = [("x", "p", True), ("y", "q", False), ("z", "r", True), ("x", "q", False)]
    assert classify(["a", "b", "c"], short).kind == "case"
    assert "short list" in classify(["a", "b", "c"], short).reason
    ten = [(d, b, m) for d in "xy" for b in "pq" for m in "abc" if (d, m) != ("y", "c")]
    assert classify(["d", "b", "m"], ten).kind == "option"
    assert "ids=" in classify(["d", "b", "m"], ten, ids=True).reason
    assert "a check" in classify(["d", "b", "check_str"], ten).reason
    pairwise = [("f16", True, True), ("f16", False, False), ("bf16", True, False), ("bf16", False, True)]
    assert classify(["dtype", "x", "y"], pairwise).kind == "option"
    tol = [("f16", 1e-2), ("bf16", 1e-2), ("f16", 1e-3), ("bf16", 1e-3)]
    assert "tolerance" in classify(["dtype", "atol"], tol).reason
    # flashinfer's test_xqa: every scale x output under fp8_kv_cache=True, one row without it
    baseline = [(False, 1.0, False), (True, 1.0, False), (True, 1.0, True), (True, 0.5, False), (True, 0.5, True)]
    sub = classify(["fp8_kv_cache", "kv_scale", "use_fp8_output"], baseline)
    assert sub.kind == "case" and "product under one setting" in sub.reason and "fp8_kv_cache=True" in sub.reason
    # flashinfer's ep1 configs: payload_dtype moves with dedup_dispatch, combine with grouped
    ep1 = [("bf16", "bf16", False, False, False), ("fp8", "bf16", True, False, True),
           ("bf16", "fp8", False, True, True), ("fp8", "fp8", True, True, True)]
    assert "tied settings" in classify(["payload", "combine", "dedup", "grouped", "fuse"], ep1).reason
    # aiter's routing: bfloat16 once, where three score modes need it three times
    routing = [(m, b, r, "f32") for m in ("soft", "sig") for b, r in ((True, True), (True, False), (False, True))]
    routing += [("sig", True, True, "bf16"), ("max", False, False, "f32")]
    few = classify(["score_mode", "has_bias", "renorm", "dtype"], routing)
    assert few.kind == "case" and "too few rows" in few.reason and "'dtype'" in few.reason
    # at exactly the engine's size for 2x2x2 (four rows), a flag 3 to 1: a baseline and variants
    variants = [(True, False, False), (False, False, False), (False, True, False), (False, True, True)]
    lop = classify(["atomic_add", "shuffle", "skip_reduce"], variants)
    assert lop.kind == "case" and "favours one value" in lop.reason
    # names of input cases that repeat (aiter's padding_scenario, TE's edge_cases) and an
    # op's eps are options; a tolerance is not; a flag named output_*/ref_* is an option,
    # an expected_* flag an expectation
    for name in ("padding_scenario", "scenario", "edge_cases", "shape_case", "eps"):
        assert classify(["d", "b", name], ten).kind == "option", name
    assert "tolerance" in classify(["d", "b", "atol"], ten).reason
    flags = [(d, b, f) for d, b, f in itertools.product("xy", "pq", (True, False))][:-1]
    assert classify(["d", "b", "output_dbias"], flags).kind == "option"
    assert classify(["d", "b", "ref_bias"], flags).kind == "option"
    assert "expectation" in classify(["d", "b", "expected_hit"], flags).reason
    assert "expectation" in classify(["d", "b", "output"], ten).reason
    # an int column the option/shape split cannot name: the one uncertain list
    unsure = [("f16", True, 1), ("f16", False, 2), ("bf16", True, 2), ("bf16", False, 1)]
    assert classify(["dtype", "fused", "unroll"], unsure).kind == "uncertain"


#: vLLM's skinny-GEMM lists (upstream's hand cut: dtype, padded_a, bias_mode, xnorm; bias_mode
#: an int code 0/1/2), the seed case of issue 35
KRC = [("f16", False, 0, False), ("f16", True, 1, True), ("f16", True, 2, False),
       ("bf16", True, 0, True), ("bf16", False, 1, False), ("bf16", False, 2, True)]


def test_a_hole_never_changes_the_verdict():
    """Issue 35: dropping any row of the seed's list, or changing one value, left it an
    option table only when complete (a hole made it 'uncertain', outside the gate)."""
    names = ["dtype", "padded_a", "bias_mode", "xnorm"]
    assert classify(names, KRC).kind == "option"
    for i in range(len(KRC)):
        assert classify(names, KRC[:i] + KRC[i + 1:]).kind == "option", i
        for j, other in ((1, True), (3, False)):
            row = list(KRC[i])
            row[j] = other if row[j] != other else not other
            changed = KRC[:i] + [tuple(row)] + KRC[i + 1:]
            assert classify(names, changed).kind == "option", (i, j)
        row = list(KRC[i])
        row[2] = (row[2] + 1) % 3  # bias_mode: counts 3, 2, 1 in six rows, still spread
        assert classify(names, KRC[:i] + [tuple(row)] + KRC[i + 1:]).kind == "option", (i, 2)


_OPTION_VALUES = ["f16", "bf16", "fp8", "f32"]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.integers(2, 4), min_size=3, max_size=7))
def test_one_row_dropped_from_a_covering_list_stays_an_option_table(sizes):
    """The rule's promise (issue 35): a hand cut that is a covering table of its option
    columns keeps the option verdict with ANY one row dropped, so the hole fails the gate.
    The covering lists are the engine's; the hole is checked independently (pairs counted
    here) before the verdict is asked."""
    names = [f"opt{i}" for i in range(len(sizes))]
    table = cover({n: _OPTION_VALUES[:s] for n, s in zip(names, sizes)}, strength=2)
    rows = [tuple(r[n] for n in names) for r in table]
    product = 1
    for s in sizes:
        product *= s
    if len(rows) >= product:
        return  # a full product: a row dropped is still audited (rule 2 or 3), not this property
    assert classify(names, rows).kind == "option"
    for i in range(len(rows)):
        holed = rows[:i] + rows[i + 1:]
        pairs = {(a, b, r[a], r[b]) for r in holed for a in range(len(names)) for b in range(a + 1, len(names))}
        wanted = sum(sizes[a] * sizes[b] for a in range(len(names)) for b in range(a + 1, len(names)))
        if len(pairs) == wanted:
            continue  # the row was not needed: no hole
        v = classify(names, holed)
        assert v.kind == "option", (sizes, i, v.reason)


def test_one_rule_for_an_option_column():
    """classify asks report/whatif.axis_kind whether a column is an option: int codes named
    like an option are options there too; ints named like a size make the list a case list."""
    from pairwise_param.report.whatif import axis_kind

    assert axis_kind("bias_mode", [0, 1, 2])[0] == "option"
    assert classify(["dtype", "padded_a", "bias_mode", "xnorm"], KRC).kind == "option"
    assert axis_kind("block_size", [0, 1, 2])[0] == "shape"
    renamed = classify(["dtype", "padded_a", "block_size", "xnorm"], KRC)
    assert renamed.kind == "case" and "'block_size'" in renamed.reason


def test_repeated_rows_are_not_a_product():
    """DeepSpeed's test_mom lists two rows twice: 4 rows, but 2 of a 2x2 product (and
    decay_rate follows step_size): a case list, not 'a full product of its values'."""
    rows = [(0.08, 0.09, 1e-3, 10), (0.08, 0.09, 0, 21)] * 2
    v = classify(["min_mom", "max_mom", "decay_rate", "step_size"], rows)
    assert v.kind == "case" and "full product" not in v.reason


def test_duplicate_rows():
    assert duplicate_rows([(1, True), (2, False), (1, True), (1, 1)]) == [2]
    assert duplicate_rows([]) == []
