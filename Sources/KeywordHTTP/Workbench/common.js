// What the workbench's two modules share (served at /common.js, imported by /workbench.js and /queue.js): the
// element lookup, status lines, request headers, the text-field test for single-key shortcuts, the one way a
// request is made and its failure told, and which view is shown.

export function $(id) { return document.getElementById(id); }

export function setStatus(element, text, isError) {
  element.textContent = text;
  element.classList.toggle("error", !!isError);
}

// The headers of a request: the admin token when one is entered under Settings, and the JSON type of a body.
export function headers(json) {
  const result = {};
  if (json) result["Content-Type"] = "application/json";
  const token = $("token").value.trim();
  if (token) result["Authorization"] = "Bearer " + token;
  return result;
}

// Whether a key pressed in `element` is typing (so single-key shortcuts stay off).
export function inTextField(element) {
  if (!element) return false;
  const tag = element.tagName;
  return tag === "TEXTAREA" || tag === "SELECT" || element.isContentEditable ||
    (tag === "INPUT" && !["button", "checkbox", "radio", "file", "submit", "reset"].includes(element.type));
}

// Every request of the workbench: resolves (never rejects) to {ok, status, body}, with status 0 when the server
// could not be reached and body null when the answer was not JSON. `body`, when given, is sent as JSON.
export async function request(path, method, body) {
  const options = { method: method || "GET", headers: headers(body !== undefined) };
  if (body !== undefined) options.body = JSON.stringify(body);
  try {
    const response = await fetch(path, options);
    const answer = await response.json().catch(function () { return null; });
    return { ok: response.ok, status: response.status, body: answer };
  } catch (error) {
    return { ok: false, status: 0, body: null };
  }
}

export function post(path, body) { return request(path, "POST", body); }

// The text to show for a failed request: the server's own message, else its status.
export function errorMessage(result) {
  if (result.status === 0) return "the server cannot be reached";
  return (result.body && result.body.error && result.body.error.message) || ("HTTP " + result.status);
}

// The view shown (annotate, review, try, keywords, stats, settings): set by the tabs, read by the key handlers.
let shownView = "annotate";
export function currentView() { return shownView; }
export function setCurrentView(name) { shownView = name; }
