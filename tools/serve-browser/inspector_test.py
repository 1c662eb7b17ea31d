"""Drives the inspector page (GET /) of a running `viewlog serve` in headless Chromium with Selenium (DESIGN §12):
load a store, move the position slider and see the view at that position, open a change set from the log, page
through a change set of 600 rows, see a late answer dropped, search the log, then follow live and see an append
from the CLI arrive; then, on a store of its own with relationships (schema/company.json), see path values and
follow a relationship to the object and its history. A screenshot of each state goes to the screenshot directory.

Usage: python inspector_test.py URL STORE VIEWLOG SCREENSHOT_DIR   (tools/serve-browser-test runs it)
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

import page
from page import check, cli_json, diff_ids, log_seqs, search, set_slider, shown, table_ids, text, view_ids, wait_position

url, store, viewlog, shots = sys.argv[1:5]
page.viewlog = viewlog
WAIT = page.WAIT
driver = page.chromium()
try:
    head = cli_json("stats", store)[0]["head"]
    driver.get(url + "/")
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    wait_position(driver, head)
    before = shown(driver)
    Select(driver.find_element(By.ID, "view-name")).select_by_value("tall")
    wait_position(driver, head, before)
    expected = cli_json("query", store, "tall", "--limit", "100")[0]
    check(table_ids(driver) == view_ids(expected), f"the view at the head: {table_ids(driver)} != {view_ids(expected)}")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#log .log-entry")) > 0, "the log shows no transactions")
    driver.save_screenshot(f"{shots}/1-head.png")
    print(f"ok: the page shows the view 'tall' at the head ({head}) and the log")

    # The slider: an older position shows the view as it was there.
    position = max(1, head // 2)
    before = shown(driver)
    set_slider(driver, position)
    wait_position(driver, position, before)
    expected = cli_json("query", store, "tall", "--at", str(position), "--limit", "100")[0]
    check(table_ids(driver) == view_ids(expected), f"the view at {position}: {table_ids(driver)} != {view_ids(expected)}")
    driver.save_screenshot(f"{shots}/2-slider.png")
    print(f"ok: the slider at {position} shows the view at {position}")

    # A transaction of the log: its change set for the view, drawn row by row.
    entry = driver.find_element(By.CSS_SELECTOR, f"#log .log-entry[data-seq='{head}']") if driver.find_elements(
        By.CSS_SELECTOR, f"#log .log-entry[data-seq='{head}']") else driver.find_elements(By.CSS_SELECTOR, "#log .log-entry")[0]
    seq = int(entry.get_attribute("data-seq"))
    before = shown(driver)
    entry.click()
    wait_position(driver, seq, before)
    expected = cli_json("diff", store, "tall", "--from", str(seq - 1), "--to", str(seq))[0]
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "diff-summary").text.startswith(f"{seq - 1} → {seq}"))
    kinds = [tr.get_attribute("class") for tr in driver.find_elements(By.CSS_SELECTOR, "#diff-table tr[class]")]
    check(kinds == [r["type"] for r in expected["rows"]], f"the change set {seq - 1} → {seq}: {kinds} != {expected['rows']}")
    driver.save_screenshot(f"{shots}/3-diff.png")
    print(f"ok: the change set {seq - 1} → {seq} shows {kinds}")

    # A change set of 600 rows (the import at 41) is drawn 200 rows at a time.
    for field, value in (("diff-from", 40), ("diff-to", 41)):
        driver.find_element(By.ID, field).clear()
        driver.find_element(By.ID, field).send_keys(str(value))
    before = shown(driver)
    driver.find_element(By.ID, "diff").click()
    wait_position(driver, 41, before)
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "diff-summary").text.startswith("40 → 41"))
    expected = [r["id"] for r in cli_json("diff", store, "tall", "--from", "40", "--to", "41")[0]["rows"]]
    check(len(expected) == 600, f"the import changes {len(expected)} rows of 'tall', not 600")
    check(diff_ids(driver) == expected[:200], f"the change set's first page: {len(diff_ids(driver))} rows")
    check(driver.find_element(By.ID, "diff-range").text == "rows 1…200 of 600", driver.find_element(By.ID, "diff-range").text)
    driver.find_element(By.ID, "diff-next").click()
    check(diff_ids(driver) == expected[200:400], f"the change set's second page: {len(diff_ids(driver))} rows")
    check(driver.find_element(By.ID, "diff-range").text == "rows 201…400 of 600", driver.find_element(By.ID, "diff-range").text)
    driver.save_screenshot(f"{shots}/5-paged.png")
    print("ok: a change set of 600 rows is drawn 200 at a time, with its count")

    # Moving clears what showed the old position at once; an answer that arrives after a newer one is dropped.
    # The page's fetch is slowed for the query at `slow`, asked first: its answer comes after the one for the head.
    slow = 20
    check(view_ids(cli_json("query", store, "tall", "--at", str(slow), "--limit", "100")[0]) !=
          view_ids(cli_json("query", store, "tall", "--limit", "100")[0]), "the views at 20 and at the head are the same")
    driver.execute_script("""
        const original = window.fetch, slow = `at=${arguments[0]}&`;
        window.lateAnswers = 0;
        window.fetch = async (path, init) => {
          const response = await original(path, init);
          if (String(path).startsWith("/v1/query?") && String(path).includes(slow)) {
            window.slowAsked = true;
            await new Promise((resolve) => setTimeout(resolve, 1500));
            // Counted once the page has done all it does with the answer (its microtasks run first).
            const json = response.json.bind(response);
            response.json = async () => { const body = await json(); setTimeout(() => { window.lateAnswers += 1; }); return body; };
          }
          return response;
        };""", slow)
    before = shown(driver)
    left = driver.execute_script("""
        const s = document.getElementById('slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));
        return document.querySelectorAll('#view-table tr[data-id], #diff-table tr[data-id]').length;""", slow)
    check(left == 0, f"{left} rows of the old position still shown after the move")
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return window.slowAsked === true"))
    set_slider(driver, head)
    wait_position(driver, head, before)
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return window.lateAnswers") == 1)
    expected = cli_json("query", store, "tall", "--limit", "100")[0]
    check(table_ids(driver) == view_ids(expected), f"a late answer overwrote the view at the head: {table_ids(driver)}")
    check(driver.find_element(By.TAG_NAME, "body").get_attribute("data-position") == str(head), "a late answer was shown")
    print(f"ok: moving clears the old rows at once, and the late answer for {slow} does not overwrite the head's")

    # The log searched by author, by entity and id, and a jump to a seq.
    log = cli_json("log", store)
    search(driver, author="sync")
    expected = [t["seq"] for t in reversed(log) if t["author"] == "sync"]
    check(log_seqs(driver) == expected, f"the log by 'sync': {log_seqs(driver)} != {expected}")
    search(driver, entity="Employee", id="e1")
    expected = [t["seq"] for t in reversed(log) if any(c.get("entity") == "Employee" and c.get("id") == "e1" for c in t["changes"])]
    check(len(expected) > 1 and log_seqs(driver) == expected, f"the log of Employee e1: {log_seqs(driver)} != {expected}")
    driver.find_element(By.ID, "search-clear").click()
    driver.find_element(By.ID, "jump-seq").send_keys("10")
    driver.find_element(By.ID, "jump").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#log .log-entry.target[data-seq='10']"))
    driver.save_screenshot(f"{shots}/6-search.png")
    print(f"ok: the log searched by author and by object ({expected}), and a jump to seq 10")

    # Live: follow watch, append from the CLI (another process), see the table change.
    driver.find_element(By.ID, "live").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "live-state").text == "following the head")
    before = shown(driver)
    subprocess.run([viewlog, "append", store, "update", "Employee", "e1", "height=250", "sectionName=Z"], check=True,
                   capture_output=True)
    wait_position(driver, head + 1, before)
    expected = cli_json("query", store, "tall", "--limit", "100")[0]
    check(table_ids(driver) == view_ids(expected), f"the live view: {table_ids(driver)} != {view_ids(expected)}")
    moved = driver.find_elements(By.CSS_SELECTOR, "#view-table tr.move, #view-table tr.update, #view-table tr.insert")
    check(len(moved) > 0, "the live batch is not drawn in the table")
    time.sleep(0.3)  # for the screenshot only: the flash animation has started
    driver.save_screenshot(f"{shots}/4-live.png")
    print(f"ok: live mode shows the append at {head + 1}")

    # Relationships (schema/company.json): path values and `include` columns, a relationship's id a link to the
    # object it names, which shows the object and its history.
    with tempfile.TemporaryDirectory() as directory:
        company = os.path.join(directory, "company")
        subprocess.run([viewlog, "init", company, "--schema", "schema/company.json"], check=True, capture_output=True)
        lines = [{"insert": "Department", "id": d, "values": {"name": n, "floor": d}} for d, n in ((1, "Sales"), (2, "Research"), (3, "Ops"))]
        lines.append({"insert": "Employee", "id": "m1", "values": {"name": "Mia", "department": 3}})
        lines += [{"insert": "Employee", "id": f"e{i}", "values": {"name": f"Emp {i}", "department": i % 3 + 1, "manager": "m1"}}
                  for i in range(1, 9)]
        lines += [{"update": "Department", "id": 2, "values": {"name": "R&D"}}, {"update": "Employee", "id": "e2", "values": {"department": 1}}]
        subprocess.run([viewlog, "append", company], input="\n".join(json.dumps(l) for l in lines) + "\n", text=True,
                       check=True, capture_output=True)
        server = subprocess.Popen([viewlog, "serve", company], stdout=subprocess.PIPE, text=True)
        try:
            company_url = server.stdout.readline().strip().removeprefix("listening on ")
            driver.get(company_url + "/")
            WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
            company_head = cli_json("stats", company)[0]["head"]
            wait_position(driver, company_head)
            WebDriverWait(driver, WAIT).until(lambda d: len(diff_ids(d)) == 1)  # e2 moves in 'byDepartment'
            before = shown(driver)
            Select(driver.find_element(By.ID, "view-name")).select_by_value("upstairs")
            check(not diff_ids(driver), "the change set of the view shown before is still drawn")
            wait_position(driver, company_head, before)
            expected = cli_json("query", company, "upstairs", "--limit", "100")[0]
            header = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#view-table th")]
            paths = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#view-table th.path")]
            check(paths == ["department.floor", "manager.name"], f"the path columns: {paths}")
            cells = driver.execute_script(
                "return [...document.querySelectorAll('#view-table tr[data-id]')].map((tr) => [...tr.cells].map((td) => td.textContent))")
            rows = [row for section in expected["sections"] for row in section["rows"]]
            check(len(cells) == len(rows) > 0, f"{len(cells)} rows drawn, {len(rows)} in the view")
            for drawn, row in zip(cells, rows):
                drawn = dict(zip(header, drawn))
                for key, value in list(row["values"].items()) + list(row["paths"].items()):
                    check(drawn[key] == text(value), f"row {row['id']}: {key} is {drawn[key]!r}, not {text(value)!r}")
            link = driver.find_element(By.CSS_SELECTOR, "#view-table a.rel[data-entity='Department'][data-id='2']")
            department = json.loads(link.get_attribute("data-id"))
            link.click()
            WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#object-table tr"))
            WebDriverWait(driver, WAIT).until(lambda d: "match" in d.find_element(By.ID, "log-range").text)
            values = {tr.find_element(By.TAG_NAME, "th").text: tr.find_element(By.TAG_NAME, "td").text
                      for tr in driver.find_elements(By.CSS_SELECTOR, "#object-table tr")}
            got = cli_json("get", company, "Department", str(department))[0]["values"]
            check(values == {k: text(v) for k, v in got.items()}, f"Department {department}: {values} != {got}")
            history = [t["seq"] for t in reversed(cli_json("log", company))
                       if any(c.get("entity") == "Department" and c.get("id") == department for c in t["changes"])]
            check(log_seqs(driver) == history, f"the history of Department {department}: {log_seqs(driver)} != {history}")
            driver.save_screenshot(f"{shots}/7-relationships.png")
            print(f"ok: path values and include columns drawn; Department {department} and its history ({history}) "
                  "through a link")
        finally:
            server.terminate()
            server.wait()

    # The page works under its content security policy (DESIGN §12): its style applied, nothing refused.
    margin = driver.execute_script("return getComputedStyle(document.getElementById('diff-panel')).marginTop")
    check(margin == "12px", f"the page's style is not applied (#diff-panel margin-top {margin})")
    refused = [e["message"] for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]
    check(not refused, f"the content security policy refused: {refused}")
    print("ok: the page runs under its content security policy, nothing refused")
finally:
    driver.quit()
