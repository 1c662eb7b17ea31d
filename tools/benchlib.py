"""What the lifecycle bench scripts (bench-lifecycle.py, bench-migrate.py) share: running a command timed, and
writing the result."""
import json
import shutil
import subprocess
import sys
import time


def run(args, stdin_text=None):
    """Runs `args` (stdin from `stdin_text`) as a whole process; its wall time and stdout. Exits on failure."""
    started = time.perf_counter()
    p = subprocess.run(args, input=stdin_text.encode() if stdin_text is not None else None, capture_output=True)
    elapsed = time.perf_counter() - started
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed: {p.stderr.decode(errors='replace')[:500]}")
    return elapsed, p.stdout.decode()


def finish(result, out, scratch):
    """Adds the load average to `result`, prints it and writes it to `out` as JSON, and removes `scratch`."""
    result["loadAverage"] = open("/proc/loadavg").read().split()[:3]
    text = json.dumps(result, indent=1)
    print(text)
    with open(out, "w") as f:
        f.write(text + "\n")
    shutil.rmtree(scratch, ignore_errors=True)
