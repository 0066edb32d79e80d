"""Suspicious combinations (pairwise_param.runs.locate) and the run analysis (pairwise_param.runs.analysis),
judged by brute force over every combination and by the definitions in their docstrings."""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param import cover
from pairwise_param.runs.analysis import analyze_table, describe, never_text, signature
from pairwise_param.runs.document import axis_from_json, table_to_json
from pairwise_param.runs.locate import suspicious

Row = tuple[int, ...]


def holds(row: Row, combo: tuple[tuple[int, int], ...]) -> bool:
    return all(row[a] == v for a, v in combo)


def brute_minimal(fail: list[Row], ok: list[Row], sizes: list[int], t: int) -> set[tuple[tuple[int, int], ...]]:
    """Every combination of 1..t cells held by some failing row and no passing row,
    minus those with such a proper part."""
    found: set[tuple[tuple[int, int], ...]] = set()
    for size in range(1, t + 1):
        for scope in itertools.combinations(range(len(sizes)), size):
            for values in itertools.product(*(range(sizes[a]) for a in scope)):
                c = tuple(zip(scope, values))
                if any(set(f) < set(c) for f in found):
                    continue
                if any(holds(r, c) for r in fail) and not any(holds(r, c) for r in ok):
                    found.add(c)
    return found


@st.composite
def outcomes(draw: st.DrawFn) -> tuple[list[Row], list[Row], list[int], int]:
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    t = draw(st.integers(1, min(3, len(sizes))))
    row = st.tuples(*(st.integers(0, s - 1) for s in sizes))
    fail = draw(st.lists(row, min_size=1, max_size=6))
    ok = draw(st.lists(row, max_size=8))
    return fail, ok, sizes, t


@settings(max_examples=examples(150))
@given(outcomes())
def test_candidates_are_exactly_the_minimal_suspicious_combinations(case: tuple[list[Row], list[Row], list[int], int]) -> None:
    fail, ok, sizes, t = case
    ok = [r for r in ok if r not in fail]  # one row has one outcome
    verdict = suspicious(fail, ok, t)
    got = [c.combination for c in verdict.candidates]
    assert len(got) == len(set(got))
    assert set(got) == brute_minimal(fail, ok, sizes, t)
    for c in verdict.candidates:
        assert c.failing == sum(holds(r, c.combination) for r in fail)
    # ranked: more failing rows first
    assert [c.failing for c in verdict.candidates] == sorted((c.failing for c in verdict.candidates), reverse=True)
    every = [c for c in verdict.candidates if c.failing == len(fail)]
    assert verdict.explaining == len(every)
    assert verdict.kind == ("decided" if len(every) == 1 else "ambiguous" if every else "unexplained")
    # a failing row holds no candidate exactly when each of its combinations also passed
    for i, r in enumerate(fail):
        assert (i in verdict.unexplained) == (not any(holds(r, c) for c in got))
    # deterministic: the same outcomes in the same order give the same ranking
    assert suspicious(fail, ok, t) == verdict


def test_a_planted_pair_fault_in_a_covering_table_is_an_explaining_candidate() -> None:
    # every row of a real 2-way table that holds {b=2, d=1} fails, the others pass
    table = cover({"a": [0, 1, 2], "b": [0, 1, 2], "c": [0, 1], "d": [0, 1], "e": [0, 1]})
    rows = [tuple(r) for r in table.index_rows]
    fault = ((1, 2), (3, 1))
    fail = [r for r in rows if holds(r, fault)]
    ok = [r for r in rows if not holds(r, fault)]
    verdict = suspicious(fail, ok, 2)
    assert fault in [c.combination for c in verdict.candidates if c.failing == len(fail)]
    assert verdict.kind in ("decided", "ambiguous")


def test_a_single_value_fault_is_decided_and_ranked_first() -> None:
    table = cover({"dtype": ["fp16", "bf16", "fp32"], "bias": [0, 1, 2], "x": [False, True], "p": [False, True]})
    rows = [tuple(r) for r in table.index_rows]
    fail = [r for r in rows if r[0] == 1]
    verdict = suspicious(fail, [r for r in rows if r[0] != 1], 2)
    assert verdict.kind == "decided"
    assert verdict.candidates[0].combination == ((0, 1),)


def test_a_table_too_wide_for_the_budget_is_searched_at_a_smaller_size() -> None:
    from pairwise_param.runs import locate

    wide = 200  # C(200, 3) = 1313400 triples per row
    fail = [tuple([1] * wide)]
    ok = [tuple([0] * wide), tuple(([0, 1] * wide)[:wide])]
    verdict = suspicious(fail, ok, 3)
    n_rows = len(fail) + len(ok)
    assert n_rows * sum(math.comb(wide, k) for k in range(1, 4)) > locate.BUDGET
    assert verdict.size == 2  # pairs fit, triples do not
    assert all(len(c.combination) <= 2 for c in verdict.candidates)
    assert suspicious(fail, ok, 2).size == 2


def test_no_passing_rows_leaves_every_value_suspicious() -> None:
    verdict = suspicious([(0, 1), (1, 0)], [], 2)
    assert verdict.kind == "unexplained" and verdict.passed == 0
    assert {c.combination for c in verdict.candidates} == {((0, 0),), ((0, 1),), ((1, 0),), ((1, 1),)}


def test_signature_keeps_names_and_folds_numbers() -> None:
    assert signature("assert 0.51 == 0.5\n where ...") == "AssertionError: assert <n> == <n>"
    assert signature("ValueError: bf16 and fp8e4m3 unsupported") == "ValueError: bf16 and fp8e4m3 unsupported"
    assert signature("RuntimeError: bad pointer 0x7ffe12 (size 4096)") == "RuntimeError: bad pointer <n> (size <n>)"
    assert signature("Mismatched elements: 37 / 4096 (0.9%)") == signature("Mismatched elements: 12 / 4096 (0.3%)")
    assert signature("") == ""


AXES = [
    {"name": "dtype", "names": ["dtype"], "values": ["fp16", "bf16"], "reprs": ["'fp16'", "'bf16'"]},
    {"name": "n,k", "names": ["n", "k"], "values": ["1-64", "8-32"], "reprs": [["1", "64"], ["8", "32"]]},
    {"name": "flag", "names": ["flag"], "values": ["False", "True"], "reprs": ["False", "True"]},
]


def test_combination_text_and_the_never_rule_of_a_grouped_axis() -> None:
    combo = ((0, 1), (1, 0))
    axes = [axis_from_json(a) for a in AXES]
    assert describe(axes, combo) == "{dtype=bf16, n,k=1-64}"
    assert never_text(axes, combo) == '{"never": {"dtype": \'bf16\', "n": 1, "k": 64}}'


def payload(rows: list[list[int]], items: list[list[object]]) -> dict[str, object]:
    return {
        "test": "t.py::test_t", "table": 0, "location": ["t.py", 3], "mode": "cover", "strength": 2,
        "fingerprint": "x", "axes": AXES, "scopes": [[0, 1], [0, 2], [1, 2]], "rows": rows,
        "row_ids": [str(i) for i in range(len(rows))], "infeasible": [], "absent": [],
        "infeasible_absent": [], "items": items,
    }


def test_a_row_not_run_for_one_shape_is_a_loss_of_that_shape_only() -> None:
    rows = [[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]]
    items = [[f"t[{r}-{s}]", r, s] for s in ("s1", "s2") for r in range(4)]
    outcomes = {n: {"outcome": "passed", "when": "call"} for n, _, _ in items}
    outcomes["t[3-s2]"] = {"outcome": "skipped", "when": "setup", "reason": "later", "signature": None}
    doc = table_to_json(analyze_table(payload(rows, items), outcomes))
    cov = doc["coverage"]
    # row 3 alone covered {dtype=bf16, n,k=8-32}, {dtype=bf16, flag=False}, {n,k=8-32, flag=False}
    assert [(e["text"], e["shapes"], e["because"]) for e in cov["lost"]] == [
        ("{dtype=bf16, n,k=8-32}", ["s2"], ["skipped: later"]),
        ("{dtype=bf16, flag=False}", ["s2"], ["skipped: later"]),
        ("{n,k=8-32, flag=False}", ["s2"], ["skipped: later"]),
    ]
    assert (cov["collected"], cov["executed"]) == (24, 21)
    assert doc["counts"]["skipped"] == 1 and doc["counts"]["executed"] == 7
    # the one skipped row holds three pairs no executed row of s2 holds: no single rule
    assert cov["suggestion"] == []


def test_a_deselected_row_is_lost_as_not_selected() -> None:
    rows = [[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]]
    items = [[f"t[{r}]", r, ""] for r in range(3)]  # row 3 was deselected
    doc = table_to_json(analyze_table(payload(rows, items), {n: {"outcome": "passed", "when": "call"} for n, _, _ in items}))
    assert {tuple(e["because"]) for e in doc["coverage"]["lost"]} == {("not selected",)}
