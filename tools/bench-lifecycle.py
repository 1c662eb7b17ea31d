#!/usr/bin/env python3
"""The log's lifecycle (DESIGN §13), measured beside raw LMDB: `backup` against `mdb_env_copy2` (a small C program
built here against Debian's liblmdb, what `mdb_copy` runs), with and without compaction of free pages; and `compact
--keep-last K` of a long log while another process appends, one transaction at a time.

Usage: bench-lifecycle.py VIEWLOG SCRATCH OUT.json [--objects N] [--updates U] [--keep-last K] [--rounds R]

Data: N `Item`s (default 1,000,000), then U single-attribute updates (default 2,000,000) in transactions of 1,000,
so the log holds N + U changes. Backups: R rounds (default 3) of each side in turn, medians. Compaction: one run to
`--keep-last K` (default 100,000 transactions), its time, the peak RSS of its process, the bytes it freed, and the
appends another process made meanwhile (each a `viewlog append` of one change): their count and their longest
latency, beside the longest of the same appends before the compaction (process start-up included on both sides)."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

from benchlib import finish, run

ARGS = sys.argv[1:]
if len(ARGS) < 3:
    sys.exit(__doc__)
VIEWLOG, SCRATCH, OUT = ARGS[0], os.path.abspath(ARGS[1]), ARGS[2]


def option(name, default):
    return int(ARGS[ARGS.index(name) + 1]) if name in ARGS else default


OBJECTS = option("--objects", 1_000_000)
UPDATES = option("--updates", 2_000_000)
KEEP = option("--keep-last", 100_000)
ROUNDS = option("--rounds", 3)

COPY_C = r"""
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: copy SRC DEST [compact]\n"); return 2; }
    MDB_env *env; int rc;
    if ((rc = mdb_env_create(&env)) || (rc = mdb_env_set_maxdbs(env, 16)) ||
        (rc = mdb_env_open(env, argv[1], MDB_RDONLY, 0644)) ||
        (rc = mdb_env_copy2(env, argv[2], argc > 3 ? MDB_CP_COMPACT : 0))) {
        fprintf(stderr, "copy: %s\n", mdb_strerror(rc)); return 1;
    }
    mdb_env_close(env);
    return 0;
}
"""


def size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def build(store):
    schema = os.path.join(SCRATCH, "schema.json")
    with open(schema, "w") as f:
        json.dump({"entities": {"Item": {"id": "int", "attributes": {"name": {"type": "string"}, "score": {"type": "int"}}}}}, f)
    run([VIEWLOG, "init", store, "--schema", schema])
    path = os.path.join(SCRATCH, "load.jsonl")
    with open(path, "w") as f:
        for start in range(0, OBJECTS, 10_000):
            f.write(json.dumps({"changes": [{"insert": "Item", "id": i, "values": {"name": f"item{i}", "score": i}}
                                            for i in range(start, min(OBJECTS, start + 10_000))]}) + "\n")
        for start in range(0, UPDATES, 1_000):
            f.write(json.dumps({"changes": [{"update": "Item", "id": (i * 7919) % OBJECTS, "values": {"score": i}}
                                            for i in range(start, min(UPDATES, start + 1_000))]}) + "\n")
    run([VIEWLOG, "append", store, "--file", path, "--chunked"])
    os.remove(path)


def appender(store, stop, latencies, starts=None):
    k = 0
    while not stop.is_set():
        started = time.perf_counter()
        subprocess.run([VIEWLOG, "append", store, "--author", "bg", "update", "Item", str(k % OBJECTS), f"score={k}"],
                       capture_output=True, check=True)
        latencies.append(time.perf_counter() - started)
        if starts is not None:
            starts.append(started)
        k += 1


def main():
    shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(SCRATCH)
    copier = os.path.join(SCRATCH, "copy")
    with open(copier + ".c", "w") as f:
        f.write(COPY_C)
    subprocess.run(["cc", "-O2", "-o", copier, copier + ".c", "-llmdb"], check=True)
    store = os.path.join(SCRATCH, "store")
    started = time.perf_counter()
    build(store)
    result = {"objects": OBJECTS, "updates": UPDATES, "buildSeconds": round(time.perf_counter() - started, 1),
              "storeBytes": size(store)}

    samples = {"backup": [], "copy": [], "backupCompact": [], "copyCompact": []}
    for r in range(ROUNDS):
        for name in ["backup", "copy", "backupCompact", "copyCompact"]:
            dest = os.path.join(SCRATCH, f"{name}-{r}")
            command = {"backup": [VIEWLOG, "backup", store, dest],
                       "backupCompact": [VIEWLOG, "backup", store, dest, "--compact"],
                       "copy": [copier, store, dest], "copyCompact": [copier, store, dest, "compact"]}[name]
            if name.startswith("copy"):
                os.makedirs(dest)  # mdb_env_copy2 writes into an existing directory
            t, _ = run(command)
            samples[name].append(t)
            shutil.rmtree(dest)
    med = {k: statistics.median(v) for k, v in samples.items()}
    result["backupSeconds"] = med
    result["backupOverCopy"] = med["backup"] / med["copy"]
    result["backupCompactOverCopyCompact"] = med["backupCompact"] / med["copyCompact"]

    # Appends alone, then during the compaction.
    stop, before = threading.Event(), []
    t = threading.Thread(target=appender, args=(store, stop, before))
    t.start()
    time.sleep(3)
    stop.set()
    t.join()
    stop, during, starts = threading.Event(), [], []
    t = threading.Thread(target=appender, args=(store, stop, during, starts))
    t.start()
    bytes_before = size(store)
    started = time.perf_counter()
    p = subprocess.Popen([VIEWLOG, "compact", store, "--keep-last", str(KEEP), "--json"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    compact_seconds = time.perf_counter() - started
    out = p.stdout.read().decode()
    stop.set()
    t.join()
    if status != 0:
        sys.exit(f"error: compact failed: {p.stderr.read().decode()[:500]}")
    result["compact"] = {"keepLast": KEEP, "seconds": round(compact_seconds, 2), "peakRSSMB": usage.ru_maxrss / 1024,
                         "document": json.loads(out), "fileBytesBefore": bytes_before, "fileBytesAfter": size(store),
                         "appendsDuring": len(during),
                         "longestAppendDuringMs": max(during) * 1000 if during else None,
                         # When the longest append began, in seconds after the compaction began: which phase it met.
                         "longestAppendDuringStartedAtSeconds":
                             round(starts[during.index(max(during))] - started, 2) if during else None,
                         "appendsOver50msDuring": sum(1 for d in during if d > 0.05),
                         "medianAppendDuringMs": statistics.median(during) * 1000 if during else None,
                         "longestAppendBeforeMs": max(before) * 1000, "medianAppendBeforeMs": statistics.median(before) * 1000}
    run([VIEWLOG, "verify", store])
    finish(result, OUT, SCRATCH)


if __name__ == "__main__":
    main()
