#!/usr/bin/env python3
"""Migrations (DESIGN §13, `schema STORE --migrate FILE`) measured beside sqlite3's CLI, both durable.

Usage: bench-migrate.py VIEWLOG SCRATCH OUT.json [--objects N,N,...] [--rounds R]

For each size N (default 100,000 and 1,000,000): N `Item`s (name, height, score) in a ViewLog store and in an SQLite
table (WAL, `synchronous=FULL`, an integer primary key). Then, R rounds each (default 3), whole processes, each side in
turn, medians:
- **rename**: `renameAttribute` height → heightCm (and back the next round) against `ALTER TABLE … RENAME COLUMN`.
  DESIGN asks for O(1) in the objects: the time should not grow with N.
- **type change**: `changeType` of height int → double (and back, every value being integral) against what SQLite
  users do: in one transaction, a new column, `UPDATE … SET new = old`, drop the old column, rename the new one.
  Target: at most SQLite's time.
"""
import json
import os
import shutil
import statistics
import sys

from benchlib import finish, run

ARGS = sys.argv[1:]
if len(ARGS) < 3:
    sys.exit(__doc__)
VIEWLOG, SCRATCH, OUT = ARGS[0], os.path.abspath(ARGS[1]), ARGS[2]
SIZES = [int(n) for n in ARGS[ARGS.index("--objects") + 1].split(",")] if "--objects" in ARGS else [100_000, 1_000_000]
ROUNDS = int(ARGS[ARGS.index("--rounds") + 1]) if "--rounds" in ARGS else 3


def build(n, directory):
    store, db = os.path.join(directory, "store"), os.path.join(directory, "items.sqlite")
    schema = os.path.join(directory, "schema.json")
    with open(schema, "w") as f:
        json.dump({"entities": {"Item": {"id": "int", "attributes": {
            "name": {"type": "string"}, "height": {"type": "int"}, "score": {"type": "int"}}}}}, f)
    run([VIEWLOG, "init", store, "--schema", schema])
    load = os.path.join(directory, "load.jsonl")
    with open(load, "w") as f:
        for start in range(0, n, 10_000):
            f.write(json.dumps({"changes": [{"insert": "Item", "id": i, "values": {
                "name": f"item{i}", "height": 150 + i % 50, "score": i}} for i in range(start, min(n, start + 10_000))]}) + "\n")
    run([VIEWLOG, "append", store, "--file", load, "--chunked"])
    os.remove(load)
    run(["sqlite3", db], "PRAGMA journal_mode=WAL;\n"
        "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, height INTEGER NOT NULL, score INTEGER NOT NULL);\n"
        f"WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < {n}) "
        "INSERT INTO item SELECT i, 'item' || i, 150 + i % 50, i FROM k;\n")
    return store, db


def migrate(store, directory, steps):
    path = os.path.join(directory, "migration.json")
    with open(path, "w") as f:
        json.dump(steps, f)
    return run([VIEWLOG, "schema", store, "--migrate", path])[0]


def sqlite(db, sql):
    return run(["sqlite3", db], "PRAGMA synchronous=FULL;\n" + sql)[0]


def main():
    result = {"sizes": []}
    for n in SIZES:
        directory = os.path.join(SCRATCH, str(n))
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        store, db = build(n, directory)
        samples = {k: [] for k in ["rename", "sqliteRename", "changeType", "sqliteChangeType"]}
        names = ["height", "heightCm"]
        for r in range(ROUNDS):
            old, new = names[r % 2], names[(r + 1) % 2]
            samples["rename"].append(migrate(store, directory, [
                {"renameAttribute": {"entity": "Item", "from": old, "to": new}}]))
            samples["sqliteRename"].append(sqlite(db, f"ALTER TABLE item RENAME COLUMN {old} TO {new};\n"))
        attribute = names[ROUNDS % 2]
        types = [("double", "REAL"), ("int", "INTEGER")]
        for r in range(ROUNDS):
            viewlog_type, sqlite_type = types[r % 2]
            samples["changeType"].append(migrate(store, directory, [
                {"changeType": {"entity": "Item", "attribute": attribute, "to": viewlog_type}}]))
            samples["sqliteChangeType"].append(sqlite(db, "BEGIN;\n"
                f"ALTER TABLE item ADD COLUMN converted {sqlite_type};\n"
                f"UPDATE item SET converted = CAST({attribute} AS {sqlite_type});\n"
                f"ALTER TABLE item DROP COLUMN {attribute};\n"
                f"ALTER TABLE item RENAME COLUMN converted TO {attribute};\n"
                "COMMIT;\n"))
        run([VIEWLOG, "verify", store])
        med = {k: statistics.median(v) for k, v in samples.items()}
        result["sizes"].append({"objects": n, "medianSeconds": med, "samples": samples,
                                "renameOverSqlite": med["rename"] / med["sqliteRename"],
                                "changeTypeOverSqlite": med["changeType"] / med["sqliteChangeType"]})
        shutil.rmtree(directory, ignore_errors=True)
    if len(result["sizes"]) > 1:
        first, last = result["sizes"][0], result["sizes"][-1]
        # How the rename's time grows with the objects: ~1 when it rewrites none.
        result["renameGrowth"] = last["medianSeconds"]["rename"] / first["medianSeconds"]["rename"]
        result["objectsGrowth"] = last["objects"] / first["objects"]
    finish(result, OUT, SCRATCH)


if __name__ == "__main__":
    main()
