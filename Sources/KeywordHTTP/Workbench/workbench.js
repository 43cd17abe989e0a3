// The annotation workbench (served at /workbench.js, a module the page at / loads; shared helpers in /common.js).
//
// Keyboard first. Suggestions follow the name as it is typed (debounced); Enter in the name field accepts the top
// suggestion for the text as it is now (waiting for fresh suggestions when the shown ones are for an older text);
// keys 1–5 choose a suggestion whenever focus is not in a text field (in this view: the team queue's keys live in
// /queue.js); a keyword typed into the keyword field that is not among the five is recorded as a correction. Every
// decision is posted to /v1/feedback with a client id, so a retried post stores one record; unsent decisions are
// retried. The decisions table (CSV and JSON-lines export) survives a reload (localStorage). Keyword management
// lists, adds and removes keywords with the admin token; a removal asks first.
import { $, currentView, errorMessage, inTextField, post, request, setStatus } from "/common.js";

const nameField = $("name"), keywordField = $("keyword"), box = $("suggestions"), tokensBox = $("tokens");
const STORE = "kwsuggest.workbench.v1";
const state = {
  text: null,          // the name text the shown suggestions are for
  body: null,          // the /v1/suggest answer for state.text
  highlighted: 0,
  generation: 0,
  pendingAccept: null, // Enter was pressed for this text; accept when its suggestions arrive
  decisions: [],
  keywords: [],        // the page of the keyword list shown
  keywordOffset: 0,
  keywordGeneration: 0
};
let debounce = null;

// A random RFC 4122 version-4 id (crypto.randomUUID needs a secure context; getRandomValues does not).
function newId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, function (x) { return x.toString(16).padStart(2, "0"); }).join("");
  return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
}

// MARK: suggestions

async function fetchSuggestions(text) {
  const mine = ++state.generation;
  const name = text.trim();
  if (name === "") { show(null, text); setStatus($("status"), ""); return; }
  setStatus($("status"), "…");
  const result = await post("/v1/suggest", { name: name, k: 5, explain: true });
  if (mine !== state.generation) return;  // a newer text was asked for meanwhile
  if (!result.ok || !result.body) {
    show(null, text);
    if (state.pendingAccept === text) state.pendingAccept = null;
    setStatus($("status"), errorMessage(result), true);
    return;
  }
  show(result.body, text);
  setStatus($("status"), "");
  if (state.pendingAccept !== null && state.pendingAccept === nameField.value) {
    state.pendingAccept = null;
    choose(0);
  }
}

function show(body, text) {
  state.body = body;
  state.text = text;
  state.highlighted = 0;
  const badge = $("auto-accept");
  if (!body) {
    box.replaceChildren();
    tokensBox.replaceChildren();
    badge.textContent = "no suggestions yet";
    badge.className = "badge off";
    return;
  }
  $("model").textContent = "model " + body.model;
  if (body.suggestions.length === 0) {
    const why = {
      no_content_tokens: "nothing to suggest: no content words in the name",
      only_place_names: "nothing to suggest: the name says only where the product comes from",
    };
    badge.textContent = Object.hasOwn(why, body.reason) ? why[body.reason] : "no suggestions";
    badge.className = "badge off";
  } else if (body.auto_accept) {
    badge.textContent = "auto-accept: top suggestion is confident";
    badge.className = "badge on";
  } else {
    badge.textContent = "review";
    badge.className = "badge off";
  }
  const items = body.suggestions.map(function (s, i) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.keyword = s.keyword;
    button.dataset.rank = String(i + 1);
    button.setAttribute("aria-keyshortcuts", String(i + 1));
    const key = document.createElement("kbd");
    key.textContent = String(i + 1);
    const keyword = document.createElement("span");
    keyword.className = "keyword";
    keyword.textContent = s.keyword;
    if (s.source === "memory") {
      // Decided before for a name with the same name key: the decision memory's answer, not the model's.
      const tag = document.createElement("span");
      tag.className = "memory";
      tag.textContent = "decided";
      tag.title = s.remembered
        ? "decided for 「" + s.remembered.name + "」 by " + s.remembered.annotators + " annotator" + (s.remembered.annotators === 1 ? "" : "s")
        : "decided before";
      keyword.append(" ", tag);
    }
    const confidence = document.createElement("span");
    confidence.className = "confidence";
    const bar = document.createElement("span");
    bar.className = "bar";
    const fill = document.createElement("span");
    bar.append(fill);
    if (typeof s.confidence === "number") {
      confidence.textContent = Math.round(s.confidence * 100) + "%";
      fill.style.width = Math.round(s.confidence * 100) + "%";
      button.setAttribute("aria-label", (i + 1) + ": " + s.keyword + (s.source === "memory" ? ", decided before" : "") +
        ", confidence " + Math.round(s.confidence * 100) + " percent");
    } else {
      confidence.textContent = "–";
      bar.hidden = true;
      button.setAttribute("aria-label", (i + 1) + ": " + s.keyword);
    }
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = s.score.toFixed(2);
    button.append(key, keyword, confidence, bar, score);
    button.addEventListener("click", function () { choose(i); });
    button.addEventListener("mouseenter", function () { highlight(i); });
    button.addEventListener("focus", function () { highlight(i); });
    li.append(button);
    return li;
  });
  box.replaceChildren.apply(box, items);
  highlight(0);
}

// Shades the name's tokens by the attention weights of suggestion i (from explain).
function highlight(i) {
  const body = state.body;
  if (!body || !body.suggestions[i]) return;
  state.highlighted = i;
  box.querySelectorAll("button").forEach(function (b, j) { b.classList.toggle("highlighted", j === i); });
  const weights = body.suggestions[i].weights || [];
  const largest = weights.reduce(function (m, w) { return Math.max(m, w.weight); }, 0) || 1;
  tokensBox.replaceChildren.apply(tokensBox, weights.map(function (w) {
    const span = document.createElement("span");
    span.textContent = w.token;
    span.title = "attention " + w.weight.toFixed(3) + " for " + body.suggestions[i].keyword;
    span.style.background = "rgba(34, 113, 177, " + (0.08 + 0.6 * w.weight / largest).toFixed(3) + ")";
    return span;
  }));
}

// MARK: decisions

function choose(rank) {
  const body = state.body;
  if (!body || !body.suggestions[rank]) return;
  keywordField.value = body.suggestions[rank].keyword;
  record("accept", body.suggestions[rank].keyword, rank + 1, body.suggestions[rank].confidence);
}

function recordTypedKeyword() {
  const keyword = keywordField.value.trim();
  if (keyword === "") return;
  if (!state.body || state.text !== nameField.value) {
    setStatus($("status"), "wait for the suggestions of this name first", true);
    return;
  }
  const shown = state.body.suggestions.map(function (s) { return s.keyword; });
  const rank = shown.indexOf(keyword);
  if (rank >= 0) record("accept", keyword, rank + 1, state.body.suggestions[rank].confidence);
  else record("correct", keyword, null, null);
}

function rejectHighlighted() {
  const body = state.body;
  if (!body || !body.suggestions[state.highlighted]) return;
  const s = body.suggestions[state.highlighted];
  record("reject", s.keyword, state.highlighted + 1, s.confidence);
}

function record(action, keyword, rank, confidence) {
  const body = state.body;
  const decision = {
    id: newId(), name: body.name, keyword: keyword, action: action, rank: rank,
    confidence: typeof confidence === "number" ? confidence : null,
    shown: body.suggestions.map(function (s) { return s.keyword; }), model: body.model,
    annotator: $("annotator").value.trim(), time: new Date().toISOString(), saved: false, serverId: null, problem: ""
  };
  state.decisions.push(decision);
  save();
  renderDecisions();
  const verb = { accept: "accepted", correct: "corrected to", reject: "rejected" }[action];
  setStatus($("status"), verb + " " + keyword + " for " + body.name);
  send(decision);
}

async function send(decision) {
  const item = { id: decision.id, name: decision.name, keyword: decision.keyword, action: decision.action,
                 shown: decision.shown, model: decision.model };
  if (decision.annotator) item.annotator = decision.annotator;
  const result = await post("/v1/feedback", item);
  if (result.ok) {
    decision.saved = true;
    decision.serverId = result.body && result.body.id !== undefined ? result.body.id : null;
    decision.problem = "";
  } else {
    decision.problem = errorMessage(result);
  }
  save();
  renderDecisions();
}

// Unsaved decisions go again with their ids, so the server stores each once.
function retryUnsaved() {
  state.decisions.filter(function (d) { return !d.saved; }).forEach(send);
}

function renderDecisions() {
  const rows = state.decisions.map(function (d, i) {
    const tr = document.createElement("tr");
    const cells = [String(i + 1), d.name, d.keyword, d.action, d.rank === null ? "" : String(d.rank),
                   d.confidence === null ? "" : Math.round(d.confidence * 100) + "%",
                   d.saved ? "saved" + (d.serverId !== null ? " #" + d.serverId : "") : (d.problem || "sending…")];
    cells.forEach(function (text, j) {
      const td = document.createElement("td");
      td.textContent = text;
      if (j === 6 && !d.saved) td.className = "error";
      tr.append(td);
    });
    return tr;
  });
  const tbody = $("decisions").tBodies[0];
  tbody.replaceChildren.apply(tbody, rows);
  const unsaved = state.decisions.filter(function (d) { return !d.saved; }).length;
  $("decisions-count").textContent = state.decisions.length + " decisions" + (unsaved ? ", " + unsaved + " not saved yet" : "");
}

// A text cell that starts with = + - @ (or a tab or carriage return) would be read as a formula by a
// spreadsheet: it gets a leading apostrophe, which spreadsheets show as text. Numbers are written as they are.
function csvField(value) {
  let text = value === null || value === undefined ? "" : String(value);
  if (typeof value !== "number" && /^[=+\-@\t\r]/.test(text)) text = "'" + text;
  return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}

function download(filename, type, text) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: type }));
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(function () { URL.revokeObjectURL(link.href); }, 10000);
}

function exportCSV() {
  const columns = ["name", "keyword", "action", "rank", "confidence", "shown", "model", "annotator", "time", "id"];
  const lines = [columns.join(",")].concat(state.decisions.map(function (d) {
    return columns.map(function (c) { return csvField(c === "shown" ? d.shown.join("|") : d[c]); }).join(",");
  }));
  download("decisions.csv", "text/csv;charset=utf-8", lines.join("\r\n") + "\r\n");
}

function exportJSONLines() {
  const lines = state.decisions.map(function (d) {
    return JSON.stringify({ id: d.id, name: d.name, keyword: d.keyword, action: d.action, rank: d.rank,
                            confidence: d.confidence, shown: d.shown, model: d.model, annotator: d.annotator, time: d.time });
  });
  download("decisions.jsonl", "application/x-ndjson", lines.join("\n") + (lines.length ? "\n" : ""));
}

// MARK: keywords

// The list is read one page at a time (GET /v1/keywords pages by default): the keywords that start with the
// filter, KEYWORD_PAGE per page, with Previous and Next, so the page costs the same at 50 keywords or 50,000.
const KEYWORD_PAGE = 100;
let keywordFilterTimer = null;

async function loadKeywords() {
  const filter = $("kw-filter").value.trim();
  const query = new URLSearchParams({ offset: String(state.keywordOffset), limit: String(KEYWORD_PAGE) });
  if (filter) query.set("prefix", filter);
  const generation = ++state.keywordGeneration;
  const result = await request("/v1/keywords?" + query.toString());
  if (generation !== state.keywordGeneration) return;  // a newer filter or page was asked for meanwhile
  if (!result.ok || !result.body) { setStatus($("kw-status"), errorMessage(result), true); return; }
  const body = result.body;
  if (body.keywords.length === 0 && state.keywordOffset > 0 && body.matched > 0) {
    state.keywordOffset = Math.max(0, body.matched - KEYWORD_PAGE);
    loadKeywords();
    return;
  }
  state.keywords = body.keywords;
  renderKeywords(filter, body);
}

function renderKeywords(filter, page) {
  const first = page.keywords.length ? page.offset + 1 : 0;
  $("kw-count").textContent = page.count + " keywords" + (filter ? ", " + page.matched + " starting with the filter" : "") +
    (page.matched > page.keywords.length ? " (" + first + "–" + (page.offset + page.keywords.length) + " shown)" : "");
  $("kw-prev").disabled = page.offset === 0;
  $("kw-next").disabled = page.offset + page.keywords.length >= page.matched;
  const list = $("kw-list");
  list.replaceChildren.apply(list, page.keywords.map(function (keyword) {
    const li = document.createElement("li");
    const text = document.createElement("span");
    text.textContent = keyword;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.setAttribute("aria-label", "Remove " + keyword);
    remove.addEventListener("click", function () { confirmRemoval(keyword); });
    li.append(text, remove);
    return li;
  }));
}

function filterKeywords() {
  clearTimeout(keywordFilterTimer);
  keywordFilterTimer = setTimeout(function () { state.keywordOffset = 0; loadKeywords(); }, 150);
}

function turnKeywordPage(step) {
  state.keywordOffset = Math.max(0, state.keywordOffset + step * KEYWORD_PAGE);
  loadKeywords();
}

// Removing a keyword takes it out of the list every replica serves: the page asks first.
function confirmRemoval(keyword) {
  const dialog = $("kw-confirm");
  $("kw-confirm-keyword").textContent = keyword;
  dialog.dataset.keyword = keyword;
  dialog.showModal();
  $("kw-confirm-cancel").focus();
}

async function changeKeywords(change, done) {
  const actor = $("annotator").value.trim();
  if (actor) change.actor = actor;
  const result = await post("/v1/keywords", change);
  if (!result.ok || !result.body) {
    setStatus($("kw-status"), errorMessage(result) + (result.status === 401 ? " (enter the admin token under Settings)" : ""), true);
    return false;
  }
  await loadKeywords();
  setStatus($("kw-status"), done + "; " + result.body.count + " keywords");
  return true;
}

// MARK: persistence

function save() {
  try {
    localStorage.setItem(STORE, JSON.stringify({ decisions: state.decisions }));
  } catch (error) { /* storage full or disabled: the page still works */ }
}

function restore() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE) || "null");
    if (saved) {
      state.decisions = Array.isArray(saved.decisions) ? saved.decisions : [];
    }
  } catch (error) { state.decisions = []; }
  $("annotator").value = localStorage.getItem("kwsuggest.annotator") || "";
  $("token").value = sessionStorage.getItem("kwsuggest.token") || "";
}

// MARK: events

nameField.addEventListener("input", function () {
  state.pendingAccept = null;
  clearTimeout(debounce);
  const text = nameField.value;
  debounce = setTimeout(function () { fetchSuggestions(text); }, 150);
});

nameField.addEventListener("keydown", function (event) {
  if (event.key === "Enter" && !event.isComposing && event.keyCode !== 229) {
    event.preventDefault();
    const text = nameField.value;
    if (state.body && state.text === text) { choose(0); return; }
    // The shown suggestions are for an older text: wait for this one's.
    state.pendingAccept = text;
    clearTimeout(debounce);
    fetchSuggestions(text);
  } else if (event.key === "Escape") {
    box.focus();
  }
});

keywordField.addEventListener("keydown", function (event) {
  if (event.key === "Enter" && !event.isComposing && event.keyCode !== 229) {
    event.preventDefault();
    recordTypedKeyword();
  } else if (event.key === "Escape") {
    box.focus();
  }
});

document.addEventListener("keydown", function (event) {
  if (currentView() !== "try") return;
  if (inTextField(document.activeElement) || event.altKey || event.ctrlKey || event.metaKey) return;
  if (/^[1-5]$/.test(event.key)) {
    event.preventDefault();
    choose(Number(event.key) - 1);
  } else if (event.key === "x") {
    event.preventDefault();
    rejectHighlighted();
  } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    const count = state.body ? state.body.suggestions.length : 0;
    if (count === 0) return;
    event.preventDefault();
    highlight((state.highlighted + (event.key === "ArrowDown" ? 1 : count - 1)) % count);
  } else if (event.key === "/") {
    event.preventDefault();
    nameField.focus();
  }
});

$("reject").addEventListener("click", rejectHighlighted);
$("export-csv").addEventListener("click", exportCSV);
$("export-jsonl").addEventListener("click", exportJSONLines);
$("decisions-clear").addEventListener("click", function () {
  if (state.decisions.some(function (d) { return !d.saved; }) && !confirm("Some decisions are not saved on the server yet. Clear anyway?")) return;
  state.decisions = [];
  save();
  renderDecisions();
});
$("kw-filter").addEventListener("input", filterKeywords);
$("kw-prev").addEventListener("click", function () { turnKeywordPage(-1); });
$("kw-next").addEventListener("click", function () { turnKeywordPage(1); });
$("kw-add").addEventListener("click", function () {
  const keyword = $("kw-new").value.trim();
  if (keyword === "") return;
  changeKeywords({ add: [keyword] }, "added " + keyword).then(function (ok) { if (ok) $("kw-new").value = ""; });
});
$("kw-confirm-cancel").addEventListener("click", function () { $("kw-confirm").close(); });
$("kw-confirm-remove").addEventListener("click", function () {
  const keyword = $("kw-confirm").dataset.keyword;
  $("kw-confirm").close();
  if (keyword) changeKeywords({ remove: [keyword] }, "removed " + keyword);
});
$("kw-new").addEventListener("keydown", function (event) {
  if (event.key === "Enter" && !event.isComposing) { event.preventDefault(); $("kw-add").click(); }
});
$("annotator").addEventListener("change", function () { localStorage.setItem("kwsuggest.annotator", $("annotator").value.trim()); });
$("token").addEventListener("change", function () { sessionStorage.setItem("kwsuggest.token", $("token").value.trim()); retryUnsaved(); });

// The live model (and where it comes from) and any candidate in shadow, from /readyz; refreshed every 10 s, so
// a promotion or a rollback shows up while the page is open.
async function loadVersions() {
  const result = await request("/readyz");
  if (result.status === 0) { $("versions").textContent = "model: server unreachable"; return; }
  if (!result.ok || !result.body) { $("versions").textContent = "model: not ready"; return; }
  const body = result.body;
  {
    let text = "live model " + body.model + (body.model_source === "fallback" ? " (--model)" : "");
    if (body.shadow) text += " · shadow " + body.shadow.model + " (" + Math.round(body.shadow.fraction * 100) + " % of requests)";
    if (body.model_load_error) text += " · " + body.model_load_error.version + " failed to load";
    $("versions").textContent = text;
  }
}

restore();
renderDecisions();
loadKeywords();
loadVersions();
setInterval(loadVersions, 10000);
retryUnsaved();
