"""The rows of 200 seeded random models are the rows this ENGINE_VERSION has always given.

Invariant 2 (same model -> byte-identical rows, everywhere) across commits: the digest of
the rows (``cover()`` in cover and full mode, with constraints, include rows,
sub-models, invalid values, strengths 1-3, and the test ids) of the models of
``scripts/rows_digest.py`` (``random.Random(0)``) is checked in, keyed by
``engine.ENGINE_VERSION``, in ``tests/tables/golden_rows.json``.

* A refactoring that changes a row fails here: it must not.
* An engine change that changes rows must bump ``ENGINE_VERSION`` (it keys every cached
  table, so a stale cache entry is never served) and then regenerate the file, with the
  one command::

      python scripts/rows_digest.py --write-golden

  (Commit the file with the bump; docs/engine.md says which tables changed.)
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from scripts_loader import load_script

from pairwise_param.tables.build import engine_version

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "python scripts/rows_digest.py --write-golden"


def _script() -> ModuleType:
    return load_script("rows_digest")


def test_the_rows_of_the_seeded_models_match_the_golden_digest() -> None:
    script = _script()
    golden = json.loads(script.GOLDEN.read_text())
    assert golden["engine_version"] == engine_version(), (
        f"ENGINE_VERSION is {engine_version()!r}, the golden rows are of {golden['engine_version']!r}: "
        f"regenerate them with `{REGENERATE}` and commit tests/tables/golden_rows.json"
    )
    assert (golden["models"], golden["seed"]) == (script.GOLDEN_MODELS, script.GOLDEN_SEED)
    assert script.golden() == golden["digest"], (
        "rows changed under the same ENGINE_VERSION: a refactoring must not change a row; an engine "
        f"change that does must bump ENGINE_VERSION, then `{REGENERATE}`"
    )


def test_the_models_cover_what_the_digest_claims() -> None:
    """The random models exercise every feature the docstring names (so the digest means it)."""
    models = _script().models(200)
    assert {m["strength"] for m in models} >= {None, 1, 2, 3}
    assert sum(bool(m["constraints"]) for m in models) > 40
    assert sum(bool(m["include"]) for m in models) > 30
    assert sum(bool(m["invalid"]) for m in models) > 30
    assert sum(bool(m["sub_models"]) for m in models) > 5
    rows = [_script().model_rows(m) for m in models[:40]]
    assert any(isinstance(r["cover"], str) for r in rows)  # some models are errors, compared word for word
    assert all("full" in r for r in rows)
