"""``pairwise-param convert`` you can trust with a real file (issue 25, items 1-5): atomic
writes, never a module that does not collect, text kept byte for byte, node ids kept in
full mode, int-coded options."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("libcst")

from pairwise_param.cli import main
from pairwise_param.cli.convert import ALIAS, convert_source

CORPUS = Path(__file__).parent / "convert_corpus"
TUTORIAL = Path(__file__).parents[2] / "docs" / "examples" / "tutorial"

OPTIONS3 = textwrap.dedent('''\
    import pytest


    @pytest.mark.parametrize("n", [1, 64])
    @pytest.mark.parametrize("dtype", ["fp16", "bf16"])
    @pytest.mark.parametrize("flag", [True, False])
    @pytest.mark.parametrize("act", ["gelu", "silu", None])
    def test_k(n, dtype, flag, act):
        pass
    ''')


def _ids(path: Path, *args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args, str(path)],
        capture_output=True, text=True, cwd=path.parent, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [ln.split("::", 1)[1] for ln in proc.stdout.splitlines() if "::" in ln]


def _big_file(tests: int = 40) -> str:
    parts = ["import pytest\n\n"]
    for i in range(tests):
        parts.append(textwrap.dedent(f'''\
            @pytest.mark.parametrize("n", [1, 64])
            @pytest.mark.parametrize("dtype", ["fp16", "bf16"])
            @pytest.mark.parametrize("flag", [True, False])
            @pytest.mark.parametrize("act", ["gelu", "silu", None])
            def test_k{i}(n, dtype, flag, act):
                pass


            '''))
    return "".join(parts)


# -- 1. atomic writes ------------------------------------------------------------------------------
def test_a_write_that_fails_midway_leaves_the_file_intact(tmp_path: Path) -> None:
    f = tmp_path / "test_big.py"
    f.write_text(_big_file())
    before = f.read_bytes()
    assert len(before) > 8000
    script = textwrap.dedent(f'''\
        import resource, sys
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        from pairwise_param.cli import main
        sys.exit(main(["convert", "--write", "--no-check", {str(f)!r}]))
        ''')
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "writing the converted file failed" in proc.stderr and "the file is unchanged" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert f.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_big.py"]  # no temporary file left


def test_mode_bits_are_kept_and_an_unwritable_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "test_m.py"
    f.write_text(OPTIONS3)
    f.chmod(0o751)
    assert main(["convert", "--write", "--no-check", str(f)]) == 0
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    assert "@pairwise(" in f.read_text()
    capsys.readouterr()
    g = tmp_path / "test_n.py"
    g.write_text(OPTIONS3)
    g.chmod(0o444)
    import pairwise_param.cli.convert_file as cf

    monkeypatch.setattr(cf.os, "access", lambda p, m: False)  # the tests may run as root
    assert main(["convert", "--write", "--no-check", str(g)]) == 2
    err = capsys.readouterr().err
    assert "is not writable" in err and "unchanged" in err and "Traceback" not in err
    assert g.read_text() == OPTIONS3


def test_a_failing_replace_leaves_the_file_and_no_temporary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "test_r.py"
    f.write_text(OPTIONS3)
    import pairwise_param.cli.convert_file as cf

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cf.os, "replace", refuse)
    assert main(["convert", "--write", "--no-check", str(f)]) == 2
    assert "Permission denied" in capsys.readouterr().err
    assert f.read_text() == OPTIONS3 and [p.name for p in tmp_path.iterdir()] == ["test_r.py"]


def test_a_symlinked_test_file_converts_its_target_and_stays_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38 item 15: --write replaced the link with a converted regular file and left
    the real file unconverted."""
    real = tmp_path / "src" / "test_real.py"
    real.parent.mkdir()
    real.write_text(OPTIONS3)
    link = tmp_path / "test_link.py"
    link.symlink_to(real)
    assert main(["convert", "--write", "--no-check", str(link)]) == 0
    assert link.is_symlink() and "@pairwise(" in real.read_text()
    assert f"wrote {real}" in capsys.readouterr().err


# -- 2. never a module that does not collect -------------------------------------------------------
def test_a_conversion_that_does_not_collect_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "test_c.py"
    f.write_text(OPTIONS3)
    import pairwise_param.cli.convert as conv

    real = conv.convert_source

    def broken(*args: object, **kwargs: object) -> conv.Conversion:
        res = real(*args, **kwargs)  # type: ignore[arg-type]
        res.new_bytes += b"\nimport no_such_module_pairwise_test\n"
        return res

    monkeypatch.setattr(conv, "convert_source", broken)
    assert main(["convert", "--write", str(f)]) == 2
    err = capsys.readouterr().err
    assert "not written: the converted file does not collect" in err and "no_such_module_pairwise_test" in err
    assert f.read_text() == OPTIONS3
    assert [p.name for p in tmp_path.iterdir()] == ["test_c.py"]  # the checked copy is gone


@pytest.mark.parametrize("axis", ["mode", "seed", "strength", "ids", "include", "effort", "constraints"])
def test_an_axis_named_like_a_decorator_option_uses_the_mapping_form(tmp_path: Path, axis: str) -> None:
    f = tmp_path / "test_o.py"
    f.write_text(OPTIONS3.replace("act", axis))
    before = _ids(f)
    assert main(["convert", "--write", str(f)]) == 0
    text = f.read_text()
    # one axis a line with trailing commas (issue 35): what ruff's formatter keeps as it is
    assert (
        '@pairwise(\n    {\n        "dtype": ["fp16", "bf16"],\n        "flag": [True, False],\n'
        f'        "{axis}": ["gelu", "silu", None],\n    }},\n    ids="stacked",\n)\n'
    ) in text
    assert _ids(f, "--pairwise-mode=full") == before
    assert len(_ids(f)) < len(before)


@pytest.mark.parametrize("binding", ["from itertools import pairwise\n", "def pairwise(xs):\n    return xs\n"])
def test_a_bound_pairwise_name_gets_an_alias(tmp_path: Path, binding: str) -> None:
    f = tmp_path / "test_p.py"
    f.write_text(OPTIONS3.replace("import pytest\n", "import pytest\n" + binding, 1))
    before = _ids(f)
    assert main(["convert", "--write", str(f)]) == 0
    text = f.read_text()
    assert f"from pairwise_param import pairwise as {ALIAS}" in text and f"@{ALIAS}(" in text
    assert binding in text  # the user's own pairwise is untouched
    assert _ids(f, "--pairwise-mode=full") == before


def test_an_existing_alias_of_pairwise_is_used() -> None:
    src = OPTIONS3.replace("import pytest\n", "import pytest\nfrom pairwise_param import pairwise as pw\n", 1)
    new = convert_source(src, "t.py").new
    assert "@pw(" in new and new.count("from pairwise_param import") == 1


def test_a_table_with_repeated_values_is_left_with_the_reason() -> None:
    src = OPTIONS3.replace('["gelu", "silu", None]', '["gelu", "silu", "gelu"]')
    res = convert_source(src, "t.py")
    assert res.new == src and not res.converted
    assert "repeat 'gelu'" in res.skipped["test_k"] and "left as parametrize" in res.skipped["test_k"]


# -- 3. text kept: comments, line endings, encoding, tuple argnames --------------------------------
def test_comments_inside_the_parametrize_call_are_kept(tmp_path: Path) -> None:
    src = OPTIONS3.replace(
        '@pytest.mark.parametrize("act", ["gelu", "silu", None])',
        '@pytest.mark.parametrize(\n    "act",  # the activation\n    ["gelu",  # tanh form\n     "silu", None],\n'
        '    # None: no activation\n)',
    )
    res = convert_source(src, "t.py")
    assert res.converted
    for comment in ("# the activation", "# tanh form", "# None: no activation"):
        assert comment in res.new
    f = tmp_path / "test_cm.py"
    f.write_text(src)
    before = _ids(f)
    f.write_text(res.new)
    assert _ids(f, "--pairwise-mode=full") == before


def test_crlf_line_endings_are_kept(tmp_path: Path) -> None:
    f = tmp_path / "test_crlf.py"
    f.write_bytes(OPTIONS3.replace("\n", "\r\n").encode())
    assert main(["convert", "--write", str(f)]) == 0
    data = f.read_bytes()
    assert b"@pairwise(" in data and b"from pairwise_param import pairwise\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_a_latin1_file_with_a_coding_line_stays_latin1(tmp_path: Path) -> None:
    f = tmp_path / "test_l1.py"
    src = "# -*- coding: latin-1 -*-\n" + OPTIONS3.replace('"gelu"', '"gélu"')
    f.write_bytes(src.encode("latin-1"))
    before = _ids(f)
    assert main(["convert", "--write", str(f)]) == 0
    data = f.read_bytes()
    assert '"gélu"'.encode("latin-1") in data and b"@pairwise(" in data
    data.decode("latin-1")  # still latin-1, not re-encoded as UTF-8
    assert "gélu".encode() not in data
    assert _ids(f, "--pairwise-mode=full") == before


def test_a_file_in_no_known_encoding_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "test_bad.py"
    f.write_bytes(b"# -*- coding: no-such-codec -*-\nimport pytest\n")
    assert main(["convert", str(f)]) == 2
    err = capsys.readouterr().err
    assert "cannot decode" in err and "Traceback" not in err


def test_tuple_argnames_of_one_name_pass_the_value_not_a_tuple(tmp_path: Path) -> None:
    src = textwrap.dedent('''\
        import pytest


        @pytest.mark.parametrize(("m",), [(1,), (2,)])
        @pytest.mark.parametrize(["dtype"], [["fp16"], ["bf16"]])
        @pytest.mark.parametrize("flag", [True, False])
        def test_t(m, dtype, flag):
            assert m in (1, 2) and dtype in ("fp16", "bf16")
        ''')
    res = convert_source(src, "t.py", options=["m", "dtype", "flag"])
    assert res.converted == {"test_t": ["m", "dtype", "flag"]}
    assert 'm=[1, 2]' in res.new and 'dtype=["fp16", "bf16"]' in res.new
    f = tmp_path / "test_t.py"
    f.write_text(src)
    before = _ids(f)
    f.write_text(res.new)
    assert _ids(f, "--pairwise-mode=full") == before
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(f)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout


def test_node_ids_in_a_shuffled_collection_order_are_the_original_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38 item 17: under pytest-randomly (collection order shuffled in each of the
    two checking collections) convert said "node ids in another order" for identical
    ids. Simulated here by a conftest that reverses the converted file's collection."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent('''\
        def pytest_collection_modifyitems(items):
            if any("_pwconvert_" in item.nodeid for item in items):
                items.reverse()
        '''))
    f = tmp_path / "test_shuffled.py"
    f.write_text(OPTIONS3)
    assert main(["convert", "--write", str(f)]) == 0
    err = capsys.readouterr().err
    assert "gives the 24 original node ids" in err, err
    assert "another order" not in err and "@pairwise(" in f.read_text()


# -- 4. node ids kept in full mode ------------------------------------------------------------------
@pytest.mark.parametrize("suite", sorted(p.name for p in CORPUS.glob("*_suite.py")))
def test_full_mode_gives_exactly_the_original_node_ids(tmp_path: Path, suite: str) -> None:
    f = tmp_path / f"test_{suite}"
    f.write_text((CORPUS / suite).read_text())
    before = _ids(f)
    res = convert_source(f.read_text(), f.name)
    f.write_text(res.new)
    assert _ids(f, "--pairwise-mode=full") == before  # same ids, same order
    if res.converted:
        assert len(_ids(f)) < len(before)


def test_options_above_a_shape_are_kept_and_reorder_converts_them() -> None:
    src = OPTIONS3.replace('@pytest.mark.parametrize("n", [1, 64])\n', "").replace(
        "def test_k", '@pytest.mark.parametrize("n", [1, 64])\ndef test_k')
    res = convert_source(src, "t.py")
    assert not res.converted and "--reorder converts them" in res.skipped["test_k"]
    moved = convert_source(src, "t.py", reorder=True)
    assert moved.converted == {"test_k": ["dtype", "flag", "act"]} and "reordered" in moved.notes["test_k"]


def test_one_value_marks_below_ride_along() -> None:
    src = OPTIONS3.replace("def test_k(n, dtype, flag, act)", '@pytest.mark.parametrize("seed", [0])\n'
                           "def test_k(n, dtype, flag, act, seed)")
    assert convert_source(src, "t.py").converted == {"test_k": ["dtype", "flag", "act", "seed"]}


# -- 5. int-coded options ---------------------------------------------------------------------------
def test_the_tutorial_converts_int_coded_options(tmp_path: Path) -> None:
    for p in TUTORIAL.glob("*.py"):
        (tmp_path / p.name).write_bytes(p.read_bytes())
    f = tmp_path / "test_before.py"
    before = _ids(f)
    assert len(before) == 108
    res = convert_source(f.read_text(), f.name)
    assert res.converted == {"test_scaled_rows": ["dtype", "padded", "bias_mode", "xnorm"]}
    f.write_text(res.new)
    # 9 rows (dtype x bias_mode alone has 9 pairs: the least any pairwise table can have)
    # x 3 shapes; the tutorial's 24 adds the constraint "fp32 has no bias_mode=2"
    assert len(_ids(f)) == 27
    assert _ids(f, "--pairwise-mode=full") == before


def test_unsure_int_lists_are_named_with_options() -> None:
    src = OPTIONS3.replace('"act", ["gelu", "silu", None]', '"knob", [1, 4, 9]').replace("act)", "knob)")
    res = convert_source(src, "t.py")
    assert not res.converted
    assert re.search(r"knob unsure .*--options", res.skipped["test_k"])
    assert convert_source(src, "t.py", options=["dtype", "flag", "knob"]).converted


def test_module_level_lists_are_read() -> None:
    src = OPTIONS3.replace('["fp16", "bf16"]', "DTYPES").replace("import pytest\n", 'import pytest\n\nDTYPES = ["fp16", "bf16"]\n', 1)
    res = convert_source(src, "t.py")
    assert res.converted == {"test_k": ["dtype", "flag", "act"]} and "dtype=DTYPES" in res.new


def test_no_file_left_behind_by_the_check(tmp_path: Path) -> None:
    f = tmp_path / "test_k.py"
    f.write_text(OPTIONS3)
    assert main(["convert", "--write", str(f)]) == 0
    assert sorted(os.listdir(tmp_path)) == ["test_k.py"]


# -- issue 26, third item: the @PAIRWISE column and convert agree ----------------------------------
AGREE = '''\
import pytest

MODES = [0, 1, 2]


@pytest.mark.parametrize("n", [1, 64])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("bias_mode", MODES)
@pytest.mark.parametrize("xnorm", [True, False])
def test_int_codes(n, dtype, bias_mode, xnorm):
    pass


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("act", ["gelu", "silu"])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_shape_below(dtype, causal, act, head_dim):
    pass


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("knob", [1, 4, 9])
def test_unsure(dtype, causal, knob):
    pass


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("seq_len", [1, 7])
def test_shapes_only(dtype, head_dim, seq_len):
    pass
'''


def test_the_pairwise_column_and_convert_agree(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    pytester.makepyfile(test_agree=AGREE)
    assert main(["report", "--format", "json"]) in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    column = {t["id"].split("::", 1)[1]: t["with_pairwise"] for t in doc["tests"]}
    checked = 0
    for test, w in column.items():
        if w is None:
            res = convert_source(AGREE, "t.py", test=test)
            assert not res.converted, test  # no gain shown: convert converts nothing
            continue
        flags: dict[str, object] = {"reorder": w["convert_reorder"]}
        if w["convert_options"]:
            flags["options"] = w["convert_options"]
            assert not convert_source(AGREE, "t.py", test=test).converted  # the flag IS needed
        elif w["convert_reorder"]:
            assert not convert_source(AGREE, "t.py", test=test).converted
        res = convert_source(AGREE, "t.py", test=test, **flags)  # type: ignore[arg-type]
        assert res.converted == {test: w["axes"]}, (test, w)
        checked += 1
    assert checked == 3 and column["test_shapes_only"] is None
    assert column["test_int_codes"]["axes"] == ["dtype", "bias_mode", "xnorm"]
    assert column["test_shape_below"]["convert_reorder"] is True
    assert column["test_unsure"]["convert_options"] == ["dtype", "causal", "knob"]
