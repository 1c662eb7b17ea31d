#!/usr/bin/env python3
"""`viewlog query --json` of a whole view against `sqlite3 -json` of the same SELECT.

Usage: bench-query-json.py VIEWLOG SCRATCH [RUNS]   (SCRATCH: a directory of its own, removed at the end)

The data of `tools/bench-cli.py`'s query row: 100,000 `Item`s (int id, name, score, active) with random scores from
a fixed seed, loaded with `append --file`; sqlite3 in WAL mode with `item_score(score)`. The view is `score <
500000000` sorted by score (about 50,000 rows), asked two ways: ad hoc (`--entity … --where … --sort …`) and as the
schema's named view `low`. Whole processes, the three commands in turn, round after round, medians of RUNS (9).
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time


def main():
    viewlog, scratch = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    os.makedirs(scratch, exist_ok=True)

    def path(name):
        return os.path.join(scratch, name)

    rng = random.Random(42)
    rows = 100_000
    schema = {"entities": {"Item": {"id": "int", "attributes": {
        "name": {"type": "string"}, "score": {"type": "int"}, "active": {"type": "bool", "default": True}}}},
        "views": {"low": {"entity": "Item", "where": "score < 500000000", "sort": "score"}}}
    with open(path("schema.json"), "w") as f:
        json.dump(schema, f)
    scores = [rng.randrange(1_000_000_000) for _ in range(rows)]
    with open(path("inserts.jsonl"), "w") as f:
        for i, s in enumerate(scores, 1):
            f.write(f'{{"insert": "Item", "id": {i}, "values": {{"name": "item-{i}", "score": {s}, "active": true}}}}\n')
    store, db = path("store"), path("items.sqlite")
    shutil.rmtree(store, ignore_errors=True)
    subprocess.run([viewlog, "init", store, "--schema", path("schema.json")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([viewlog, "append", store, "--file", path("inserts.jsonl")], check=True, stdout=subprocess.DEVNULL)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    sql = ("PRAGMA journal_mode=WAL;\nCREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
           "score INTEGER NOT NULL, active INTEGER NOT NULL DEFAULT 1);\nCREATE INDEX item_score ON item(score);\nBEGIN;\n"
           + "".join(f"INSERT INTO item VALUES ({i}, 'item-{i}', {s}, 1);\n" for i, s in enumerate(scores, 1))
           + "COMMIT;\n")
    subprocess.run(["sqlite3", db], input=sql.encode(), check=True, stdout=subprocess.DEVNULL)
    commands = {
        "ad hoc": [viewlog, "query", store, "--entity", "Item", "--where", "score < 500000000", "--sort", "score", "--json"],
        "named view": [viewlog, "query", store, "low", "--json"],
        "sqlite3": ["sqlite3", "-json", db, "SELECT id, name, score, active FROM item WHERE score < 500000000 ORDER BY score, id"],
    }
    times = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            t0 = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - t0)
    medians = {name: statistics.median(t) * 1000 for name, t in times.items()}
    for name in ("ad hoc", "named view"):
        print(f"query --json, {name}: {medians[name]:.1f} ms; sqlite3 -json {medians['sqlite3']:.1f} ms: "
              f"{medians[name] / medians['sqlite3']:.2f}×")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
