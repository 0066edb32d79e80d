"""A pytest plugin for the CPU: which Triton kernel variants each test would compile on a GPU.

    TRITON_INTERPRET=1 VARIANT_KEYS_FILE=keys.json python -m pytest kernel_tests/rope \\
        -p benchmarks.variant_keys -m "not tooling" -q

Under the Triton interpreter nothing is compiled, so :mod:`benchmarks.count_variants`
(which counts ``TRITON_CACHE_DIR`` entries) sees nothing.  This plugin instead records a
*specialization key* per launch, the way Triton's JIT keys its compile cache:

* every ``tl.constexpr`` argument by value;
* every tensor by dtype and whether its data pointer is 16-byte aligned;
* every other ``int`` as ``1`` (Triton makes ``== 1`` a constant), or by its type
  (``i32``/``i64``) and divisibility by 16, unless the kernel lists it in
  ``do_not_specialize`` (then by type only); ``bool`` as ``i1``, ``float`` as ``fp32``;
* the launch options (``num_warps``, ``num_stages``) and the kernel's name.

The families choose tiles differently under the interpreter (fewer, larger programs)
than on a GPU, so each call of a family's launch helper (:data:`LAUNCHERS`) runs twice:
first *dry*, with the family's ``is_interpreter`` answering False and every launch only
recorded (the GPU's constexprs: tiles, ``ROUND_BF16``, ``UPCAST_FP32`` ...), then for
real (the test's result).  The keys are therefore the ones a GPU run would compile, up
to two things the CPU cannot see: the device's compute-unit count (it sets only
``do_not_specialize`` split counts here) and allocator alignment (16 on both).  An
estimate, then; the GPU's count is ``benchmarks/count_variants.py``.

A case over its family's interpreter budget (up to ``VARIANT_DRY_FACTOR`` times it,
default 16) is not skipped before its inputs: it launches dry only and then ends (a
skip; a rejected example inside a Hypothesis test), so its variants count too.

``VARIANT_PLAIN=1`` drops every ``compile_axes=`` / ``compile_key=`` from ``@pairwise``
(the plain t=2 tables of the same tree), to count the variants compile-aware tables save.

Writes ``VARIANT_KEYS_FILE`` (JSON): per family the number of distinct variants and, per
test function, the variants it was first to launch (the order the items ran in).
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

import pytest

#: The launch helpers per family (module, functions): every kernel launch of the
#: family goes through one of them, and each computes its tiles from ``is_interpreter``.
LAUNCHERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "rmsnorm": ("kernel_tests.rmsnorm.kernels", ("rmsnorm",)),
    "skinny_gemm": ("kernel_tests.skinny_gemm.kernels", ("wvSplitK", "wvSplitKQ", "LLMM1", "wvSplitKrc")),
    "fused_norm": ("kernel_tests.fused_norm.kernels", ("_launch",)),
    "rope": ("kernel_tests.rope.kernels", ("_launch",)),
}

_state: dict[str, Any] = {"dry": False, "depth": 0, "item": "(collection)", "over": False}
#: family -> variant key -> the test function that launched it first
_first: dict[str, dict[str, str]] = {}
#: launches seen outside the dry pass with no dry pass before them (a kernel launched
#: directly, not through a launch helper): counted with their interpreter key
_direct: dict[str, int] = {}


def _family(nodeid: str) -> str:
    parts = nodeid.split("::", 1)[0].split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "kernel_tests" else "(kernel_tests)"


def _int_key(v: int, specialize: bool) -> str:
    kind = "i32" if -(2**31) <= v < 2**31 else "i64"
    if not specialize:
        return kind
    if v == 1:
        return "1"
    return f"{kind}{'/16' if v % 16 == 0 else ''}"


def specialization(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The compile key of one launch of the interpreted kernel ``fn`` (see the module doc)."""
    import torch

    params = list(inspect.signature(fn.fn).parameters.values())
    names = [p.name for p in params]
    dns = fn.kwargs.get("do_not_specialize") or ()
    dns = {names[d] if isinstance(d, int) else d for d in dns}
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in kwargs.items() if k in names})
    parts = [fn.fn.__name__]
    for p in params:
        v = bound.get(p.name, p.default)
        if "constexpr" in str(p.annotation):
            parts.append(f"{p.name}={v!r}")
        elif isinstance(v, torch.Tensor):
            parts.append(f"{str(v.dtype).removeprefix('torch.')}{'/16' if v.data_ptr() % 16 == 0 else ''}")
        elif isinstance(v, bool):
            parts.append("i1")
        elif isinstance(v, int):
            parts.append(_int_key(v, p.name not in dns))
        elif isinstance(v, float):
            parts.append("fp32")
        else:
            parts.append(type(v).__name__)
    for opt in ("num_warps", "num_stages"):
        if opt in kwargs:
            parts.append(f"{opt}={kwargs[opt]}")
    return ",".join(parts)


def _record(key: str) -> None:
    family = _family(_state["item"])
    _first.setdefault(family, {}).setdefault(key, _state["item"].split("[", 1)[0])


def _patch_interpreter() -> None:
    from triton.runtime.interpreter import InterpretedFunction

    real_run = InterpretedFunction.run

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        if _state["dry"]:
            _record(specialization(self, args, kwargs))
            return None
        if _state["depth"] == 0:  # launched outside every helper: the interpreter's own key
            key = specialization(self, args, kwargs)
            _direct[key] = _direct.get(key, 0) + 1
            _record("direct:" + key)
        return real_run(self, *args, grid=grid, warmup=warmup, **kwargs)

    InterpretedFunction.run = run  # type: ignore[method-assign]


def _wrap(module: Any, name: str) -> None:
    real: Callable[..., Any] = getattr(module, name)

    def helper(*args: Any, **kwargs: Any) -> Any:
        if _state["depth"]:
            return real(*args, **kwargs)
        saved = module.is_interpreter
        _state["depth"] += 1
        try:
            module.is_interpreter = lambda: False
            _state["dry"] = True
            try:
                real(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - the real call below raises it again
                _state["dry_error"] = exc
            finally:
                module.is_interpreter = saved
                _state["dry"] = False
            if _state["over"]:  # too large to interpret: its variants are recorded, the case ends here
                _state["over"] = False
                from hypothesis import reject
                from hypothesis.control import currently_in_test_context

                if currently_in_test_context():
                    reject()  # as the fuzz tests' assume(BUDGET.over(...) is None): the next example
                pytest.skip("variant_keys: over the interpreter budget, launched dry only")
            return real(*args, **kwargs)
        finally:
            _state["depth"] -= 1

    helper.__wrapped__ = real  # type: ignore[attr-defined]
    setattr(module, name, helper)


def _patch_budget() -> None:
    """A case over its family's interpreter budget runs up to its first launch (dry):
    its variants count, its inputs are built, its kernels are not interpreted."""
    from kernel_tests.support.budget import InterpreterBudget

    real_over = InterpreterBudget.over

    def over(self: InterpreterBudget, *args: object, **kwargs: object) -> str | None:
        reason = real_over(self, *args, **kwargs)
        if reason is not None and self.cost(*args, **kwargs) <= self.limit() * _dry_factor():
            _state["over"] = True
            return None
        return reason

    InterpreterBudget.over = over  # type: ignore[method-assign]


def _dry_factor() -> float:
    return float(os.environ.get("VARIANT_DRY_FACTOR", "16"))


def pytest_configure(config: pytest.Config) -> None:
    from kernel_tests.support.platform import is_interpreter

    if not is_interpreter():
        raise pytest.UsageError("benchmarks.variant_keys needs TRITON_INTERPRET=1 (on a GPU use benchmarks.count_variants)")
    if os.environ.get("VARIANT_PLAIN") == "1":
        from benchmarks.plain_tables import drop_compile_axes

        drop_compile_axes()
    _patch_interpreter()
    _patch_budget()
    for module_name, names in LAUNCHERS.values():
        module = importlib.import_module(module_name)
        for name in names:
            _wrap(module, name)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _state["item"] = item.nodeid
    _state["over"] = False


def summary() -> dict[str, Any]:
    """Per family: the distinct variants and, per test function, those it launched first."""
    out: dict[str, Any] = {}
    for family, keys in sorted(_first.items()):
        per_test: dict[str, list[str]] = {}
        for key, test in keys.items():
            per_test.setdefault(test, []).append(key)
        out[family] = {"variants": len(keys), "by_test": {t: len(k) for t, k in per_test.items()}, "keys": per_test}
    return out


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get("VARIANT_KEYS_FILE")
    if path:
        with open(path, "w") as fh:
            json.dump(summary(), fh, indent=1)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for family, entry in summary().items():
        terminalreporter.write_line(f"variant_keys: {family}: {entry['variants']} variants")
        for test, n in sorted(entry["by_test"].items(), key=lambda kv: -kv[1]):
            terminalreporter.write_line(f"    {n:4d}  {test}")


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.variant_keys --out DIR [--mode compile-aware|plain|full] [FAMILY ...]``:
    one pytest process per family (the GPU job's selection), ``DIR/<mode>-<family>.json``
    each, and ``DIR/<mode>.md``, the table of variants per family and test."""
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(prog="python -m benchmarks.variant_keys")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--mode", choices=("compile-aware", "plain", "full"), default="compile-aware")
    ap.add_argument("--rotate", type=int, default=0, metavar="N",
                    help="N runs per family with --pairwise-rotate on one history (run 1: the fixed tables): "
                         "each run's variants and how many no earlier run launched")
    ap.add_argument("families", nargs="*", default=[name for name in LAUNCHERS])
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parent.parent
    if a.rotate:
        return _rotated(a.out, a.rotate, a.families, root)
    lines = [f"| family | test | variants ({a.mode}) |", "|---|---|---:|"]
    for family in a.families:
        path = a.out / f"{a.mode}-{family}.json"
        _run_family(root, family, path, plain=a.mode == "plain", extra=["--pairwise-mode=full"] if a.mode == "full" else [])
        entry = json.loads(path.read_text()).get(family, {"variants": 0, "by_test": {}})
        lines.append(f"| **{family}** | all | **{entry['variants']}** |")
        for test, n in sorted(entry["by_test"].items(), key=lambda kv: -kv[1]):
            lines.append(f"| | {test.split('::', 1)[-1]} ({test.split('/')[-1].split('::')[0]}) | {n} |")
        print(lines[-1 - len(entry["by_test"])], flush=True)
    (a.out / f"{a.mode}.md").write_text("\n".join(lines) + "\n")
    return 0


def _run_family(root: Any, family: str, path: Any, plain: bool = False, extra: Sequence[str] = ()) -> None:
    """One pytest process over ``family``'s GPU-job selection under the interpreter with this
    plugin, its keys written to ``path`` (``plain``: the tables without compile options;
    ``extra``: more pytest arguments)."""
    import subprocess
    import sys

    env = dict(os.environ, TRITON_INTERPRET="1", HYPOTHESIS_PROFILE="ci", VARIANT_KEYS_FILE=str(path),
               PYTHONPATH=str(root), VARIANT_PLAIN="1" if plain else "0")
    cmd = [sys.executable, "-m", "pytest", f"kernel_tests/{family}", "-p", "benchmarks.variant_keys",
           "-m", "not tooling", "-p", "no:logging", "-p", "no:cacheprovider", "-q", *extra]
    subprocess.run(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, check=False)


def _keys(entry: dict[str, Any]) -> set[str]:
    return {key for keys in entry.get("keys", {}).values() for key in keys}


def _rotated(out: Any, runs: int, families: list[str], root: Any) -> int:
    """``--rotate N``: per family, N pytest processes with ``--pairwise-rotate`` on one
    history (``out/history-<family>.json``, emptied first); ``out/rotate<r>-<family>.json``
    each and ``out/rotate.md``: per run the family's variants, those no earlier run
    launched, and the union so far."""
    lines = ["| family | run | variants | new (no earlier run) | union so far |", "|---|---:|---:|---:|---:|"]
    for family in families:
        history = out / f"history-{family}.json"
        history.unlink(missing_ok=True)
        union: set[str] = set()
        for r in range(1, runs + 1):
            path = out / f"rotate{r}-{family}.json"
            _run_family(root, family, path, extra=["--pairwise-rotate", f"--pairwise-history={history}"])
            keys = _keys(json.loads(path.read_text()).get(family, {}))
            new = keys - union
            union |= keys
            lines.append(f"| {family} | {r} | {len(keys)} | {len(new)} | {len(union)} |")
            print(lines[-1], flush=True)
    (out / "rotate.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
