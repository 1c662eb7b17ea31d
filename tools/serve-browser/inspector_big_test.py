"""The inspector page on a store of 1,000,000 transactions (`tools/serve-browser-test --big`, not in CI): the
view at the head and near it, the change set of an import of 100,000 employees drawn 200 rows at a time, the log
searched for a rare author, and a jump to a seq in the middle of the log. The store (schema/company.json) is made by
tools/serve-browser-test: departments at 1, 100,000 employees at 2, then one update a transaction, every 5,000th
by `audit`, the others by `hr`.

Usage: python inspector_big_test.py URL STORE VIEWLOG SCREENSHOT_DIR
"""
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import page
from page import check, cli_json, diff_ids, log_seqs, search, set_slider, shown, table_ids, view_ids, wait_position

url, store, viewlog, shots = sys.argv[1:5]
page.viewlog = viewlog
page.WAIT = 900  # a view or change set far below the head is replayed: minutes on this store
driver = page.chromium()
try:
    head = cli_json("stats", store)[0]["head"]
    check(head == 1_000_000, f"the store's head is {head}")
    driver.get(url + "/")
    WebDriverWait(driver, page.WAIT).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    check(driver.find_element(By.ID, "view-name").get_attribute("value") == "byDepartment", "the first view is not byDepartment")
    wait_position(driver, head)
    expected = cli_json("query", store, "byDepartment", "--limit", "100")[0]
    check(table_ids(driver) == view_ids(expected), "the view at the head")
    print(f"ok: the view 'byDepartment' at the head ({head})")

    position = head - 1000
    before = shown(driver)
    set_slider(driver, position)
    wait_position(driver, position, before)
    expected = cli_json("query", store, "byDepartment", "--at", str(position), "--limit", "100")[0]
    check(table_ids(driver) == view_ids(expected), f"the view at {position}")
    print(f"ok: the slider at {position} shows the view there")

    for field, value in (("diff-from", 1), ("diff-to", 2)):
        driver.find_element(By.ID, field).clear()
        driver.find_element(By.ID, field).send_keys(str(value))
    driver.find_element(By.ID, "diff").click()
    WebDriverWait(driver, page.WAIT).until(lambda d: d.find_element(By.ID, "diff-range").text == "rows 1…200 of 100000")
    check(len(diff_ids(driver)) == 200, f"{len(diff_ids(driver))} rows of the import's change set drawn")
    summary = driver.find_element(By.ID, "diff-summary").text
    check(summary == "1 → 2: 100000 insert, 1000 section inserts", f"the import's summary: {summary[:200]}")
    driver.find_element(By.ID, "diff-next").click()
    check(len(diff_ids(driver)) == 200 and driver.find_element(By.ID, "diff-range").text == "rows 201…400 of 100000",
          "the import's change set, second page")
    driver.save_screenshot(f"{shots}/big-1-import.png")
    print("ok: the import's change set of 100,000 rows, 200 drawn at a time")

    search(driver, author="audit")
    expected = [head, head - 5000]
    check(log_seqs(driver) == expected, f"the log by 'audit': {log_seqs(driver)} != {expected}")
    driver.execute_script("document.getElementById('log-range').textContent = ''")
    driver.find_element(By.ID, "search-older").click()
    WebDriverWait(driver, page.WAIT).until(lambda d: "match" in d.find_element(By.ID, "log-range").text)
    expected = [head - 10_000, head - 15_000]
    check(log_seqs(driver) == expected, f"older matches by 'audit': {log_seqs(driver)} != {expected}")
    print("ok: the log searched for a rare author, 10,000 transactions a step")

    driver.find_element(By.ID, "search-clear").click()
    driver.find_element(By.ID, "jump-seq").send_keys("500000")
    driver.find_element(By.ID, "jump").click()
    WebDriverWait(driver, page.WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#log .log-entry.target[data-seq='500000']"))
    driver.save_screenshot(f"{shots}/big-2-jump.png")
    print("ok: a jump to seq 500,000")
finally:
    driver.quit()
