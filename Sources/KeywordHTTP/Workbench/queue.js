// The workbench's views and its team queue (served at /queue.js, a module loaded after /workbench.js; shared
// helpers in /common.js).
//
// Views: annotate (the server's queue), review by keyword, try a name (free text), keywords, stats, settings;
// one is shown at a time, chosen by the tabs or by the URL hash (#annotate …). The annotate view leases items
// from /v1/queue/lease, so two sessions never see the same item; keys: Enter or 1–5 label with a suggestion,
// u undo, s skip, f flag, / type another keyword. A decision the server cannot take now (no network, 503) waits in
// localStorage and is sent again, in order, before the next one; the view moves on meanwhile. Review by keyword
// leases the items whose top suggestion is one keyword; Enter labels every unmarked one with it in one decision,
// and the marked exceptions go back to the queue for someone to label one by one.
import { $, currentView, errorMessage, inTextField, post, request, setCurrentView, setStatus } from "/common.js";

const OUTBOX = "kwsuggest.workbench.outbox.v1";
const VIEWS = ["annotate", "review", "try", "keywords", "stats", "settings"];
const q = {
  items: [],        // leased items not yet on screen, each with its lease id
  history: new Map(), // the latest items shown, by id (undo puts one back on screen)
  item: null,       // the item on screen
  done: 0,          // decisions made in this session
  started: Date.now(),
  busy: false
};
const review = { lease: null, keyword: "", items: [], marked: new Set() };

function annotator() { return $("annotator").value.trim(); }

// MARK: views

function showView(name) {
  if (!VIEWS.includes(name)) name = "annotate";
  VIEWS.forEach(function (view) {
    const selected = view === name;
    $("view-" + view).hidden = !selected;
    const tab = $("tab-" + view);
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
  });
  setCurrentView(name);
  if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
  if (name === "annotate" && !q.item) nextItem();
  if (name === "stats") loadStats();
  if (name === "review") loadKeywords();
}

// MARK: outbox (decisions the server could not take yet)

function outbox() {
  try { return JSON.parse(localStorage.getItem(OUTBOX) || "[]"); } catch (error) { return []; }
}

function saveOutbox(list) {
  try { localStorage.setItem(OUTBOX, JSON.stringify(list)); } catch (error) { /* storage full or off */ }
  const waiting = list.length;
  $("q-outbox").textContent = waiting ? waiting + " decision" + (waiting === 1 ? "" : "s") + " waiting for the server" : "";
}

// Sends waiting decisions in order; stops at the first the server cannot take now. A refusal (4xx) is dropped
// with a message: the lease expired and someone else has the item, or it was decided already.
async function flushOutbox() {
  let list = outbox();
  while (list.length) {
    const result = await post("/v1/queue/decisions", list[0]);
    if (result.status === 0 || result.status >= 500) { saveOutbox(list); return false; }
    if (!result.ok) setStatus($("q-status"), "a buffered decision was refused: " + errorMessage(result), true);
    list = list.slice(1);
    saveOutbox(list);
  }
  return true;
}

// MARK: annotate (the server's queue)

async function nextItem() {
  if (q.busy) return;
  if (!annotator()) {
    showItem(null);
    setStatus($("q-status"), "Enter your annotator name under Settings to start.", true);
    return;
  }
  if (q.items.length === 0) {
    q.busy = true;
    await flushOutbox();
    const result = await post("/v1/queue/lease", { annotator: annotator(), n: 10, order: $("q-order").value });
    q.busy = false;
    if (!result.ok) {
      showItem(null);
      setStatus($("q-status"), "cannot lease items: " + errorMessage(result), true);
      return;
    }
    q.items = result.body.items.map(function (item) { return Object.assign({ lease: result.body.lease }, item); });
    if (q.items.length === 0) {
      showItem(null);
      setStatus($("q-status"), "Nothing left in the queue for you.");
      refreshProgress();
      return;
    }
  }
  showItem(q.items.shift());
  refreshProgress();
}

function showItem(item) {
  q.item = item;
  if (item) {
    q.history.delete(item.id);
    q.history.set(item.id, item);
    if (q.history.size > 50) q.history.delete(q.history.keys().next().value);
  }
  $("q-name").textContent = item ? item.name : "—";
  $("q-id").textContent = item ? item.id : "";
  $("q-keyword").value = "";
  const list = $("q-suggestions");
  if (!item) { list.replaceChildren(); return; }
  list.replaceChildren.apply(list, item.suggestions.slice(0, 5).map(function (s, i) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.setAttribute("aria-keyshortcuts", i === 0 ? "Enter 1" : String(i + 1));
    const key = document.createElement("kbd");
    key.textContent = String(i + 1);
    const keyword = document.createElement("span");
    keyword.className = "keyword";
    keyword.textContent = s.keyword;
    const confidence = document.createElement("span");
    confidence.className = "confidence";
    confidence.textContent = typeof s.confidence === "number" ? Math.round(s.confidence * 100) + "%" : "–";
    button.setAttribute("aria-label", (i + 1) + ": " + s.keyword +
      (typeof s.confidence === "number" ? ", confidence " + Math.round(s.confidence * 100) + " percent" : ""));
    button.append(key, keyword, confidence);
    button.addEventListener("click", function () { label([s.keyword]); });
    li.append(button);
    return li;
  }));
  setStatus($("q-status"), "");
  // Keys act on the item at once, wherever focus was (a tab, a button), unless someone is typing.
  if (!inTextField(document.activeElement)) $("q-suggestions").focus();
}

// Sends one decision on the item on screen and moves on; a decision the server cannot take now is buffered.
async function decide(fields, done) {
  const item = q.item;
  if (!item) return;
  const decision = Object.assign({ lease: item.lease, annotator: annotator(), id: item.id }, fields);
  q.item = null;
  const flushed = await flushOutbox();
  const result = flushed ? await post("/v1/queue/decisions", decision) : { ok: false, status: 0, body: null };
  if (result.ok) {
    q.done += 1;
    setStatus($("q-status"), done);
  } else if (result.status === 0 || result.status >= 500) {
    saveOutbox(outbox().concat([decision]));
    q.done += 1;
    setStatus($("q-status"), done + " (kept here until the server answers)");
  } else {
    setStatus($("q-status"), "not saved: " + errorMessage(result), true);
  }
  nextItem();
}

function label(keywords) {
  decide({ keywords: keywords }, "labelled " + keywords.join(", "));
}

// Reverts this annotator's latest decision; the item is back in its lease, so it goes on screen again (the one
// on screen first in line after it). An item decided before the page loaded is not known here: it comes back
// once its lease expires.
async function undo() {
  if (!annotator()) return;
  if (!(await flushOutbox())) { setStatus($("q-status"), "undo waits until the buffered decisions are sent", true); return; }
  const result = await post("/v1/queue/undo", { annotator: annotator() });
  if (!result.ok) { setStatus($("q-status"), "nothing undone: " + errorMessage(result), true); return; }
  q.done = Math.max(0, q.done - 1);
  const known = q.history.get(result.body.id);
  if (!known) { setStatus($("q-status"), "undone: " + result.body.id + " comes back when its lease expires"); refreshProgress(); return; }
  if (q.item) q.items.unshift(q.item);
  known.lease = result.body.lease;
  showItem(known);
  setStatus($("q-status"), "undone: back to " + known.name);
  refreshProgress();
}

function refreshProgress() {
  const minutes = (Date.now() - q.started) / 60000;
  const pace = q.done > 0 ? (minutes * 60 / q.done).toFixed(1) + " s per item" : "";
  $("q-progress").textContent = [q.done + " done this session", (q.items.length + (q.item ? 1 : 0)) + " in your lease", pace]
    .filter(Boolean).join(" · ");
}

// MARK: review by keyword

// The keywords with the most queued items, from GET /v1/queue/keywords; a click loads that keyword's items.
async function loadKeywords() {
  const result = await request("/v1/queue/keywords?limit=30");
  const list = $("rv-keywords");
  if (!result.ok || !result.body) { list.replaceChildren(); return; }
  list.replaceChildren.apply(list, result.body.keywords.filter(function (row) { return row.queued > 0; }).map(function (row) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    const precision = row.top1_precision === null ? "" : ", right " + Math.round(row.top1_precision * 100) + " %";
    button.textContent = row.keyword + " · " + row.queued + " queued · auto-accept " + row.auto_accept;
    button.title = (row.category || "no category") + ": " + row.labelled + " labelled" + precision;
    button.addEventListener("click", function () { $("rv-keyword").value = row.keyword; loadGroup(); });
    li.append(button);
    return li;
  }));
}

async function loadGroup() {
  const keyword = $("rv-keyword").value.trim();
  if (!keyword || !annotator()) {
    setStatus($("rv-status"), !annotator() ? "Enter your annotator name under Settings first." : "Type a keyword.", true);
    return;
  }
  const result = await post("/v1/queue/lease", { annotator: annotator(), n: 100, keyword: keyword, order: "confident" });
  if (!result.ok) { setStatus($("rv-status"), "cannot lease: " + errorMessage(result), true); return; }
  review.lease = result.body.lease;
  review.keyword = keyword;
  review.items = result.body.items;
  review.marked = new Set();
  renderGroup();
  setStatus($("rv-status"), review.items.length ? "" : "No queued item has " + keyword + " as its top suggestion.");
}

function renderGroup() {
  const grid = $("rv-grid");
  grid.replaceChildren.apply(grid, review.items.map(function (item, i) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.setAttribute("aria-pressed", String(review.marked.has(item.id)));
    button.dataset.id = item.id;
    button.textContent = item.name;
    const top = item.suggestions[0];
    button.title = top ? top.keyword + (typeof top.confidence === "number" ? " " + Math.round(top.confidence * 100) + "%" : "") : "";
    button.addEventListener("click", function () {
      if (review.marked.has(item.id)) review.marked.delete(item.id); else review.marked.add(item.id);
      button.setAttribute("aria-pressed", String(review.marked.has(item.id)));
      countGroup();
    });
    li.append(button);
    return li;
  }));
  countGroup();
}

function countGroup() {
  const accept = review.items.length - review.marked.size;
  $("rv-accept").textContent = "Accept " + accept + " as " + (review.keyword || "…") + " (Enter)";
  $("rv-accept").disabled = accept === 0;
}

async function acceptGroup() {
  if (!review.lease || review.items.length === 0) return;
  const accepted = review.items.filter(function (item) { return !review.marked.has(item.id); }).map(function (item) { return item.id; });
  const exceptions = review.items.filter(function (item) { return review.marked.has(item.id); });
  if (accepted.length) {
    const result = await post("/v1/queue/decisions", { lease: review.lease, annotator: annotator(), ids: accepted, keywords: [review.keyword] });
    if (!result.ok) { setStatus($("rv-status"), "not saved: " + errorMessage(result), true); return; }
  }
  // The exceptions go back to the queue, to be labelled one by one in the annotate view.
  for (const item of exceptions) {
    await post("/v1/queue/decisions", { lease: review.lease, annotator: annotator(), id: item.id, action: "skip" });
  }
  setStatus($("rv-status"), "labelled " + accepted.length + " as " + review.keyword + "; " + exceptions.length + " back to the queue");
  loadKeywords();
  review.items = [];
  review.marked = new Set();
  renderGroup();
}

// MARK: stats

async function loadStats() {
  const result = await request("/v1/queue/stats");
  if (!result.ok || !result.body) { setStatus($("st-status"), "cannot read the stats: " + errorMessage(result), true); return; }
  const body = result.body;
  const items = body.items;
  const total = items.queued + items.leased + items.labelled + items.flagged;
  $("st-progress").max = total || 1;
  $("st-progress").value = items.labelled + items.flagged;
  const mine = body.annotators[annotator()];
  const percent = function (value) { return value === null || value === undefined ? "–" : (value * 100).toFixed(1) + " %"; };
  const rows = [
    ["Progress", (items.labelled + items.flagged) + " of " + total + " decided (" + items.queued + " queued, " + items.leased + " leased, " + items.flagged + " flagged)"],
    ["Your pace", mine ? mine.decisions + " decisions, median " + (mine.median_seconds === null ? "–" : mine.median_seconds.toFixed(1) + " s") : "no decisions yet"],
    ["Auto-accepted", body.auto_accept.count + " labelled by the model; " + body.auto_accept.audited + " audited"],
    ["Audit precision", percent(body.auto_accept.audit_precision)],
    ["Agreement", body.agreement.overlap_items ? body.agreement.agreed + " of " + body.agreement.overlap_items + " overlap items (" + percent(body.agreement.agreed / body.agreement.overlap_items) + ")" : "no overlap items labelled twice yet"]
  ];
  const table = $("st-table");
  table.replaceChildren.apply(table, rows.map(function (row) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = row[0];
    const td = document.createElement("td");
    td.textContent = row[1];
    tr.append(th, td);
    return tr;
  }));
  setStatus($("st-status"), "");
}

// MARK: adding names

// Lines "id<TAB>name", "id,name" (CSV with a header id,name) or a bare name (its own id).
function parseItems(text) {
  const items = [];
  text.split(/\r?\n/).forEach(function (line, index) {
    const trimmed = line.trim();
    if (!trimmed || (index === 0 && /^id[\t,]name$/i.test(trimmed))) return;
    const tab = line.indexOf("\t");
    const comma = line.indexOf(",");
    const cut = tab >= 0 ? tab : comma;
    if (cut > 0) items.push({ id: line.slice(0, cut).trim(), name: line.slice(cut + 1).trim() });
    else items.push({ id: trimmed, name: trimmed });
  });
  return items.filter(function (item) { return item.id && item.name; });
}

async function addItems() {
  const items = parseItems($("q-add-text").value);
  if (!items.length) { setStatus($("q-add-status"), "No names to add.", true); return; }
  const totals = { queued: 0, auto_accepted: 0, duplicates: 0 };
  for (let start = 0; start < items.length; start += 1000) {
    const result = await post("/v1/queue/items", { items: items.slice(start, start + 1000) });
    if (!result.ok) { setStatus($("q-add-status"), "stopped at item " + (start + 1) + ": " + errorMessage(result), true); return; }
    Object.keys(totals).forEach(function (key) { totals[key] += result.body[key]; });
  }
  setStatus($("q-add-status"), totals.queued + " queued, " + totals.auto_accepted + " auto-accepted, " + totals.duplicates + " already there");
  $("q-add-text").value = "";
  if (!q.item) nextItem();
}

// MARK: keys and wiring

document.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
  const view = currentView();
  if (view === "annotate" && !inTextField(event.target)) {
    const item = q.item;
    const onChoice = event.target && event.target.closest && event.target.closest("#q-suggestions button, #view-annotate .row button");
    if (event.key === "Enter" && onChoice) {
      return;  // the focused button's own action
    } else if (event.key === "Enter" && item && item.suggestions.length) {
      event.preventDefault(); label([item.suggestions[0].keyword]);
    } else if (/^[1-5]$/.test(event.key) && item && item.suggestions[Number(event.key) - 1]) {
      event.preventDefault(); label([item.suggestions[Number(event.key) - 1].keyword]);
    } else if (event.key === "u") {
      event.preventDefault(); undo();
    } else if (event.key === "s" && item) {
      event.preventDefault(); decide({ action: "skip" }, "skipped");
    } else if (event.key === "f" && item) {
      event.preventDefault(); decide({ action: "flag" }, "flagged");
    } else if (event.key === "/") {
      event.preventDefault(); $("q-keyword").focus();
    }
  } else if (view === "review" && !inTextField(event.target) && event.key === "Enter") {
    event.preventDefault(); acceptGroup();
  }
});

$("q-keyword").addEventListener("keydown", function (event) {
  if (event.key === "Escape") { event.target.blur(); return; }
  if (event.key !== "Enter" || event.isComposing) return;
  event.preventDefault();
  const keyword = $("q-keyword").value.trim();
  if (keyword) { $("q-keyword").blur(); label([keyword]); }
});
$("q-skip").addEventListener("click", function () { decide({ action: "skip" }, "skipped"); });
$("q-flag").addEventListener("click", function () { decide({ action: "flag" }, "flagged"); });
$("q-undo").addEventListener("click", undo);
$("q-add").addEventListener("click", addItems);
$("q-order").addEventListener("change", function () { q.items = []; });
$("rv-load").addEventListener("click", loadGroup);
$("rv-keyword").addEventListener("keydown", function (event) {
  if (event.key === "Enter" && !event.isComposing) { event.preventDefault(); loadGroup(); }
});
$("rv-accept").addEventListener("click", acceptGroup);
$("st-refresh").addEventListener("click", loadStats);
VIEWS.forEach(function (view) {
  $("tab-" + view).addEventListener("click", function () { showView(view); });
});
$("annotator").addEventListener("change", function () { q.items = []; q.item = null; if (currentView() === "annotate") nextItem(); });
window.addEventListener("hashchange", function () { showView(location.hash.slice(1)); });
saveOutbox(outbox());
showView(location.hash.slice(1) || "annotate");
