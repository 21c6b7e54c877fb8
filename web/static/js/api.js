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

// Live state over server-sent events. EventSource resends Last-Event-ID itself when it
// reconnects; but after an answer that is not a stream (a 503 when the server is full, a
// restart) it gives up for good. Then a new one is opened, after 1, 2, 4 ... 30 s, resuming
// after the last state seen (?last_event_id=): no gap, no repeat.
export const RECONNECT_MS = [1000, 2000, 4000, 8000, 16000, 30000];

export function subscribe({ onState, onPending, onNotice, onOpen, onError }) {
  let lastId = null;
  let failures = 0;
  let es = null;
  const open = () => {
    const url = lastId === null ? "/api/events" : `/api/events?last_event_id=${encodeURIComponent(lastId)}`;
    es = new EventSource(url);
    es.onmessage = (e) => {
      try {
        if (e.lastEventId) lastId = e.lastEventId;
        onState(JSON.parse(e.data), Number(e.lastEventId));
      } catch (err) {
        console.error("bad state event", err);
      }
    };
    es.addEventListener("pending", (e) => onPending && onPending(JSON.parse(e.data)));
    es.addEventListener("notice", (e) => onNotice && onNotice(JSON.parse(e.data)));
    es.onopen = () => {
      failures = 0;
      if (onOpen) onOpen();
    };
    es.onerror = () => {
      if (onError) onError();
      if (es.readyState === EventSource.CLOSED) {
        const wait = RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)];
        failures += 1;
        setTimeout(open, wait);
      }
    };
  };
  open();
  return { close: () => es && es.close() };
}
