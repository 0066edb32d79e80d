"""``pairwise-param convert`` on a corpus of real-looking suites (tests/cli/convert_corpus/):
every converted file collects, ``--pairwise-mode=full`` gives the original count back, the
default mode fewer, and comments, shapes, marks and ids survive."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("libcst")

from pairwise_param.cli import main
from pairwise_param.cli.convert import convert_source
from pairwise_param.errors import InvalidArgument

CORPUS = Path(__file__).parent / "convert_corpus"
SUITES = sorted(p.name for p in CORPUS.glob("*_suite.py"))


def _count(pytester: pytest.Pytester, name: str, *args: str) -> int:
    res = pytester.runpytest_inprocess(name, "--collect-only", "-q", "-p", "no:cacheprovider", *args)
    assert res.ret == 0, res.stdout.str()
    m = re.search(r"(\d+) tests? collected", res.stdout.str())
    assert m, res.stdout.str()
    return int(m.group(1))


@pytest.mark.parametrize("suite", SUITES)
def test_converted_suite_collects_and_full_mode_gives_the_original_count(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], suite: str
) -> None:
    source = (CORPUS / suite).read_text()
    name = "test_" + suite
    pytester.path.joinpath(name).write_text(source)
    before = _count(pytester, name)
    capsys.readouterr()
    assert main(["convert", name, "--reorder"]) == 0  # a diff, nothing written
    out, _ = capsys.readouterr()
    assert out.startswith(f"--- a/{name}") and re.search(r"^\+\s*@pairwise\($", out, re.MULTILINE)
    assert pytester.path.joinpath(name).read_text() == source
    assert main(["convert", name, "--write", "--reorder"]) == 0
    capsys.readouterr()
    after_text = pytester.path.joinpath(name).read_text()
    assert "from pairwise_param import pairwise" in after_text
    assert _count(pytester, name, "--pairwise-mode=full") == before
    after = _count(pytester, name)
    assert after < before
    print(f"{suite}: {before} -> {after}")
    # every comment of the original survives the rewrite
    comments = [ln.split("#", 1)[1] for ln in source.splitlines() if "#" in ln]
    assert all(c in after_text for c in comments)


def test_corpus_counts(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    """The before/after numbers of the whole corpus (quoted in docs/cli.md)."""
    total_before = total_after = 0
    for suite in SUITES:
        name = "test_" + suite
        pytester.path.joinpath(name).write_text((CORPUS / suite).read_text())
        total_before += _count(pytester, name)
        main(["convert", name, "--write", "--reorder"])
        total_after += _count(pytester, name)
    capsys.readouterr()
    print(f"convert corpus: {len(SUITES)} files, {total_before} -> {total_after} items")
    assert len(SUITES) >= 5 and total_after * 3 < total_before


def test_shapes_marks_and_ids_are_kept() -> None:
    source = (CORPUS / "rope_suite.py").read_text()
    new = convert_source(source, "rope.py").new
    assert '@pytest.mark.parametrize("batch_size", [1, 5])' in new  # int sizes stay
    assert 'pytest.param("bfloat16", marks=pytest.mark.skipif(' in new and 'id="bf16"' in new
    gemm = convert_source((CORPUS / "gemm_suite.py").read_text(), "gemm.py")
    assert '@pytest.mark.parametrize("dtype", ["float16", "bfloat16"], ids=["f16", "bf16"])' in gemm.new
    # issue 35: the list with ids= is named as the reason
    assert gemm.skipped == {"test_llmm1": "0 option axes (needs 3); dtype has ids= (kept as parametrize: its ids are its own)"}


def test_options_make_grouped_axes_with_tuple_rows(pytester: pytest.Pytester) -> None:
    source = (CORPUS / "gemm_suite.py").read_text()
    res = convert_source(source, "gemm.py", test="test_wvsplitk", options=["n", "k", "m", "bias_mode", "xnorm"],
                         reorder=True)
    assert res.converted == {"test_wvsplitk": ["n,k,m", "bias_mode", "xnorm"]}
    assert '    {\n        "n,k,m": [(1, 8, 16), (2, 256, 512), (4, 4096, 8192)],\n        "bias_mode"' in res.new
    pytester.path.joinpath("test_g.py").write_text(res.new)
    assert _count(pytester, "test_g.py", "--pairwise-mode=full") == _count_source(pytester, source)


def _count_source(pytester: pytest.Pytester, source: str) -> int:
    pytester.path.joinpath("test_orig.py").write_text(source)
    return _count(pytester, "test_orig.py")


def test_existing_import_is_not_repeated_and_unknown_test_is_an_error() -> None:
    source = (CORPUS / "topk_suite.py").read_text()
    source = source.replace("import pytest\n", "import pytest\n\nfrom pairwise_param import pairwise\n")
    new = convert_source(source, "t.py").new
    assert new.count("from pairwise_param import pairwise") == 1
    with pytest.raises(InvalidArgument, match="no test function 'test_nope'"):
        convert_source(source, "t.py", test="test_nope")


def test_cli_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["convert", str(tmp_path / "missing.py")]) == 2
    assert "file not found" in capsys.readouterr().err
    f = tmp_path / "test_x.py"
    f.write_text("def test_a():\n    pass\n")
    assert main(["convert", str(f)]) == 0
    assert "nothing to convert" in capsys.readouterr().err
    assert main(["convert", f"{f}::test_b"]) == 2
    assert "no test function 'test_b'" in capsys.readouterr().err


def test_default_names_what_reorder_reaches(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 35: an option stacked above a shape stays (the ids are kept); the note says how
    many items --reorder reaches instead (96 items: 48 kept ids, 24 with xnorm in the table)."""
    source = ('import pytest\n\n\n@pytest.mark.parametrize("xnorm", [False, True])\n'
              '@pytest.mark.parametrize("n", [1, 2, 3, 4])\n@pytest.mark.parametrize("dtype", ["f16", "bf16"])\n'
              '@pytest.mark.parametrize("padded", [False, True])\n@pytest.mark.parametrize("bias_mode", [0, 1, 2])\n'
              'def test_k(xnorm, n, dtype, padded, bias_mode):\n    pass\n')
    f = tmp_path / "test_k.py"
    f.write_text(source)
    assert main(["convert", str(f)]) == 0
    err = capsys.readouterr().err
    assert "@pairwise(dtype, padded, bias_mode) (xnorm kept as parametrize: a shape parametrize below " \
           "(--reorder converts them: 24 items for 48; the node ids then change))" in err
    assert main(["convert", str(f), "--reorder"]) == 0
    assert "items for" not in capsys.readouterr().err
