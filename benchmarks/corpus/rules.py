"""The project's rules under measurement, each reached through ONE adapter function.

The scorers (``audit_corpus.py``, ``convert_corpus.py``) call only these functions, so
when the rules move (the tables/runs re-layout) or change their answers (a third
"uncertain" verdict, issues 25 and 26), re-point the import inside the one adapter and
keep its return contract:

* :func:`audit_verdict` -> ``Verdict(kind, reason)``, ``kind`` in ``KINDS``: what
  ``pairwise-param report`` does with a hand-written multi-name ``parametrize`` table
  ("case": one grouped axis, never audited; "option": audited as an option table, a
  missing pair is a finding; "uncertain": shown as such, not failing the gate).
* :func:`convert_split` -> per probed axis ``"option"`` (``convert`` turns it into a
  ``@pairwise`` axis), ``"shape"`` (kept as ``parametrize``) or ``"uncertain"``.

Both import pairwise_param lazily (``--help`` and the corpus tools need no install).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

KINDS = ("case", "option", "uncertain")


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of KINDS
    reason: str


def audit_verdict(argnames: list[str], rows: list[tuple[Any, ...]], ids: bool = False) -> Verdict:
    """The audit's case-table / option-table rule on one table (values are static
    stand-ins, :mod:`benchmarks.corpus.static`); ``ids``: the decorator passes ``ids=``."""
    from pairwise_param.report.classify import classify  # <- re-point here when it moves

    v = classify(argnames, rows, ids=ids)
    kind = getattr(v, "kind", "option")
    if kind not in KINDS:  # a future rule may say more; anything else counts as unsure
        kind = "uncertain"
    return Verdict(kind, str(getattr(v, "reason", "")))


#: Names of the three dummy option axes every probe carries, so that ``convert``
#: (which wants three option axes before it converts a test) decides on the probed
#: axis alone.
_DUMMIES = (
    '@pytest.mark.parametrize("pwprobe_flag", [True, False])',
    '@pytest.mark.parametrize("pwprobe_mode", ["pwprobe_a", "pwprobe_b"])',
    '@pytest.mark.parametrize("pwprobe_kind", [None, "pwprobe_c"])',
)


def probe_name(i: int) -> str:
    return f"test_pwprobe_{i}"


def convert_split(source: str, decorators: list[tuple[str, str]]) -> list[str]:
    """``convert``'s option/shape decision for each ``(argname, decorator source)``.

    Each decorator (its text as written in ``source``, without the ``@``) is copied,
    unchanged, onto a probe test appended to the module, beside three dummy option axes;
    ``convert_source`` runs once on the result, and an axis is "option" when the probe's
    converted axes include it.  The module's own names stay in scope, so a rule that
    reads module constants sees them."""
    from pairwise_param.cli.convert import convert_source  # <- re-point here when it moves

    parts = [source.rstrip("\n"), "", ""]
    for i, (_name, dec) in enumerate(decorators):
        parts.extend(_DUMMIES)
        parts.append("@" + dec)
        parts.append(f"def {probe_name(i)}():\n    pass\n\n")
    conv = convert_source("\n".join(parts), "<probe>")
    out = []
    for i, (name, _dec) in enumerate(decorators):
        axes = conv.converted.get(probe_name(i))
        if axes is None:
            why = conv.skipped.get(probe_name(i), "")
            out.append("uncertain" if "unsure" in why or "--options" in why else "shape")
        else:
            riding = conv.riding.get(probe_name(i), [])  # a one-value axis goes along, as no option
            out.append("option" if any(name in a.split(",") for a in axes if a not in riding) else "shape")
    return out


def decorator_text(source: str, dec: ast.Call) -> str:
    """The decorator call exactly as written (``pytest.mark.parametrize(...)``)."""
    text = ast.get_source_segment(source, dec)
    if text is None:
        raise ValueError(f"no source for the decorator at line {dec.lineno}")
    return text
