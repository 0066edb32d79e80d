"""The study's Markdown: per-fault table, kill rates per interaction order and per
family, cases per mode, sanity baseline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _order(o: int | None) -> str:
    return "-" if o is None else str(o)


def _yes(v: bool | None) -> str:
    return "n/a" if v is None else ("kill" if v else "**miss**")


def _witness(f: dict[str, Any]) -> str:
    if f["order"] is None:
        return "(never fails)"
    if f["order"] == 0:
        return "(every row)"
    ws = f["witnesses"]
    text = " or ".join("{" + ", ".join(f"{k}={v}" for k, v in w.items()) + "}" for w in ws[:2])
    return text + (f" (+{len(ws) - 2})" if len(ws) > 2 else "")


def _rate(hits: int, n: int) -> str:
    return "-" if n == 0 else f"{hits}/{n}"


def _group_rows(name: str, faults: Sequence[dict[str, Any]], seeds: int) -> str:
    detected = [f for f in faults if f["kills"]["full"]]
    n = len(detected)
    ups = [f for f in detected if f["kills"]["upstream"] is not None]
    rand_mean = (sum(sum(f["kills"]["random"]) for f in detected) / (seeds * n)) if n else 0.0
    worst = min((sum(f["kills"]["random"][s] for f in detected) for s in range(seeds)), default=0)
    cells = [name, str(len(faults)), str(n), _rate(sum(f["kills"]["t2"] for f in detected), n),
             _rate(sum(f["kills"].get("t2c", f["kills"]["t2"]) for f in detected), n),
             _rate(sum(f["kills"]["t3"] for f in detected), n),
             _rate(sum(bool(f["kills"]["upstream"]) for f in ups), len(ups)),
             "-" if not n else f"{100 * rand_mean:.1f}%", "-" if not n else f"{worst}/{n}"]
    return "| " + " | ".join(cells) + " |"


def _run(k: int | None, runs: int) -> str:
    return f"**not in {runs}**" if k is None else str(k)


def _rotated(faults: Sequence[dict[str, Any]]) -> list[str]:
    """``--pairwise-rotate``: the run that first kills each fault the full product detects,
    plain rotation beside the compile-aware one (its variant list rotated too, never longer)."""
    rows = [f for f in faults if f["kills"]["full"] and "rotated" in f]
    if not rows:
        return []
    runs = rows[0]["rotated"]["runs"]
    out = ["", (f"Rotated runs (`--pairwise-rotate`; run 1 the fixed t=2 table, run k the rotation against runs "
                f"1..k-1): the first of {runs} runs that kills each fault the full product detects. The "
                f"compile-aware rotation rotates its variant list too (tables/rotate_variants.py): each run "
                f"compiles at most the fixed table's number of variants, chosen to hold the compile axes' "
                f"(t+1)-tuples the earlier runs missed."), "",
           "| fault | order | plain t=2 rotated | compile-aware t=2 rotated |", "|---|---:|---:|---:|"]
    for f in rows:
        r = f["rotated"]
        out.append(f"| `{f['id']}` | {_order(f['order'])} | {_run(r['t2'], runs)} | {_run(r['t2c'], runs)} |")
    for key, name in (("t2", "plain"), ("t2c", "compile-aware")):
        hits = [f["rotated"][key] for f in rows]
        by = ", ".join(f"{sum(h is not None and h <= k for h in hits)} by run {k}" for k in range(1, runs + 1))
        out.append(f"| all ({name}) | | {by if key == 't2' else ''} | {by if key == 't2c' else ''} |")
    return out


def markdown(result: dict[str, Any]) -> str:
    faults = result["faults"]
    seeds = result["random_seeds"]
    intro = (f"Faults: {len(faults)}; random samples per fault: {seeds} (each the size of the t=2 table). "
             f"t=2 compile-aware: the suite's own table (its compile_axes= / compile_key=; the plain t=2 "
             f"table where a test declares none). Kill = at least one row of the mode fails; every mode's rows are full-product rows, so one "
             f"full-product run per fault decides all modes.")
    header = (f"| fault | test | order | failing rows | minimal failing combination | full | t=2 "
              f"| t=2 compile-aware | t=3 | upstream CI | random (kills of {seeds}) |")
    out = [intro, "", header, "|---|---|---:|---:|---|---|---|---|---|---|---:|"]
    for f in faults:
        k = f["kills"]
        out.append(f"| `{f['id']}` | {f['target'].split('/')[1]} | {_order(f['order'])} | "
                   f"{f['failing_rows']}/{f['full_rows']} | {_witness(f)} | {_yes(k['full'])} | {_yes(k['t2'])} | "
                   f"{_yes(k.get('t2c', k['t2']))} | {_yes(k['t3'])} | {_yes(k['upstream'])} | {sum(k['random'])} |")
    legend = ("The faults (the bug, and why it is plausible; `aimed at` is the author's intent, the order above "
              "is measured):")
    out += ["", legend, "", "| fault | bug | why | aimed at |", "|---|---|---|---|"]
    for f in faults:
        out.append(f"| `{f['id']}` | {f['title']} | {f['why']} | {f['expect']} |")
    head = [("| group | faults | detected by full | t=2 | t=2 compile-aware | t=3 | upstream CI | random mean "
            "| random worst seed |"), "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    out += ["", "Kill rates per interaction order (over the faults the full product detects):", "", *head]
    orders = sorted({f["order"] for f in faults if f["order"] is not None})
    for o in orders:
        out.append(_group_rows(f"order {o}", [f for f in faults if f["order"] == o], seeds))
    undetected = [f for f in faults if f["order"] is None]
    if undetected:
        out.append(_group_rows("never fails", undetected, seeds))
    out.append(_group_rows("all", faults, seeds))
    out += ["", "Kill rates per family:", "", *head]
    for fam in sorted({f["family"] for f in faults}):
        out.append(_group_rows(fam, [f for f in faults if f["family"] == fam], seeds))
    out += ["", "Cases per mode (option rows x study shapes), per test:", "",
            ("| test | shapes | full | t=2 | t=2 compile-aware | variants t=2 -> compile-aware | t=3 | upstream CI "
            "| random | model |"), "|---|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    for t in result["targets"]:
        s = t["shapes"]
        up = "-" if t["upstream_rows"] is None else f"{t['upstream_rows'] * s}"
        var = "-" if not t.get("variants") else f"{t['variants'][0]} -> {t['variants'][1]}"
        out.append(f"| {t['key']} | {s} | {t['full_rows'] * s} | {t['t2_rows'] * s} | "
                   f"{t.get('t2c_rows', t['t2_rows']) * s} | {var} | {t['t3_rows'] * s} | {up} | "
                   f"{t['t2_rows'] * s} | {t['model']} |")
    out += _rotated(faults)
    varied = [t for t in result["targets"] if t.get("rotated_variants")]
    if varied:
        out += ["", "Variants compiled per rotated run (runs 1..N), plain t=2 -> compile-aware t=2: " + "; ".join(
            f"{t['key']} {list(t['rotated_variants'][0])} -> {list(t['rotated_variants'][1])}" for t in varied) + "."]
    out += ["", "Sanity (unmutated kernels, full product): " + "; ".join(
        f"{s['target']} {s['failing_rows']} failing of {s['rows']} rows" for s in result["sanity"]) + ".",
        "", f"Runtime: {result['seconds']:.0f} s wall ({result['command']})."]
    return "\n".join(out) + "\n"
