// A paired phone's own destination tickets, with live progress: connected or not, and the
// shortest set of free routes still missing (drawn on the map on request).

import { getJSON } from "./api.js";
import { drawLondonTickets } from "./games.js";
import { PLAYER_COLORS } from "./map.js";
import { el } from "./ui.js";

export async function loadTickets(app) {
  if (!app.color) return null;
  try {
    return await getJSON(`/api/players/${app.color}/tickets`);
  } catch (e) {
    if (e.status === 401 || e.status === 403 || e.status === 404) return { error: e.status };
    return null;
  }
}

export function drawTickets(container, data, app) {
  const { i18n, map } = app;
  container.textContent = "";
  if (!app.color) {
    container.appendChild(el("p", { class: "muted" }, i18n.t("tickets.hidden")));
    return;
  }
  const me = app.state?.players?.find((p) => p.color === app.color);
  if (me) container.appendChild(el("p", { class: "row" }, el("span", { class: `swatch ${me.color}` }), i18n.t("me.you_are", { color: i18n.t("player.label", { name: me.name, color: i18n.color(me.color) }) })));
  if (!data || data.error) {
    container.appendChild(el("p", { class: "muted" }, data && data.error === 404 ? i18n.t("phase.none") : i18n.t("me.not_paired")));
    return;
  }
  if (data.game === "london") {
    drawLondonTickets(container, data, app);
    return;
  }
  if (data.game) {
    container.appendChild(el("p", { class: "muted" }, i18n.t("me.nothing_private")));
    return;
  }
  if (data.pending && data.pending.length) {
    const names = data.pending.map((id) => (map.tickets[id] ? i18n.ticket(map.tickets[id]) : id));
    container.appendChild(el("p", { class: "muted" }, i18n.t("tickets.pending", { list: names.join(", ") })));
  }
  if (!data.tickets.length) {
    container.appendChild(el("p", { class: "muted" }, i18n.t("tickets.none")));
    return;
  }
  const list = el("ul", { class: "tickets", id: "my-tickets" });
  app.heldTickets = new Set(data.tickets.map((t) => t.id)); // not offered again by the picker
  for (const t of data.tickets) {
    const tk = map.tickets[t.id] || t;
    const state = t.completed ? "ok" : t.reachable ? "open" : "bad";
    const label = t.completed ? i18n.t("tickets.connected") : t.reachable ? i18n.t("tickets.open") : i18n.t("tickets.blocked");
    const li = el(
      "li",
      { dataset: { ticket: t.id, completed: String(!!t.completed) } },
      el("div", { class: "t-head" }, el("strong", null, `${i18n.ticket(tk)} · ${t.points}`), el("span", { class: `badge ${state}` }, `${t.completed ? "✓" : t.reachable ? "…" : "✗"} ${label}`)),
    );
    if (!t.completed && t.reachable && t.missing && t.missing.length) {
      const names = t.missing.map((id) => (map.routes[id] ? i18n.route(map.routes[id]) : id));
      li.appendChild(el("div", { class: "missing" }, i18n.t("tickets.missing", { n: t.missing_trains }), " ", names.join(", ")));
    }
    const own = (app.state?.players?.find((p) => p.color === app.color)?.routes || []);
    li.appendChild(
      el(
        "button",
        {
          type: "button",
          onclick: () =>
            app.show([
              { routes: t.completed ? t.path : own, color: t.completed ? "#ff8c00" : PLAYER_COLORS[app.color], cities: [tk.a, tk.b] },
              { routes: t.completed ? [] : t.missing || [], color: "#d1006f", cls: "missing" },
            ]),
        },
        i18n.t("tickets.show_path"),
      ),
    );
    list.appendChild(li);
  }
  container.appendChild(list);
  if (typeof data.points_if_ended_now === "number") container.appendChild(el("p", { class: "muted" }, i18n.t("tickets.if_ended", { n: data.points_if_ended_now })));
}
