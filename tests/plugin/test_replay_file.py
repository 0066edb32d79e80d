"""``--pairwise-replay=FILE`` reads its run file as every reader does (runs.document.load):
another version, a table without rows, cells that are no integers are usage errors naming
the place, never coerced or skipped (QA round 4, L4)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

SUITE = """
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], bias=[0, 1, 2], xnorm=[False, True])
def test_k(dtype, bias, xnorm):
    pass
"""


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.update(schema_version=9), "run file version 9"),
    (lambda d: d["tables"][0].update(rows=[]), "$.tables[0].rows: no rows"),
    (lambda d: d["tables"][0]["rows"][0].__setitem__(0, 0.9), "$.tables[0].rows[0][0]: 0.9 is not integer"),
    (lambda d: d["tables"][0]["rows"][0].__setitem__(0, True), "$.tables[0].rows[0][0]: True is not integer"),
    (lambda d: d["tables"][0]["rows"][0].__setitem__(0, "1"), "$.tables[0].rows[0][0]: '1' is not integer"),
])
def test_a_malformed_replay_file_is_a_usage_error(
    pytester: pytest.Pytester, mutate: Callable[[dict[str, Any]], Any], message: str
) -> None:
    pytester.makepyfile(test_k=SUITE)
    assert pytester.runpytest("-p", "no:randomly", "--pairwise-report=past.json").ret == 0
    doc = json.loads((pytester.path / "past.json").read_text())
    mutate(doc)
    (pytester.path / "bad.json").write_text(json.dumps(doc))
    result = pytester.runpytest("-p", "no:randomly", "--pairwise-replay=bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "--pairwise-replay=bad.json: " in err and message in err, err
    assert "Traceback" not in err
