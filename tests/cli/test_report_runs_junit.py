"""``report --run A.json B.json C.xml``: pytest's JUnit XML stands in for a shard whose run
file is lost (issue 36): its rows and outcomes, on the other runs' tables; what it cannot
tell is said, and what it cannot place fails the gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.plugin.summary import ROW_PROPERTY_PREFIX
from pairwise_param.runs.junit import PREFIX

pytest.importorskip("pytest_shard")

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["f16", "bf16", "f32"], padded=[False, True], bias=[0, 1, 2], xnorm=[False, True])
@pytest.mark.parametrize("n", [1, 64])
def test_kernel(n, dtype, padded, bias, xnorm):
    assert not (dtype == "bf16" and bias == 2 and n == 64)

class TestSmall:
    @pairwise(a=[1, 2, 3], b=["x", "y"], c=[None, 0.5])
    def test_small(self, a, b, c):
        pass
"""


def test_the_property_prefix_is_the_plugins() -> None:
    assert PREFIX == ROW_PROPERTY_PREFIX


@pytest.fixture
def shards(pytester: pytest.Pytester) -> Path:
    pytester.makepyfile(test_suite=SUITE)
    for k in range(3):
        pytester.runpytest_subprocess("-p", "no:randomly", "--shard-id", str(k), "--num-shards", "3",
                                      f"--pairwise-report=s{k}.json", f"--junitxml=s{k}.xml")
    return pytester.path


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object], str]:
    capsys.readouterr()
    code = main(["report", "--run", *args, "--format", "json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out else {}, captured.err


def test_a_junit_xml_file_stands_in_for_a_lost_run_file(shards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole_code, whole, _ = _json(capsys, *(str(shards / f"s{k}.json") for k in range(3)))
    code, union, err = _json(capsys, str(shards / "s0.json"), str(shards / "s1.json"), str(shards / "s2.xml"),
                             "--fail-under", "0")
    assert code == whole_code == ExitCode.OK, err
    def by_id(tables: object) -> list[dict[str, object]]:
        assert isinstance(tables, list)
        return [{**t, "items": sorted(t["items"], key=lambda i: i["nodeid"])} for t in tables]

    # the same items, rows, outcomes, error signatures and coverage (the XML's items last)
    assert by_id(union["tables"]) == by_id(whole["tables"])
    assert "s2.xml: JUnit XML stands in for a run file" in err and "not the table, its model fingerprint" in err
    assert "shard 3 of 3 missing" not in err
    # without it, shard 3 is missing
    capsys.readouterr()
    assert main(["report", "--run", str(shards / "s0.json"), str(shards / "s1.json"), "--fail-under", "0"]) == 1
    assert "shard 3 of 3 missing" in capsys.readouterr().out


def test_what_the_xml_cannot_tell_or_place_fails_closed(shards: Path, capsys: pytest.CaptureFixture[str],
                                                         pytester: pytest.Pytester) -> None:
    # shard 3 ran a changed suite: its cases of test_kernel hold values no table has
    pytester.makepyfile(test_suite=SUITE.replace('dtype=["f16", "bf16", "f32"]', 'dtype=["e4m3", "e5m2"]'))
    pytester.runpytest_subprocess("-p", "no:randomly", "--shard-id", "2", "--num-shards", "3", "--junitxml=o.xml")
    capsys.readouterr()
    code = main(["report", "--run", str(shards / "s0.json"), str(shards / "s1.json"), str(shards / "o.xml"),
                 "--fail-under", "0"])
    out = capsys.readouterr().out
    assert "test_kernel" in (shards / "o.xml").read_text()  # sha256 of the node ids: shard 3 holds some
    assert code == ExitCode.COVERAGE_BELOW
    assert "its row values are in no table of the other runs (another model?)" in out, out
    # an XML of a run without the plugin's properties, and an XML alone
    plain = shards / "plain.xml"
    plain.write_text('<testsuites><testsuite><testcase classname="t" name="test_x"/></testsuite></testsuites>')
    assert main(["report", "--run", str(shards / "s0.json"), str(plain)]) == ExitCode.USAGE_ERROR
    assert "no test case with pairwise-param row values" in capsys.readouterr().err
    assert main(["report", "--run", str(shards / "s2.xml")]) == ExitCode.USAGE_ERROR
    assert "give those too" in capsys.readouterr().err
