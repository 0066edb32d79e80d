"""The audit's case/option rule (report/classify.py), measured on the labelled corpus."""

from __future__ import annotations

import pytest

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
    # 'fast' follows dtype, but four balanced rows of three options are a covering table's
    # size: an option table (with two holes), as the covering list of the same size is
    three = [("f16", "x", True), ("f16", "y", True), ("bf16", "x", False), ("bf16", "y", False)]
    assert classify(["dtype", "layout", "fast"], three).kind == "option"


def test_short_of_product_signs():
    """A list short of its product is read from the list, never from its coverage: each
    sign of a case list names itself; options at a covering table's size are an option table."""
    sizes = [("bf16", 1, True), ("f16", 2, False), ("bf16", 2, False), ("f16", 1, False)]
    assert "sizes tied" in classify(["dtype", "n", "flag"], sizes).reason
    short = [(True, True, True), (True, False, False), (False, True, False)]
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
    baseline = [(False, 1.0, False), (True, 1.0, False), (True, 1.0, True), (True, 0.5, False), (True, 0.5, True)]
    assert "favours one value" in classify(["fp8_kv_cache", "kv_scale", "use_fp8_output"], baseline).reason
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


def test_one_rule_for_an_option_column():
    """classify asks report/whatif.axis_kind whether a column is an option: int codes named
    like an option are options there too; ints named like a size make the list a case list."""
    from pairwise_param.report.whatif import axis_kind

    assert axis_kind("bias_mode", [0, 1, 2])[0] == "option"
    assert classify(["dtype", "padded_a", "bias_mode", "xnorm"], KRC).kind == "option"
    assert axis_kind("block_size", [0, 1, 2])[0] == "shape"
    renamed = classify(["dtype", "padded_a", "block_size", "xnorm"], KRC)
    assert renamed.kind == "case" and "'block_size'" in renamed.reason


def test_duplicate_rows():
    assert duplicate_rows([(1, True), (2, False), (1, True), (1, 1)]) == [2]
    assert duplicate_rows([]) == []
