#!/usr/bin/env python3
"""History you can act on (DESIGN §14), measured against sqlite3's CLI and against ViewLog's own plain paths.

Usage: bench-history.py VIEWLOG SCRATCH OUT.json [--rows N] [--rounds R] [--groups G]

Data: N `Item`s (int id, name, score, grp = id mod G, active; G = 10 by default), so that a group holds N/G objects
(`--rows 1000000 --groups 100`: 10,000 of 1,000,000), and a named view
`top` (active items by score, descending, the first 20: a stored window). sqlite3 runs in WAL mode with
`synchronous=FULL` (every commit flushed, as LMDB's durable commit is), with an index on `grp`.

- update by predicate: `append` of {"update": "Item", "where": "grp == K", "values": {"score": V}} (N/10 objects, one
  logged change each, resolved inside the write) against `UPDATE item SET score = V WHERE grp = K`.
- revert: `revert SEQ` of that N/10-change transaction, against the same update by predicate (the same number of
  changes written the ordinary way).
- undo: `undo --author A` of a one-change transaction, against that one-change `append`.
- what-if: `diff top --from H --with FILE` (FILE: 100 updates) against `diff top --from H-1 --to H` of one real
  transaction.

Every timing is the median of R runs of the whole process (start-up included on both sides), the two sides of each
ratio run in turn, round after round, so that a load that comes and goes slows both.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ARGS = sys.argv[1:]
if len(ARGS) < 3:
    sys.exit(__doc__)
VIEWLOG, SCRATCH, OUT = ARGS[0], ARGS[1], ARGS[2]
ROWS = int(ARGS[ARGS.index("--rows") + 1]) if "--rows" in ARGS else 100_000
ROUNDS = int(ARGS[ARGS.index("--rounds") + 1]) if "--rounds" in ARGS else 5
GROUPS = int(ARGS[ARGS.index("--groups") + 1]) if "--groups" in ARGS else 10

SCHEMA = {"entities": {"Item": {"id": "int", "attributes": {
    "name": {"type": "string"}, "score": {"type": "int"}, "grp": {"type": "int"},
    "active": {"type": "bool", "default": True}}}},
    "views": {"top": {"entity": "Item", "where": "active == YES", "sort": "score desc", "limit": 20}}}


def run(args, stdin_text=None):
    """Runs a process to completion; returns (seconds, stdout) and fails loudly on an error."""
    started = time.perf_counter()
    p = subprocess.run(args, input=stdin_text.encode() if stdin_text is not None else None,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed: {p.stderr.decode(errors='replace')[:500]}")
    return elapsed, p.stdout.decode()


def main():
    shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(SCRATCH)
    store, db = os.path.join(SCRATCH, "store"), os.path.join(SCRATCH, "items.db")
    schema = os.path.join(SCRATCH, "schema.json")
    with open(schema, "w") as f:
        json.dump(SCHEMA, f)
    run([VIEWLOG, "init", store, "--schema", schema])
    lines = [json.dumps({"insert": "Item", "id": i, "values": {"name": f"item{i}", "score": (i * 7919) % 1_000_003,
                                                               "grp": i % GROUPS}}) for i in range(ROWS)]
    inserts = os.path.join(SCRATCH, "inserts.jsonl")
    with open(inserts, "w") as f:
        f.write("\n".join(lines) + "\n")
    run([VIEWLOG, "append", store, "--file", inserts])
    sql = ["PRAGMA journal_mode=WAL;", "PRAGMA synchronous=FULL;",
           "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, grp INTEGER NOT NULL,"
           " active INTEGER NOT NULL DEFAULT 1);", "CREATE INDEX item_grp ON item(grp);", "BEGIN;"]
    sql += [f"INSERT INTO item (id, name, score, grp) VALUES ({i}, 'item{i}', {(i * 7919) % 1_000_003}, {i % GROUPS});"
            for i in range(ROWS)]
    sql.append("COMMIT;")
    run(["sqlite3", db], "\n".join(sql) + "\n")
    sqlite_prefix = "PRAGMA synchronous=FULL;\n"

    samples = {k: [] for k in ["update_where", "sqlite_update", "revert", "append_one", "undo_one", "diff_with", "diff_one"]}
    what_if = os.path.join(SCRATCH, "what-if.jsonl")
    for r in range(ROUNDS):
        k = r % GROUPS
        value = 2_000_000 + r
        form = json.dumps({"update": "Item", "where": f"grp == {k}", "values": {"score": value}}) + "\n"
        t, out = run([VIEWLOG, "append", store], form)
        samples["update_where"].append(t)
        seq = out.strip()
        t, _ = run(["sqlite3", db], sqlite_prefix + f"UPDATE item SET score = {value} WHERE grp = {k};\n")
        samples["sqlite_update"].append(t)
        t, _ = run([VIEWLOG, "revert", store, seq, "--author", "bench"])
        samples["revert"].append(t)
        t, _ = run([VIEWLOG, "append", store, "--author", "u", "update", "Item", str(r + 1), f"score={r}"])
        samples["append_one"].append(t)
        t, _ = run([VIEWLOG, "undo", store, "--author", "u"])
        samples["undo_one"].append(t)
        with open(what_if, "w") as f:
            for i in range(100):
                f.write(json.dumps({"update": "Item", "id": (r * 100 + i * 37) % ROWS, "values": {"score": 3_000_000 + i}}) + "\n")
        _, head = run([VIEWLOG, "stats", store, "--json"])
        h = json.loads(head)["head"]
        t, _ = run([VIEWLOG, "diff", store, "top", "--from", str(h), "--with", what_if, "--json"])
        samples["diff_with"].append(t)
        t, _ = run([VIEWLOG, "diff", store, "top", "--from", str(h - 1), "--to", str(h), "--json"])
        samples["diff_one"].append(t)
    med = {k: statistics.median(v) for k, v in samples.items()}
    result = {
        "rows": ROWS, "rounds": ROUNDS, "changesPerUpdate": ROWS // GROUPS,
        "medianSeconds": med,
        "ratios": {
            "updateWhereOverSqliteUpdate": med["update_where"] / med["sqlite_update"],
            "revertOverUpdateWhere": med["revert"] / med["update_where"],
            "undoOverOneChangeAppend": med["undo_one"] / med["append_one"],
            "diffWithOverDiffOfOneTransaction": med["diff_with"] / med["diff_one"],
        },
    }
    with open(OUT, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))
    shutil.rmtree(SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    main()
