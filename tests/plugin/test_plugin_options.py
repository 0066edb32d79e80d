"""Every run-time option is declared once (``modes.RUN_OPTIONS``): pytest's flags, ini keys
and help come from that table, so a choice cannot be missing from the help (issue 34:
``stacked`` was missing from ``--pairwise-ids``), and a bad value names the option and
every choice.  The mode has one validator (``contract.check_mode``)."""

from __future__ import annotations

import re

import pytest

from pairwise_param.contract import MODES, check_mode
from pairwise_param.errors import InvalidArgument
from pairwise_param.plugin import modes
from pairwise_param.tables.build import check_mode as build_check_mode

CHOICE_OPTIONS = [o for o in modes.RUN_OPTIONS if o.choices]


def _flat(text: str) -> str:
    # argparse wraps help with textwrap, which on Python < 3.13 also breaks after a hyphen
    # ("pytest-" / "shard"): a line break after a hyphen is no space
    return " ".join(text.replace("-\n", "-").split()).replace("- ", "-")


@pytest.fixture(scope="module")
def help_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``pytest --help`` of a fresh process (the plugin loaded by its entry point)."""
    import subprocess
    import sys

    where = tmp_path_factory.mktemp("help")
    out = subprocess.run([sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"], cwd=where,
                         capture_output=True, text=True, check=True)
    return out.stdout


def test_the_flags_and_ini_keys_pytest_knows_are_the_table(help_text: str) -> None:
    flags = set(re.findall(r"(--pairwise-[a-z-]+)", help_text))
    assert flags == {o.flag for o in modes.RUN_OPTIONS if o.flag}
    inis = set(re.findall(r"^  (pairwise_\w+) \(", help_text, re.MULTILINE))
    assert inis == {o.ini for o in modes.RUN_OPTIONS if o.ini}


@pytest.mark.parametrize("option", modes.RUN_OPTIONS, ids=lambda o: o.name)
def test_the_help_of_every_flag_is_derived_from_its_entry(help_text: str, option: modes.RunOption) -> None:
    flat = _flat(help_text)
    if option.flag:
        assert _flat(modes.flag_help(option)) in flat
    for value, _meaning in option.choices:
        assert value in modes.describe(option)
    if option.choices:
        assert f"{option.flag}={modes.metavar(option)}" in flat
    if option.ini:
        assert _flat(modes.ini_help(option)) in flat


def test_every_id_style_is_in_the_help(help_text: str) -> None:
    # the drift issue 34 found: `stacked` was a style, but not in --pairwise-ids' help
    from pairwise_param.contract import ID_STYLES

    ids = next(o for o in modes.RUN_OPTIONS if o.name == "ids")
    assert tuple(v for v, _ in ids.choices) == ID_STYLES
    assert "--pairwise-ids=readable|pytest|stacked" in help_text


def test_every_option_is_a_settings_field_with_its_default() -> None:
    fields = set(modes.Settings._fields)
    for option in modes.RUN_OPTIONS:
        assert option.name in fields, option.name
        assert option.dest == "pairwise_" + option.name
        if option.choices:  # the default is the first choice
            assert option.default == option.choices[0][0]
    unset = modes.resolve(environ={})
    assert unset == modes.Settings()


@pytest.mark.parametrize("option", CHOICE_OPTIONS, ids=lambda o: o.name)
def test_a_bad_choice_is_a_usage_error_naming_the_option_and_every_choice(
    pytester: pytest.Pytester, option: modes.RunOption
) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(f"{option.flag}=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"{option.flag}='nope'" in err
    assert "use one of: " + ", ".join(v for v, _ in option.choices) in err
    if option.ini:
        pytester.makeini(f"[pytest]\n{option.ini} = nope\n")
        result = pytester.runpytest()
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert f"{option.ini} (ini)='nope'" in result.stderr.str()


def test_a_switch_flag_and_its_env_and_ini_forms() -> None:
    rotate = next(o for o in modes.RUN_OPTIONS if o.name == "rotate")
    assert rotate.switch
    assert modes.resolve(flags={"rotate": True}, environ={rotate.env: "0"}).rotate is True  # the flag wins
    assert modes.resolve(environ={rotate.env: "off"}, ini={"rotate": "true"}).rotate is False  # env > ini
    assert modes.resolve(environ={}, ini={"rotate": "yes"}).rotate is True
    assert modes.resolve(flags={"no_cache": True}, environ={}).no_cache is True
    with pytest.raises(modes.ModeError, match=r"--pairwise-report='\.' is not a file name"):
        modes.resolve(flags={"report": "."}, environ={})


def test_the_mode_has_one_validator() -> None:
    # @pairwise(mode=), cover(mode=) and --pairwise-mode / PAIRWISE_MODE / pairwise_mode all
    # reach contract.check_mode: the same rule and the same words
    assert [check_mode(m) for m in MODES] == list(MODES)
    assert check_mode(" FULL ", fold=True) == "full"
    with pytest.raises(ValueError, match="is not a pairwise mode; use one of: cover, full") as direct:
        check_mode("Full")  # the decorator's value is exact
    with pytest.raises(InvalidArgument) as built:
        build_check_mode("Full", "t.py::test_x")
    assert str(direct.value) in str(built.value) and "t.py::test_x" in str(built.value)
    with pytest.raises(modes.ModeError) as run:
        modes.resolve(flags={"mode": "fulll"}, environ={})
    assert str(run.value) == "--pairwise-mode='fulll' is not a pairwise mode; use one of: cover, full"
    settings = modes.resolve(environ={"PAIRWISE_MODE": "nope"})
    assert "PAIRWISE_MODE='nope' is not a pairwise mode; use one of: cover, full" in settings.env_error
