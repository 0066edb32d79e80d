"""The engine benchmark's model set, with best-known sizes and stored peer numbers.

``MODELS`` are the 26 models of the geometric mean "rows / best known"
(issue 14's targets: quick <= 1.06, effort 1 <= 1.03): the 17 anchors
configurations with a known size (``/work/shared/anchors/measure.py``'s
``KNOWN`` table, the constrained one has none), the issue's gap classes
(5^20, 2^12 at t=4) and seven small orthogonal-array / exactly solved cases
that a good engine must hit exactly.  ``EXTRA`` are reported but left out of
the mean: their best-known size is not pinned down here (6^10, 7^10) or
they are speed probes (3^1000).

Best-known sources: "exact" = a lower bound is met (LB = product of the t
largest sizes, or a proven optimum); "Colbourn" = C. J. Colbourn's covering
array tables (https://www.public.asu.edu/~ccolbou/src/tabby/catable.html) as
quoted by the anchors harness or issue 14; "SA" = simulated-annealing results
quoted by the anchors harness (marked unsure there: lower sizes may exist).

``PICT_STORED`` are PICT 3.7.4's rows and seconds from the anchors baseline
(/work/shared/anchors/baseline.md, 2026-11-29, same 2-core sandbox; 3^1000
from issue 14); they are printed when no ``PICT_BIN`` is given, marked
"(stored)": times from another run are not comparable to ours to better
than a few tens of percent.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EXTRA", "ISSUE23_MODELS", "MODELS", "PICT_STORED", "SETS", "BenchModel"]


@dataclass(frozen=True)
class BenchModel:
    label: str
    sizes: tuple[int, ...]
    strength: int
    best: int | None
    source: str
    standard: bool = False  #: one of the 18 anchors configurations (quick <= 1 s target)
    quick_only: bool = False  #: a speed probe: the effort column is skipped


def _m(
    label: str, spec: list[tuple[int, int]], t: int, best: int | None, source: str, std: bool = False, probe: bool = False
) -> BenchModel:
    sizes: list[int] = []
    for v, k in spec:
        sizes += [v] * k
    return BenchModel(label, tuple(sizes), t, best, source, std, probe)


MODELS: list[BenchModel] = [
    _m("3^4", [(3, 4)], 2, 9, "exact: OA(9,4,3,2)", True),
    _m("3^13", [(3, 13)], 2, 15, "Colbourn (Nurmela, tabu)", True),
    _m("2^10", [(2, 10)], 2, 6, "exact: Katona / Kleitman-Spencer", True),
    _m("2^100", [(2, 100)], 2, 10, "exact: Katona / Kleitman-Spencer", True),
    _m("4^15 3^17 2^29", [(4, 15), (3, 17), (2, 29)], 2, 28, "SA, verified 28 (covertable write-up); unsure", True),
    _m("4^1 3^39 2^35", [(4, 1), (3, 39), (2, 35)], 2, 20, "SA, verified 20 (covertable write-up); unsure", True),
    _m("5^1 3^8 2^2", [(5, 1), (3, 8), (2, 2)], 2, 15, "exact: = LB", True),
    _m("6^1 5^1 4^6 3^8 2^3", [(6, 1), (5, 1), (4, 6), (3, 8), (2, 3)], 2, 30, "exact: = LB", True),
    _m("10^20", [(10, 20)], 2, 155, "Colbourn: 'fix 3 symbols'", True),
    _m("3^100", [(3, 100)], 2, 22, "Colbourn: CA extender (Torres-Jimenez et al.)", True),
    _m("4^100", [(4, 100)], 2, 39, "Colbourn: SA (Torres-Jimenez)", True),
    _m("3^6 t=3", [(3, 6)], 3, 33, "Colbourn: Chateauneuf-Kreher", True),
    _m("4^6 t=3", [(4, 6)], 3, 64, "exact: OA(64,6,4,3)", True),
    _m("5^7 t=3", [(5, 7)], 3, 170, "Colbourn: Torres-Jimenez", True),
    _m("2^20 t=3", [(2, 20)], 3, 18, "Colbourn: Chateauneuf-Kreher doubling", True),
    _m("kernel-a 2.2.3.2", [(2, 2), (3, 1), (2, 1)], 2, 6, "exact: = LB", True),
    _m("kernel-b 3.2^5", [(3, 1), (2, 5)], 2, 7, "exact (anchors: 6 impossible)", True),
    _m("5^20", [(5, 20)], 2, 40, "Colbourn, as quoted in issue 14: cover starter"),
    _m("2^12 t=4", [(2, 12)], 4, 24, "Colbourn, as quoted in issue 14"),
    _m("3^5", [(3, 5)], 2, 11, "exact: CAN(2,5,3) = 11"),
    _m("4^5", [(4, 5)], 2, 16, "exact: OA(16,5,4,2)"),
    _m("5^6", [(5, 6)], 2, 25, "exact: OA(25,6,5,2)"),
    _m("7^8", [(7, 8)], 2, 49, "exact: OA(49,8,7,2)"),
    _m("2^4 t=3", [(2, 4)], 3, 8, "exact: OA(8,4,2,3)"),
    _m("3^4 t=3", [(3, 4)], 3, 27, "exact: OA(27,4,3,3)"),
    _m("2^11 t=3", [(2, 11)], 3, 12, "exact: CAN(3,k,2) = 12 for 6 <= k <= 11 (Paley / PB12)"),
]

EXTRA: list[BenchModel] = [
    _m("6^10", [(6, 10)], 2, None, "not pinned down here"),
    _m("7^10", [(7, 10)], 2, None, "not pinned down here"),
    _m("3^1000", [(3, 1000)], 2, None, "speed probe", probe=True),
]

#: Issue 23's 26-model set, each best-known size as the issue states it (its
#: side-by-side of PICT, jenny, allpairspy, covertable, coverwise, CASA and
#: FastCA; targets: geomean quick <= 1.05, effort 1 <= 1.03).  Eleven labels
#: are in ``MODELS`` too, with the same best-known sizes.
ISSUE23_MODELS: list[BenchModel] = [
    _m("3^13", [(3, 13)], 2, 15, "issue 23"),
    _m("2^100", [(2, 100)], 2, 10, "issue 23"),
    _m("3^100", [(3, 100)], 2, 22, "issue 23"),
    _m("4^100", [(4, 100)], 2, 39, "issue 23"),
    _m("10^20", [(10, 20)], 2, 155, "issue 23"),
    _m("4^15 3^17 2^29", [(4, 15), (3, 17), (2, 29)], 2, 28, "issue 23"),
    _m("4^1 3^39 2^35", [(4, 1), (3, 39), (2, 35)], 2, 20, "issue 23"),
    _m("5^1 3^8 2^2", [(5, 1), (3, 8), (2, 2)], 2, 15, "issue 23"),
    _m("6^1 5^1 4^6 3^8 2^3", [(6, 1), (5, 1), (4, 6), (3, 8), (2, 3)], 2, 30, "issue 23"),
    _m("5^10", [(5, 10)], 2, 36, "issue 23"),
    _m("6^10", [(6, 10)], 2, 48, "issue 23"),
    _m("7^10", [(7, 10)], 2, 61, "issue 23"),
    _m("8^10", [(8, 10)], 2, 76, "issue 23"),
    _m("10^10", [(10, 10)], 2, 115, "issue 23"),
    _m("3^50", [(3, 50)], 2, 20, "issue 23"),
    _m("5^20", [(5, 20)], 2, 40, "issue 23"),
    _m("3^6 t=3", [(3, 6)], 3, 33, "issue 23"),
    _m("4^6 t=3", [(4, 6)], 3, 64, "issue 23"),
    _m("5^7 t=3", [(5, 7)], 3, 170, "issue 23"),
    _m("3^10 t=3", [(3, 10)], 3, 45, "issue 23"),
    _m("4^10 t=3", [(4, 10)], 3, 100, "issue 23"),
    _m("2^20 t=3", [(2, 20)], 3, 18, "issue 23"),
    _m("3^8 t=4", [(3, 8)], 4, 135, "issue 23"),
    _m("2^12 t=4", [(2, 12)], 4, 24, "issue 23"),
    _m("7^1 6^1 5^1 4^5 3^8 2^3", [(7, 1), (6, 1), (5, 1), (4, 5), (3, 8), (2, 3)], 2, 42, "issue 23"),
    _m("6^6 t=3", [(6, 6)], 3, 258, "issue 23"),
]

#: The sets ``bench_engine.py --set`` chooses from (the first is the default).
SETS: dict[str, list[BenchModel]] = {"ours": MODELS, "issue23": ISSUE23_MODELS}

#: label -> (rows, seconds) of PICT 3.7.4 from the anchors baseline.
PICT_STORED: dict[str, tuple[int, float]] = {
    "3^4": (12, 0.0036),
    "3^13": (19, 0.0043),
    "2^10": (8, 0.0040),
    "2^100": (16, 0.012),
    "4^15 3^17 2^29": (38, 0.011),
    "4^1 3^39 2^35": (28, 0.015),
    "5^1 3^8 2^2": (21, 0.0031),
    "6^1 5^1 4^6 3^8 2^3": (35, 0.0040),
    "10^20": (213, 0.041),
    "3^100": (33, 0.035),
    "4^100": (57, 0.062),
    "3^6 t=3": (47, 0.0029),
    "4^6 t=3": (111, 0.0041),
    "5^7 t=3": (242, 0.016),
    "2^20 t=3": (25, 0.0081),
    "kernel-a 2.2.3.2": (7, 0.0027),
    "kernel-b 3.2^5": (8, 0.0029),
    "3^1000": (0, 4.2),  # issue 14: 4.2 s of CPU, 87 MB peak; rows not quoted
}
