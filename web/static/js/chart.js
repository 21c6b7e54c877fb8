// The score chart as inline SVG: one line per player, route points after each turn.
// History comes from the game's event log (GET /api/games/<id>/events) once, then each live
// state adds or replaces the point of its turn, so an undo moves the line back.

import { PLAYER_COLORS } from "./map.js";
import { el } from "./ui.js";

const TABLE = new Set(["claim", "tunnel_reveal", "tunnel_pay", "tunnel_withdraw", "build_station", "draw_tickets", "keep_tickets", "drew_cards", "end_turn"]);

// Fold the event log into points [{turn, scores: {color: n}}]. A claim counts where it was made
// if the player owns the route now (tunnels withdrawn and undone claims do not).
export function seriesFromEvents(events, state, map) {
  const owned = {};
  for (const p of state.players) for (const r of p.routes) owned[r] = p.color;
  const scores = Object.fromEntries(state.players.map((p) => [p.color, 0]));
  const points = [{ turn: 0, scores: { ...scores } }];
  let turn = 0;
  let last = null;
  const counted = new Set();
  const ready = new Set();
  // a log with draws: a later keep answers one (older logs kept tickets as the turn's action)
  const drawn = events.some((e) => !e.undone && e.action && e.action.type === "draw_tickets");
  for (const ev of events) {
    const a = ev.action || {};
    if (ev.undone || !TABLE.has(a.type)) continue;
    if (a.type === "keep_tickets" && !ready.has(a.player)) {
      ready.add(a.player); // the first tickets, kept during setup: no turn
      continue;
    }
    if (a.type === "keep_tickets" && drawn) continue; // the answer to a draw (the turn's action), maybe out of turn
    if (last !== null && a.player && a.player !== last) turn += 1;
    last = a.type === "end_turn" ? null : a.player;
    if (a.type === "end_turn") turn += 1;
    if (a.type === "claim" && owned[a.route] === a.player && !counted.has(a.route) && map.routes[a.route]) {
      counted.add(a.route);
      scores[a.player] += map.routes[a.route].points;
      points.push({ turn, scores: { ...scores } });
    }
  }
  return mergeState(points, state);
}

export function mergeState(points, state) {
  if (!state || !state.players || !state.players.length) return points;
  const turn = Math.max(state.turn || 0, points.length ? points[points.length - 1].turn : 0);
  const kept = points.filter((p) => p.turn < turn);
  kept.push({ turn, scores: Object.fromEntries(state.players.map((p) => [p.color, p.score])) });
  if (state.phase === "finished") {
    kept.push({ turn: turn + 1, final: true, scores: Object.fromEntries(state.players.map((p) => [p.color, p.final ? p.final.total : p.score])) });
  }
  return kept;
}

export function drawChart(container, points, state, i18n) {
  container.textContent = "";
  if (!state || !state.players || !state.players.length || points.length < 2) {
    container.appendChild(el("p", { class: "muted" }, i18n.t("chart.empty")));
    return;
  }
  const W = 360;
  const H = 180;
  const L = 30;
  const B = 22;
  const maxX = Math.max(1, ...points.map((p) => p.turn));
  const maxY = Math.max(10, ...points.flatMap((p) => Object.values(p.scores)));
  const minY = Math.min(0, ...points.flatMap((p) => Object.values(p.scores)));
  const x = (t) => L + ((W - L - 8) * t) / maxX;
  const y = (v) => H - B - ((H - B - 8) * (v - minY)) / (maxY - minY);
  const ns = "http://www.w3.org/2000/svg";
  const summary = state.players.map((p) => `${p.name} ${points[points.length - 1].scores[p.color]}`).join(", ");
  const s = document.createElementNS(ns, "svg");
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  s.setAttribute("class", "chart");
  s.setAttribute("role", "img");
  s.setAttribute("aria-label", i18n.t("chart.label", { summary }));
  const add = (tag, attrs) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    s.appendChild(e);
    return e;
  };
  add("line", { x1: L, y1: H - B, x2: W - 4, y2: H - B, class: "axis" });
  add("line", { x1: L, y1: 6, x2: L, y2: H - B, class: "axis" });
  const step = maxY > 150 ? 50 : maxY > 60 ? 20 : 10;
  for (let v = 0; v <= maxY; v += step) {
    add("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end" }).textContent = String(v);
    if (v) add("line", { x1: L, y1: y(v), x2: W - 4, y2: y(v), class: "axis", "stroke-dasharray": "2 4" });
  }
  const axis = state.game === "transeuropa" ? i18n.t("chart.round") : state.game === "trambahn" ? i18n.t("chart.scoring") : i18n.t("chart.turn");
  add("text", { x: W - 4, y: H - 6, "text-anchor": "end" }).textContent = `${axis} ${maxX}`;
  for (const p of state.players) {
    const pts = points.map((q) => `${x(q.turn).toFixed(1)},${y(q.scores[p.color] || 0).toFixed(1)}`).join(" ");
    add("polyline", { points: pts, stroke: PLAYER_COLORS[p.color], "data-color": p.color });
  }
  container.appendChild(s);
  const legend = el("div", { class: "legend" });
  for (const p of state.players) {
    legend.appendChild(el("span", null, el("span", { class: `swatch ${p.color}` }), ` ${i18n.colon(`${p.name}${i18n.paren(i18n.color(p.color))}`, points[points.length - 1].scores[p.color])}`));
  }
  container.appendChild(legend);
}
