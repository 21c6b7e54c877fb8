// Talking to the companion service (see companion/webapp/API.md). Cookies carry the host or
// player session; every POST sends the CSRF token the page was rendered with.

function csrf() {
  const m = document.querySelector('meta[name="csrf-token"]');
  return m ? m.content : "";
}

// A refusal: the English sentence (message), its stable code and params (see API.md), the rule.
export class ApiError extends Error {
  constructor(status, message, rule, code, params) {
    super(message);
    this.status = status;
    this.rule = rule || null;
    this.code = code || (rule ? `rule.${rule}` : null);
    this.params = params && typeof params === "object" ? params : {};
  }
}

async function parse(res) {
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const msg = data && data.error ? data.error : `HTTP ${res.status}`;
    throw new ApiError(res.status, msg, data && data.rule, data && data.code, data && data.params);
  }
  return data;
}

export async function getJSON(path) {
  let res;
  try {
    res = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
  } catch {
    throw new ApiError(0, "network");
  }
  return parse(res);
}

export async function post(path, body, extraHeaders) {
  const headers = { "X-CSRF-Token": csrf(), ...(extraHeaders || {}) };
  let payload = body;
  if (!(body instanceof FormData) && !(body instanceof Blob)) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body || {});
  }
  let res;
  try {
    res = await fetch(path, { method: "POST", credentials: "same-origin", headers, body: payload });
  } catch {
    throw new ApiError(0, "network");
  }
  return parse(res);
}

export const act = (action) => post("/api/actions", action);

// Live state over server-sent events. EventSource resends Last-Event-ID itself on reconnect.
export function subscribe({ onState, onPending, onNotice, onOpen, onError }) {
  const es = new EventSource("/api/events");
  es.onmessage = (e) => {
    try {
      onState(JSON.parse(e.data), Number(e.lastEventId));
    } catch (err) {
      console.error("bad state event", err);
    }
  };
  es.addEventListener("pending", (e) => onPending && onPending(JSON.parse(e.data)));
  es.addEventListener("notice", (e) => onNotice && onNotice(JSON.parse(e.data)));
  es.onopen = () => onOpen && onOpen();
  es.onerror = () => onError && onError();
  return es;
}
