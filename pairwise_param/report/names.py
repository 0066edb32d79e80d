"""The report's axis-name options checked against what was collected, and the "nothing
collected" verdict: the inputs that would otherwise pass the gate saying nothing.

* :func:`check_names`: every name given to ``--option-axes`` or ``--grouped`` must be an
  argument of some collected test (a ``parametrize`` name, an ``@pairwise`` axis or a
  parameter pytest saw); a typo (``layuot``) would silently audit the other names only.
* :func:`nothing_collected`: the message when pytest collected no item at all (a
  folder of files not named ``test_*.py``, a ``-k`` that selects nothing); the CLI exits
  ``NO_TESTS`` (5, pytest's own code for it) instead of passing ``--fail-under``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

from pairwise_param.errors import UnknownAxis

__all__ = ["check_names", "collected_names", "nothing_collected"]


def collected_names(collection: Any) -> set[str]:
    """Every argument name of the collected tests (a :class:`~pairwise_param.report.collect.Collection`)."""
    names: set[str] = set()
    for it in collection.items:
        names.update(it.params)
        for mark in it.static:
            names.update(mark.argnames)
    for marks, specs in collection.marks.values():
        for mark in marks:
            names.update(mark.argnames)
        for spec in specs:
            names.update(getattr(spec, "argnames", ()))
    return names


def _split(specs: Iterable[str]) -> list[str]:
    return [n.strip() for spec in specs for n in spec.split(",") if n.strip()]


def check_names(known: Iterable[str], **options: Sequence[str] | None) -> None:
    """Raise :class:`UnknownAxis` for the first option (keyword: its flag with ``_`` for
    ``-``, ``option_axes=`` for ``--option-axes``) that names no argument in ``known``."""
    pool = sorted(set(known))
    for key, specs in options.items():
        unknown = [n for n in _split(specs or ()) if n not in pool]
        if not unknown:
            continue
        flag = "--" + key.replace("_", "-")
        hints = []
        for n in unknown:
            close = difflib.get_close_matches(n, pool, n=1)
            hints.append(f"{n!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        shown = ", ".join(pool[:12]) + (f", ... ({len(pool)} in all)" if len(pool) > 12 else "")
        raise UnknownAxis(
            f"{flag} names {', '.join(hints)}, which no collected test has as an argument "
            f"(arguments: {shown or 'none'}); fix the name or drop it"
        )


def nothing_collected(paths: Sequence[str], pytest_args: Sequence[str]) -> str:
    """Why an empty collection is an error, and what to check."""
    where = " ".join(paths) or "."
    selected = [a for a in pytest_args if a.split("=", 1)[0] in ("-k", "-m", "--deselect") or a[:2] in ("-k", "-m")]
    hint = (f"the selection ({' '.join(pytest_args)}) matched no test" if selected else
            "pytest collects files named test_*.py or *_test.py (python_files in the configuration)")
    return (f"no tests collected from {where}: {hint}; there is no coverage to report or gate "
            "(exit 5, as pytest's 'no tests ran')")
