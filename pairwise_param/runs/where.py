"""Where a run ran: which shard of how many, which build, which platform (pure logic).

The plugin hands in what it read (the splitters' options, the environment, the torch
module when the tests already imported it) and writes the answer into the run file
(:class:`pairwise_param.runs.document.RunDocument`: ``shard``, ``build``, ``platform``);
``report --run A B C`` merges runs by it (:mod:`pairwise_param.runs.merge`).

The shard, first found wins:

1. ``--pairwise-shard=I/N`` or ``PAIRWISE_SHARD=I/N`` (1-based: ``3/3`` is the last);
2. pytest-shard's ``--shard-id=I --num-shards=N`` (0-based) and pytest-split's
   ``--splits N --group K`` (1-based): the splitter that chose the items;
3. the CI's parallel-job variables: Buildkite ``BUILDKITE_PARALLEL_JOB`` /
   ``BUILDKITE_PARALLEL_JOB_COUNT`` (0-based), GitLab ``CI_NODE_INDEX`` / ``CI_NODE_TOTAL``
   (1-based), CircleCI ``CIRCLE_NODE_INDEX`` / ``CIRCLE_NODE_TOTAL`` (0-based), Bazel
   ``TEST_SHARD_INDEX`` / ``TEST_TOTAL_SHARDS`` (0-based), flashinfer
   ``UNIT_TEST_SHARD_INDEX`` / ``UNIT_TEST_SHARD_COUNT`` (0-based).

The build: ``PAIRWISE_BUILD``, else ``BUILDKITE_BUILD_ID``, ``GITHUB_RUN_ID`` (with
``-GITHUB_RUN_ATTEMPT``), ``CI_PIPELINE_ID`` (GitLab), ``CIRCLE_WORKFLOW_ID``,
``BUILD_TAG`` (Jenkins).  The platform: ``PAIRWISE_PLATFORM`` (``NAME`` or
``NAME:DEVICE``), else what an already imported torch says (``cuda`` / ``rocm`` / ``xpu``
/ ``cpu`` and the device name); this module never imports torch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pairwise_param.errors import InvalidArgument

__all__ = ["Mirror", "Platform", "Shard", "build_id", "parse_mirror", "parse_shard", "platform", "shard"]


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (0-based) of ``count``, and where that was read (for messages)."""

    index: int
    count: int
    source: str

    def __str__(self) -> str:
        return f"shard {self.index + 1} of {self.count}"


@dataclass(frozen=True)
class Mirror:
    """Mirror job ``index`` (0-based) of ``count``: jobs that each run the whole suite
    (another platform, another card) and run different complete tables
    (``--pairwise-mirror=K/N``, :mod:`pairwise_param.tables.mirror`)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"mirror job {self.index + 1} of {self.count}"


@dataclass(frozen=True)
class Platform:
    """The platform a run's kernels ran on: ``cuda``, ``rocm``, ``xpu``, ``cpu`` (or a
    name given by ``PAIRWISE_PLATFORM``) and the device's name ("" when unknown)."""

    name: str
    device: str = ""


#: (index variable, count variable, base of the index) of each CI, in the order they are read
SHARD_VARIABLES: tuple[tuple[str, str, int], ...] = (
    ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
    ("CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
    ("CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0),
    ("TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", 0),
    ("UNIT_TEST_SHARD_INDEX", "UNIT_TEST_SHARD_COUNT", 0),
)
#: the build id's variables, in the order they are read
BUILD_VARIABLES = ("PAIRWISE_BUILD", "BUILDKITE_BUILD_ID", "GITHUB_RUN_ID", "CI_PIPELINE_ID", "CIRCLE_WORKFLOW_ID",
                   "BUILD_TAG")


def _whole(text: str, what: str) -> int:
    text = text.strip()
    if not text.isdecimal():
        raise InvalidArgument(f"{what}: {text!r} is not a whole number")
    return int(text)


def _checked(index: int, count: int, source: str) -> Shard:
    if count < 1:
        raise InvalidArgument(f"{source}: {count} shards; give at least 1")
    if not 0 <= index < count:
        raise InvalidArgument(f"{source}: shard {index + 1} of {count} does not exist (shards are 1..{count})")
    return Shard(index, count, source)


def parse_shard(text: str, source: str) -> Shard:
    """``I/N`` (1-based: ``1/3`` .. ``3/3``) as a :class:`Shard`; an
    :class:`~pairwise_param.errors.InvalidArgument` naming ``source`` otherwise."""
    index, sep, count = text.partition("/")
    if not sep:
        raise InvalidArgument(f"{source}={text!r}: give I/N, this shard's number and the number of shards (1/3 .. 3/3)")
    i, n = _whole(index, f"{source}={text!r}"), _whole(count, f"{source}={text!r}")
    if i == 0:
        raise InvalidArgument(f"{source}={text!r}: shards are numbered from 1 (1/{n} .. {n}/{n})")
    return _checked(i - 1, n, f"{source}={text}")


def parse_mirror(text: str, source: str) -> Mirror:
    """``K/N`` (1-based: ``1/2`` .. ``2/2``) as a :class:`Mirror`; an
    :class:`~pairwise_param.errors.InvalidArgument` naming ``source`` otherwise."""
    index, sep, count = text.strip().partition("/")
    if not sep:
        raise InvalidArgument(f"{source}={text!r}: give K/N, this job's number and the number of mirror jobs "
                              "(1/2 .. 2/2)")
    k, n = _whole(index, f"{source}={text!r}"), _whole(count, f"{source}={text!r}")
    if n < 1 or not 1 <= k <= n:
        raise InvalidArgument(f"{source}={text!r}: mirror job {k} of {n} does not exist (jobs are 1..{max(n, 1)})")
    return Mirror(k - 1, n)


def shard(given: str | None, options: Mapping[str, Any], env: Mapping[str, str]) -> Shard | None:
    """This run's shard (see the module docstring), or None when it is not one of several.
    ``given``: ``--pairwise-shard``'s value; ``options``: pytest's option values by dest
    (``shard_id``, ``num_shards``: pytest-shard; ``splits``, ``group``: pytest-split)."""
    if given:
        return parse_shard(given, "--pairwise-shard")
    if env.get("PAIRWISE_SHARD", "").strip():
        return parse_shard(env["PAIRWISE_SHARD"].strip(), "PAIRWISE_SHARD")
    num = options.get("num_shards")
    if isinstance(num, int) and num > 1:
        return _checked(int(options.get("shard_id") or 0), num, "pytest-shard --shard-id/--num-shards")
    splits = options.get("splits")
    if isinstance(splits, int) and splits > 1 and isinstance(options.get("group"), int):
        return _checked(int(options["group"]) - 1, splits, "pytest-split --splits/--group")
    for index_var, count_var, base in SHARD_VARIABLES:
        index, count = env.get(index_var, "").strip(), env.get(count_var, "").strip()
        if index and count:
            n = _whole(count, count_var)
            if n > 1:
                return _checked(_whole(index, index_var) - base, n, f"{index_var}/{count_var}")
    return None


def build_id(env: Mapping[str, str]) -> str | None:
    """The build this run belongs to (see the module docstring), or None."""
    for name in BUILD_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            if name == "GITHUB_RUN_ID" and env.get("GITHUB_RUN_ATTEMPT", "").strip():
                value += "-" + env["GITHUB_RUN_ATTEMPT"].strip()
            return value
    return None


def platform(env: Mapping[str, str], torch: Any = None) -> Platform | None:
    """``PAIRWISE_PLATFORM`` (``NAME`` or ``NAME:DEVICE``), else what ``torch`` (the module,
    when the tests already imported it; never imported here) says, else None (unknown)."""
    given = env.get("PAIRWISE_PLATFORM", "").strip()
    if given:
        name, _, device = given.partition(":")
        return Platform(name.strip().lower(), device.strip())
    if torch is None:
        return None
    try:
        cuda = getattr(torch, "cuda", None)
        if cuda is not None and cuda.is_available():
            hip = getattr(getattr(torch, "version", None), "hip", None)
            return Platform("rocm" if hip else "cuda", str(cuda.get_device_name(0)))
        xpu = getattr(torch, "xpu", None)
        if xpu is not None and xpu.is_available():
            return Platform("xpu", str(xpu.get_device_name(0)))
    except Exception:  # noqa: BLE001 - a broken driver must not fail the run: the platform is then unknown
        return None
    return Platform("cpu")
