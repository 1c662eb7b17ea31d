"""What the browser tests of the inspector page (inspector_test.py, inspector_big_test.py) share: the browser, the
page's state as the tests read it, and the CLI's documents to compare it with."""
import json
import subprocess

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

viewlog = "viewlog"  # the binary the checks compare with; set by the test
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


def text(value):
    """A value as the page writes it in a cell (JavaScript writes the double 1.0 as 1)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return "null" if value is None else value if isinstance(value, str) else json.dumps(value)


def log_seqs(driver):
    return [int(e.get_attribute("data-seq")) for e in driver.find_elements(By.CSS_SELECTOR, "#log .log-entry")]


def diff_ids(driver):
    return [json.loads(tr.get_attribute("data-id")) for tr in driver.find_elements(By.CSS_SELECTOR, "#diff-table tr[data-id]")]


def search(driver, author="", entity="", id=""):
    for field, value in (("search-author", author), ("search-entity", entity), ("search-id", id)):
        driver.find_element(By.ID, field).clear()
        driver.find_element(By.ID, field).send_keys(value)
    driver.execute_script("document.getElementById('log-range').textContent = ''")
    driver.find_element(By.ID, "search").click()
    WebDriverWait(driver, WAIT).until(lambda d: "match" in d.find_element(By.ID, "log-range").text)


def set_slider(driver, position):
    driver.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", position)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def chromium():
    """Headless Chromium (Debian's), its console kept for the content security policy's refusals."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
