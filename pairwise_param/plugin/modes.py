"""Run-time modes: parsing ``--pairwise-mode`` / ``--pairwise-strength`` and
their environment-variable and ini-file forms, and the per-test resolution.

Pure logic, no pytest import: the plugin turns :class:`ModeError` into
``pytest.UsageError``.

Precedence: command-line flag > environment variable (``PAIRWISE_MODE``,
``PAIRWISE_STRENGTH``) > ini option (``pairwise_mode``, ``pairwise_strength``)
> default (``cover``; the strength of the test, else the model's default
``min(2, number of axes)``).  An empty value counts as
unset at every level.  Parsing is strict: anything else than ``cover`` /
``full`` (case-insensitive, surrounding blanks ignored), or a strength that is
not a plain decimal integer >= 1, is an error naming where the value came from.
A bad flag or ini value raises at once; a bad environment value (that no flag
overrides) is kept in :attr:`Settings.env_error` and raised by the plugin only
where a ``@pairwise`` table is expanded.

Two more settings take a flag or an ini value (no environment variable: they
describe the suite, not the run):

* ``--pairwise-empty-axis`` / ``pairwise_empty_axis``: ``skip`` (default) treats
  a table with an empty axis as ``parametrize(..., [])`` does (pytest's
  ``empty_parameter_set_mark`` decides: skip, xfail or fail_at_collect);
  ``error`` makes it a collection error of the test;
* ``--pairwise-ids`` / ``pairwise_ids``: ``readable`` (default,
  ``dtype=bfloat16-padded=True``) or ``pytest`` (the ids ``parametrize`` would
  give each axis on its own: ``bfloat16-True``, ``dtype0``), for dashboards
  keyed on node ids, or ``stacked`` (``contract.ID_STYLES``: the node ids of the
  stacked decorators a converted test came from); a test's ``ids=`` style wins.

Rotation (:mod:`pairwise_param.plugin.rotation`) takes a flag, an environment
variable and an ini value, with the same precedence:

* ``--pairwise-rotate`` / ``PAIRWISE_ROTATE`` / ``pairwise_rotate``: a boolean
  (``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``); each cover table
  is rotated against the history of the tables that ran;
* ``--pairwise-history=PATH`` / ``PAIRWISE_HISTORY`` / ``pairwise_history``: the
  history file (default: in pytest's cache directory).

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

from collections.abc import Callable, Mapping
from typing import NamedTuple, TypeVar

from pairwise_param.contract import ID_STYLES, MODES

T = TypeVar("T")
D = TypeVar("D")

__all__ = [
    "EMPTY_AXIS",
    "ENV_HISTORY",
    "ENV_MODE",
    "ENV_ROTATE",
    "ENV_STRENGTH",
    "ID_STYLES",
    "ModeError",
    "Settings",
    "effective",
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
    """The run-time settings of a session, with where each came from.

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
    #: ``readable`` or ``pytest``: the id style of tests that do not choose one
    ids: str = ID_STYLES[0]
    #: rotate each cover table against the history (:mod:`pairwise_param.plugin.rotation`)
    rotate: bool = False
    #: the history file ("": the default, in pytest's cache directory)
    history: str = ""


def parse_mode(text: str, source: str) -> str:
    """``"cover"`` or ``"full"``; anything else raises :class:`ModeError`."""
    value = text.strip().lower()
    if value not in MODES:
        raise ModeError(f"{source}={text!r} is not a pairwise mode; use one of: {', '.join(MODES)}")
    return value


def parse_choice(text: str, source: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (case-insensitive, blanks ignored); else :class:`ModeError`."""
    value = text.strip().lower()
    if value not in choices:
        raise ModeError(f"{source}={text!r} is not valid; use one of: {', '.join(choices)}")
    return value


def parse_bool(text: str, source: str) -> bool:
    """``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case)."""
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ModeError(f"{source}={text!r} is not a boolean; use one of: {', '.join(_TRUE + _FALSE)}")


def parse_strength(text: str, source: str) -> int:
    """A decimal integer >= 1; anything else raises :class:`ModeError`."""
    value = text.strip()
    if not value.isdecimal() or not value.isascii():
        raise ModeError(f"{source}={text!r} is not a strength; use an integer >= 1, e.g. 2 or 3")
    n = int(value)
    if n < 1:
        raise ModeError(f"{source}={text!r} is out of range; the strength must be >= 1")
    return n


def _pick(
    flag: str | None, env: str | None, ini: str | None, names: tuple[str, str, str]
) -> tuple[str, str] | None:
    for value, name in zip((flag, env, ini), names):
        if value is not None and str(value).strip() != "":
            return str(value), name
    return None


def _parsed(
    got: tuple[str, str] | None,
    parse: Callable[[str, str], T],
    env_name: str,
    env_errors: list[str],
    default: D,
) -> tuple[T | D, str]:
    """(value, source) of one setting.  A bad flag or ini value raises at once; a bad
    environment value is collected in ``env_errors`` (it only matters where a table is
    expanded) and the default is used meanwhile."""
    if got is None:
        return default, "default"
    try:
        return parse(got[0], got[1]), got[1]
    except ModeError as exc:
        if got[1] != env_name:
            raise
        env_errors.append(str(exc))
        return default, "default"


def resolve(
    *,
    flag_mode: str | None = None,
    flag_strength: str | None = None,
    environ: Mapping[str, str] | None = None,
    ini_mode: str | None = None,
    ini_strength: str | None = None,
    flag_empty_axis: str | None = None,
    ini_empty_axis: str | None = None,
    flag_ids: str | None = None,
    ini_ids: str | None = None,
    flag_rotate: bool | None = None,
    ini_rotate: str | None = None,
    flag_history: str | None = None,
    ini_history: str | None = None,
) -> Settings:
    """Combine the three sources (flag > env > ini) into :class:`Settings`."""
    env = environ if environ is not None else {}
    env_errors: list[str] = []
    mode, mode_source = _parsed(
        _pick(flag_mode, env.get(ENV_MODE), ini_mode, ("--pairwise-mode", ENV_MODE, "pairwise_mode (ini)")),
        parse_mode, ENV_MODE, env_errors, MODES[0],
    )
    strength, strength_source = _parsed(
        _pick(
            flag_strength,
            env.get(ENV_STRENGTH),
            ini_strength,
            ("--pairwise-strength", ENV_STRENGTH, "pairwise_strength (ini)"),
        ),
        parse_strength, ENV_STRENGTH, env_errors, None,
    )
    choices = []
    for flag, ini, opt, allowed in (
        (flag_empty_axis, ini_empty_axis, "empty_axis", EMPTY_AXIS),
        (flag_ids, ini_ids, "ids", ID_STYLES),
    ):
        got = _pick(flag, None, ini, (f"--pairwise-{opt.replace('_', '-')}", "", f"pairwise_{opt} (ini)"))
        choices.append(allowed[0] if got is None else parse_choice(got[0], got[1], allowed))
    rotate, _ = _parsed(
        _pick("1" if flag_rotate else None, env.get(ENV_ROTATE), ini_rotate,
              ("--pairwise-rotate", ENV_ROTATE, "pairwise_rotate (ini)")),
        parse_bool, ENV_ROTATE, env_errors, False,
    )
    got = _pick(flag_history, env.get(ENV_HISTORY), ini_history,
                ("--pairwise-history", ENV_HISTORY, "pairwise_history (ini)"))
    history = "" if got is None else got[0].strip()
    env_error = ""
    if env_errors:
        env_error = f"environment variable {'; '.join(env_errors)} (unset it, or override it with the flag)"
    return Settings(
        mode, strength, mode_source, strength_source, env_error, choices[0], choices[1], bool(rotate), history
    )


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
