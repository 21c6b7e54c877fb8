// The final breakdown per player, with the longest trail and each ticket's path shown on the map.

import { PLAYER_COLORS } from "./map.js";
import { el, playerLabel } from "./ui.js";

export const sign = (n) => (n > 0 ? `+${n}` : String(n));

// One player's block in any game's final breakdown: rank, name and total in a row, then the
// board's lines ([term, value] or [term, value, the value's attributes]) and the total, then
// whatever else the board shows below.
export function finalBlock(p, i18n, lines, ...more) {
  const f = p.final;
  const terms = lines.flatMap(([term, value, attrs = null]) => [el("dt", null, term), el("dd", attrs, value)]);
  return el(
    "div",
    { class: "final-player", dataset: { color: p.color } },
    el("div", { class: "row" }, el("strong", null, i18n.t("final.rank", { n: f.rank })), playerLabel(p, i18n), el("span", { class: "grow" }), el("span", { class: "total", dataset: { total: String(f.total) } }, String(f.total))),
    el("dl", null, terms, el("dt", null, i18n.t("final.total")), el("dd", null, el("strong", null, String(f.total)))),
    ...more,
  );
}

// The lines every route-building board's breakdown starts with: route points, ticket points.
export function routeTicketLines(f, i18n) {
  return [
    [i18n.t("final.routes"), String(f.route_points)],
    [`${i18n.t("final.tickets")}${i18n.paren(i18n.t("final.completed", { n: f.tickets_completed, m: f.tickets.length }))}`, sign(f.ticket_points)],
  ];
}

export function drawFinal(container, state, app) {
  const { i18n, map } = app;
  container.textContent = "";
  const finals = state.players.filter((p) => p.final).map((p) => ({ p, f: p.final }));
  finals.sort((a, b) => a.f.rank - b.f.rank);
  const winners = state.players.filter((p) => (state.winners || []).includes(p.color)).map((p) => p.name);
  if (winners.length) container.appendChild(el("p", { class: "who" }, el("strong", null, i18n.t("final.winner", { names: winners.join(i18n.t("notice.and")) }))));
  for (const { p, f } of finals) {
    const block = finalBlock(p, i18n, [...routeTicketLines(f, i18n), [i18n.t("final.stations"), sign(f.station_points)], [i18n.t("final.express"), sign(f.express_points)]]);
    const trail = el("button", { type: "button", class: "show-trail", onclick: () => app.show([{ routes: f.longest_trail, color: PLAYER_COLORS[p.color] }]) }, `${i18n.t("final.show_trail")}${i18n.paren(f.longest_route)}`);
    // every completed ticket's path and the route each station borrowed, together on the map
    const borrowed = Object.entries(f.station_routes || {});
    const all = () =>
      app.show([
        ...f.tickets.filter((t) => t.completed && t.path.length).map((t) => ({ routes: t.path, color: "#ff8c00", cities: map.tickets[t.id] ? [map.tickets[t.id].a, map.tickets[t.id].b] : [] })),
        ...borrowed.map(([city, route]) => ({ routes: route ? [route] : [], color: "#d1006f", cities: [city], cls: "borrowed" })),
      ]);
    block.appendChild(el("div", { class: "row" }, trail, el("button", { type: "button", class: "show-all", onclick: all }, i18n.t("final.show_all"))));
    if (borrowed.length) {
      const ul = el("ul", { class: "tickets final-stations" });
      for (const [city, route] of borrowed) {
        const r = route && map.routes[route];
        const text = r ? i18n.t("final.station_borrow", { city: i18n.city(city), route: i18n.route(r) }) : i18n.t("final.station_none", { city: i18n.city(city) });
        ul.appendChild(el("li", { dataset: { station: city, borrowed: route || "" } }, el("div", { class: "t-head" }, el("span", null, text), el("button", { type: "button", onclick: () => app.show([{ routes: route ? [route] : [], color: "#d1006f", cities: [city], cls: "borrowed" }]) }, i18n.t("tickets.show_path")))));
      }
      block.append(el("h3", null, i18n.t("final.station_routes")), ul);
    }
    const list = el("ul", { class: "tickets" });
    for (const t of f.tickets) {
      const tk = map.tickets[t.id];
      const name = tk ? i18n.ticket(tk) : "";
      const badge = el("span", { class: `badge ${t.completed ? "ok" : "bad"}` }, `${t.completed ? "✓" : "✗"} ${sign(t.points)}`);
      const li = el("li", null, el("div", { class: "t-head" }, el("span", null, name), badge));
      if (t.completed && t.path.length) {
        li.appendChild(el("button", { type: "button", onclick: () => app.show([{ routes: t.path, color: "#ff8c00", cities: tk ? [tk.a, tk.b] : [] }]) }, i18n.t("tickets.show_path")));
      }
      list.appendChild(li);
    }
    block.appendChild(list);
    container.appendChild(block);
  }
}
