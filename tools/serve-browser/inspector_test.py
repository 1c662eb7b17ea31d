"""Drives the inspector page (GET /) of a running `viewlog serve` in headless Chromium with Selenium (DESIGN §12):
load a store, move the position slider and see the view at that position, open a change set from the log, then
follow live and see an append from the CLI arrive. A screenshot of each state goes to the screenshot directory.

Usage: python inspector_test.py URL STORE VIEWLOG SCREENSHOT_DIR   (tools/serve-browser-test runs it)
"""
import json
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

url, store, viewlog, shots = sys.argv[1:5]
WAIT = 30  # seconds at most for any state of the page; never a check of how long it took


def cli_json(*arguments):
    out = subprocess.run([viewlog, *arguments, "--json"], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def view_ids(doc):
    return [row["id"] for section in doc["sections"] for row in section["rows"]]


def table_ids(driver):
    return [json.loads(tr.get_attribute("data-id")) for tr in driver.find_elements(By.CSS_SELECTOR, "#view-table tr[data-id]")]


def shown(driver):
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-shown") or 0)


def wait_position(driver, position, after=-1):
    """Waits until the page has shown `position` in a load after the `after`th."""
    WebDriverWait(driver, WAIT).until(lambda d: shown(d) > after and
                                      d.find_element(By.TAG_NAME, "body").get_attribute("data-position") == str(position))


def check(condition, message):
    if not condition:
        raise AssertionError(message)


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"):
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # for the content security policy's refusals
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
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
    driver.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", position)
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

    # The page works under its content security policy (DESIGN §12): its style applied, nothing refused.
    margin = driver.execute_script("return getComputedStyle(document.getElementById('diff-panel')).marginTop")
    check(margin == "12px", f"the page's style is not applied (#diff-panel margin-top {margin})")
    refused = [e["message"] for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]
    check(not refused, f"the content security policy refused: {refused}")
    print("ok: the page runs under its content security policy, nothing refused")
finally:
    driver.quit()
