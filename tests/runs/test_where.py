"""Where a run ran (pairwise_param.runs.where): the shard from --pairwise-shard, the
splitters' options or the CI's variables (0- and 1-based), the build, the platform."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pairwise_param.errors import InvalidArgument
from pairwise_param.runs.where import Platform, build_id, parse_shard, platform, shard


@pytest.mark.parametrize(("given", "options", "env", "want"), [
    ("2/3", {}, {}, (1, 3, "--pairwise-shard=2/3")),
    (None, {}, {"PAIRWISE_SHARD": "3/3"}, (2, 3, "PAIRWISE_SHARD=3/3")),
    (None, {"shard_id": 0, "num_shards": 3}, {}, (0, 3, "pytest-shard --shard-id/--num-shards")),
    (None, {"shard_id": 0, "num_shards": 1}, {}, None),  # pytest-shard's default: not sharded
    (None, {"splits": 3, "group": 3}, {}, (2, 3, "pytest-split --splits/--group")),
    (None, {}, {"BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "4"}, (0, 4, None)),
    (None, {}, {"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2"}, (0, 2, None)),  # GitLab: 1-based
    (None, {}, {"CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "2"}, (1, 2, None)),
    (None, {}, {"TEST_SHARD_INDEX": "2", "TEST_TOTAL_SHARDS": "3"}, (2, 3, None)),
    (None, {}, {"UNIT_TEST_SHARD_INDEX": "1", "UNIT_TEST_SHARD_COUNT": "5"}, (1, 5, None)),
    (None, {}, {"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "1"}, None),  # one node: not sharded
    (None, {}, {}, None),
    # the splitter that chose the items wins over the CI's variables, an explicit value over both
    (None, {"splits": 4, "group": 1}, {"BUILDKITE_PARALLEL_JOB": "2", "BUILDKITE_PARALLEL_JOB_COUNT": "3"},
     (0, 4, None)),
    ("1/2", {"splits": 4, "group": 3}, {}, (0, 2, None)),
])
def test_the_shard(given: str | None, options: dict[str, Any], env: dict[str, str],
                   want: tuple[int, int, str | None] | None) -> None:
    got = shard(given, options, env)
    if want is None:
        assert got is None
        return
    assert got is not None and (got.index, got.count) == want[:2]
    if want[2] is not None:
        assert got.source == want[2]
    assert str(got) == f"shard {want[0] + 1} of {want[1]}"


@pytest.mark.parametrize(("text", "message"), [
    ("3", "give I/N"), ("0/3", "numbered from 1"), ("4/3", "shard 4 of 3 does not exist"),
    ("a/3", "not a whole number"), ("1/0", "0 shards"),
])
def test_a_bad_shard_names_the_option(text: str, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        parse_shard(text, "--pairwise-shard")


def test_a_bad_ci_variable_is_an_error() -> None:
    with pytest.raises(InvalidArgument, match="CI_NODE_INDEX/CI_NODE_TOTAL: shard 4 of 3 does not exist"):
        shard(None, {}, {"CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "3"})


def test_the_build() -> None:
    assert build_id({}) is None
    assert build_id({"GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "2"}) == "77-2"
    assert build_id({"BUILDKITE_BUILD_ID": "b-1", "GITHUB_RUN_ID": "77"}) == "b-1"
    assert build_id({"PAIRWISE_BUILD": "mine", "CI_PIPELINE_ID": "9"}) == "mine"
    assert build_id({"CI_PIPELINE_ID": "9"}) == "9"


def _torch(cuda: bool = False, hip: str | None = None, xpu: bool = False) -> Any:
    return SimpleNamespace(
        cuda=SimpleNamespace(is_available=lambda: cuda, get_device_name=lambda i: "NVIDIA H100"),
        version=SimpleNamespace(hip=hip),
        xpu=SimpleNamespace(is_available=lambda: xpu, get_device_name=lambda i: "Intel Max"),
    )


def test_the_platform() -> None:
    assert platform({}) is None  # torch not imported: unknown, never imported here
    assert platform({}, _torch(cuda=True)) == Platform("cuda", "NVIDIA H100")
    assert platform({}, _torch(cuda=True, hip="6.2")) == Platform("rocm", "NVIDIA H100")
    assert platform({}, _torch(xpu=True)) == Platform("xpu", "Intel Max")
    assert platform({}, _torch()) == Platform("cpu")
    assert platform({"PAIRWISE_PLATFORM": "ROCm:MI300X"}, _torch(cuda=True)) == Platform("rocm", "MI300X")


def test_a_broken_driver_leaves_the_platform_unknown() -> None:
    def broken() -> bool:
        raise RuntimeError("no driver")

    torch = SimpleNamespace(cuda=SimpleNamespace(is_available=broken))
    assert platform({}, torch) is None
