#!/usr/bin/env python3
"""`diff` of windowed named views over key paths against store size (DESIGN §10 and §11).

Usage: bench-scale-paths.py VIEWLOG SCRATCH OUT.json [--sizes 100000,1000000] [--reps 5] [--markdown OUT.md] [--keep]
(`--keep` leaves the stores and databases in SCRATCH, to profile.)

For each size n: a store of n `Employee`s in n / 100 `Department`s (employees drawn into departments at random) with
two named views, both stored (DESIGN §11):
- `byDepartment`: every employee sorted by `department.name, name` (a to-one path), `limit` 20;
- `headcount`: every department sorted by `employees.@count desc, employees.@max.salary, name` (aggregates of the
  to-many inverse, their per-target state stored), `limit` 20;
loaded by `viewlog append --file` in transactions of 10,000 inserts; then one transaction that moves an employee to
another department, changes another's salary and renames a department. Timed, whole processes, start-up included,
the sides run in turn round after round, medians of `reps`:

- `diff STORE VIEW --from H-1 --to H --json` of the last transaction: the named view (its stored window, the rows the
  change reaches, path values from the stored state) against the same view given ad hoc (`--entity …`: built in
  memory from every object at H-1, then moved) and against `sqlite3 -json` of the window's SELECT over the same rows
  (a JOIN over indexes `department(name)` and `employee(department, name)` for `byDepartment`; a GROUP BY for
  `headcount`, which SQLite computes from every employee).

Both `viewlog` runs print the same bytes (checked before timing). The slope is log(t at the largest size / t at the
smallest) / log(size ratio): 0 is flat, 1 linear in n.
"""
import importlib.util
import json
import math
import os
import random
import sys

_spec = importlib.util.spec_from_file_location("bench_scale", os.path.join(os.path.dirname(__file__), "bench-scale.py"))
bench_scale = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_scale)
run, interleaved = bench_scale.run, bench_scale.interleaved

VIEWS = {
    "byDepartment": {"entity": "Employee", "sort": "department.name, name", "limit": 20},
    "headcount": {"entity": "Department", "sort": "employees.@count desc, employees.@max.salary, name", "limit": 20},
}
SCHEMA = {"entities": {
    "Department": {"id": "int", "attributes": {"name": {"type": "string"}}},
    "Employee": {"id": "int", "attributes": {"name": {"type": "string"}, "salary": {"type": "double"}},
                 "relationships": {"department": {"to": "Department", "optional": True, "inverse": "employees"}}}},
    "views": VIEWS}
# The same rows, but not the named view's own request (its predicate holds for every object: names are required), so
# that it is built in memory: a request equal to a named view's own opens from the stored view like the view itself.
AD_HOC = {name: ["--entity", v["entity"], "--where", "name != nil", "--sort", v["sort"], "--limit", str(v["limit"])]
          for name, v in VIEWS.items()}
SQL_WINDOW = {
    "byDepartment": "SELECT e.id, e.name, e.salary, e.department, d.name FROM employee e JOIN department d "
                    "ON d.id = e.department ORDER BY d.name, e.name, e.id LIMIT 20;",
    "headcount": "SELECT d.id, d.name, COUNT(e.id) AS c, MAX(e.salary) AS m FROM department d LEFT JOIN employee e "
                 "ON e.department = d.id GROUP BY d.id ORDER BY c DESC, m, d.name, d.id LIMIT 20;",
}
TABLES = ("CREATE TABLE department (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
          "CREATE TABLE employee (id INTEGER PRIMARY KEY, name TEXT NOT NULL, salary REAL NOT NULL, department INTEGER);\n"
          "CREATE INDEX department_name ON department(name);\n"
          "CREATE INDEX employee_department ON employee(department, name);\n")
CHUNK = 10_000


def main():
    viewlog, scratch, out = sys.argv[1], sys.argv[2], sys.argv[3]
    sizes, reps, markdown = bench_scale.options(sys.argv[4:])
    keep = "--keep" in sys.argv[4:]
    os.makedirs(scratch, exist_ok=True)
    schema_path = os.path.join(scratch, "paths-schema.json")
    with open(schema_path, "w") as f:
        json.dump(SCHEMA, f)
    result = {"sizes": sizes, "reps": reps, "rows": []}
    for n in sizes:
        rng = random.Random(28)
        departments = max(1, n // 100)
        store = os.path.join(scratch, f"paths-{n}")
        db = os.path.join(scratch, f"paths-{n}.sqlite")
        bench_scale.remove(store, db)
        names = [f"dept-{rng.randrange(10 ** 9):09d}" for _ in range(departments)]
        staff = [(i + 1, f"emp-{rng.randrange(10 ** 9):09d}", rng.randrange(10 ** 6) / 4, rng.randrange(departments) + 1)
                 for i in range(n)]
        lines = os.path.join(scratch, f"paths-{n}.jsonl")
        with open(lines, "w") as f:
            f.write(json.dumps({"changes": [{"insert": "Department", "id": d + 1, "values": {"name": names[d]}}
                                            for d in range(departments)]}) + "\n")
            for k in range(0, n, CHUNK):
                f.write(json.dumps({"changes": [{"insert": "Employee", "id": i, "values": {
                    "name": name, "salary": salary, "department": d}} for (i, name, salary, d) in staff[k:k + CHUNK]]}) + "\n")
        run([viewlog, "init", store, "--schema", schema_path])
        # One write holds at most 1,000,000 changes: a bigger load commits in chunks.
        load_s, _ = run([viewlog, "append", store, "--file", lines] + (["--chunked"] if n + departments > 1_000_000 else []))
        os.remove(lines)
        sql = [bench_scale.PRAGMAS, TABLES, "BEGIN;\n"]
        sql += [f"INSERT INTO department VALUES ({d + 1}, '{names[d]}');\n" for d in range(departments)]
        sql += [f"INSERT INTO employee VALUES ({i}, '{name}', {salary}, {d});\n" for (i, name, salary, d) in staff]
        sql.append("COMMIT;\nANALYZE;\n")
        run(["sqlite3", db], "".join(sql))
        print(f"paths: {n:,} employees loaded (viewlog append --file {load_s:.1f} s)", file=sys.stderr)
        # The transaction `diff` shows: an employee moved, another's salary changed, a department renamed.
        last = {"changes": [
            {"update": "Employee", "id": 7, "values": {"department": (staff[6][3] % departments) + 1}},
            {"update": "Employee", "id": 8, "values": {"salary": 10.0 ** 7}},
            {"update": "Department", "id": 3, "values": {"name": "dept-000000000"}}]}
        run([viewlog, "append", store], json.dumps(last) + "\n")
        run(["sqlite3", db], f"BEGIN;\nUPDATE employee SET department = {(staff[6][3] % departments) + 1} WHERE id = 7;\n"
                             "UPDATE employee SET salary = 10000000.0 WHERE id = 8;\n"
                             "UPDATE department SET name = 'dept-000000000' WHERE id = 3;\nCOMMIT;\n")
        head = int(run([viewlog, "stats", store, "--json"])[1].decode().split('"head": ')[1].split(",")[0])
        positions = ["--from", str(head - 1), "--to", str(head), "--json"]
        row = {"size": n, "load_s": load_s}
        for view in VIEWS:
            stored = run([viewlog, "diff", store, view] + positions)[1]
            memory = run([viewlog, "diff", store] + AD_HOC[view] + positions)[1]
            if stored != memory:
                sys.exit(f"error: diff {view} of the named view and of the view ad hoc differ:\n{stored[:400]}\n{memory[:400]}")
            row[view] = interleaved(reps, {
                "named": lambda: run([viewlog, "diff", store, view] + positions)[0],
                "adhoc": lambda: run([viewlog, "diff", store] + AD_HOC[view] + positions)[0],
                "sqlite": lambda: run(["sqlite3", "-json", db, SQL_WINDOW[view]])[0]})
            t = {k: row[view][k]["median_s"] for k in ("named", "adhoc", "sqlite")}
            print(f"paths: {n:,} employees diff {view}: named {t['named'] * 1e3:.1f} ms, ad hoc {t['adhoc'] * 1e3:.1f} ms,"
                  f" sqlite3 {t['sqlite'] * 1e3:.1f} ms ({t['named'] / t['sqlite']:.2f}× sqlite3)", file=sys.stderr)
        result["rows"].append(row)
        if not keep:
            bench_scale.remove(store, db)
    bench_scale.write(result, out, markdown, render)


def render(result):
    rows = result["rows"]
    lines = ["| `diff VIEW --limit 20` of the last transaction | " + " | ".join(
        f"{r['size']:,} employees: named / ad hoc / sqlite3" for r in rows) + " | named ÷ sqlite3 | slope (named) |",
        "| --- | " + " | ".join("---" for _ in rows) + " | --- | --- |"]
    for view in VIEWS:
        cells = []
        for r in rows:
            t = {k: r[view][k]["median_s"] * 1e3 for k in ("named", "adhoc", "sqlite")}
            cells.append(f"{t['named']:.1f} / {t['adhoc']:.1f} / {t['sqlite']:.1f} ms")
        ratios = ", ".join(f"{r[view]['named']['median_s'] / r[view]['sqlite']['median_s']:.3g}×" for r in rows)
        slope = "–"
        if len(rows) > 1:
            a, b = rows[0], rows[-1]
            slope = f"{math.log(b[view]['named']['median_s'] / a[view]['named']['median_s']) / math.log(b['size'] / a['size']):.2f}"
        lines.append(f"| `{view}` | " + " | ".join(cells) + f" | {ratios} | {slope} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
