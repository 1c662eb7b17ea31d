#!/usr/bin/env python3
"""Markdown tables of DESIGN §8's relationship rows from one or more runs of

    BENCH_PROFILE=relationships bench/.build/release/bench-report --root DIR > run.json

Each figure is the median over the runs of each run's median (a run's medians come from rounds in which ViewLog and
its peer alternated); "runs" gives the range of the runs' medians. Ratios are taken within each run (ViewLog against
the peer measured in the same process), then their median over the runs.

    tools/bench-relationships-render.py run1.json run2.json … > tables.md
"""
import json
import math
import statistics
import sys

runs = [json.load(open(p)) for p in sys.argv[1:]]
if not runs:
    sys.exit("usage: bench-relationships-render.py RUN.json …")


def med(xs):
    return statistics.median(xs)


def t(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.1f} ms" if ns < 1e8 else f"{ns / 1e6:.0f} ms"
    return f"{ns / 1e3:.0f} µs" if ns >= 1e5 else f"{ns / 1e3:.1f} µs"


def rng(xs, f=t):
    return " (" + f(min(xs)) + "–" + f(max(xs)) + ")" if len(xs) > 1 else ""


def ratio(x):
    return f"{x:,.0f}×" if x >= 10 else f"{x:.1f}×"


def rows_of(key, match):
    out = []
    for r in runs:
        for row in r[key]:
            if match(row):
                out.append(row)
    return out


print(f"({len(runs)} run{'s' if len(runs) > 1 else ''}; each cell: median over the runs, range of the runs' medians in brackets)\n")

# 1. Update → change set.
print("| change at 100,000 employees, 100 departments | view | ViewLog wall | ViewLog CPU | row changes | GRDB array | GRDB + difference | GRDB CPU to the array | ratio (array) | ratio (+ difference) | ratio of CPU times (array) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
changes = []
for r in runs:
    for u in r["updates"]:
        if (u["change"], u["sectioned"]) not in changes:
            changes.append((u["change"], u["sectioned"]))
for change, sectioned in changes:
    us = rows_of("updates", lambda u: u["change"] == change and u["sectioned"] == sectioned)
    vw = [u["viewlog"]["medianNs"] for u in us]
    vc = [u["viewlogCPU"]["medianNs"] for u in us]
    ga = [u["grdbArray"]["medianNs"] for u in us]
    gt = [u["grdbArrayPlusDifference"]["medianNs"] for u in us]
    ra = [u["grdbArray"]["medianNs"] / u["viewlog"]["medianNs"] for u in us]
    rt = [u["grdbArrayPlusDifference"]["medianNs"] / u["viewlog"]["medianNs"] for u in us]
    rc = [u["grdbArrayCPU"]["medianNs"] / u["viewlogCPU"]["medianNs"] for u in us if u.get("grdbArrayCPU")]
    gc = [u["grdbArrayCPU"]["medianNs"] for u in us if u.get("grdbArrayCPU")]
    what = "an employee renamed (moves in its department)" if change == "employee-name" else "a department renamed (its 1,000 employees move)"
    print(f"| {what} | {'sectioned by `department.name`' if sectioned else 'one section'} | {t(med(vw))}{rng(vw)} | {t(med(vc))} | "
          f"{med([u['viewlogRowChanges'] for u in us]):,.0f} | {t(med(ga))}{rng(ga)} | {t(med(gt))} | {t(med(gc)) if gc else '—'} | {ratio(med(ra))}{rng(ra, ratio)} | "
          f"{ratio(med(rt))} | {(ratio(med(rc)) + rng(rc, ratio)) if rc else '—'} |")
print()

# 2. Fan-out.
ns = sorted({f["n"] for r in runs for f in r["fanOut"]})
ks = sorted({f["k"] for r in runs for f in r["fanOut"]})
print("| k (employees of the renamed department) | " + " | ".join(f"n = {n:,}: wall / CPU" for n in ns) + " | slope of CPU against n | CPU per row at the largest n |")
print("|---|" + "---|" * (len(ns) + 2))
for k in ks:
    cells, cpu = [], {}
    for n in ns:
        fs = rows_of("fanOut", lambda f: f["n"] == n and f["k"] == k)
        if not fs:
            cells.append("—")
            continue
        w = med([f["viewlog"]["medianNs"] for f in fs])
        c = med([f["viewlogCPU"]["medianNs"] for f in fs])
        cpu[n] = c
        cells.append(f"{t(w)} / {t(c)}")
    known = sorted(cpu)
    slope = (math.log(cpu[known[-1]] / cpu[known[0]]) / math.log(known[-1] / known[0])) if len(known) > 1 else float("nan")
    print(f"| {k:,} | " + " | ".join(cells) + f" | {slope:.2f} (n = {known[0]:,} → {known[-1]:,}) | {cpu[known[-1]] / k / 1e3:.1f} µs |")
print()
peers = [f for r in runs for f in r["fanOut"] if f.get("grdbArray")]
if peers:
    print("| n | k | ViewLog wall / CPU | GRDB array wall / CPU | GRDB difference | ratio (array) | ratio (+ difference) | ratio of CPU times (array) |")
    print("|---|---|---|---|---|---|---|---|")
    for n in ns:
        for k in ks:
            fs = [f for f in peers if f["n"] == n and f["k"] == k]
            if not fs:
                continue
            v = [f["viewlog"]["medianNs"] for f in fs]
            a = [f["grdbArray"]["medianNs"] for f in fs]
            d = [f["grdbDifference"]["medianNs"] for f in fs]
            ra = [f["grdbArray"]["medianNs"] / f["viewlog"]["medianNs"] for f in fs]
            rt = [(f["grdbArray"]["medianNs"] + f["grdbDifference"]["medianNs"]) / f["viewlog"]["medianNs"] for f in fs]
            vc = [f["viewlogCPU"]["medianNs"] for f in fs]
            ac = [f["grdbArrayCPU"]["medianNs"] for f in fs if f.get("grdbArrayCPU")]
            rc = [f["grdbArrayCPU"]["medianNs"] / f["viewlogCPU"]["medianNs"] for f in fs if f.get("grdbArrayCPU")]
            print(f"| {n:,} | {k:,} | {t(med(v))} / {t(med(vc))} | {t(med(a))} / {t(med(ac)) if ac else '—'} | {t(med(d))} | "
                  f"{ratio(med(ra))}{rng(ra, ratio)} | {ratio(med(rt))} | {(ratio(med(rc)) + rng(rc, ratio)) if rc else '—'} |")
    print()
builds = {}
for r in runs:
    for f in r["fanOut"]:
        builds.setdefault(f["n"], set()).add(f["viewlogBuildNs"])
print("Initial build of the fan-out views (ViewLog's initial fetch over key paths): "
      + "; ".join(f"n = {n:,}: {t(med(list(b)))}" for n, b in sorted(builds.items()))
      + f". Peak resident memory of a run: {max(r['peakResidentBytes'] for r in runs) / 2**20:,.0f} MiB.\n")

# 3. Initial fetch.
print("| employees | rows (`department.floor > 2`) | ViewLog | GRDB records | GRDB ids alone | ViewLog / GRDB records |")
print("|---|---|---|---|---|---|")
for size in sorted({f["size"] for r in runs for f in r["fetch"]}):
    fs = rows_of("fetch", lambda f: f["size"] == size)
    v = [f["viewlog"]["medianNs"] for f in fs]
    g = [f["grdbRecords"]["medianNs"] for f in fs]
    i = [f["grdbIDs"]["medianNs"] for f in fs]
    rr = [f["viewlog"]["medianNs"] / f["grdbRecords"]["medianNs"] for f in fs]
    print(f"| {size:,} | {fs[0]['rows']:,} | {t(med(v))}{rng(v)} | {t(med(g))}{rng(g)} | {t(med(i))} | {med(rr):.2f}×{rng(rr, lambda x: f'{x:.2f}×')} |")
print()
plans = runs[0].get("grdbPlans", {})
for name, plan in sorted(plans.items()):
    print(f"- SQLite's plan ({name}): `{plan}`")
