// Notices and announcements in the reader's language. The server sends each one as a stable
// `code` with `params` (and an English `text` for API clients); a code without a translation
// (or the code "message") shows the English text as it is. See companion/webapp/API.md.

const COLOR_PARAMS = new Set(["color", "owner", "current", "player"]);

function paramText(key, value, app) {
  const { i18n, map } = app;
  if (value === null || value === undefined) return COLOR_PARAMS.has(key) ? i18n.t("route.free") : "";
  if (COLOR_PARAMS.has(key)) return i18n.color(value);
  if (key === "route") {
    const r = map && map.routes[value];
    return r ? i18n.route(r) : String(value);
  }
  if (key === "city") return i18n.city(value);
  if (key === "card") return i18n.card(value);
  if (key === "winners") return (Array.isArray(value) ? value : [value]).join(i18n.t("notice.and"));
  if (typeof value === "object" && value.code !== undefined) return noticeText(value, app);
  return String(value);
}

// The sentence for a notice-like object {code, params, text}.
export function noticeText(n, app) {
  if (!n) return "";
  const { i18n } = app;
  const params = n.params || {};
  let key = `notice.${n.code}`;
  if (params.n === 1 && Object.hasOwn(i18n.strings, `${key}_one`)) key = `${key}_one`;
  if (!n.code || !Object.hasOwn(i18n.strings, key)) return n.text || "";
  const vars = {};
  for (const [k, v] of Object.entries(params)) vars[k] = paramText(k, v, app);
  // {place}: the route or the city the message is about
  if (vars.place === undefined) vars.place = params.route !== undefined ? vars.route : params.city !== undefined ? vars.city : "";
  return i18n.t(key, vars);
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
