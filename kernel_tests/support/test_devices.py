"""Worker -> GPU mapping for pytest-xdist (support/devices.py), on CPU workers with fake
device counts, and the kernel suites split into shards by pytest-split."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kernel_tests.support import devices
from kernel_tests.support.families import FAMILIES

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("value", "number"),
    [("gw0", 0), ("gw7", 7), (" gw12 ", 12), ("", None), ("master", None), ("gwx", None), ("gw-1", None)],
)
def test_worker_number(value: str, number: int | None) -> None:
    assert devices.worker_number({"PYTEST_XDIST_WORKER": value}) == number


def test_worker_number_outside_xdist() -> None:
    assert devices.worker_number({}) is None


@pytest.mark.parametrize(
    ("worker", "count", "index"),
    [(0, 4, 0), (3, 4, 3), (4, 4, 0), (5, 2, 1), (2, 1, 0), (None, 4, None), (3, 0, None), (0, 0, None)],
)
def test_device_index(worker: int | None, count: int, index: int | None) -> None:
    assert devices.device_index(worker, count) == index


def test_every_gpu_gets_a_worker_and_none_gets_two_extra() -> None:
    # n workers over c GPUs: each GPU gets floor or ceil of n / c workers
    for count in range(1, 9):
        for n in range(1, 20):
            per = [0] * count
            for w in range(n):
                index = devices.device_index(w, count)
                assert index is not None
                per[index] += 1
            assert max(per) - min(per) <= 1
            assert max(per) == devices.workers_per_device(n, count)


def test_cuda_visible_devices_is_honoured() -> None:
    env = {"CUDA_VISIBLE_DEVICES": "2, 3"}
    assert devices.physical_device(env, 0) == "2"
    assert devices.physical_device(env, 1) == "3"
    assert devices.physical_device({"CUDA_VISIBLE_DEVICES": "GPU-1f2e,GPU-9a"}, 1) == "GPU-9a"
    assert devices.physical_device({}, 3) == "3"


def test_auto_workers() -> None:
    assert devices.auto_workers(0) is None  # CPU: xdist's default
    assert devices.auto_workers(1) == 1  # one GPU: one worker (issue 13: -n 8 on one GPU was slower)
    assert devices.auto_workers(8) == 8


def test_workers_per_device() -> None:
    assert devices.workers_per_device(8, 0) == 8  # CPU: all share the host
    assert devices.workers_per_device(8, 1) == 8
    assert devices.workers_per_device(8, 8) == 1
    assert devices.workers_per_device(9, 8) == 2
    assert devices.workers_per_device(0, 4) == 1


def test_bind_worker_changes_nothing_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("checks the CPU path")
    assert devices.bind_worker({"PYTEST_XDIST_WORKER": "gw1"}) is None


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PAIRWISE_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def test_xdist_workers_map_to_devices(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    (tmp_path / "test_map.py").write_text(
        textwrap.dedent(
            """
            import os
            import pytest
            from kernel_tests.support import devices

            @pytest.mark.parametrize("i", range(12))
            def test_record(i):
                worker = devices.worker_number(os.environ)
                index = devices.device_index(worker, 3)  # a fake host with 3 GPUs
                with open(os.environ["MAP_FILE"], "a") as f:
                    f.write(f"{os.environ['PYTEST_XDIST_WORKER']} {index}\\n")
            """
        )
    )
    map_file = tmp_path / "map.txt"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "3", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         str(tmp_path / "test_map.py")],
        cwd=tmp_path, env=_env(MAP_FILE=str(map_file)), capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pairs = {tuple(line.split()) for line in map_file.read_text().splitlines()}
    assert len({w for w, _ in pairs}) >= 2  # several workers ran
    for worker, index in pairs:
        assert int(index) == int(worker[2:]) % 3


# -- shards (pytest-split) ----------------------------------------------------------------------
def _collect(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *args],
        cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def _ids(proc: subprocess.Popen[str]) -> list[str]:
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    return [line for line in out.splitlines() if "::" in line and not line.startswith(("[", " "))]


@pytest.mark.parametrize("mode", ["cover", "full"])
def test_shards_of_the_kernel_suites_are_disjoint_and_complete(mode: str) -> None:
    """Collection is deterministic, so pytest-split's shards (each a separate process, as on
    N CI runners) partition the suite: no id in two shards, none left out."""
    pytest.importorskip("pytest_split")
    n = 2
    # full mode without fused_norm: its full product alone is 222984 items (40 s to collect)
    families = ["kernel_tests"] if mode == "cover" else [
        f"kernel_tests/{f}" for f in sorted(FAMILIES) if f != "fused_norm"]
    suite = [*families, f"--pairwise-mode={mode}"]
    procs = [_collect(suite, ROOT)] + [
        _collect([*suite, "--splits", str(n), "--group", str(g)], ROOT) for g in range(1, n + 1)
    ]
    whole, *shards = (_ids(p) for p in procs)
    assert len(whole) > 1000 and len(whole) == len(set(whole))
    seen = [i for shard in shards for i in shard]
    assert len(seen) == len(set(seen)), "an id is in two shards"
    assert set(seen) == set(whole)
    assert all(shards)
