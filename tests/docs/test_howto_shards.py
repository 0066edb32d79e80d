"""The sharded-CI how-tos run as written (issue 36).

Each page's YAML (``docs/how-to/shards-{buildkite,github,gitlab}.md``) is read and its
commands are run by bash, unedited, with the variables each CI sets (Buildkite's
``$$VAR`` escape, GitHub's ``${{ matrix.group }}``, GitLab's ``CI_NODE_INDEX``), in a
folder whose ``tests/kernels`` holds a small ``@pairwise`` suite.  What a CI does
between the commands is stood in for: the installs (``pip install ...``: this
environment has the packages), the artifact steps (the jobs share ``runs/``; Buildkite's
``buildkite-agent`` is a no-op script on PATH).  The gate step must pass on the jobs'
run files and fail, naming the shard, when one job's file is missing.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")  # the dev extra installs it (pyyaml)

ROOT = Path(__file__).resolve().parents[2]
HOWTO = ROOT / "docs" / "how-to"

SUITE = '''
import pytest
from pairwise_param import pairwise


@pairwise(dtype=["f16", "bf16", "f32"], bias=[True, False], act=["relu", "gelu", "silu"], fused=[True, False])
@pytest.mark.parametrize("n", [1, 7])
def test_kernel(dtype, bias, act, fused, n):
    pass


@pairwise(layout=["nt", "tn", "nn"], dtype=["f16", "bf16"], split_k=[False, True], acc=["f32", "f16"])
def test_gemm(layout, dtype, split_k, acc):
    pass
'''


def _page_yaml(name: str) -> Any:
    text = (HOWTO / name).read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    assert len(blocks) == 1, f"{name}: expected one yaml block, found {len(blocks)}"
    return yaml.safe_load(blocks[0])


def _workdir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A checkout stand-in: tests/kernels with the suite, bin/ on PATH with this Python's
    scripts (pytest, pairwise-param) and a no-op buildkite-agent."""
    (tmp_path / "tests" / "kernels").mkdir(parents=True)
    (tmp_path / "tests" / "kernels" / "test_suite.py").write_text(SUITE, encoding="utf-8")
    (tmp_path / "runs").mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    agent = bin_dir / "buildkite-agent"
    agent.write_text("#!/bin/sh\n# stand-in: the shards' run files are already in runs/\nexit 0\n")
    agent.chmod(agent.stat().st_mode | stat.S_IEXEC)
    for tool, module in (("pytest", "pytest"), ("pairwise-param", "pairwise_param.cli")):
        script = bin_dir / tool
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {module} "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PAIRWISE_", "PYTEST_", "BUILDKITE", "GITHUB_", "CI_", "CIRCLE_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["PAIRWISE_PLATFORM"] = "cpu"
    env["HYPOTHESIS_PROFILE"] = "ci"
    return tmp_path, env


def _run(cmd: str, cwd: Path, env: dict[str, str], **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-eo", "pipefail", "-c", cmd], check=False, cwd=cwd, env={**env, **extra},
                          capture_output=True, text=True, timeout=300)


def _installs(cmd: str) -> bool:
    """A CI's install step (this environment has the packages)."""
    return cmd.strip().startswith("pip install")


def _gate_twice(cwd: Path, run_gate: Any, shards: int, lost: str, summary: Path | None = None) -> None:
    """The gate passes on every shard's file, then fails naming the shard whose file is lost
    (in its output, or in the step summary it writes to)."""
    files = sorted(p.name for p in (cwd / "runs").glob("*.json"))
    assert len(files) == shards, files
    ok = run_gate()
    assert ok.returncode == 0, ok.stdout + ok.stderr
    (cwd / "runs" / lost).unlink()
    bad = run_gate()
    said = bad.stdout + bad.stderr + (summary.read_text(encoding="utf-8") if summary else "")
    assert bad.returncode != 0, said
    assert re.search(rf"shard \d of {shards} missing: \d+ items? never ran", said), said


def test_buildkite_pytest_shard_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("pytest_shard")  # the dev extra installs it
    doc = _page_yaml("shards-buildkite.md")
    kernels, gate = doc["steps"]
    cwd, env = _workdir(tmp_path)
    n = kernels["parallelism"]
    for job in range(n):
        # Buildkite passes ``$$VAR`` to the shell as ``$VAR``: the agent's escape
        r = _run(kernels["command"].replace("$$", "$"), cwd, env, BUILDKITE_PARALLEL_JOB=str(job),
                 BUILDKITE_PARALLEL_JOB_COUNT=str(n), BUILDKITE_BUILD_ID="0190-build")
        assert r.returncode == 0, r.stdout + r.stderr
    _gate_twice(cwd, lambda: _run(gate["command"].replace("$$", "$"), cwd, env, BUILDKITE_BUILD_ID="0190-build"),
                n, "kernels-2.json")


def test_github_matrix_pytest_split_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("pytest_split")
    doc = _page_yaml("shards-github.md")
    cwd, env = _workdir(tmp_path)
    kernels, gate = doc["jobs"]["kernels"], doc["jobs"]["pairwise-gate"]
    groups = kernels["strategy"]["matrix"]["group"]
    github = {"GITHUB_RUN_ID": "7781", "GITHUB_RUN_ATTEMPT": "1"}
    for group in groups:
        for step in kernels["steps"]:
            if "run" not in step or _installs(step["run"]):
                continue  # checkout and artifact upload: the jobs share runs/
            r = _run(step["run"].replace("${{ matrix.group }}", str(group)), cwd, env, **github)
            assert r.returncode == 0, r.stdout + r.stderr
    summary = cwd / "summary.md"
    gate_cmds = [s["run"] for s in gate["steps"] if "run" in s and not _installs(s["run"])]
    assert gate_cmds, "the gate job runs no command"
    _gate_twice(cwd, lambda: _run("\n".join(gate_cmds), cwd, env, GITHUB_STEP_SUMMARY=str(summary), **github),
                len(groups), "kernels-3.json", summary)
    # the passing run's Markdown report went to the step summary too
    assert summary.read_text(encoding="utf-8").count("**runs merged:**") == 2


def test_gitlab_parallel_runs_as_written(tmp_path: Path) -> None:
    pytest.importorskip("pytest_split")
    doc = _page_yaml("shards-gitlab.md")
    cwd, env = _workdir(tmp_path)
    kernels, gate = doc["kernels"], doc["pairwise-gate"]
    n = kernels["parallel"]
    for index in range(1, n + 1):  # GitLab's CI_NODE_INDEX is 1-based
        cmds = [c for c in kernels["script"] if not _installs(c)]
        r = _run("\n".join(cmds), cwd, env, CI_NODE_INDEX=str(index), CI_NODE_TOTAL=str(n), CI_PIPELINE_ID="4242")
        assert r.returncode == 0, r.stdout + r.stderr
    gate_cmds = [c for c in gate["script"] if not _installs(c)]
    _gate_twice(cwd, lambda: _run("\n".join(gate_cmds), cwd, env, CI_PIPELINE_ID="4242"), n, "kernels-1.json")
