"""Run-time options, declared once: :data:`RUN_OPTIONS` (flag, environment
variable, ini key, choices, parser, help) and their resolution into
:class:`Settings`.

Pure logic, no pytest import: :mod:`pairwise_param.plugin.hooks` loops over
:data:`RUN_OPTIONS` to register every flag (:func:`flag_help`) and ini key
(:func:`ini_help`), hands :func:`resolve` what pytest read, and turns
:class:`ModeError` into ``pytest.UsageError``.  Adding a run-time option is one
:class:`RunOption` here and one field of :class:`Settings` (its default is the
option's default); the help texts, the metavar and the error messages are
derived from the entry, so a choice cannot be missing from the help
(``tests/plugin/test_plugin_options.py``).

Precedence: command-line flag > environment variable > ini option > default;
an empty value counts as unset at every level.  Parsing is strict (a choice is
matched case-insensitively, surrounding blanks ignored; a strength is a plain
decimal integer >= 1); an error names where the value came from and the
choices.  A bad flag or ini value raises at once; a bad environment value (that
no flag overrides) is kept in :attr:`Settings.env_error` and raised by the
plugin only where a ``@pairwise`` table is expanded (the environment is shared
by every pytest run, most of which use no table).

The mode is checked by :func:`pairwise_param.contract.check_mode`, the one mode
validator (the decorator's ``mode=`` reaches it too).

The options (the entries of :data:`RUN_OPTIONS`, in ``pytest --help`` order):

* ``--pairwise-mode`` / ``PAIRWISE_MODE`` / ``pairwise_mode``: ``cover`` or ``full``;
* ``--pairwise-strength`` / ``PAIRWISE_STRENGTH`` / ``pairwise_strength``: t;
* ``--pairwise-no-cache``: no table cache on disk;
* ``--pairwise-report=FILE``: the run file;
* ``--pairwise-empty-axis`` / ``pairwise_empty_axis``: ``skip`` (default) treats
  a table with an empty axis as ``parametrize(..., [])`` does (pytest's
  ``empty_parameter_set_mark`` decides: skip, xfail or fail_at_collect);
  ``error`` makes it a collection error of the test;
* ``--pairwise-ids`` / ``pairwise_ids``: an id style of
  :data:`~pairwise_param.contract.ID_STYLES` (a test's ``ids=`` style wins);
* ``--pairwise-extra-rows=FILE``: the follow-up rows of ``pairwise-param localize``;
* ``--pairwise-rotate`` / ``PAIRWISE_ROTATE`` / ``pairwise_rotate``: a boolean; each
  cover table is rotated against the history of the tables that ran
  (:mod:`pairwise_param.plugin.rotation`);
* ``--pairwise-history=PATH`` / ``PAIRWISE_HISTORY`` / ``pairwise_history``: the
  history file (default: in pytest's cache directory);
* ``pairwise_full_when`` (ini only): the project's own switches of full mode, its flags
  (``--full``, registered by its conftest) and environment variables
  (``env:SGLANG_JIT_KERNEL_RUN_FULL_TESTS``); the first that is on sets the mode to
  ``full``, below ``--pairwise-mode`` and ``PAIRWISE_MODE`` and above ``pairwise_mode``
  (:func:`_full_when`; :func:`mode_why` says why for the summary line);
* ``--pairwise-replay=RUNFILE``: the rows of a past run;
* ``--pairwise-shard=I/N`` / ``PAIRWISE_SHARD``: this run is shard I of N (1-based), for
  the run file (:mod:`pairwise_param.runs.where`);
* ``--pairwise-mirror=K/N`` / ``PAIRWISE_MIRROR``: this run is mirror job K of N, which
  runs its own complete tables (:mod:`pairwise_param.tables.mirror`).

Per test (see :func:`effective`): settings on the decorator are floors, the
run-time settings can only make a test more thorough, never less:

* mode: ``full`` if either the test or the run asks for ``full``;
* strength: the run-time strength replaces the default (``min(2, number of
  axes)``) of tests that do not set ``strength=``; a test that sets it keeps ``max(its own, run-time)``;
  a run-time strength above a test's number of axes is clamped to it (t = the
  number of axes is the full product minus forbidden rows): one flag must be
  usable across tests of different sizes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pairwise_param.contract import ID_STYLES, MODES, check_mode

__all__ = [
    "ENV_MODE",
    "ENV_STRENGTH",
    "ID_STYLES",
    "RUN_OPTIONS",
    "ModeError",
    "RunOption",
    "Settings",
    "describe",
    "effective",
    "flag_help",
    "ini_help",
    "metavar",
    "mode_why",
    "resolve",
]

#: what a table with an empty axis does (the first is the default)
EMPTY_AXIS = ("skip", "error")
ENV_MODE = "PAIRWISE_MODE"
ENV_STRENGTH = "PAIRWISE_STRENGTH"
ENV_ROTATE = "PAIRWISE_ROTATE"
ENV_HISTORY = "PAIRWISE_HISTORY"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class ModeError(ValueError):
    """A run-time option has a bad value (the plugin reports a usage error)."""


class Settings(NamedTuple):
    """The run-time settings of a session, with where the mode and strength came from.
    Each field named by a :class:`RunOption` holds that option's value; its default
    here is the option's default.

    A ``NamedTuple`` (immutable, like a frozen dataclass): pytest imports this
    module in every run, and a frozen dataclass costs about a millisecond to
    define (it compiles its methods)."""

    mode: str = MODES[0]
    strength: int | None = None  # None: each test's own (else the model's default)
    mode_source: str = "default"
    strength_source: str = "default"
    #: A bad environment value, reported where a table is expanded (not at
    #: start-up): the environment is shared by every pytest run, most of which
    #: use no ``@pairwise`` table, so it must not break them (``pytest --help``
    #: included).  Flags and ini values are the run's own: they fail fast.
    env_error: str = ""
    #: ``skip`` (as ``parametrize(..., [])``) or ``error``: a table with an empty axis
    empty_axis: str = EMPTY_AXIS[0]
    #: one of ``ID_STYLES``: the id style of tests that do not choose one
    ids: str = ID_STYLES[0]
    #: rotate each cover table against the history (:mod:`pairwise_param.plugin.rotation`)
    rotate: bool = False
    #: the history file ("": the default, in pytest's cache directory)
    history: str = ""
    #: do not read or write tables in pytest's cache directory
    no_cache: bool = False
    #: ``--pairwise-report``: the run file to write (None: none)
    report: str | None = None
    #: ``--pairwise-extra-rows``: localize's follow-up requests (None: a normal run)
    extra_rows: str | None = None
    #: ``--pairwise-replay``: a run file, or ``last`` (None: no replay)
    replay: str | None = None
    #: ``--pairwise-shard`` / ``PAIRWISE_SHARD``: ``I/N``, this run is shard I of N (None: the
    #: splitters' options or the CI's variables say, if anything: ``runs/where.py``)
    shard: str | None = None
    #: ``--pairwise-mirror`` / ``PAIRWISE_MIRROR``: ``K/N``, this run is mirror job K of N
    #: (different complete tables per job: :mod:`pairwise_param.tables.mirror`; None: not one)
    mirror: str | None = None
    #: ``pairwise_full_when``: the project's own switches of full mode (``--full``,
    #: ``env:SGLANG_JIT_KERNEL_RUN_FULL_TESTS``), as written
    full_when: tuple[str, ...] = ()


# -- parsers: (text, source) -> value; a bad value raises ModeError naming source --------
def _parse_mode(text: str, source: str) -> str:
    try:
        return check_mode(text, source, fold=True)
    except ValueError as exc:
        raise ModeError(str(exc)) from None


def _choice(choices: tuple[str, ...]) -> Callable[[str, str], str]:
    def parse(text: str, source: str) -> str:
        value = text.strip().lower()
        if value not in choices:
            raise ModeError(f"{source}={text!r} is not valid; use one of: {', '.join(choices)}")
        return value

    return parse


def _parse_bool(text: str, source: str) -> bool:
    """``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case)."""
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ModeError(f"{source}={text!r} is not a boolean; use one of: {', '.join(_TRUE + _FALSE)}")


def _parse_strength(text: str, source: str) -> int:
    """A decimal integer >= 1; anything else raises :class:`ModeError`."""
    value = text.strip()
    if not value.isdecimal() or not value.isascii():
        raise ModeError(f"{source}={text!r} is not a strength; use an integer >= 1, e.g. 2 or 3")
    n = int(value)
    if n < 1:
        raise ModeError(f"{source}={text!r} is out of range; the strength must be >= 1")
    return n


def _parse_text(text: str, source: str) -> str:
    return text.strip()


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _parse_full_when(text: str, source: str) -> tuple[str, ...]:
    """Blank-separated switches, each ``--FLAG`` (or ``-F``) or ``env:VAR``."""
    switches = tuple(text.split())
    for switch in switches:
        if switch.startswith("env:") and _ENV_NAME.fullmatch(switch[4:]):
            continue
        if switch.startswith("-") and len(switch) > 1 and "=" not in switch:
            continue
        raise ModeError(
            f"{source}={text!r}: {switch!r} is neither a flag (--full) nor an environment variable "
            "(env:SGLANG_JIT_KERNEL_RUN_FULL_TESTS); list the project's own switches of full mode"
        )
    return switches


def _checked_by(name: str, what: str) -> Callable[[str, str], str]:
    """A parser of ``what`` (``I/N``: a shard, ``K/N``: a mirror job) whose value
    :mod:`pairwise_param.runs.where`'s ``name`` checks (one rule for the option and the CI)."""

    def parse(text: str, source: str) -> str:
        from pairwise_param.errors import PairwiseError
        from pairwise_param.runs import where

        try:
            getattr(where, name)(text.strip(), source)
        except PairwiseError as exc:
            raise ModeError(exc.detail) from None
        return text.strip()

    parse.__doc__ = f"{what} (1-based), checked by :func:`pairwise_param.runs.where.{name}`."
    return parse


_parse_mirror = _checked_by("parse_mirror", "``K/N``")
_parse_shard = _checked_by("parse_shard", "``I/N``")


def _parse_file(text: str, source: str) -> str:
    """A file to write: a name that is not blank and not a directory."""
    from pathlib import Path

    if not text.strip() or Path(text).is_dir():
        raise ModeError(f"{source}={text!r} is not a file name")
    return text


class RunOption(NamedTuple):
    """One run-time option, declared once (see the module docstring)."""

    #: the :class:`Settings` field; the flag's ``dest`` is ``pairwise_<name>``
    name: str
    #: the command-line flag ("" : none)
    flag: str
    #: what the option means (the help's first sentence)
    help: str
    #: (value, meaning) of each choice, the default's first; the help and the
    #: metavar list them, so a choice cannot be left out of ``--help``
    choices: tuple[tuple[str, str], ...] = ()
    #: the environment variable ("" : none)
    env: str = ""
    #: the ini key ("" : none)
    ini: str = ""
    #: (text, source) -> value; a bad value raises :class:`ModeError` (None: one of
    #: the choices, else the text with its surrounding blanks removed)
    parse: Callable[[str, str], Any] | None = None
    #: the flag's argument in ``--help`` (a choice list when there are choices)
    metavar: str = ""
    #: a flag without argument (``store_true``)
    switch: bool = False
    #: how pytest reads the ini key: ``""`` text, ``"int"`` an integer (a native TOML
    #: ``3``) as well as text, ``"args"`` blank-separated words (or a TOML list)
    ini_type: str = ""

    @property
    def dest(self) -> str:
        return "pairwise_" + self.name

    @property
    def default(self) -> Any:
        return Settings._field_defaults[self.name]


_ID_MEANINGS = {
    "readable": "dtype=bfloat16-padded=True",
    "pytest": "the ids parametrize gives each axis: bfloat16-True, dtype0",
    "stacked": "the node ids of the stacked parametrize decorators a test was converted from",
    "product-index": "case-{index in the full product}: flashinfer's parametrize_product ids",
}

#: Every run-time option, declared once (the module docstring lists them).
RUN_OPTIONS: tuple[RunOption, ...] = (
    RunOption(
        "mode", "--pairwise-mode", "which rows each @pairwise test runs.",
        choices=(
            (MODES[0], "the covering table"),
            (MODES[1], "the full product of the same axes minus the rows a constraint forbids"),
        ),
        env=ENV_MODE, ini="pairwise_mode", parse=_parse_mode,
    ),
    RunOption(
        "strength", "--pairwise-strength",
        "strength t of every table (an integer >= 1; a test's own strength= is a floor; clamped to "
        "the test's number of axes).",
        env=ENV_STRENGTH, ini="pairwise_strength", parse=_parse_strength, metavar="N", ini_type="int",
    ),
    RunOption(
        "no_cache", "--pairwise-no-cache", "do not read or write covering tables in pytest's cache directory.",
        parse=_parse_bool, switch=True,
    ),
    RunOption(
        "report", "--pairwise-report",
        "write what the @pairwise rows did (executed coverage, lost tuples, suspicious combinations of "
        "failures) to FILE as JSON (schema: pairwise_param/runs/run.schema.json); also kept in pytest's "
        "cache for `pairwise-param localize` and `pairwise-param report --run`.",
        parse=_parse_file, metavar="FILE",
    ),
    RunOption(
        "empty_axis", "--pairwise-empty-axis", "what a table with an empty axis does.",
        choices=(
            (EMPTY_AXIS[0], "as parametrize(..., []) does, following empty_parameter_set_mark"),
            (EMPTY_AXIS[1], "a collection error"),
        ),
        ini="pairwise_empty_axis",
    ),
    RunOption(
        "ids", "--pairwise-ids", "the test id style of tests that do not set ids=.",
        choices=tuple((style, _ID_MEANINGS[style]) for style in ID_STYLES),
        ini="pairwise_ids",
    ),
    RunOption(
        "extra_rows", "--pairwise-extra-rows",
        "run only the follow-up rows FILE asks for (written by `pairwise-param localize`); every other "
        "item is deselected.",
        metavar="FILE",
    ),
    RunOption(
        "rotate", "--pairwise-rotate",
        "rotate each cover table: still every t-tuple, at most 1.1x the rows, chosen to cover the (t+1)- "
        "and (t+2)-tuples the earlier runs in the history did not (a boolean in the environment and ini).",
        env=ENV_ROTATE, ini="pairwise_rotate", parse=_parse_bool, switch=True,
    ),
    RunOption(
        "history", "--pairwise-history",
        "the history of the tables that ran, read and written by --pairwise-rotate (default: in pytest's "
        "cache directory; CI keeps PATH as an artifact).",
        env=ENV_HISTORY, ini="pairwise_history", metavar="PATH",
    ),
    RunOption(
        "full_when", "",
        "the project's own switches of full mode, blank-separated: --FLAG (a flag its conftest registers, "
        "e.g. --full) or env:VAR (e.g. env:SGLANG_JIT_KERNEL_RUN_FULL_TESTS, true when 1/true/yes/on); "
        "one that is on runs full mode, unless --pairwise-mode or PAIRWISE_MODE says otherwise (it wins "
        "over pairwise_mode).",
        ini="pairwise_full_when", parse=_parse_full_when, ini_type="args",
    ),
    RunOption(
        "replay", "--pairwise-replay",
        "run exactly the rows each table ran in a past run: RUNFILE is a --pairwise-report file, or "
        "'last' (the last run, from pytest's cache).",
        metavar="RUNFILE",
    ),
    RunOption(
        "shard", "--pairwise-shard",
        "this run is shard I of N (1-based), recorded in the run file so that `pairwise-param report --run` "
        "merges the shards; only where no splitter (pytest-shard, pytest-split) or CI variable says it.",
        env="PAIRWISE_SHARD", parse=_parse_shard, metavar="I/N",
    ),
    RunOption(
        "mirror", "--pairwise-mirror",
        "this run is mirror job K of N (1-based): jobs that each run the whole suite (another platform or "
        "card) take different complete tables, job 1 the fixed one and job K the table that covers most of "
        "the (t+1)-tuples jobs 1..K-1 did not, so their union (`pairwise-param report --run`) covers more; "
        "not with --pairwise-rotate or --pairwise-replay.",
        env="PAIRWISE_MIRROR", parse=_parse_mirror, metavar="K/N",
    ),
)


def describe(option: RunOption) -> str:
    """What the option means, with every choice and which is the default (the help
    of its flag and its ini key, and the docs' table, all start with this)."""
    if not option.choices:
        return option.help
    parts = [
        f"{value} ({'default; ' if value == option.default else ''}{meaning})" for value, meaning in option.choices
    ]
    return option.help + " One of: " + "; ".join(parts) + "."


def flag_help(option: RunOption) -> str:
    """The ``--help`` text of the option's flag: meaning, choices, its other forms."""
    also = [f"Env: {option.env}"] if option.env else []
    if option.ini:
        also.append(f"ini: {option.ini}")
    return describe(option) + (" " + "; ".join(also) + "." if also else "")


def ini_help(option: RunOption) -> str:
    """The help of the option's ini key (``pytest --help``'s ini section)."""
    flag = f" (flag: {option.flag})" if option.flag else ""
    return f"pairwise-param: {describe(option)}{flag}"


def metavar(option: RunOption) -> str:
    return "|".join(value for value, _ in option.choices) if option.choices else option.metavar


def _pick(option: RunOption, flag: Any, env: str | None, ini: str | None) -> tuple[str, str] | None:
    """(text, source) of the first level that sets the option."""
    if option.switch and flag is not None:
        flag = "1" if flag else None
    names = (option.flag, option.env, f"{option.ini} (ini)")
    for value, name in zip((flag, env, ini), names):
        if value is not None and str(value).strip() != "":
            return str(value), name
    return None


def resolve(
    *,
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    ini: Mapping[str, str | None] | None = None,
    option_value: Callable[[str], Any] | None = None,
) -> Settings:
    """Combine the three sources (flag > env > ini) into :class:`Settings`.

    ``flags`` and ``ini`` map an option's name (``"mode"``) to what pytest read
    (``None`` or ``""``: unset); ``environ`` is the process environment;
    ``option_value("--full")`` reads a flag of the run (``config.getoption``), for
    ``pairwise_full_when`` (see :func:`_full_when`)."""
    flags = flags or {}
    env = environ if environ is not None else {}
    ini = ini or {}
    env_errors: list[str] = []
    values: dict[str, Any] = {}
    for option in RUN_OPTIONS:
        got = _pick(
            option,
            flags.get(option.name) if option.flag else None,
            env.get(option.env) if option.env else None,
            ini.get(option.name) if option.ini else None,
        )
        if got is None:
            continue
        parse = option.parse or (_choice(tuple(v for v, _ in option.choices)) if option.choices else _parse_text)
        try:
            values[option.name] = parse(*got)
        except ModeError as exc:
            if got[1] != option.env:
                raise
            env_errors.append(str(exc))  # the default meanwhile
            continue
        if option.name in ("mode", "strength"):
            values[option.name + "_source"] = got[1]
    deferred = [f"environment variable {'; '.join(env_errors)} (unset it, or override it with the flag)"
                ] if env_errors else []
    if values.get("full_when") and values.get("mode_source", "default") in ("default", "pairwise_mode (ini)"):
        try:
            why = _full_when(values["full_when"], env, option_value)
        except ModeError as exc:
            deferred.append(str(exc))
        else:
            if why:
                values["mode"], values["mode_source"] = MODES[1], f"pairwise_full_when: {why}"
    if deferred:
        values["env_error"] = "; ".join(deferred)
    return Settings(**values)


def _full_when(switches: tuple[str, ...], environ: Mapping[str, str],
               option_value: Callable[[str], Any] | None) -> str:
    """Which of the project's switches is on, as the summary shows it (``--full``, ``env
    SGLANG_JIT_KERNEL_RUN_FULL_TESTS=1``), or ``""``.  A variable set to anything but a
    boolean, or a flag no plugin or conftest of the run registers, raises
    :class:`ModeError`: a misspelt switch must not quietly run the small table.  Like a
    bad environment value, it is raised only where a table is expanded."""
    where = "pairwise_full_when (ini)"
    for switch in switches:
        if switch.startswith("env:"):
            name = switch[4:]
            raw = environ.get(name, "")
            if raw.strip().lower() in _TRUE:
                return f"env {name}={raw.strip()}"
            if raw.strip() and raw.strip().lower() not in _FALSE:
                raise ModeError(f"{where}: env {name}={raw!r} is not a boolean; use one of: "
                                f"{', '.join(_TRUE + _FALSE)}")
            continue
        if option_value is None:
            continue
        try:
            value = option_value(switch)
        except (ValueError, KeyError, AttributeError):
            raise ModeError(
                f"{where}: {switch} is not an option of this pytest run (no plugin or conftest registers "
                "it); register it in a conftest's pytest_addoption, or drop it from pairwise_full_when"
            ) from None
        if isinstance(value, str):
            on = value.strip() != "" and value.strip().lower() not in _FALSE
        else:
            on = value is not None and value is not False and value != 0
        if on:
            return switch if value is True else f"{switch}={value}"
    return ""


def mode_why(settings: Settings) -> str:
    """Why the run has its mode, for the summary line (``""``: the default, with no
    switch of the project's configured): the flag, variable or ini key that set it,
    ``pairwise_full_when: env SGLANG_JIT_KERNEL_RUN_FULL_TESTS=1``, or which switches
    were all off."""
    source = settings.mode_source
    if not settings.full_when or source not in ("default", "pairwise_mode (ini)"):
        return "" if source == "default" else source  # the flag, PAIRWISE_MODE or a switch that is on
    off = f"pairwise_full_when: none on of {', '.join(settings.full_when)}"
    return off if source == "default" else f"{source}; {off}"


def effective(
    settings: Settings, test_mode: str | None, test_strength: int | None, n_axes: int
) -> tuple[str, int | None]:
    """The (mode, strength) one test runs with.

    ``strength`` is ``None`` when neither the test nor the run sets one (the
    model's default applies).  A test's explicit strength is returned
    unclamped, so an out-of-range one is still reported as the test's error.
    """
    mode = max(settings.mode, test_mode or MODES[0], key=MODES.index)  # the later of the two modes wins
    run = settings.strength
    if run is not None:
        run = min(run, n_axes)
    if test_strength is None:
        strength = run
    elif run is None:
        strength = test_strength
    else:
        strength = max(test_strength, run)
    return mode, strength
