// Notices and announcements in the reader's language. The server sends each one as a stable
// `code` with `params` (and an English `text` for API clients); a code without a translation
// (or the code "message") shows the English text as it is. See companion/webapp/API.md.

const COLOR_PARAMS = new Set(["color", "owner", "current", "player"]);

// A player's colour param names the player: 「アキ（赤）」, not 「赤」 (a colour nobody plays
// stays a colour).
export function playerText(color, app) {
  const { i18n, state } = app;
  const p = state && state.players && state.players.find((x) => x.color === color);
  return p ? i18n.t("player.label", { name: p.name, color: i18n.color(color) }) : i18n.color(color);
}

function paramText(key, value, app) {
  const { i18n, map } = app;
  if (value === null || value === undefined) return COLOR_PARAMS.has(key) ? i18n.t("route.free") : "";
  if (COLOR_PARAMS.has(key)) return playerText(value, app);
  if (key.endsWith("_card")) return value === "grey" ? i18n.t("card.any_one") : i18n.card(value);
  if (key === "route") {
    const r = map && map.routes[value];
    return r ? i18n.route(r) : String(value);
  }
  if (key === "city") return i18n.city(value);
  if (key === "place" && typeof value === "string") {
    // a route or a city id
    const r = map && map.routes[value];
    if (r) return i18n.route(r);
    if (map && map.cities[value]) return i18n.city(value);
  }
  if ((key === "place" || key === "route") && typeof value === "string") {
    // a London route: its two places, in the page's language
    const board = app.boards && app.boards.london;
    const lr = board && board.routes && board.routes[value];
    const name = (id) => (i18n.places && i18n.places[id]) || (board.locations[id] && board.locations[id].name) || id;
    if (lr) return `${name(lr.a)} – ${name(lr.b)}`;
  }
  if (key === "card") return i18n.card(value);
  if (key === "ticket") return ticketName(value, app);
  if (key === "routes" && Array.isArray(value)) return value.map((r) => paramText("route", r, app)).join(i18n.t("notice.and"));
  if (key === "winners") return (Array.isArray(value) ? value : [value]).join(i18n.t("notice.and"));
  if (typeof value === "object" && value.code !== undefined) return noticeText(value, app);
  return String(value);
}

// A ticket by its two ends (Europe's or London's), never its id.
export function ticketName(id, app) {
  const { i18n, map } = app;
  if (map && map.tickets && map.tickets[id]) return i18n.ticket(map.tickets[id]);
  const board = app.boards && app.boards.london;
  const t = board && board.tickets && board.tickets[id];
  if (!t) return i18n.t("clash.a_ticket");
  const place = (loc) => (i18n.places && i18n.places[loc]) || board.locations[loc]?.name || "";
  return `${place(t.a)} – ${place(t.b)}`;
}

// The sentence for a notice-like object {code, params, text}. `context` gives params the code's
// string may need that the message itself does not carry (the action's player, route, city).
export function noticeText(n, app, context) {
  if (!n) return "";
  const { i18n } = app;
  const params = { ...(context || {}), ...(n.params || {}) };
  // a London refusal in London's words (buses, not locomotives) where it has its own
  const london = app.state && app.state.game === "london" && i18n.has(`notice.london.${n.code}`);
  const key = london ? `notice.london.${n.code}` : `notice.${n.code}`;
  if (!n.code || !i18n.has(key)) return n.text || "";
  const vars = {};
  for (const [k, v] of Object.entries(params)) vars[k] = paramText(k, v, app);
  // {hue}: the colour itself where a string needs it beside the player (a print's colour)
  if (params.color) vars.hue = i18n.color(params.color);
  // {place}: the route or the city the message is about
  if (vars.place === undefined) vars.place = params.route !== undefined ? vars.route : params.city !== undefined ? vars.city : "";
  const out = i18n.t(key, vars);
  // a string whose params did not all come: the English sentence says it whole
  return /\{\w+\}/.test(out) && n.text ? n.text : out;
}

// Whether a notice is for this page: one with "audience": "host" shows on the host's own pages
// only (host, photo), never on a player's phone, the table view or the history. (The server
// sends such notices to the host's streams only; this is the page's own check.)
const HOST_PAGES = new Set(["host", "photo"]);

export function forThisPage(n, app) {
  if (!n) return false;
  if (n.audience === undefined || n.audience === null) return true;
  return n.audience === "host" && app.role === "host" && HOST_PAGES.has(app.page);
}

// The params a refusal of this action may name: who acts, the route or city.
export function actionContext(action) {
  const a = action || {};
  const out = {};
  if (a.player) {
    out.color = a.player;
    out.player = a.player;
  }
  if (a.route) out.route = a.route;
  if (a.city) out.city = a.city;
  return out;
}

// A refused request (ApiError) in the page's language: from its code, else its sentence.
// Codes a refusal gets when it has no code of its own: its English sentence says more, so an
// English page shows that sentence; another language shows the code's words.
const GENERIC = new Set(["request.invalid", "request.not_found", "auth.forbidden", "rule.illegal", "service.busy"]);

export function refusalText(e, app, action) {
  const { i18n } = app;
  if (!e || e.status === 0) return i18n.t("err.network");
  if (GENERIC.has(e.code) && i18n.lang === "en" && e.message) return e.message;
  const text = noticeText({ code: e.code, params: e.params, text: e.message }, app, actionContext(action));
  if (e.code && i18n.has(`notice.${e.code}`)) return text;
  return i18n.t("err.generic", { error: e.message });
}

// A lenient-payment warning: {code, params, text|error} or (older servers) a plain sentence.
export function warningText(w, app, action) {
  if (w && typeof w === "object") return noticeText({ code: w.code, params: w.params, text: w.text || w.error }, app, actionContext(action));
  return String(w || "");
}

// Whether a payment problem is settled: the host accepted it, or corrected its claim (the
// history's event list marks each logged problem `accepted` and `corrected`).
export function settledProblem(p) {
  return Boolean(p && (p.accepted || p.corrected));
}

// The open payment problems of a state (lenient mode: accepted claims whose payment was wrong).
export function openProblems(state) {
  return ((state && state.problems) || []).filter((p) => p && !settledProblem(p));
}

// One payment problem in words: who, where, what was wrong.
export function problemText(p, app) {
  const { i18n, map, state } = app;
  const who = state?.players?.find((x) => x.color === p.player)?.name || i18n.color(p.player);
  const r = map.routes[p.place];
  const where = r ? i18n.route(r) : map.cities[p.place] ? i18n.city(p.place) : "";
  const context = { color: p.player, player: p.player, ...(r ? { route: p.place } : { city: p.place }) };
  const reason = noticeText({ code: p.code, params: p.params, text: p.error }, app, context);
  // the reason's words name the place already: say it once
  // (a London route is named by the reason only)
  if (!where || reason.includes(where)) return i18n.t("problem.line_named", { name: who, reason });
  return i18n.t("problem.line", { name: who, place: where, reason });
}

// The state's announcement (final round, last turn played, game over), or "".
export function announcementText(state, app) {
  if (!state || !state.announcement) return "";
  return noticeText({ code: state.announcement_code, params: state.announcement_params, text: state.announcement }, app);
}

// The reason of a camera question in pending.confirmations.
export function reasonText(c, app) {
  return noticeText({ code: c.reason_code, params: c.reason_params, text: c.reason }, app);
}
