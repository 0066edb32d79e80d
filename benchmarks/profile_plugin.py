"""A pytest plugin for benchmarks: where each kernel case's time goes, and what compiled.

``-p benchmarks.profile_plugin`` with ``PROFILE_OUT=PATH`` (the profile command,
``benchmarks/gpu_profile.py``, sets both) records, per test item:

* the phases of the family's check (``kernel_tests.support.phases``: inputs, kernel,
  reference, compare), each with the device synchronized at its edges;
* Triton compilation: every variant this process compiles or loads from the disk cache
  (Triton's ``jit_cache_hook`` before and ``jit_post_compile_hook`` after, timed between
  them), attributed to the item whose launch needed it, with the kernel's name and its
  specialization (argument types, divisibility attributes, constexprs) so the command
  can say which arguments split a kernel into variants;
* setup, call and teardown durations and the outcome.

and writes them as JSON at the end of the session. Without ``PROFILE_OUT`` it does
nothing. Serial runs only (one process, one file; the profile command never adds -n).
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import pytest

from kernel_tests.support import phases


class _Profile:
    def __init__(self, path: str) -> None:
        self.path = path
        self.recorder = phases.start_recording()
        self.items: list[dict[str, Any]] = []
        self.variants: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None
        self.compile_started = 0.0
        self.hooks_installed = self._install_hooks()
        self.start = time.perf_counter()

    # ------------------------------------------------------------------ Triton hooks
    def _install_hooks(self) -> str:
        """Chain our hooks in front of any already set; returns which API was used."""
        try:
            import triton
        except ImportError:
            return "no triton"
        knobs = getattr(triton, "knobs", None)
        runtime = getattr(knobs, "runtime", None) if knobs is not None else None
        if runtime is not None and hasattr(runtime, "jit_cache_hook"):
            before, after = runtime.jit_cache_hook, getattr(runtime, "jit_post_compile_hook", None)
            runtime.jit_cache_hook = self._chain(self._before, before)
            runtime.jit_post_compile_hook = self._chain(self._after, after)
            return "triton.knobs.runtime.jit_cache_hook / jit_post_compile_hook"
        from triton.runtime.jit import JITFunction  # older Triton: class attributes

        before, after = getattr(JITFunction, "cache_hook", None), getattr(JITFunction, "compiled_hook", None)
        JITFunction.cache_hook = self._chain(self._before, before)  # type: ignore[attr-defined]
        JITFunction.compiled_hook = self._chain(self._after, after)  # type: ignore[attr-defined]
        return "JITFunction.cache_hook / compiled_hook"

    @staticmethod
    def _chain(ours: Any, theirs: Any) -> Any:
        def hook(*args: Any, **kwargs: Any) -> Any:
            ours(**kwargs)
            return theirs(*args, **kwargs) if theirs is not None else False  # falsy: do compile
        return hook

    def _before(self, **kwargs: Any) -> None:
        self.compile_started = time.perf_counter()  # compiles are synchronous: never two at once

    def _after(self, **kwargs: Any) -> None:
        seconds = time.perf_counter() - self.compile_started
        fn = kwargs.get("fn")
        name = getattr(fn, "name", None) or str(fn)
        spec: Any = None
        compile_info = kwargs.get("compile") or {}
        raw = compile_info.get("specialization_data")
        if isinstance(raw, str):
            try:
                spec = json.loads(raw)
            except ValueError:
                spec = raw
        item = self.current["nodeid"] if self.current else None
        self.variants.append({"kernel": name, "key": str(kwargs.get("key")), "repr": kwargs.get("repr"),
                              "spec": spec, "seconds": seconds, "item": item})
        if self.current is not None:
            self.current["compile_s"] += seconds
            self.current["variants"] += 1
            if self.recorder.open == "kernel":  # the share of the kernel phase that was compiling
                self.current["compile_in_kernel_s"] += seconds

    # ------------------------------------------------------------------ pytest hooks
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        self.recorder.take()
        self.current = {"nodeid": item.nodeid, "outcome": "passed", "setup_s": 0.0, "call_s": 0.0,
                        "teardown_s": 0.0, "compile_s": 0.0, "compile_in_kernel_s": 0.0, "variants": 0}
        yield
        self.current.update(self.recorder.take())
        self.items.append(self.current)
        self.current = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.current is None or report.nodeid != self.current["nodeid"]:
            return
        self.current[f"{report.when}_s"] = report.duration
        if report.failed:
            self.current["outcome"] = "failed" if report.when == "call" else "error"
        elif report.skipped and self.current["outcome"] == "passed":
            self.current["outcome"] = "skipped"

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        phases.stop_recording()
        data = {"hooks": self.hooks_installed, "session_s": time.perf_counter() - self.start,
                "phases": list(phases.PHASES), "items": self.items, "variants": self.variants}
        tmp = f"{self.path}.tmp"
        with open(tmp, "w") as fh:
            json.dump(data, fh)
        os.replace(tmp, self.path)


def pytest_configure(config: pytest.Config) -> None:
    path = os.environ.get("PROFILE_OUT")
    if path:
        config.pluginmanager.register(_Profile(path), "kernel-profile")
