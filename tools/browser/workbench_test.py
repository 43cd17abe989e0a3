#!/usr/bin/python3
"""Drives the workbench (GET /) in headless Chromium through WebDriver and checks what annotators rely on:
Enter takes the top keyword of the text as it is now and its feedback reaches the server, number keys choose,
typed keywords are corrections, queue mode with export and reload, keyword management with the token, and the
page at 360 px. Run by tools/browser/run.sh, which starts the server; the answers the page must show are
asked of the same server's API, never hard-coded.

Environment: KWSUGGEST_URL, KWSUGGEST_TOKEN, DOWNLOADS (a directory), SCREENSHOTS (optional directory).
Prints one line per test and "N passed, N failed"; exit status 1 when a test failed.
"""
import csv
import io
import json
import os
import sys
import time
import traceback
import unicodedata
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["KWSUGGEST_URL"].rstrip("/")
TOKEN = os.environ["KWSUGGEST_TOKEN"]
DOWNLOADS = os.environ["DOWNLOADS"]
SHOTS = os.environ.get("SCREENSHOTS")
CHROMEDRIVER = "/usr/bin/chromedriver"   # Debian's chromium-driver: Selenium never looks for or downloads one
CHROMIUM = "/usr/bin/chromium"


def api(method, path, body=None, token=True):
    """(status, parsed JSON or text) of one request to the server under test."""
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + TOKEN
    request = urllib.request.Request(URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def top_keywords(name):
    status, body = api("POST", "/v1/suggest", {"name": name, "k": 5}, token=False)
    assert status == 200, (status, body)
    return [s["keyword"] for s in body["suggestions"]]


def feedback_records():
    """Every feedback record the server stored, as stored."""
    status, body = api("GET", "/v1/feedback/export?format=raw")
    assert status == 200, ("feedback export", status, body)
    return [json.loads(line) for line in body.splitlines() if line.strip()] if isinstance(body, str) else [body]


def wait(driver, condition, seconds=30, message=""):
    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(lambda d: condition(d), message)


def wait_for(condition, seconds=30, message=""):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out: " + message)


def shot(driver, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, "workbench-" + name + ".png"))


def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--hide-scrollbars", "--window-size=900,900", "--lang=ja"]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS,
                                              "download.prompt_for_download": False})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def open_fresh(driver, token=True):
    """The page with empty storage, the token entered when asked."""
    driver.get(URL + "/")
    driver.execute_script("localStorage.clear(); sessionStorage.clear();")
    driver.get(URL + "/")
    wait(driver, lambda d: d.execute_script("return document.readyState") == "complete")
    if token:
        field = driver.find_element(By.ID, "token")
        field.send_keys(TOKEN)
        field.send_keys(Keys.TAB)   # the change event stores it


def keyword_value(driver):
    return driver.find_element(By.ID, "keyword").get_attribute("value")


def shown_keywords(driver):
    return [b.get_attribute("data-keyword") for b in driver.find_elements(By.CSS_SELECTOR, "#suggestions button")]


def press(driver, keys):
    ActionChains(driver).send_keys(keys).perform()


# MARK: tests

def test_enter_takes_the_top_keyword_and_its_feedback_reaches_the_server(driver):
    open_fresh(driver)
    name = "淡路島産 カラーにんじん 3本"
    expected = top_keywords(name)
    field = driver.find_element(By.ID, "name")
    field.send_keys(name)
    field.send_keys(Keys.ENTER)   # at once: before the debounced request, so Enter has to wait for it
    wait(driver, lambda d: keyword_value(d) != "", message="Enter took nothing")
    assert keyword_value(driver) == expected[0], (keyword_value(driver), expected)
    records = wait_for(lambda: [r for r in feedback_records() if r.get("name") == name], message="no feedback record")
    assert records[-1]["action"] == "accept" and records[-1]["keyword"] == expected[0], records
    assert records[-1]["shown"] == expected, records
    shot(driver, "enter-accepted")

    # Number keys choose whenever focus is not in a text field (Esc leaves the name field).
    field.send_keys(Keys.ESCAPE)
    press(driver, "2")
    wait(driver, lambda d: keyword_value(d) == expected[1], message="key 2 did not choose the second suggestion")
    records = wait_for(lambda: [r for r in feedback_records() if r.get("name") == name and r.get("keyword") == expected[1]],
                       message="no feedback for key 2")
    assert records[-1]["action"] == "accept", records
    rows = driver.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")
    assert len(rows) == 2, len(rows)
    wait(driver, lambda d: all("saved" in r.find_elements(By.TAG_NAME, "td")[6].text
                               for r in d.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")), message="decisions not saved")


def test_enter_never_takes_the_suggestions_of_an_older_text(driver):
    open_fresh(driver)
    first, second = "北海道産 玉ねぎ 10kg", "国産 豚バラ肉 スライス 500g"
    old, fresh = top_keywords(first), top_keywords(second)
    assert old[0] != fresh[0], (old, fresh)
    field = driver.find_element(By.ID, "name")
    field.send_keys(first)
    wait(driver, lambda d: shown_keywords(d)[:1] == old[:1], message="first suggestions never shown")
    field.send_keys(Keys.CONTROL + "a")
    field.send_keys(second)
    field.send_keys(Keys.ENTER)   # the shown suggestions are still those of the first text
    wait(driver, lambda d: keyword_value(d) != "", message="Enter took nothing")
    assert keyword_value(driver) == fresh[0], (keyword_value(driver), fresh, old)


def test_a_typed_keyword_is_a_correction_and_not_added(driver):
    open_fresh(driver)
    name = "有機栽培 ミニトマト 1パック"
    expected = top_keywords(name)
    correction = "トマト（補正）"
    driver.find_element(By.ID, "name").send_keys(name)
    wait(driver, lambda d: shown_keywords(d) == expected, message="suggestions never shown")
    keyword = driver.find_element(By.ID, "keyword")
    keyword.send_keys(correction)
    keyword.send_keys(Keys.ENTER)
    records = wait_for(lambda: [r for r in feedback_records() if r.get("name") == name], message="no feedback record")
    # Keywords are stored in NFKC, so the full-width parentheses come back as ASCII ones.
    stored = unicodedata.normalize("NFKC", correction)
    assert records[-1]["action"] == "correct" and records[-1]["keyword"] == stored, records
    status, body = api("GET", "/v1/keywords", token=False)
    assert status == 200 and stored not in body["keywords"], "a correction must not add the keyword"
    # One of the five typed by hand is an accept.
    keyword.send_keys(Keys.CONTROL + "a")
    keyword.send_keys(expected[2])
    keyword.send_keys(Keys.ENTER)
    records = wait_for(lambda: [r for r in feedback_records() if r.get("name") == name and r.get("keyword") == expected[2]],
                       message="no feedback for the typed accept")
    assert records[-1]["action"] == "accept", records
    shot(driver, "correction")


def test_queue_of_three_names_survives_a_reload_and_exports(driver):
    open_fresh(driver)
    names = ["青森県産 サンふじ 5kg", "鹿児島県産 さつまいも 紅はるか 2kg", "国産 鶏もも肉 2枚"]
    tops = [top_keywords(n)[0] for n in names]
    driver.find_element(By.ID, "queue-text").send_keys("\n".join(names))
    driver.find_element(By.ID, "queue-start").click()
    for i, name in enumerate(names):
        wait(driver, lambda d: d.find_element(By.ID, "queue-progress").text == f"name {i + 1} of 3", message=f"queue at {i}")
        if i == 1:
            shot(driver, "queue")
            driver.refresh()   # the queue and the decisions so far come back from localStorage
            wait(driver, lambda d: d.find_element(By.ID, "queue-progress").text == "name 2 of 3", message="queue lost on reload")
            assert len(driver.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")) == 1, "decisions lost on reload"
        assert driver.find_element(By.ID, "name").get_attribute("value") == name
        wait(driver, lambda d: shown_keywords(d)[:1] == [tops[i]], message=f"suggestions for {name}")
        press(driver, "1")
    wait(driver, lambda d: d.find_element(By.ID, "queue-progress").text == "queue done: 3 names", message="queue not done")
    wait(driver, lambda d: all("saved" in r.find_elements(By.TAG_NAME, "td")[6].text
                               for r in d.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")), message="decisions not saved")
    driver.execute_script("document.getElementById('queue-progress').scrollIntoView({block: 'start'})")
    shot(driver, "queue-done")
    for leftover in ("decisions.csv", "decisions.jsonl"):
        if os.path.exists(os.path.join(DOWNLOADS, leftover)):
            os.remove(os.path.join(DOWNLOADS, leftover))
    driver.find_element(By.ID, "export-csv").click()
    driver.find_element(By.ID, "export-jsonl").click()
    csv_path, jsonl_path = os.path.join(DOWNLOADS, "decisions.csv"), os.path.join(DOWNLOADS, "decisions.jsonl")
    wait_for(lambda: os.path.exists(csv_path) and os.path.exists(jsonl_path), message="exports not downloaded")
    time.sleep(0.3)
    with open(csv_path, encoding="utf-8") as file:
        rows = list(csv.DictReader(io.StringIO(file.read())))
    assert [(r["name"], r["keyword"], r["action"]) for r in rows] == [(n, t, "accept") for n, t in zip(names, tops)], rows
    with open(jsonl_path, encoding="utf-8") as file:
        lines = [json.loads(line) for line in file if line.strip()]
    assert [(r["name"], r["keyword"], r["rank"]) for r in lines] == [(n, t, 1) for n, t in zip(names, tops)], lines
    stored = feedback_records()
    for name, top in zip(names, tops):
        assert any(r.get("name") == name and r.get("keyword") == top and r.get("action") == "accept" for r in stored), name


def test_csv_cells_that_a_spreadsheet_would_run_are_escaped(driver):
    open_fresh(driver)
    name = "=HYPERLINK(\"http://example.invalid\") にんじん"
    correction = "=にんじん"
    driver.find_element(By.ID, "queue-text").send_keys(name)
    driver.find_element(By.ID, "queue-start").click()
    wait(driver, lambda d: d.find_element(By.ID, "queue-progress").text == "name 1 of 1", message="queue not started")
    wait(driver, lambda d: len(shown_keywords(d)) > 0, message="suggestions never shown")
    keyword = driver.find_element(By.ID, "keyword")
    keyword.send_keys(correction)
    keyword.send_keys(Keys.ENTER)
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")) == 1, message="no decision")
    csv_path = os.path.join(DOWNLOADS, "decisions.csv")
    if os.path.exists(csv_path):
        os.remove(csv_path)
    driver.find_element(By.ID, "export-csv").click()
    wait_for(lambda: os.path.exists(csv_path), message="CSV not downloaded")
    time.sleep(0.3)
    with open(csv_path, encoding="utf-8") as file:
        rows = list(csv.DictReader(io.StringIO(file.read())))
    assert [(r["name"], r["keyword"], r["action"]) for r in rows] == [("'" + name, "'" + correction, "correct")], rows
    assert not rows[0]["rank"].startswith("'") and not rows[0]["time"].startswith("'"), rows


def test_the_page_cannot_be_framed_and_runs_no_inline_code(driver):
    for path in ("/", "/workbench.js", "/workbench.css"):
        with urllib.request.urlopen(URL + path) as response:
            policy = response.headers["Content-Security-Policy"]
            assert "script-src 'self';" in policy and "unsafe-inline" not in policy, policy
            assert "frame-ancestors 'none'" in policy, policy
            assert response.headers["X-Frame-Options"] == "DENY", path
            assert response.headers["X-Content-Type-Options"] == "nosniff", path


def test_keywords_are_added_and_removed_with_the_token(driver):
    open_fresh(driver, token=False)
    new = "ブラウザテスト用キーワード"
    status, body = api("GET", "/v1/keywords", token=False)
    assert new not in body["keywords"]
    driver.find_element(By.ID, "kw-new").send_keys(new)
    driver.find_element(By.ID, "kw-add").click()
    wait(driver, lambda d: "token" in d.find_element(By.ID, "kw-status").text, message="no 401 message without the token")
    assert new not in api("GET", "/v1/keywords", token=False)[1]["keywords"]
    token = driver.find_element(By.ID, "token")
    token.send_keys(TOKEN)
    token.send_keys(Keys.TAB)
    driver.find_element(By.ID, "kw-add").click()
    wait(driver, lambda d: d.find_element(By.ID, "kw-status").text.startswith("added " + new), message="not added")
    assert new in api("GET", "/v1/keywords", token=False)[1]["keywords"]
    driver.find_element(By.ID, "kw-filter").send_keys("ブラウザテスト")
    wait(driver, lambda d: [li.text.replace("×", "").strip() for li in d.find_elements(By.CSS_SELECTOR, "#kw-list li")] == [new],
         message="filter does not show the new keyword")
    shot(driver, "keywords")
    driver.find_element(By.CSS_SELECTOR, "#kw-list li button").click()
    wait(driver, lambda d: d.find_element(By.ID, "kw-status").text.startswith("removed " + new), message="not removed")
    assert new not in api("GET", "/v1/keywords", token=False)[1]["keywords"]


def test_the_page_at_360_px(driver):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 360, "height": 780, "deviceScaleFactor": 1, "mobile": True})
    try:
        open_fresh(driver)
        name = "肉の日限定10%オフ！国産豚バラ肉 500g"
        expected = top_keywords(name)
        driver.find_element(By.ID, "name").send_keys(name)
        wait(driver, lambda d: shown_keywords(d) == expected, message="suggestions never shown")
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 360, f"the page scrolls sideways: {width} px wide"
        for selector in ["#name", "#keyword", "#suggestions button", "#reject", "#queue-start", "#export-csv", "#kw-add", "#token"]:
            right = driver.execute_script("return document.querySelector(arguments[0]).getBoundingClientRect().right", selector)
            assert right <= 360, f"{selector} reaches {right} px"
        unlabelled = driver.execute_script(
            "return Array.from(document.querySelectorAll('input, textarea')).filter(e => e.labels.length === 0).map(e => e.id)")
        assert unlabelled == [], f"inputs without a label: {unlabelled}"
        shot(driver, "360px")
        # Focus order: from the name field to its suggestions, the keyword field, then the queue.
        driver.execute_script("document.getElementById('name').focus()")
        order = []
        for _ in range(8):
            press(driver, Keys.TAB)
            order.append(driver.execute_script(
                "const e = document.activeElement; return e.id || (e.dataset && e.dataset.rank ? 'suggestion-' + e.dataset.rank : e.tagName)"))
        assert order == ["suggestion-1", "suggestion-2", "suggestion-3", "suggestion-4", "suggestion-5", "keyword", "reject",
                         "queue-text"], order
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


TESTS = [
    test_enter_takes_the_top_keyword_and_its_feedback_reaches_the_server,
    test_enter_never_takes_the_suggestions_of_an_older_text,
    test_a_typed_keyword_is_a_correction_and_not_added,
    test_queue_of_three_names_survives_a_reload_and_exports,
    test_csv_cells_that_a_spreadsheet_would_run_are_escaped,
    test_the_page_cannot_be_framed_and_runs_no_inline_code,
    test_keywords_are_added_and_removed_with_the_token,
    test_the_page_at_360_px,
]


def main():
    os.makedirs(DOWNLOADS, exist_ok=True)
    passed = failed = 0
    driver = make_driver()
    try:
        for test in TESTS:
            started = time.time()
            try:
                test(driver)
                passed += 1
                print(f"ok    {test.__name__} ({time.time() - started:.1f} s)", flush=True)
            except Exception:
                failed += 1
                print(f"FAIL  {test.__name__} ({time.time() - started:.1f} s)", flush=True)
                traceback.print_exc(file=sys.stdout)
    finally:
        driver.quit()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
