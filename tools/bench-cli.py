#!/usr/bin/env python3
"""The CLI against sqlite3's own CLI (DESIGN §8), on the same data, both durable.

Usage: bench-cli.py VIEWLOG SCRATCH OUT.json [--quick]

Data: 100,000 `Item`s (int id, name, score, active), then 400,000 updates of random items' scores: a log of
500,000 changes, one change per transaction. sqlite3 runs in WAL mode with `synchronous=FULL` (every commit
flushed, as LMDB's durable commit is) and has an index `item_score(score)` matching the view's order.

- bulk load: `viewlog append --file` of the 100,000 inserts (one write) against `sqlite3` running the same
  inserts in one transaction.
- query: `viewlog query --json` of `score < 500000000` sorted by score (about 50,000 rows) against
  `sqlite3 -json` running the same SELECT … ORDER BY score, id.
- replay: `viewlog replay --into` of the 500,000-change log (it commits every 10,000 transactions) against
  `sqlite3` running the same 500,000 statements with a COMMIT every 10,000.
- time travel: `viewlog query --at` the middle of the log against the same query at the head; then again once the
  log has grown to 1,000,000 changes (the updates again, then their first 100,000).

Every timing is the median of a few runs of the whole process (start-up included on both sides), the two sides of
each ratio run in turn, round after round, so that a load that comes and goes (another build on the machine) slows
both rather than one; the data is made once from a fixed seed.
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

SCHEMA = {"entities": {"Item": {"id": "int", "attributes": {
    "name": {"type": "string"}, "score": {"type": "int"}, "active": {"type": "bool", "default": True}}}}}
ROWS = 100_000
UPDATES = 400_000
LONG_LOG_CHANGES = 1_000_000
SCORE_RANGE = 1_000_000_000
THRESHOLD = 500_000_000
SQL_PRAGMAS = "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\n"
SQL_TABLE = ("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, "
             "active INTEGER NOT NULL DEFAULT 1);\nCREATE INDEX item_score ON item(score);\n")
SELECT = f"SELECT id, name, score, active FROM item WHERE score < {THRESHOLD} ORDER BY score, id;"


def run(args, stdin=None):
    """Runs a process to completion; returns its wall time in seconds (fails loudly on an error)."""
    started = time.perf_counter()
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as f:
        p = subprocess.run(args, stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed: {p.stderr.decode(errors='replace')[:500]}")
    return elapsed, p.stdout


def interleaved(n, makes):
    """Runs each of `makes` (name -> function returning seconds) once per round, in turn, for `n` rounds, so both
    sides of a ratio see the same machine load (a build starting mid-measurement slows both, not one); returns
    name -> {median_s, runs_s}."""
    runs = {name: [] for name in makes}
    for _ in range(n):
        for name, make in makes.items():
            runs[name].append(make())
    return {name: {"median_s": statistics.median(t), "runs_s": t} for name, t in runs.items()}


def main():
    viewlog, scratch, out = sys.argv[1], sys.argv[2], sys.argv[3]
    quick = "--quick" in sys.argv
    rows, updates = (ROWS // 10, UPDATES // 10) if quick else (ROWS, UPDATES)
    reps = 1 if quick else 3
    # The reads take 50-150 ms each: nine alternated runs (one in --quick) give a median that a few runs slowed by
    # the machine's other users do not move.
    read_reps = 1 if quick else 9
    os.makedirs(scratch, exist_ok=True)
    rng = random.Random(42)
    scores = [rng.randrange(SCORE_RANGE) for _ in range(rows)]
    changes = [(rng.randrange(1, rows + 1), rng.randrange(SCORE_RANGE)) for _ in range(updates)]

    def path(name):
        return os.path.join(scratch, name)

    with open(path("schema.json"), "w") as f:
        json.dump(SCHEMA, f)
    with open(path("inserts.jsonl"), "w") as f:
        for i, s in enumerate(scores, 1):
            f.write(f'{{"insert": "Item", "id": {i}, "values": {{"name": "item-{i}", "score": {s}, "active": true}}}}\n')
    with open(path("updates.jsonl"), "w") as f:
        for i, s in changes:
            f.write(f'{{"update": "Item", "id": {i}, "values": {{"score": {s}}}}}\n')
    with open(path("inserts.sql"), "w") as f:
        f.write("BEGIN;\n")
        for i, s in enumerate(scores, 1):
            f.write(f"INSERT INTO item (id, name, score, active) VALUES ({i}, 'item-{i}', {s}, 1);\n")
        f.write("COMMIT;\n")
    with open(path("replay.sql"), "w") as f:
        # The same 500,000 changes, committed every 10,000 (as `replay` commits every 10,000 transactions).
        statements = [f"INSERT INTO item (id, name, score, active) VALUES ({i}, 'item-{i}', {s}, 1);"
                      for i, s in enumerate(scores, 1)]
        statements += [f"UPDATE item SET score = {s} WHERE id = {i};" for i, s in changes]
        for k in range(0, len(statements), 10_000):
            f.write("BEGIN;\n" + "\n".join(statements[k:k + 10_000]) + "\nCOMMIT;\n")

    def fresh_sqlite(name):
        db = path(name)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        subprocess.run(["sqlite3", db], input=(SQL_PRAGMAS + SQL_TABLE).encode(), check=True, stdout=subprocess.DEVNULL)
        return db

    def fresh_viewlog(name):
        store = path(name)
        shutil.rmtree(store, ignore_errors=True)
        run([viewlog, "init", store, "--schema", path("schema.json")])
        return store

    def sqlite_script(db, script):
        # The pragmas are per connection: synchronous=FULL must be set by the connection that commits.
        with open(path("run.sql"), "w") as f:
            f.write("PRAGMA synchronous=FULL;\n")
            with open(script) as s:
                shutil.copyfileobj(s, f)
        return run(["sqlite3", db], stdin=path("run.sql"))[0]

    result = {"rows": rows, "changes": rows + updates, "reps": reps, "read_reps": read_reps, "load_reps": 1 if quick else 5}

    # Bulk load.
    def viewlog_load():
        store = fresh_viewlog("load-viewlog")
        return run([viewlog, "append", store, "--file", path("inserts.jsonl")])[0]

    def sqlite_load():
        db = fresh_sqlite("load.sqlite")
        return sqlite_script(db, path("inserts.sql"))

    # Five rounds: ViewLog's load is CPU-bound (~0.25 s of CPU), sqlite3's mostly I/O, so a round
    # during the other tenants' builds moves the two differently; the median of five is not one such round.
    result["load"] = interleaved(result["load_reps"], {"viewlog": viewlog_load, "sqlite": sqlite_load})

    # The full log (500,000 changes) and the same final state in sqlite.
    store = fresh_viewlog("log-viewlog")
    run([viewlog, "append", store, "--file", path("inserts.jsonl")])
    run([viewlog, "append", store, "--chunked", "--file", path("updates.jsonl")])
    db = fresh_sqlite("state.sqlite")
    sqlite_script(db, path("replay.sql"))

    # Query: the same rows in the same order, as JSON.
    view = ["--entity", "Item", "--where", f"score < {THRESHOLD}", "--sort", "score", "--json"]
    _, vl_out = run([viewlog, "query", store] + view)
    _, sq_out = run(["sqlite3", "-json", db, SELECT])
    vl_rows = len(json.loads(vl_out.decode().splitlines()[0]).get("sections", [{}])[0].get("rows", []))
    sq_rows = len(json.loads(sq_out.decode() or "[]"))
    result["query"] = {
        **interleaved(read_reps, {"viewlog": lambda: run([viewlog, "query", store] + view)[0],
                                 "sqlite": lambda: run(["sqlite3", "-json", db, SELECT])[0]}),
        "viewlog_rows": vl_rows, "sqlite_rows": sq_rows,
        "plan": run(["sqlite3", db, "EXPLAIN QUERY PLAN " + SELECT])[1].decode().strip(),
    }

    # Time travel: the same view at the middle of the log against at the head.
    middle = (rows + updates) // 2
    result["time_travel"] = {
        "position": middle,
        **interleaved(read_reps, {"at": lambda: run([viewlog, "query", store, "--at", str(middle)] + view)[0],
                                 "head": lambda: run([viewlog, "query", store] + view)[0]}),
    }

    # Replay the log into a new store, against sqlite3 running the same changes.
    def viewlog_replay():
        target = path("replay-viewlog")
        shutil.rmtree(target, ignore_errors=True)
        return run([viewlog, "replay", store, "--into", target])[0]

    def sqlite_replay():
        return sqlite_script(fresh_sqlite("replay.sqlite"), path("replay.sql"))

    replay_reps = 1 if quick else 2
    result["replay"] = interleaved(replay_reps, {"viewlog": viewlog_replay, "sqlite": sqlite_replay})

    # Time travel as the log grows: the same log extended to 1,000,000 changes (the updates again, then their first
    # 100,000), the view at its middle against at the head (DESIGN §8 states the target at 1,000,000).
    run([viewlog, "append", store, "--chunked", "--file", path("updates.jsonl")])
    long_changes = LONG_LOG_CHANGES // 10 if quick else LONG_LOG_CHANGES
    with open(path("updates.jsonl"), "rb") as f:
        extra = b"".join(f.readline() for _ in range(long_changes - rows - 2 * updates))
    with open(path("updates-extra.jsonl"), "wb") as f:
        f.write(extra)
    run([viewlog, "append", store, "--chunked", "--file", path("updates-extra.jsonl")])
    long_middle = long_changes // 2
    result["time_travel_long"] = {
        "position": long_middle, "changes": long_changes,
        **interleaved(read_reps, {"at": lambda: run([viewlog, "query", store, "--at", str(long_middle)] + view)[0],
                                 "head": lambda: run([viewlog, "query", store] + view)[0]}),
    }
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
