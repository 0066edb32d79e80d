"""``pairwise-param report --plot``: files are written, non-empty, and a
missing matplotlib is a clear usage error."""

from __future__ import annotations

import sys

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.report import StrengthCoverage, TableReport, cumulative_series

# Import matplotlib before pytester snapshots sys.modules: a second import of it
# in the same process (after pytester's restore) would mix two copies of its classes.
pytest.importorskip("matplotlib")
pytest.importorskip("matplotlib.figure")
pytest.importorskip("matplotlib.backends.backend_agg")
pytest.importorskip("matplotlib.backends.backend_svg")

SUITE = """
    import pytest

    @pytest.mark.parametrize("a,b,c", [("p", True, "u"), ("p", False, "v"), ("q", True, "v"), ("q", False, "u")])
    def test_one(a, b, c):
        pass

    @pytest.mark.parametrize("x,y", [("a", 0), ("b", 1)])
    def test_two(x, y):
        pass
"""


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
@pytest.mark.parametrize("which", [None, "test_one"])
def test_plot_file_written(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], suffix: str, magic: bytes, which: str | None
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    target = pytester.path / "out" / f"coverage{suffix}"
    args = ["report", "--plot", str(target)] + (["--plot-test", which] if which else [])
    assert main(args) == ExitCode.OK
    _, err = capsys.readouterr()
    assert f"wrote {target}" in err
    data = target.read_bytes()
    assert len(data) > 1000 and data.startswith(magic)


def test_plot_test_must_match_one(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    assert main(["report", "--plot", "x.png", "--plot-test", "nope"]) == ExitCode.USAGE_ERROR
    assert "matches no test" in capsys.readouterr().err
    assert main(["report", "--plot", "x.png", "--plot-test", "test_"]) == ExitCode.USAGE_ERROR
    assert "matches 2 tests" in capsys.readouterr().err
    assert not (pytester.path / "x.png").exists()


def test_missing_matplotlib_is_a_clear_error(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert main(["report", "--plot", "x.png"]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "--plot needs matplotlib" in err and "pairwise-param[plot]" in err


def test_cumulative_series_concatenates_tables() -> None:
    def table(cum: list[int], coverable: int) -> TableReport:
        c = StrengthCoverage(2, coverable, cum[-1], 0, cumulative=cum)
        return TableReport("parametrize", ("a", "b"), (2, 2), 4, len(cum), 0, [c])

    xs, ys = cumulative_series([table([1, 2, 3], 4), table([4], 4)], 2)  # type: ignore[misc]
    assert xs == [0, 1, 2, 3, 4]
    assert ys == [0.0, 12.5, 25.0, 37.5, 87.5]
    assert cumulative_series([table([1], 1)], 3) is None


def test_nothing_to_plot_is_a_usage_error(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(
        test_flat="""
        import pytest

        @pytest.mark.parametrize("n", [1, 2])
        def test_flat(n):
            pass
        """
    )
    assert main(["report", "--plot", "x.png"]) == ExitCode.USAGE_ERROR
    assert "nothing to draw" in capsys.readouterr().err


def test_nothing_to_plot_names_the_collection_errors(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # a suite whose only file fails to import: the plot error hid the import error
    pytester.makepyfile(test_broken="import no_such_module_for_plot\n")
    assert main(["report", "--plot", "x.png"]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "nothing to draw" in err
    assert "1 file(s) failed to collect, first test_broken.py: ModuleNotFoundError" in err
