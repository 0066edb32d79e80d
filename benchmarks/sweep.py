"""A seeded random sweep of ``cover()``, checked by an independent checker.

Each model has 2-15 axes of 1-10 values (ints, strings, bools, ``None``,
floats, tuples: ``1`` beside ``True`` on purpose), 0-4 random constraints
over 1-3 axes (Python predicates and declarative rules), partial include rows,
strength 1-4 (lowered until the model has at most ``MAX_TUPLES`` t-tuples, so
10,000 models finish in minutes) and sometimes a sub-model at a higher
strength.  The checker shares nothing with the engine: it calls the user's
predicates directly, enumerates every t-tuple of every scope, and decides
whether an uncovered tuple is coverable by its own backtracking search.

It counts

* coverage losses: a coverable tuple no row holds;
* violations: a row some constraint rejects, or include rows not first;
* crashes: any exception that is not a clear :class:`PairwiseError`
  (refusals such as unsatisfiable constraints or an include row breaking a
  constraint are counted apart, as ``refused``);
* count errors: ``feasible_count`` differing from brute force (small models);

and prints the slowest model.  Exit status 1 when any count is non-zero.

    python benchmarks/sweep.py --jobs 2        # 10,000 models, seed 0
    python benchmarks/sweep.py --models 200 --seed 3

``tests/core/test_sweep.py`` runs a small version of the same sweep.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pairwise_param import cover
from pairwise_param.errors import PairwiseError
from pairwise_param.tables.product import Count, feasible_count

#: Upper bound on the t-tuples of one model (strength is lowered to fit).
MAX_TUPLES = 1_500
_POOL: tuple[Any, ...] = (0, 1, 2, 3, True, False, None, "a", "b", "1", "true", 1.5, -2, (1, 2), (True,), "x y", 7, 8)


def _key(v: Any) -> tuple[str, Any]:
    """Type-aware identity (``1`` and ``True`` differ), independent of the library's."""
    if isinstance(v, tuple):
        return ("tuple", tuple(_key(x) for x in v))
    return (type(v).__name__, v)


@dataclass
class Case:
    axes: dict[str, list[Any]]
    strength: int
    checks: list[tuple[tuple[str, ...], Callable[..., bool]]]  # (axis names, predicate over their values)
    constraints: list[Any]
    include: list[dict[str, Any]]
    sub_models: list[tuple[tuple[str, ...], int]]
    scopes: list[tuple[str, ...]] = field(default_factory=list)


def _predicate(names: Sequence[str], forbidden: set[tuple[Any, ...]]) -> Callable[..., bool]:
    """A Python predicate with real parameter names (the model reads its signature)."""
    env: dict[str, Any] = {"F": forbidden, "K": _key}
    params = ", ".join(names)
    keys = ", ".join(f"K({n})" for n in names)
    exec(f"def pred({params}):\n    return ({keys},) not in F\n", env)  # noqa: S102 - our own generated text
    pred: Callable[..., bool] = env["pred"]
    return pred


def make_case(rng: random.Random) -> Case:
    n = rng.randint(2, 15)
    names = [f"a{i}" for i in range(n)]
    axes = {nm: rng.sample(_POOL, rng.randint(1, 10)) for nm in names}
    checks: list[tuple[tuple[str, ...], Callable[..., bool]]] = []
    constraints: list[Any] = []
    for _ in range(rng.choice([0, 0, 1, 2, 3, 4])):
        scope = tuple(sorted(rng.sample(names, min(n, rng.randint(1, 3))), key=names.index))
        combos = list(itertools.product(*(axes[a] for a in scope)))
        bad = rng.sample(combos, max(1, len(combos) * rng.randint(1, 5) // 10))
        if len(scope) <= 2 and rng.random() < 0.3 and len(bad) == 1:  # a declarative rule
            rule = {"never": dict(zip(scope, bad[0]))}
            constraints.append(rule)
            bad_key = tuple(_key(v) for v in bad[0])
            checks.append((scope, lambda *vs, b=bad_key: tuple(_key(v) for v in vs) != b))
        else:
            forbidden = {tuple(_key(v) for v in c) for c in bad}
            pred = _predicate(scope, forbidden)
            constraints.append(pred)
            checks.append((scope, lambda *vs, p=pred, s=scope: p(**dict(zip(s, vs)))))
    include = []
    for _ in range(rng.choice([0, 0, 1, 2])):
        cells = rng.sample(names, rng.randint(1, n))
        include.append({a: rng.choice(axes[a]) for a in cells})
    strength = min(n, rng.randint(1, 4))
    subs: list[tuple[tuple[str, ...], int]] = []
    if n >= 3 and rng.random() < 0.2:
        sub = tuple(sorted(rng.sample(names, rng.randint(2, min(n, 4))), key=names.index))
        subs.append((sub, min(len(sub), strength + 1)))

    def tuples(t: int) -> int:
        total = sum(_prod(len(axes[a]) for a in sc) for sc in itertools.combinations(names, t))
        return total + sum(_prod(len(axes[a]) for a in sc) for s, k in subs for sc in itertools.combinations(s, k))

    while strength > 1 and tuples(strength) > MAX_TUPLES:
        strength -= 1
    subs = [(s, k) for s, k in subs if k > strength]
    if subs and tuples(strength) > MAX_TUPLES:
        subs = []
    case = Case(axes, strength, checks, constraints, include, subs)
    scopes = set(itertools.combinations(names, strength))
    for s, k in subs:
        scopes.update(itertools.combinations(s, k))
    case.scopes = sorted(scopes)
    return case


def _prod(xs: Any) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


# -- the independent checker ------------------------------------------------------------------
def _ok(case: Case, row: dict[str, Any]) -> bool:
    """Does ``row`` (possibly partial) break no constraint whose axes it all holds?"""
    return all(fn(*(row[a] for a in sc)) for sc, fn in case.checks if all(a in row for a in sc))


def _completable(case: Case, fixed: dict[str, Any]) -> bool:
    """Is there a full valid row extending ``fixed``?  Plain backtracking over
    the constrained axes (the others never matter)."""
    free = [a for a in dict.fromkeys(a for sc, _ in case.checks for a in sc) if a not in fixed]
    work = dict(fixed)
    if not _ok(case, work):
        return False

    def rec(i: int) -> bool:
        if i == len(free):
            return True
        a = free[i]
        for v in case.axes[a]:
            work[a] = v
            if _ok(case, work) and rec(i + 1):
                del work[a]
                return True
        del work[a]
        return False

    return rec(0)


def check(case: Case, rows: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """(coverage losses, violations) of ``rows``."""
    violations = sum(1 for r in rows if not _ok(case, r))
    distinct = list({tuple(sorted((k, _key(v)) for k, v in inc.items())): inc for inc in case.include}.values())
    head = rows[: len(distinct)]
    for inc in distinct:
        if not any(all(_key(r[a]) == _key(v) for a, v in inc.items()) for r in head):
            violations += 1
    losses = 0
    for sc in case.scopes:
        seen = {tuple(_key(r[a]) for a in sc) for r in rows}
        for combo in itertools.product(*(case.axes[a] for a in sc)):
            if tuple(_key(v) for v in combo) in seen:
                continue
            if _completable(case, dict(zip(sc, combo))):
                losses += 1
    return losses, violations


def brute_count(case: Case) -> int:
    return sum(
        1 for combo in itertools.product(*case.axes.values()) if _ok(case, dict(zip(case.axes, combo)))
    )


@dataclass
class Totals:
    models: int = 0
    refused: int = 0
    losses: int = 0
    violations: int = 0
    crashes: int = 0
    count_errors: int = 0
    slowest: float = 0.0
    slowest_case: str = ""
    failures: list[str] = field(default_factory=list)


def run_one(case: Case, totals: Totals, label: str) -> None:
    totals.models += 1
    t0 = time.perf_counter()
    try:
        table = cover(
            case.axes, strength=case.strength, constraints=case.constraints, include=case.include,
            sub_models=case.sub_models,
        )
    except PairwiseError:
        totals.refused += 1
        return
    except Exception as exc:  # noqa: BLE001 - a crash is what we count
        totals.crashes += 1
        totals.failures.append(f"{label}: crash {type(exc).__name__}: {exc}")
        return
    elapsed = time.perf_counter() - t0
    if elapsed > totals.slowest:
        sizes = "x".join(str(len(v)) for v in case.axes.values())
        totals.slowest = elapsed
        totals.slowest_case = (
            f"{label}: {sizes} t={case.strength} {len(case.constraints)} constraints, "
            f"{len(case.include)} include, {len(case.sub_models)} sub-models, {len(table)} rows"
        )
    losses, violations = check(case, list(table))
    totals.losses += losses
    totals.violations += violations
    if losses or violations:
        totals.failures.append(f"{label}: {losses} coverage losses, {violations} violations")
    if _prod(len(v) for v in case.axes.values()) <= 20_000 and feasible_count(table.model) != Count(brute_count(case)):
        totals.count_errors += 1
        totals.failures.append(f"{label}: feasible_count {feasible_count(table.model)} != {brute_count(case)}")


def sweep(models: int, seed: int, start: int = 0, step: int = 1) -> Totals:
    """Models ``start, start + step, ...`` below ``models`` (a worker's share)."""
    totals = Totals()
    for i in range(start, models, step):
        rng = random.Random(f"{seed}:{i}")  # one generator per model: a failure replays alone
        run_one(make_case(rng), totals, f"seed={seed} model={i}")
    return totals


def _share(args: tuple[int, int, int, int]) -> Totals:
    return sweep(*args)


def merge(parts: Sequence[Totals]) -> Totals:
    out = Totals()
    for p in parts:
        for name in ("models", "refused", "losses", "violations", "crashes", "count_errors"):
            setattr(out, name, getattr(out, name) + getattr(p, name))
        out.failures.extend(p.failures)
        if p.slowest > out.slowest:
            out.slowest, out.slowest_case = p.slowest, p.slowest_case
    return out


def replay(seed: int, index: int) -> Case:
    """The case of model ``index`` of a sweep (to keep a failure as a regression test)."""
    return make_case(random.Random(f"{seed}:{index}"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (the counts do not depend on it)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.jobs > 1:
        from multiprocessing import Pool

        with Pool(args.jobs) as pool:
            totals = merge(pool.map(_share, [(args.models, args.seed, j, args.jobs) for j in range(args.jobs)]))
    else:
        totals = sweep(args.models, args.seed)
    wall = time.perf_counter() - t0
    checked = totals.models - totals.refused
    print(
        f"sweep seed={args.seed}: {totals.models} models ({checked} built, {totals.refused} refused with a clear "
        f"error) in {wall:.1f} s: {totals.losses} coverage losses, {totals.violations} violations, "
        f"{totals.crashes} crashes, {totals.count_errors} count errors"
    )
    print(f"slowest: {totals.slowest:.3f} s ({totals.slowest_case})")
    for line in totals.failures[:20]:
        print("  " + line)
    return 1 if totals.failures else 0


if __name__ == "__main__":
    sys.exit(main())
