#!/usr/bin/env python3
"""`viewlog serve` under load (issue 37's measurement), on loopback: many WebSocket watchers of one windowed view over
key paths, one append a second, and the server's other requests answered meanwhile.

Usage: serve-load.py VIEWLOG SCRATCH OUT.json [--employees N] [--watchers W] [--appends A] [--idle I] [--limit L]
                     [--view NAME]

1. A store of `schema/company.json` with 100 departments and N employees (default 100,000), loaded in transactions
   of 10,000.
2. `viewlog serve` on a free loopback port; first one watcher of `entity=Employee&sort=department.name,name&limit=L`
   (default 100), or with `--view NAME` of the schema's named view `view=NAME&limit=L` (`byDepartment`: the same
   order, sectioned, served from its stored rows): the server's RSS with one; then W watchers in all (default 200)
   of the same view.
3. A appends (default 30), one a second, each moving an employee into the window's department (its name sorts
   first) so that every watcher is sent a change set: per append, the delay from the append's answer to each
   watcher's document (p50, p99, max over all watchers and appends); meanwhile `GET /v1/stats` every 50 ms
   (p50, p99); the server's RSS (VmRSS) after.
4. Idle: I more watchers (default 1,000 in all, at most the server's limit) with nothing appended for 5 s: the
   server's CPU time over those seconds as a share of one core.

Prints one JSON document and writes it to OUT.json. The server is stopped however the run ends."""
import asyncio
import base64
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

ARGS = sys.argv[1:]
if len(ARGS) < 3:
    sys.exit(__doc__)
VIEWLOG, SCRATCH, OUT = ARGS[0], ARGS[1], ARGS[2]


def option(name, default):
    return int(ARGS[ARGS.index(name) + 1]) if name in ARGS else default


EMPLOYEES = option("--employees", 100_000)
WATCHERS = option("--watchers", 200)
APPENDS = option("--appends", 30)
IDLE = option("--idle", 1_000)
LIMIT = option("--limit", 100)
DEPARTMENTS = 100
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMED = ARGS[ARGS.index("--view") + 1] if "--view" in ARGS else None
VIEW = f"view={NAMED}&limit={LIMIT}" if NAMED else f"entity=Employee&sort=department.name,name&limit={LIMIT}"


def build_store(store):
    subprocess.run([VIEWLOG, "init", store, "--schema", os.path.join(ROOT, "schema", "company.json")], check=True,
                   capture_output=True)
    lines = [json.dumps({"changes": [{"insert": "Department", "id": d, "values": {"name": f"D{d:03}", "floor": d % 5}}
                                     for d in range(1, DEPARTMENTS + 1)]})]
    for start in range(0, EMPLOYEES, 10_000):
        lines.append(json.dumps({"changes": [
            {"insert": "Employee", "id": f"e{i}", "values": {"name": f"n{(i * 7919) % 1_000_003:07}", "height": 150 + i % 50,
                                                             "department": 2 + i % (DEPARTMENTS - 1)}}
            for i in range(start, min(EMPLOYEES, start + 10_000))]}))
    path = os.path.join(SCRATCH, "load.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run([VIEWLOG, "append", store, "--file", path], check=True, capture_output=True)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def watcher(port, arrivals, ready):
    """One WebSocket watcher: the handshake, then a time stamp for every text message after the first (the query
    document). Frames from the server are not masked."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /v1/watch?{VIEW} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    await writer.drain()
    status = await reader.readuntil(b"\r\n\r\n")
    if b" 101 " not in status.split(b"\r\n", 1)[0]:
        raise RuntimeError(f"upgrade refused: {status[:200]!r}")
    first = True
    try:
        while True:
            head = await reader.readexactly(2)
            length = head[1] & 0x7F
            if length == 126:
                length = int.from_bytes(await reader.readexactly(2), "big")
            elif length == 127:
                length = int.from_bytes(await reader.readexactly(8), "big")
            payload = await reader.readexactly(length)
            opcode = head[0] & 0x0F
            if opcode == 8:
                return
            if opcode != 1:
                continue
            if first:
                first = False
                ready.set_result(True) if not ready.done() else None
                continue
            arrivals.append((time.monotonic(), payload))
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        return
    finally:
        writer.close()


def get(port, path):
    started = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
        r.read()
    return time.monotonic() - started


async def open_watchers(port, count, arrivals_of):
    tasks, readies = [], []
    for _ in range(count):
        arrivals = []
        ready = asyncio.get_running_loop().create_future()
        tasks.append(asyncio.create_task(watcher(port, arrivals, ready)))
        arrivals_of.append(arrivals)
        readies.append(ready)
        if len(tasks) % 50 == 0:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*readies), timeout=600)
    return tasks


async def run(port, pid, store):
    arrivals_of = []
    result = {"employees": EMPLOYEES, "watchers": WATCHERS, "appends": APPENDS, "view": VIEW}
    tasks = await open_watchers(port, 1, arrivals_of)
    await asyncio.sleep(1)
    result["rssOneWatcherMB"] = rss_kb(pid) / 1024
    tasks += await open_watchers(port, WATCHERS - 1, arrivals_of)
    await asyncio.sleep(1)
    result["rssBeforeAppendsMB"] = rss_kb(pid) / 1024

    stats_times, stop = [], False

    async def poll_stats():
        while not stop:
            stats_times.append(await asyncio.to_thread(get, port, "/v1/stats"))
            await asyncio.sleep(0.05)

    poller = asyncio.create_task(poll_stats())
    delays, missing = [], 0
    for k in range(APPENDS):
        for a in arrivals_of:
            a.clear()
        # Department 1 ("D001") sorts first: the employee enters the window.
        line = json.dumps({"update": "Employee", "id": f"e{k}", "values": {"department": 1, "name": f"a{k:05}"}})
        p = await asyncio.to_thread(subprocess.run, [VIEWLOG, "append", store], input=line.encode(), capture_output=True)
        answered = time.monotonic()
        if p.returncode != 0:
            raise RuntimeError(p.stderr.decode())
        deadline = answered + 10
        while time.monotonic() < deadline and any(not a for a in arrivals_of):
            await asyncio.sleep(0.005)
        for a in arrivals_of:
            if a:
                delays.append(max(0.0, a[0][0] - answered))
            else:
                missing += 1
        await asyncio.sleep(max(0.0, 1 - (time.monotonic() - answered)))
    stop = True
    await poller
    result["rssAfterAppendsMB"] = rss_kb(pid) / 1024
    delays.sort()
    stats_times.sort()

    def pct(xs, p):
        return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000 if xs else None

    result["deliveryMs"] = {"p50": pct(delays, 0.5), "p99": pct(delays, 0.99), "max": pct(delays, 1.0),
                            "documents": len(delays), "missing": missing}
    result["statsMs"] = {"p50": pct(stats_times, 0.5), "p99": pct(stats_times, 0.99), "requests": len(stats_times)}

    if IDLE > WATCHERS:
        tasks += await open_watchers(port, IDLE - WATCHERS, arrivals_of)
        await asyncio.sleep(1)
        c0 = cpu_seconds(pid)
        await asyncio.sleep(5)
        result["idle"] = {"watchers": IDLE, "cpuShareOfOneCore": (cpu_seconds(pid) - c0) / 5,
                          "rssMB": rss_kb(pid) / 1024}
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return result


def main():
    shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(SCRATCH)
    store = os.path.join(SCRATCH, "store")
    started = time.monotonic()
    build_store(store)
    load_seconds = time.monotonic() - started
    server = subprocess.Popen([VIEWLOG, "serve", store, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        first = server.stdout.readline().decode()
        if "listening on" not in first:
            raise RuntimeError(f"the server did not start: {first} {server.stderr.read().decode()[:500]}")
        port = int(first.strip().rsplit(":", 1)[1])
        result = asyncio.run(run(port, server.pid, store))
        result["loadSeconds"] = round(load_seconds, 1)
        result["loadAverage"] = open("/proc/loadavg").read().split()[:3]
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    text = json.dumps(result, indent=1)
    print(text)
    with open(OUT, "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
