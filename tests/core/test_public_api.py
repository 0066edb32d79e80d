"""The public facade: what `import pairwise_param` offers and what it costs."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pairwise_param

PACKAGE = Path(pairwise_param.__file__).parent


def test_all_is_sorted_and_every_name_resolves() -> None:
    assert pairwise_param.__all__ == sorted(pairwise_param.__all__)
    for name in pairwise_param.__all__:
        assert getattr(pairwise_param, name) is not None, name


def test_facade_only_reexports() -> None:
    # the only functions are the lazy re-export hooks of PEP 562
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
    assert defined == ["__getattr__", "__dir__"], "pairwise_param/__init__.py must only re-export"


def test_core_and_plugin_import_nothing_heavy() -> None:
    # A fresh interpreter: what importing the library and its pytest plugin loads.
    code = (
        "import sys, json, pairwise_param, pairwise_param.plugin.hooks, pairwise_param.cli;"
        "pairwise_param.cover({'a': [1, 2], 'b': [1, 2, 3]});"
        "print(json.dumps(sorted(m for m in ('torch', 'triton', 'numpy', 'hypothesis', 'matplotlib')"
        " if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_cover_example_from_the_readme() -> None:
    rows = pairwise_param.cover(
        {"dtype": ["fp16", "bf16"], "padded_a": [False, True], "bias_mode": [0, 1, 2]},
        constraints=[lambda dtype, bias_mode: not (dtype == "bf16" and bias_mode == 2)],
    )
    assert all(not (r["dtype"] == "bf16" and r["bias_mode"] == 2) for r in rows)
    assert rows.infeasible == [{"dtype": "bf16", "bias_mode": 2}]
    report = pairwise_param.measure(rows.model, rows)
    assert report.complete


def test_all_is_exactly_the_public_set() -> None:
    # every public name, and only those: the lazy table, __all__ and the real objects agree
    homes = pairwise_param._HOMES  # type: ignore[attr-defined]
    assert set(pairwise_param.__all__) == set(homes) | {"__version__"}
    for name, module in homes.items():
        obj = getattr(pairwise_param, name)
        assert obj.__module__ == module or obj.__module__.startswith(module + "."), (name, obj.__module__)
    # errors live in their module; the facade keeps only their base
    from pairwise_param import errors

    exported_errors = [n for n in pairwise_param.__all__ if n in errors.__all__]
    assert exported_errors == ["PairwiseError"]
    assert set(dir(pairwise_param)) >= set(pairwise_param.__all__)


def test_unknown_attribute_is_an_attribute_error() -> None:
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pairwise_param.nope  # type: ignore[attr-defined]  # noqa: B018
