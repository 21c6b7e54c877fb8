// The final breakdown per player, with the longest trail and each ticket's path shown on the map.

import { PLAYER_COLORS } from "./map.js";
import { el, playerLabel } from "./ui.js";

export function drawFinal(container, state, app) {
  const { i18n, map } = app;
  container.textContent = "";
  const finals = state.players.filter((p) => p.final).map((p) => ({ p, f: p.final }));
  finals.sort((a, b) => a.f.rank - b.f.rank);
  const winners = state.players.filter((p) => (state.winners || []).includes(p.color)).map((p) => p.name);
  if (winners.length) container.appendChild(el("p", { class: "who" }, el("strong", null, i18n.t("final.winner", { names: winners.join(", ") }))));
  for (const { p, f } of finals) {
    const sign = (n) => (n > 0 ? `+${n}` : String(n));
    const block = el(
      "div",
      { class: "final-player", dataset: { color: p.color } },
      el("div", { class: "row" }, el("strong", null, i18n.t("final.rank", { n: f.rank })), playerLabel(p, i18n), el("span", { class: "grow" }), el("span", { class: "total", dataset: { total: String(f.total) } }, String(f.total))),
      el(
        "dl",
        null,
        el("dt", null, i18n.t("final.routes")),
        el("dd", null, String(f.route_points)),
        el("dt", null, `${i18n.t("final.tickets")} (${i18n.t("final.completed", { n: f.tickets_completed, m: f.tickets.length })})`),
        el("dd", null, sign(f.ticket_points)),
        el("dt", null, i18n.t("final.stations")),
        el("dd", null, sign(f.station_points)),
        el("dt", null, i18n.t("final.express")),
        el("dd", null, sign(f.express_points)),
        el("dt", null, i18n.t("final.total")),
        el("dd", null, el("strong", null, String(f.total))),
      ),
    );
    const trail = el("button", { type: "button", onclick: () => app.show([{ routes: f.longest_trail, color: PLAYER_COLORS[p.color] }]) }, `${i18n.t("final.show_trail")} (${f.longest_route})`);
    block.appendChild(el("div", { class: "row" }, trail));
    const list = el("ul", { class: "tickets" });
    for (const t of f.tickets) {
      const tk = map.tickets[t.id];
      const name = tk ? i18n.ticket(tk) : t.id;
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
