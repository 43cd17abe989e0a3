// The admin page served at GET /: plain HTML and JS, no build step, no external assets.
import HTTPCore
import StrictJSON

enum AdminPage {
    /// Type a product name, get the top 5 keywords as buttons; a click fills the keyword field.
    /// With `?selftest=<name>` the page drives itself (types the name, clicks the first button) and reports
    /// `SELFTEST PASS`/`SELFTEST FAIL` in the title and in `#selftest`, for the headless-browser check.
    static let html = #"""
<!doctype html>
<html lang="ja">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kwsuggest admin</title>
<style>
  body { font-family: system-ui, "Noto Sans CJK JP", sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #1d2327; }
  h1 { font-size: 1.3rem; }
  label { display: block; margin-top: 1.2rem; font-weight: 600; }
  input[type=text] { width: 100%; box-sizing: border-box; font-size: 1.05rem; padding: .5rem; margin-top: .3rem; }
  #suggestions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .6rem; min-height: 2.4rem; }
  #suggestions button { font-size: 1rem; padding: .45rem .8rem; border: 1px solid #8c8f94; border-radius: 1rem; background: #f6f7f7; cursor: pointer; }
  #suggestions button:hover { background: #e0f0ff; }
  #suggestions button small { color: #646970; margin-left: .35rem; }
  #status { color: #646970; font-size: .9rem; margin-top: .4rem; min-height: 1.2rem; }
  #selftest { font-weight: 700; white-space: pre-wrap; }
</style>
</head>
<body>
<h1>kwsuggest — ingredient keyword</h1>
<form id="form" onsubmit="return false">
  <label for="name">Product name</label>
  <input id="name" type="text" autocomplete="off" placeholder="淡路島産 カラーにんじん 3本">
  <div id="suggestions" aria-live="polite"></div>
  <div id="status"></div>
  <label for="keyword">Keyword</label>
  <input id="keyword" type="text" autocomplete="off">
</form>
<pre id="selftest"></pre>
<script>
"use strict";
const nameField = document.getElementById("name");
const keywordField = document.getElementById("keyword");
const box = document.getElementById("suggestions");
const statusLine = document.getElementById("status");
let timer = null;
let generation = 0;

async function suggest(name) {
  const mine = ++generation;
  if (name.trim() === "") { box.replaceChildren(); statusLine.textContent = ""; return; }
  statusLine.textContent = "…";
  try {
    const response = await fetch("/v1/suggest", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: name, k: 5 })
    });
    const body = await response.json();
    if (mine !== generation) return;
    if (!response.ok) {
      box.replaceChildren();
      statusLine.textContent = (body.error && body.error.message) || ("HTTP " + response.status);
      return;
    }
    const buttons = body.suggestions.map(function (s) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.keyword = s.keyword;
      button.append(document.createTextNode(s.keyword));
      const score = document.createElement("small");
      score.textContent = s.score.toFixed(2);
      button.append(score);
      button.addEventListener("click", function () { keywordField.value = s.keyword; keywordField.focus(); });
      return button;
    });
    box.replaceChildren.apply(box, buttons);
    statusLine.textContent = "model " + body.model;
  } catch (error) {
    if (mine === generation) statusLine.textContent = "request failed: " + error;
  }
}

nameField.addEventListener("input", function () {
  clearTimeout(timer);
  timer = setTimeout(function () { suggest(nameField.value); }, 150);
});

async function selfTest(name) {
  const report = document.getElementById("selftest");
  function finish(ok, detail) {
    const text = (ok ? "SELFTEST PASS: " : "SELFTEST FAIL: ") + detail;
    report.textContent = text;
    document.title = text;
  }
  nameField.focus();
  nameField.value = name;
  nameField.dispatchEvent(new Event("input", { bubbles: true }));
  for (let waited = 0; waited < 5000; waited += 50) {
    const buttons = box.querySelectorAll("button");
    if (buttons.length > 0) {
      if (buttons.length !== 5) return finish(false, "expected 5 buttons, saw " + buttons.length);
      buttons[0].click();
      const expected = buttons[0].dataset.keyword;
      if (keywordField.value !== expected) return finish(false, "keyword field holds '" + keywordField.value + "'");
      return finish(true, "5 buttons [" + Array.from(buttons, function (b) { return b.dataset.keyword; }).join(", ") + "]; clicked '" + expected + "', keyword field = '" + keywordField.value + "'");
    }
    await new Promise(function (resolve) { setTimeout(resolve, 50); });
  }
  finish(false, "no suggestions after 5 s (" + statusLine.textContent + ")");
}

const params = new URLSearchParams(location.search);
if (params.has("selftest")) selfTest(params.get("selftest"));
</script>
</body>
</html>
"""#
}
