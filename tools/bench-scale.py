#!/usr/bin/env python3
"""The small paths against store size (the scale table, DESIGN §8 and §11), against sqlite3 with a matching index.

Usage: bench-scale.py VIEWLOG SCRATCH OUT.json [--sizes 100000,1000000] [--reps 5] [--markdown OUT.md]

For each size n: a store of n `Item`s (int id; name, score, active) with one named view `byScore` (every item, sorted
by score, ties by id) — stored (DESIGN §11) — loaded by `viewlog append --file` in transactions of 10,000 inserts,
one change appended after it; and a sqlite3 database of the same rows (WAL, synchronous=FULL, an index
`item_score(score, id)` matching the view's order). Whole processes, start-up included on both sides, the two sides
run in turn round after round, medians of `reps`:

- `query STORE byScore --limit 20 --json` against `sqlite3 -json` of `SELECT … ORDER BY score, id LIMIT 20`;
- `diff STORE byScore --limit 20 --from H-1 --to H --json` (the last transaction) against the same SELECT;
- `watch STORE byScore --limit 20 --json --count 0` (the watch's start: its first document) against the same SELECT;
- `get STORE Item ID --json` against `SELECT … WHERE id = ?`;
- `append STORE update Item ID score=V` against `UPDATE item SET score = V WHERE id = ?` in its own transaction.

The slope is log(t at the largest size / t at the smallest) / log(size ratio): 0 is flat, 1 linear in n.
"""
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

SCHEMA = {"entities": {"Item": {"id": "int", "attributes": {
    "name": {"type": "string"}, "score": {"type": "int"}, "active": {"type": "bool", "default": True}}}},
    "views": {"byScore": {"entity": "Item", "sort": "score"}}}
SCORE_RANGE = 1_000_000_000
PRAGMAS = "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\n"
TABLE = ("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, "
         "active INTEGER NOT NULL DEFAULT 1);\nCREATE INDEX item_score ON item(score, id);\n")
WINDOW = "SELECT id, name, score, active FROM item ORDER BY score, id LIMIT 20;"
CHUNK = 10_000


def run(args, stdin_text=None):
    started = time.perf_counter()
    p = subprocess.run(args, input=stdin_text.encode() if stdin_text else None, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed: {p.stderr.decode(errors='replace')[:500]}")
    return elapsed, p.stdout


def interleaved(n, makes):
    runs = {name: [] for name in makes}
    for _ in range(n):
        for name, make in makes.items():
            runs[name].append(make())
    return {name: {"median_s": statistics.median(t), "runs_s": t} for name, t in runs.items()}


def options(args):
    """`--sizes A,B`, `--reps N` and `--markdown OUT.md` of a scale script's arguments (defaults 100,000 and
    1,000,000; 5; none)."""
    sizes, reps, markdown = [100_000, 1_000_000], 5, None
    for i, a in enumerate(args):
        if a == "--sizes":
            sizes = [int(x) for x in args[i + 1].split(",")]
        elif a == "--reps":
            reps = int(args[i + 1])
        elif a == "--markdown":
            markdown = args[i + 1]
    return sizes, reps, markdown


def remove(store, db):
    """Removes a size's store and its sqlite3 database (with its WAL files)."""
    shutil.rmtree(store, ignore_errors=True)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)


def write(result, out, markdown, render):
    """Writes the result's JSON to `out`, and its table (`render`) to `markdown` when given."""
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    if markdown:
        with open(markdown, "w") as f:
            f.write(render(result))


def main():
    viewlog, scratch, out = sys.argv[1], sys.argv[2], sys.argv[3]
    sizes, reps, markdown = options(sys.argv[4:])
    os.makedirs(scratch, exist_ok=True)
    schema_path = os.path.join(scratch, "scale-schema.json")
    with open(schema_path, "w") as f:
        json.dump(SCHEMA, f)
    result = {"sizes": sizes, "reps": reps, "rows": []}
    for n in sizes:
        rng = random.Random(28)
        scores = [rng.randrange(SCORE_RANGE) for _ in range(n)]
        store = os.path.join(scratch, f"scale-{n}")
        db = os.path.join(scratch, f"scale-{n}.sqlite")
        remove(store, db)
        lines = os.path.join(scratch, f"scale-{n}.jsonl")
        with open(lines, "w") as f:
            for k in range(0, n, CHUNK):
                changes = [{"insert": "Item", "id": i + 1, "values": {"name": f"item-{i + 1}", "score": scores[i], "active": True}}
                           for i in range(k, min(n, k + CHUNK))]
                f.write(json.dumps({"changes": changes}) + "\n")
        run([viewlog, "init", store, "--schema", schema_path])
        # One write holds at most 1,000,000 changes: a bigger load commits in chunks.
        load_s, _ = run([viewlog, "append", store, "--file", lines] + (["--chunked"] if n > 1_000_000 else []))
        os.remove(lines)
        sql = [PRAGMAS, TABLE, "BEGIN;\n"]
        sql += [f"INSERT INTO item VALUES ({i + 1}, 'item-{i + 1}', {scores[i]}, 1);\n" for i in range(n)]
        sql.append("COMMIT;\n")
        run(["sqlite3", db], "".join(sql))
        print(f"scale: {n:,} rows loaded (viewlog append --file {load_s:.1f} s)", file=sys.stderr)
        # One transaction after the load: the one `diff` shows.
        run([viewlog, "append", store, "update", "Item", "7", "score=5"])
        head = int(run([viewlog, "stats", store, "--json"])[1].decode().split('"head": ')[1].split(",")[0])
        ids = [rng.randrange(1, n + 1) for _ in range(reps)]
        counter = {"v": 0, "s": 0}

        def v_append():
            counter["v"] += 1
            return run([viewlog, "append", store, "update", "Item", str(ids[counter["v"] % reps]), f"score={counter['v']}"])[0]

        def s_append():
            counter["s"] += 1
            return run(["sqlite3", db], f"PRAGMA synchronous=FULL;\nBEGIN;\nUPDATE item SET score = {counter['s']} WHERE id = {ids[counter['s'] % reps]};\nCOMMIT;\n")[0]

        window_v = run([viewlog, "query", store, "byScore", "--limit", "20", "--json"])[1]
        window_s = run(["sqlite3", "-json", db, WINDOW])[1]
        row = {"size": n, "load_s": load_s,
               "query": interleaved(reps, {
                   "viewlog": lambda: run([viewlog, "query", store, "byScore", "--limit", "20", "--json"])[0],
                   "sqlite": lambda: run(["sqlite3", "-json", db, WINDOW])[0]}),
               "diff": interleaved(reps, {
                   "viewlog": lambda: run([viewlog, "diff", store, "byScore", "--limit", "20", "--from", str(head - 1), "--to", str(head), "--json"])[0],
                   "sqlite": lambda: run(["sqlite3", "-json", db, WINDOW])[0]}),
               "watch": interleaved(reps, {
                   "viewlog": lambda: run([viewlog, "watch", store, "byScore", "--limit", "20", "--json", "--count", "0"])[0],
                   "sqlite": lambda: run(["sqlite3", "-json", db, WINDOW])[0]}),
               "get": interleaved(reps, {
                   "viewlog": lambda: run([viewlog, "get", store, "Item", str(ids[0]), "--json"])[0],
                   "sqlite": lambda: run(["sqlite3", "-json", db, f"SELECT id, name, score, active FROM item WHERE id = {ids[0]};"])[0]}),
               "append": interleaved(reps, {"viewlog": v_append, "sqlite": s_append}),
               "window_rows": [window_v.count(b'"id"'), window_s.count(b'"id"')]}
        result["rows"].append(row)
        for what in ("query", "diff", "watch", "get", "append"):
            v, s = row[what]["viewlog"]["median_s"], row[what]["sqlite"]["median_s"]
            print(f"scale: {n:,} rows {what}: viewlog {v * 1e3:.1f} ms, sqlite3 {s * 1e3:.1f} ms, {v / s:.2f}×", file=sys.stderr)
        remove(store, db)
    write(result, out, markdown, render)


TARGETS = {"query": 2.0, "diff": 3.0, "watch": None, "get": 1.5, "append": None}
LABELS = {"query": "`query VIEW --limit 20 --json` / `SELECT … ORDER BY score, id LIMIT 20`",
          "diff": "`diff VIEW --limit 20` of the last transaction / the same SELECT",
          "watch": "`watch VIEW --limit 20 --json --count 0` (its start: the first document) / the same SELECT",
          "get": "`get Item ID --json` / `SELECT … WHERE id = ?`",
          "append": "`append` of one update / `UPDATE` in its own transaction"}


def render(result):
    rows = result["rows"]
    lines = ["| what | " + " | ".join(f"{r['size']:,} rows: viewlog / sqlite3 (ratio)" for r in rows)
             + " | slope (viewlog) | §8 target |",
             "| --- | " + " | ".join("---" for _ in rows) + " | --- | --- |"]
    for what in ("query", "diff", "watch", "get", "append"):
        if what not in rows[0]:
            continue
        cells = []
        for r in rows:
            v, s = r[what]["viewlog"]["median_s"], r[what]["sqlite"]["median_s"]
            cells.append(f"{v * 1e3:.1f} ms / {s * 1e3:.1f} ms ({v / s:.2f}×)")
        if len(rows) > 1:
            a, b = rows[0], rows[-1]
            slope = math.log(b[what]["viewlog"]["median_s"] / a[what]["viewlog"]["median_s"]) / math.log(b["size"] / a["size"])
            slope_text = f"{slope:.2f}"
        else:
            slope_text = "–"
        target = TARGETS[what]
        lines.append(f"| {LABELS[what]} | " + " | ".join(cells) + f" | {slope_text} | "
                     + (f"≤ {target}× at 1,000,000" if target else "–") + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
