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
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
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
    # Lists are replaced whenever their data arrives (a keyword page, say), so an element found just before a
    # re-render is read again rather than failing the test.
    return WebDriverWait(driver, seconds, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d), message)


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


def open_fresh(driver, token=True, view="try", annotator=None):
    """The page with empty storage on `view`, the token (and an annotator name) entered under Settings when asked."""
    driver.get(URL + "/#settings")
    driver.execute_script("localStorage.clear(); sessionStorage.clear();")
    driver.refresh()   # a load with nothing stored (a navigation to another #view would not reload the page)
    wait(driver, lambda d: d.execute_script("return document.readyState") == "complete")
    for field_id, value in (("token", TOKEN if token else None), ("annotator", annotator)):
        if value:
            field = driver.find_element(By.ID, field_id)
            field.clear()
            field.send_keys(value)
            field.send_keys(Keys.TAB)   # the change event stores it
    driver.find_element(By.ID, "tab-" + view).click()
    wait(driver, lambda d: d.find_element(By.ID, "view-" + view).is_displayed(), message=view + " view not shown")


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
    status, body = api("GET", "/v1/keywords?prefix=" + urllib.parse.quote(stored), token=False)
    assert status == 200 and stored not in body["keywords"], "a correction must not add the keyword"
    # One of the five typed by hand is an accept.
    keyword.send_keys(Keys.CONTROL + "a")
    keyword.send_keys(expected[2])
    keyword.send_keys(Keys.ENTER)
    records = wait_for(lambda: [r for r in feedback_records() if r.get("name") == name and r.get("keyword") == expected[2]],
                       message="no feedback for the typed accept")
    assert records[-1]["action"] == "accept", records
    shot(driver, "correction")


def test_a_decided_product_is_answered_from_memory_and_marked(driver):
    open_fresh(driver)
    decided = "北海道産 男爵いも 5kg"
    before = top_keywords(decided)
    keyword = before[2]   # a listed keyword that is not the model's first
    status, body = api("POST", "/v1/feedback", {"name": decided, "keyword": keyword, "action": "correct",
                                                "annotator": "memory-test"})
    assert status == 201, (status, body)
    variant = "【まとめ買い】北海道産 男爵いも 10kg ×2"
    driver.find_element(By.ID, "name").send_keys(variant)
    wait(driver, lambda d: shown_keywords(d)[:1] == [keyword], message="the decided keyword never came first")
    first = driver.find_element(By.CSS_SELECTOR, "#suggestions li:first-child button")
    tag = first.find_element(By.CSS_SELECTOR, ".memory")
    assert tag.text == "decided", tag.text
    assert decided in tag.get_attribute("title"), tag.get_attribute("title")
    assert "decided before" in first.get_attribute("aria-label"), first.get_attribute("aria-label")
    assert not driver.find_elements(By.CSS_SELECTOR, "#suggestions li:nth-child(2) .memory"), "only the decision is marked"
    shot(driver, "memory")


def test_decisions_survive_a_reload_and_export(driver):
    open_fresh(driver)
    names = ["青森県産 サンふじ 5kg", "鹿児島県産 さつまいも 紅はるか 2kg", "国産 鶏もも肉 2枚"]
    tops = [top_keywords(n)[0] for n in names]
    field = driver.find_element(By.ID, "name")
    for i, name in enumerate(names):
        field.send_keys(Keys.CONTROL + "a")
        field.send_keys(name)
        wait(driver, lambda d: shown_keywords(d)[:1] == [tops[i]], message=f"suggestions for {name}")
        field.send_keys(Keys.ENTER)
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")) == i + 1, message=f"decision {i}")
        if i == 1:
            driver.refresh()   # the decisions so far come back from localStorage
            wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")) == 2, message="decisions lost on reload")
            field = driver.find_element(By.ID, "name")
    wait(driver, lambda d: all("saved" in r.find_elements(By.TAG_NAME, "td")[6].text
                               for r in d.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")), message="decisions not saved")
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


def test_csv_cells_that_a_spreadsheet_would_run_are_escaped(driver):
    open_fresh(driver)
    name = "=HYPERLINK(\"http://example.invalid\") にんじん"
    correction = "=にんじん"
    driver.find_element(By.ID, "name").send_keys(name)
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
    for path in ("/", "/workbench.js", "/queue.js", "/workbench.css"):
        with urllib.request.urlopen(URL + path) as response:
            policy = response.headers["Content-Security-Policy"]
            assert "script-src 'self';" in policy and "unsafe-inline" not in policy, policy
            assert "frame-ancestors 'none'" in policy, policy
            assert response.headers["X-Frame-Options"] == "DENY", path
            assert response.headers["X-Content-Type-Options"] == "nosniff", path


def test_keywords_are_added_and_removed_with_the_token(driver):
    open_fresh(driver, token=False, view="keywords")
    new = "ブラウザテスト用キーワード"
    status, body = api("GET", "/v1/keywords?prefix=" + urllib.parse.quote(new), token=False)
    assert new not in body["keywords"]
    driver.find_element(By.ID, "kw-new").send_keys(new)
    driver.find_element(By.ID, "kw-add").click()
    wait(driver, lambda d: "token" in d.find_element(By.ID, "kw-status").text, message="no 401 message without the token")
    assert new not in api("GET", "/v1/keywords?prefix=" + urllib.parse.quote(new), token=False)[1]["keywords"]
    driver.find_element(By.ID, "tab-settings").click()
    token = driver.find_element(By.ID, "token")
    token.send_keys(TOKEN)
    token.send_keys(Keys.TAB)
    driver.find_element(By.ID, "tab-keywords").click()
    driver.find_element(By.ID, "kw-add").click()
    wait(driver, lambda d: d.find_element(By.ID, "kw-status").text.startswith("added " + new), message="not added")
    assert new in api("GET", "/v1/keywords?prefix=" + urllib.parse.quote(new), token=False)[1]["keywords"]
    driver.find_element(By.ID, "kw-filter").send_keys("ブラウザテスト")
    wait(driver, lambda d: [li.text.replace("×", "").strip() for li in d.find_elements(By.CSS_SELECTOR, "#kw-list li")] == [new],
         message="filter does not show the new keyword")
    shot(driver, "keywords")
    # The × asks first: Cancel keeps the keyword, Remove takes it out.
    driver.find_element(By.CSS_SELECTOR, "#kw-list li button").click()
    wait(driver, lambda d: d.find_element(By.ID, "kw-confirm").get_attribute("open") is not None, message="no confirmation")
    assert new in driver.find_element(By.ID, "kw-confirm").text
    driver.find_element(By.ID, "kw-confirm-cancel").click()
    assert new in api("GET", "/v1/keywords?prefix=" + urllib.parse.quote(new), token=False)[1]["keywords"], \
        "removed without a confirmation"
    driver.find_element(By.CSS_SELECTOR, "#kw-list li button").click()
    wait(driver, lambda d: d.find_element(By.ID, "kw-confirm").get_attribute("open") is not None, message="no confirmation")
    shot(driver, "keyword-removal-confirmation")
    driver.find_element(By.ID, "kw-confirm-remove").click()
    wait(driver, lambda d: d.find_element(By.ID, "kw-status").text.startswith("removed " + new), message="not removed")
    assert new not in api("GET", "/v1/keywords?prefix=" + urllib.parse.quote(new), token=False)[1]["keywords"]


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
        for selector in ["#name", "#keyword", "#suggestions button", "#reject", "#export-csv", "#tab-settings"]:
            right = driver.execute_script("return document.querySelector(arguments[0]).getBoundingClientRect().right", selector)
            assert right <= 360, f"{selector} reaches {right} px"
        unlabelled = driver.execute_script(
            "return Array.from(document.querySelectorAll('input, textarea')).filter(e => e.labels.length === 0).map(e => e.id)")
        assert unlabelled == [], f"inputs without a label: {unlabelled}"
        shot(driver, "360px")
        # Focus order: from the name field to its suggestions, the keyword field, then the decisions.
        driver.execute_script("document.getElementById('name').focus()")
        order = []
        for _ in range(8):
            press(driver, Keys.TAB)
            order.append(driver.execute_script(
                "const e = document.activeElement; return e.id || (e.dataset && e.dataset.rank ? 'suggestion-' + e.dataset.rank : e.tagName)"))
        assert order == ["suggestion-1", "suggestion-2", "suggestion-3", "suggestion-4", "suggestion-5", "keyword", "reject",
                         "export-csv"], order
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})



# MARK: the team queue (the server runs with --queue-overlap 0, so no item is meant for two annotators)

QUEUE_RUN = str(int(time.time()))


def queue_items(count, prefix):
    """Puts `count` names from bench/names.txt in the queue under fresh ids; returns the ids that were queued
    (not auto-accepted, nor labelled from the decision memory) with their names and top keywords."""
    names = [line.strip() for line in open(os.path.join(os.path.dirname(__file__), "../../bench/names.txt"), encoding="utf-8")
             if line.strip()][:count]
    items = [{"id": f"{prefix}-{QUEUE_RUN}-{i}", "name": name} for i, name in enumerate(names)]
    status, body = api("POST", "/v1/queue/items", {"items": items})
    assert status == 200, (status, body)
    status, batch = api("POST", "/v1/suggest/batch", {"names": [item["name"] for item in items], "k": 5}, token=False)
    assert status == 200, (status, batch)
    queued = {}
    for item, result in zip(items, batch["results"]):
        # A name an earlier test decided is labelled by the decision memory on arrival, not queued.
        if not result["auto_accept"] and result["suggestions"] and result["suggestions"][0]["source"] != "memory":
            queued[item["id"]] = {"name": item["name"], "top": [s["keyword"] for s in result["suggestions"]]}
    return queued


def drain_other_items(annotator):
    """Labels everything left in the queue for `annotator` through the API, so a test starts from its own items."""
    while True:
        status, lease = api("POST", "/v1/queue/lease", {"annotator": annotator, "n": 100})
        assert status == 200, (status, lease)
        if not lease["items"]:
            return
        ids = [item["id"] for item in lease["items"]]
        status, body = api("POST", "/v1/queue/decisions", {"lease": lease["lease"], "annotator": annotator, "ids": ids, "keywords": ["テスト外"]})
        assert status == 200, (status, body)


def open_view(driver, view, annotator, size=(1280, 800)):
    driver.set_window_size(*size)
    open_fresh(driver, view=view, annotator=annotator)


def on_screen(driver):
    return driver.find_element(By.ID, "q-id").text


def test_queue_annotate_keys_and_two_sessions(driver):
    drain_other_items("browser-drain")
    queued = queue_items(120, "keys")
    assert len(queued) >= 8, f"only {len(queued)} of 40 names were queued"
    second = make_driver()
    try:
        open_view(driver, "annotate", "browser-a")
        open_view(second, "annotate", "browser-b")
        wait(driver, lambda d: on_screen(d) in queued, message="session A shows no queued item")
        wait(second, lambda d: on_screen(d) in queued, message="session B shows no queued item")
        seen_a, seen_b = set(), set()
        # The view fits a 1280x800 screen: the name, its five suggestions with their keys, and the progress.
        for selector in ["#q-progress", "#q-name", "#q-suggestions li:last-child", "#q-help"]:
            bottom = driver.execute_script("return document.querySelector(arguments[0]).getBoundingClientRect().bottom", selector)
            assert bottom <= 800, f"{selector} ends at {bottom} px, below a 1280x800 screen"
        assert driver.execute_script("return document.documentElement.scrollHeight") <= 800
        shot(driver, "queue-annotate")
        # Enter and 1-5 label; each decision is a feedback record with the keyword shown.
        first = on_screen(driver)
        seen_a.add(first)
        press(driver, Keys.ENTER)
        wait(driver, lambda d: on_screen(d) != first, message="Enter did not move on")
        second_item = on_screen(driver)
        seen_a.add(second_item)
        press(driver, "2")
        wait(driver, lambda d: on_screen(d) != second_item, message="2 did not move on")
        records = feedback_records()
        names = {queued[first]["name"]: queued[first]["top"][0], queued[second_item]["name"]: queued[second_item]["top"][1]}
        for name, keyword in names.items():
            assert any(r["name"] == name and r["keyword"] == keyword and r["annotator"] == "browser-a" for r in records), (name, keyword)
        # u undoes the last decision: that item is back on screen.
        press(driver, "u")
        wait(driver, lambda d: on_screen(d) == second_item, message="undo did not bring the item back")
        press(driver, "3")
        wait(driver, lambda d: on_screen(d) != second_item)
        # s skips, f flags.
        skipped = on_screen(driver)
        seen_a.add(skipped)
        press(driver, "s")
        wait(driver, lambda d: on_screen(d) != skipped)
        flagged = on_screen(driver)
        seen_a.add(flagged)
        press(driver, "f")
        wait(driver, lambda d: on_screen(d) != flagged)
        status, stats = api("GET", "/v1/queue/stats")
        assert stats["items"]["flagged"] >= 1, stats
        # Session B works at the same time and never sees A's items.
        for _ in range(4):
            current = on_screen(second)
            if current not in queued:
                break
            seen_b.add(current)
            second.find_element(By.TAG_NAME, "body").send_keys("1")
            wait(second, lambda d: on_screen(d) != current)
        seen_a.add(on_screen(driver))
        assert seen_a and seen_b and not (seen_a & seen_b), (seen_a, seen_b)
        assert "u" in driver.find_element(By.ID, "q-help").text and "Enter" in driver.find_element(By.ID, "q-help").text
    finally:
        second.quit()
        driver.set_window_size(900, 900)


def test_review_by_keyword_accepts_all_but_the_exceptions(driver):
    drain_other_items("browser-drain")
    queued = queue_items(40, "review")
    assert queued, "no name was queued"
    # Three more products under the same name: a group of four with one top keyword. A name an earlier test decided
    # reaches the decision memory a moment after its decision, so copies of it may be labelled on arrival; then the
    # next queued name is taken.
    for first, item in queued.items():
        copies = [{"id": f"{first}-copy{k}", "name": item["name"]} for k in range(1, 4)]
        status, body = api("POST", "/v1/queue/items", {"items": copies})
        assert status == 200, (status, body)
        if body["queued"] == 3:
            break
        assert body["queued"] + body["from_memory"] == 3, body
    else:
        raise AssertionError("every queued name was decided before its copies arrived")
    for copy in copies:
        queued[copy["id"]] = item
    keyword = item["top"][0]
    ids = [item_id for item_id, other in queued.items() if other["top"][0] == keyword]
    open_view(driver, "review", "browser-reviewer")
    driver.find_element(By.ID, "rv-keyword").send_keys(keyword + Keys.ENTER)
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rv-grid button")) == len(ids), message="group not shown")
    shot(driver, "review-by-keyword")
    exception = driver.find_elements(By.CSS_SELECTOR, "#rv-grid button")[0]
    exception_id = exception.get_attribute("data-id")
    exception.click()
    assert exception.get_attribute("aria-pressed") == "true"
    driver.find_element(By.ID, "rv-keyword").send_keys(Keys.ESCAPE)
    driver.execute_script("document.activeElement.blur()")
    press(driver, Keys.ENTER)
    wait(driver, lambda d: d.find_element(By.ID, "rv-status").text.startswith("labelled"), message="group not accepted")
    status, body = api("GET", "/v1/labels/export")
    labels = {line["id"]: line for line in map(json.loads, body.splitlines())} if isinstance(body, str) else {}
    for item_id in ids:
        if item_id == exception_id:
            assert item_id not in labels, "the exception was labelled"
        else:
            assert labels[item_id]["keywords"] == [keyword] and labels[item_id]["annotator"] == "browser-reviewer", labels.get(item_id)


def test_stats_view(driver):
    open_view(driver, "stats", "browser-a")
    wait(driver, lambda d: "decided" in d.find_element(By.ID, "st-table").text, message="no stats")
    text = driver.find_element(By.ID, "st-table").text
    for label in ["Progress", "Your pace", "Audit precision", "Agreement"]:
        assert label in text, text
    assert "browser-a" not in text
    shot(driver, "stats")


def test_queue_views_at_360_px(driver):
    queue_items(20, "narrow")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 360, "height": 780, "deviceScaleFactor": 1, "mobile": True})
    try:
        for view in ["annotate", "review", "keywords", "stats", "settings"]:
            open_view(driver, view, "browser-narrow", size=(360, 780))
            if view == "annotate":
                wait(driver, lambda d: on_screen(d) != "", message="nothing to annotate at 360 px")
                shot(driver, "queue-360px")
            width = driver.execute_script("return document.documentElement.scrollWidth")
            assert width <= 360, f"{view}: the page scrolls sideways: {width} px wide"
            visible = driver.execute_script(
                "return Array.from(document.querySelectorAll('#view-' + arguments[0] + ' button, #view-' + arguments[0] + ' input'))"
                ".filter(e => e.offsetParent !== null).map(e => [e.id || e.textContent, e.getBoundingClientRect().right])", view)
            for name, right in visible:
                assert right <= 360, f"{view}: {name} reaches {right} px"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_pace_of_a_simulated_annotator(driver):
    """Items per minute through the page for an annotator who never hesitates: one key per item in Annotate, one
    Enter per group in Review by keyword (the group's names all share the top keyword). Prints both; what it
    measures is the page and the server, not a person."""
    count = int(os.environ.get("QUEUE_PACE", "0"))
    if not count:
        return
    drain_other_items("browser-drain")
    queued = queue_items(40, "pace")
    first, item = next(iter(queued.items()))
    copies = [{"id": f"{first}-pace{k}", "name": item["name"]} for k in range(2 * count)]
    status, body = api("POST", "/v1/queue/items", {"items": copies})
    assert status == 200, (status, body)
    open_view(driver, "annotate", "browser-pace")
    wait(driver, lambda d: on_screen(d) != "", message="nothing to annotate")
    started = time.time()
    for _ in range(count):
        current = on_screen(driver)
        press(driver, "1")
        wait(driver, lambda d: on_screen(d) != current, message="1 did not move on")
    queue_rate = count / (time.time() - started) * 60
    drain_other_items("browser-drain")
    status, body = api("POST", "/v1/queue/items", {"items": [{"id": c["id"] + "-r", "name": c["name"]} for c in copies[:count]]})
    assert status == 200, (status, body)
    open_view(driver, "review", "browser-pace-review")
    started = time.time()
    driver.find_element(By.ID, "rv-keyword").send_keys(item["top"][0] + Keys.ENTER)
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rv-grid button")) >= count, message="group not shown")
    driver.execute_script("document.activeElement.blur()")
    press(driver, Keys.ENTER)
    wait(driver, lambda d: d.find_element(By.ID, "rv-status").text.startswith("labelled"), message="group not accepted")
    review_rate = count / (time.time() - started) * 60
    print(f"      pace: {count} items; queue mode {queue_rate:.0f} items/min (one key each), "
          f"review by keyword {review_rate:.0f} items/min (one Enter for the group)", flush=True)

TESTS = [
    test_enter_takes_the_top_keyword_and_its_feedback_reaches_the_server,
    test_enter_never_takes_the_suggestions_of_an_older_text,
    test_a_typed_keyword_is_a_correction_and_not_added,
    test_a_decided_product_is_answered_from_memory_and_marked,
    test_decisions_survive_a_reload_and_export,
    test_csv_cells_that_a_spreadsheet_would_run_are_escaped,
    test_the_page_cannot_be_framed_and_runs_no_inline_code,
    test_keywords_are_added_and_removed_with_the_token,
    test_the_page_at_360_px,
    test_queue_annotate_keys_and_two_sessions,
    test_review_by_keyword_accepts_all_but_the_exceptions,
    test_stats_view,
    test_queue_views_at_360_px,
    test_pace_of_a_simulated_annotator,
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
