// The games besides Europe: Ticket to Ride: London (entered by tapping, routes listed by district
// and location), Trans Europa (rounds on the score track) and Trambahn (cards and scorings by
// tapping). Each renders its table view (#game), scoreboard, actions and final breakdown from
// the public state; the board facts come once from /api/map/<game>.

import { getJSON } from "./api.js";
import { finalBlock, routeTicketLines, sign } from "./final.js";
import { keepTickets } from "./keep.js";
import { CARD_COLORS, PLAYER_COLORS } from "./map.js";
import { cardPicker, closeSheet, el, playerLabel, sheet, toast } from "./ui.js";

export const isEurope = (state) => !state || !state.game || state.game === "europe";

export async function loadBoard(app, game) {
  app.boards = app.boards || {};
  if (!app.boards[game]) app.boards[game] = await getJSON(`/api/map/${encodeURIComponent(game)}`);
  return app.boards[game];
}

function canAct(app, color) {
  return app.role === "host" || (app.role === "player" && !!color && color === app.color);
}

const nameOf = (state, color) => state.players.find((p) => p.color === color)?.name || color;
const live = (state) => state && (state.phase === "playing" || state.phase === "setup");

function table(head, rows) {
  return el("table", null, el("thead", null, el("tr", null, head.map((h) => el("th", { scope: "col" }, h)))), el("tbody", null, rows));
}

// ---- London ---------------------------------------------------------------------------------

const LONDON_CARDS = ["black", "blue", "green", "orange", "pink", "yellow", "bus"];

// The page's strings (set once by main.js): London's places by their name in the page's
// language (the catalogue's "places"), else as printed on the board.
let I18N = null;
export function useStrings(i18n) {
  I18N = i18n;
}

function locName(board, id) {
  return (I18N && I18N.places && I18N.places[id]) || board.locations[id]?.name || "";
}

function londonRoute(board, r, i18n) {
  return `${locName(board, r.a)} – ${locName(board, r.b)}${i18n.paren(`${r.length}・${i18n.card(r.color)}`)}`;
}

// Which districts each player's own buses join (the same reading as the scoring: one network
// joining all its locations, through any location).
function districtsJoined(board, routes) {
  const parent = {};
  const find = (x) => {
    while (parent[x] && parent[x] !== x) x = parent[x];
    return x;
  };
  for (const id of routes) {
    const r = board.routes[id];
    if (!r) continue;
    for (const x of [r.a, r.b]) if (!parent[x]) parent[x] = x;
    parent[find(r.a)] = find(r.b);
  }
  return board.districts.filter((d) => d.locations.every((l) => parent[l]) && new Set(d.locations.map(find)).size === 1).map((d) => d.district);
}

function londonGroups(board) {
  // Locations grouped by district (1-5), then those outside any district.
  const groups = board.districts.map((d) => ({ district: d.district, points: d.points, locations: [...d.locations] }));
  const inDistrict = new Set(groups.flatMap((g) => g.locations));
  const others = Object.keys(board.locations).filter((l) => !inDistrict.has(l));
  if (others.length) groups.push({ district: null, points: 0, locations: others });
  for (const g of groups) g.locations.sort((a, b) => locName(board, a).localeCompare(locName(board, b)));
  return groups;
}

function openLondonRoute(app, id) {
  const { i18n, state } = app;
  const board = app.boards.london;
  const r = board.routes[id];
  const owner = state.players.find((p) => p.routes.includes(id));
  const content = [el("p", null, londonRoute(board, r, i18n), " · ", i18n.t("route.points", { n: r.points }), owner ? ` · ${owner.name}` : "")];
  const actor = app.role === "host" ? state.current : app.color;
  if (!owner && state.phase === "playing" && actor && canAct(app, actor)) {
    // as in Europe: a coloured route comes filled, a colour tapped fills the route's length
    const picker = cardPicker(i18n, { deck: LONDON_CARDS, fill: r.length, initial: r.color === "grey" ? [] : Array(r.length).fill(r.color) });
    content.push(picker.el);
    const claim = (cards) => app.act({ type: "claim", player: actor, route: id, ...(cards && cards.length ? { cards } : {}) }).then((s) => s && closeSheet());
    content.push(
      el(
        "div",
        { class: "actions" },
        el("button", { type: "button", class: "primary", id: "claim-go", onclick: () => claim(picker.cards) }, i18n.t("act.claim_for_name", { name: nameOf(state, actor) })),
        el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel")),
      ),
    );
  } else {
    content.push(el("div", { class: "actions" }, el("button", { type: "button", onclick: closeSheet }, i18n.t("act.close"))));
  }
  sheet(`${locName(board, r.a)} – ${locName(board, r.b)}`, ...content);
}

export function openLondonTickets(app, color) {
  const { i18n, state } = app;
  const board = app.boards.london;
  const held = new Set();
  const chosen = new Set();
  const count = el("span", { class: "muted", "aria-live": "polite" }, i18n.t("tickets.selected", { n: 0 }));
  const list = el("div", { class: "pick-list" });
  const all = Object.entries(board.tickets).sort((a, b) => locName(board, a[1].a).localeCompare(locName(board, b[1].a)));
  for (const [id, t] of all) {
    if (held.has(id)) continue;
    const box = el("input", {
      type: "checkbox",
      value: id,
      onchange: (e) => {
        if (e.target.checked) chosen.add(id);
        else chosen.delete(id);
        count.textContent = i18n.t("tickets.selected", { n: chosen.size });
      },
    });
    list.appendChild(el("label", { dataset: { ticket: id } }, box, el("span", null, `${locName(board, t.a)} – ${locName(board, t.b)}${i18n.paren(t.points)}`)));
  }
  sheet(
    `${i18n.t("tickets.pick")} – ${nameOf(state, color)}`,
    list,
    el(
      "div",
      { class: "actions" },
      count,
      el("button", { type: "button", class: "primary", id: "keep-go", onclick: () => keepTickets(app, color, [...chosen]).then((s) => s && (closeSheet(), app.refreshTickets && app.refreshTickets())) }, i18n.t("act.keep")),
      el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel")),
    ),
  );
}

function londonView(box, app) {
  const { i18n, state } = app;
  const board = app.boards.london;
  const owners = {};
  for (const p of state.players) for (const r of p.routes) owners[r] = p.color;
  const joined = Object.fromEntries(state.players.map((p) => [p.color, districtsJoined(board, p.routes)]));
  const actor = app.role === "host" ? state.current : app.color;
  const tappable = state.phase === "playing" && actor && canAct(app, actor);
  box.appendChild(el("p", { class: "muted" }, i18n.t(tappable ? "london.tap_hint" : "london.view_hint")));
  for (const g of londonGroups(board)) {
    const who = state.players.filter((p) => g.district !== null && joined[p.color].includes(g.district));
    const head = g.district === null ? i18n.t("london.other_places") : i18n.t("london.district", { n: g.district, points: g.points });
    const section = el("div", { class: "district", dataset: { district: g.district === null ? "none" : String(g.district) } }, el("h3", { class: "row" }, el("span", { class: "grow" }, head), ...who.map((p) => el("span", { class: `swatch ${p.color}`, title: i18n.t("london.joined_by", { name: p.name }), "aria-label": i18n.t("london.joined_by", { name: p.name }) }))));
    for (const loc of g.locations) {
      const routes = Object.entries(board.routes).filter(([, r]) => r.a === loc || r.b === loc);
      const free = routes.filter(([id]) => !owners[id]).length;
      const items = routes.map(([id, r]) => {
        const other = r.a === loc ? r.b : r.a;
        const owner = owners[id];
        return el(
          "button",
          { type: "button", class: "route-item", dataset: { route: id, owner: owner || "" }, onclick: () => openLondonRoute(app, id) },
          el("span", { class: "chip", style: `background:${CARD_COLORS[r.color] || "#a5a5a5"}` }),
          el("span", { class: "grow" }, `→ ${locName(board, other)}`),
          el("span", { class: "muted" }, `${r.length} · ${i18n.card(r.color)}`),
          owner ? el("span", { class: `swatch ${owner}`, role: "img", "aria-label": nameOf(state, owner) }) : null,
        );
      });
      section.appendChild(el("details", { dataset: { location: loc } }, el("summary", null, `${locName(board, loc)} · ${i18n.t("london.free", { n: free, m: routes.length })}`), el("div", { class: "route-list" }, items)));
    }
    box.appendChild(section);
  }
}

function londonActions(container, app) {
  const { i18n, state } = app;
  const host = app.role === "host";
  if (state.players.some((p) => !p.ready)) {
    for (const p of state.players) {
      if (p.ready || !canAct(app, p.color)) continue;
      container.appendChild(el("div", { class: "row" }, playerLabel(p, i18n), el("span", { class: "grow" }), el("button", { type: "button", class: "primary", dataset: { keep: p.color }, onclick: () => openLondonTickets(app, p.color) }, i18n.t("act.keep"))));
    }
  }
  if (state.phase === "playing") {
    const actor = host ? state.current : app.color;
    if (actor && canAct(app, actor)) {
      const mine = state.current === actor;
      const board = app.boards.london;
      const owners = new Set(state.players.flatMap((p) => p.routes));
      const s = el("select", { id: "route-select", "aria-label": i18n.t("act.claim") }, el("option", { value: "" }, i18n.t("act.claim_pick")));
      for (const g of londonGroups(board)) {
        const grp = el("optgroup", { label: g.district === null ? i18n.t("london.other_places") : i18n.t("london.district", { n: g.district, points: g.points }) });
        const seen = new Set();
        for (const loc of g.locations) {
          for (const [id, r] of Object.entries(board.routes)) {
            if ((r.a !== loc && r.b !== loc) || owners.has(id) || seen.has(id)) continue;
            seen.add(id);
            grp.appendChild(el("option", { value: id }, londonRoute(board, r, i18n)));
          }
        }
        s.appendChild(grp);
      }
      s.addEventListener("change", () => s.value && openLondonRoute(app, s.value));
      container.appendChild(s);
      // a page with the bottom bar has these there, where the thumb is (as in Europe)
      if (document.getElementById("turnbar")) return;
      const row = el("div", { class: "row" });
      row.appendChild(el("button", { type: "button", id: "drew", disabled: !mine || state.acted, onclick: () => app.act({ type: "drew_cards", player: actor, count: 2 }) }, i18n.t("act.drew_london")));
      row.appendChild(el("button", { type: "button", id: "more-tickets", disabled: !mine || state.acted, onclick: () => openLondonTickets(app, actor) }, i18n.t("act.keep")));
      // the turn ends by itself after its action; only a game started without that waits here
      if (state.acted) row.appendChild(el("button", { type: "button", class: "primary", id: "end-turn", disabled: !mine, onclick: () => app.act({ type: "end_turn", player: actor }) }, i18n.t("act.end")));
      container.appendChild(row);
    }
  }
}

function londonFinal(container, state, app) {
  const { i18n } = app;
  const board = app.boards.london;
  for (const p of [...state.players].sort((a, b) => (a.final?.rank || 9) - (b.final?.rank || 9))) {
    const f = p.final;
    if (!f) continue;
    const tickets = el("ul", { class: "tickets" });
    for (const t of f.tickets) {
      const tk = board.tickets[t.id];
      tickets.appendChild(el("li", { dataset: { ticket: t.id } }, el("div", { class: "t-head" }, el("span", null, tk ? `${locName(board, tk.a)} – ${locName(board, tk.b)}` : t.id), el("span", { class: `badge ${t.completed ? "ok" : "bad"}` }, `${t.completed ? "✓" : "✗"} ${sign(t.points)}`))));
    }
    const districts = f.districts.filter((d) => d.completed).map((d) => i18n.t("london.district_short", { n: d.district }));
    const districtsLine = [`${i18n.t("london.districts")}${districts.length ? ` (${districts.join(", ")})` : ""}`, sign(f.district_points), { class: "districts" }];
    container.appendChild(finalBlock(p, i18n, [...routeTicketLines(f, i18n), districtsLine], tickets));
  }
}

export function drawLondonTickets(container, data, app) {
  const { i18n } = app;
  const board = app.boards?.london;
  if (!board || !data.tickets.length) {
    container.appendChild(el("p", { class: "muted" }, i18n.t("tickets.none")));
    return;
  }
  const list = el("ul", { class: "tickets", id: "my-tickets" });
  for (const t of data.tickets) {
    list.appendChild(
      el(
        "li",
        { dataset: { ticket: t.id, completed: String(!!t.completed) } },
        el("div", { class: "t-head" }, el("strong", null, `${locName(board, t.a)} – ${locName(board, t.b)} · ${t.points}`), el("span", { class: `badge ${t.completed ? "ok" : "open"}` }, `${t.completed ? "✓" : "…"} ${i18n.t(t.completed ? "tickets.connected" : "tickets.open")}`)),
      ),
    );
  }
  container.appendChild(list);
  container.appendChild(el("p", { class: "muted" }, i18n.t("tickets.if_ended", { n: data.points_if_ended_now })));
}

// ---- Trans Europa ----------------------------------------------------------------------------

function teView(box, app) {
  const { i18n, state } = app;
  const t = state.table;
  box.appendChild(el("p", { class: "muted", id: "te-track" }, i18n.t("te.track", { start: t.start_points, red: t.red_at_or_below })));
  if (!t.rounds.length) {
    box.appendChild(el("p", { class: "muted" }, i18n.t("te.no_rounds")));
    return;
  }
  const head = [i18n.t("te.round"), ...state.players.map((p) => p.name)];
  const rows = t.rounds.map((r) =>
    el(
      "tr",
      { dataset: { round: String(r.number) } },
      el("td", null, `${r.number}${r.source === "position" ? " ⌖" : ""}`),
      state.players.map((p) => el("td", { class: r.scores[p.color] <= t.red_at_or_below ? "red-area" : "" }, `${r.penalties[p.color] ? `−${r.penalties[p.color]}` : r.complete[p.color] ? "✓" : "0"} → ${r.scores[p.color]}`)),
    ),
  );
  box.appendChild(table(head, rows));
  if (t.rounds.some((r) => r.source === "position")) box.appendChild(el("p", { class: "muted" }, i18n.t("te.from_position")));
}

function stepper(label, value, attrs) {
  const input = el("input", { type: "number", inputmode: "numeric", min: "0", max: "200", value: String(value), "aria-label": label, ...attrs });
  const bump = (d) => {
    input.value = String(Math.max(0, (parseInt(input.value, 10) || 0) + d));
  };
  return { input, el: el("span", { class: "stepper" }, el("button", { type: "button", "aria-label": `${label} −1`, onclick: () => bump(-1) }, "−"), input, el("button", { type: "button", "aria-label": `${label} +1`, onclick: () => bump(1) }, "+")) };
}

function teActions(container, app) {
  const { i18n, state } = app;
  if (app.role !== "host" || state.phase !== "playing") return;
  const t = state.table;
  container.appendChild(el("h3", null, i18n.t("te.enter_round", { n: t.round })));
  container.appendChild(el("p", { class: "muted" }, i18n.t("te.enter_hint")));
  const inputs = {};
  for (const p of state.players) {
    const s = stepper(i18n.t("te.penalty_of", { name: p.name }), 0, { dataset: { penalty: p.color } });
    inputs[p.color] = s.input;
    container.appendChild(el("div", { class: "row te-row" }, playerLabel(p, i18n), el("span", { class: "grow" }), s.el));
  }
  const record = () => {
    const penalties = {};
    for (const [c, input] of Object.entries(inputs)) {
      const v = Number(input.value);
      if (!Number.isInteger(v) || v < 0) {
        toast(i18n.t("te.bad_number"), "error");
        return;
      }
      penalties[c] = v;
    }
    app.act({ type: "round_penalties", penalties });
  };
  container.appendChild(el("div", { class: "row" }, el("button", { type: "button", class: "primary", id: "te-record" }, i18n.t("te.record"))));
  container.querySelector("#te-record").addEventListener("click", record);
  // The round's end position as a form: each player's five cities (one per city colour) and the
  // tracks on the board (links between two points, written with their numbers: 0906-1005). The
  // service computes the exact penalties (the `transeuropa score` position).
  const board = app.boards && app.boards.transeuropa;
  const byColor = {};
  for (const [id, c] of Object.entries((board && board.cities) || {})) (byColor[c.color] = byColor[c.color] || []).push({ id, name: i18n.has(`te.city.${id}`) ? i18n.t(`te.city.${id}`) : i18n.cities[id] || c.name });
  const picks = {};
  const form = el("div", { class: "stack", id: "te-position" });
  for (const p of state.players) {
    const row = el("div", { class: "te-cities", dataset: { cities: p.color } });
    picks[p.color] = Object.keys(byColor).map((col) => {
      const sel = el("select", { "aria-label": i18n.t("te.city_of", { name: p.name, color: i18n.t(`te.city_color_${col}`) }), dataset: { cityColor: col } }, el("option", { value: "" }, i18n.t(`te.city_color_${col}`)));
      for (const c of byColor[col].sort((a, b) => a.name.localeCompare(b.name, i18n.lang))) sel.appendChild(el("option", { value: c.id }, c.name));
      row.appendChild(sel);
      return sel;
    });
    form.appendChild(el("fieldset", null, el("legend", null, playerLabel(p, i18n)), row));
  }
  const tracks = el("textarea", { id: "te-tracks", rows: "3", inputmode: "numeric", "aria-label": i18n.t("te.tracks"), placeholder: "0906-1005 1005-1105" });
  form.appendChild(el("label", null, i18n.t("te.tracks"), tracks));
  const score = () => {
    const players = state.players.map((p) => ({ color: p.color, cities: picks[p.color].map((s) => s.value).filter(Boolean) }));
    const links = tracks.value.split(/[\s,、]+/).filter(Boolean);
    if (players.some((p) => p.cities.length !== picks[p.color].length) || links.some((l) => !/^\d{4}-\d{4}$/.test(l))) {
      toast(i18n.t("te.bad_position"), "error");
      return;
    }
    app.act({ type: "score_round", position: { players, tracks: links } });
  };
  container.appendChild(el("details", null, el("summary", null, i18n.t("te.position")), el("p", { class: "muted" }, i18n.t("te.position_hint")), form, el("button", { type: "button", id: "te-position-go", onclick: score }, i18n.t("te.score_position"))));
}

// Each player's final block by rank, with the board's lines of their final score.
function rankedFinals(container, state, i18n, linesOf) {
  for (const p of [...state.players].sort((a, b) => a.final.rank - b.final.rank)) container.appendChild(finalBlock(p, i18n, linesOf(p.final)));
}

function teFinal(container, state, app) {
  const { i18n } = app;
  rankedFinals(container, state, i18n, (f) => [
    [i18n.t("te.start"), String(f.start_points)],
    [i18n.t("te.penalties"), f.penalties.map((n) => `−${n}`).join(" ") || "0"],
  ]);
}

// ---- Trambahn ---------------------------------------------------------------------------------

const TRAM_COLORS = { blue: "#3674d1", brown: "#8a5a2b", green: "#45a552", yellow: "#f1d031" };
const TRAMS = ["horse", "steam", "electric"];

// A Trambahn line by its colour and number ("blue-2" -> "blue line 2"), never its id.
function lineName(i18n, id) {
  const [c, n] = String(id || "").split("-");
  return i18n.t("tram.line_name", { color: i18n.t(`tram.color_${c}`), n: n || "" });
}

function lineColor(c, i18n) {
  return el("span", { class: "chip", style: `background:${TRAM_COLORS[c]}`, role: "img", "aria-label": i18n.t(`tram.color_${c}`) });
}

function openStop(app, color, line) {
  const { i18n } = app;
  const buttons = [];
  for (let n = 1; n <= 10; n++) buttons.push(el("button", { type: "button", dataset: { card: String(n) }, onclick: () => app.act({ type: "stop", player: color, line: line.id, card: n }).then((s) => s && closeSheet()) }, String(n)));
  buttons.push(el("button", { type: "button", dataset: { card: "C" }, onclick: () => app.act({ type: "stop", player: color, line: line.id, card: "C" }).then((s) => s && closeSheet()) }, i18n.t("tram.conductor")));
  sheet(`${lineName(i18n, line.id)} – ${i18n.t("tram.add_stop")}`, el("div", { class: "numbers" }, buttons), el("div", { class: "actions" }, el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel"))));
}

function openNewLine(app, color) {
  const { i18n, state } = app;
  const buttons = ["blue", "brown", "green", "yellow"].map((c) => el("button", { type: "button", dataset: { lineColor: c }, onclick: () => app.act({ type: "start_line", player: color, color: c }).then((s) => s && closeSheet()) }, lineColor(c, i18n), ` ${i18n.t(`tram.color_${c}`)}`));
  sheet(`${i18n.t("tram.new_line")} – ${nameOf(state, color)}`, el("div", { class: "numbers" }, buttons), el("div", { class: "actions" }, el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel"))));
}

function trambahnView(box, app) {
  const { i18n, state } = app;
  const t = state.table;
  const running = state.phase === "playing";
  const host = app.role === "host";
  box.appendChild(el("p", { class: "who", id: "tram-count" }, i18n.t("tram.scorings", { n: t.terminal_scorings, m: t.terminal_scorings_total })));
  const terms = el("div", { class: "terminals" });
  for (const c of ["blue", "brown", "green", "yellow"]) {
    const n = t.passengers[c];
    terms.appendChild(
      el(
        "div",
        { class: "terminal row", dataset: { terminal: c } },
        lineColor(c, i18n),
        el("span", { class: "grow" }, `${i18n.t(`tram.color_${c}`)} · ${i18n.t("tram.passengers", { n, m: t.passengers_per_scoring })}`),
        running && host ? el("button", { type: "button", class: "small", dataset: { passenger: c }, onclick: () => app.act({ type: "passenger", terminal: c }) }, i18n.t("tram.add_passenger")) : null,
        running && host ? el("button", { type: "button", class: "small", dataset: { score: c }, onclick: () => app.act({ type: "terminal_scoring", terminal: c }) }, i18n.t("tram.score_now")) : null,
      ),
    );
  }
  box.append(el("h3", null, i18n.t("tram.terminals")), terms);
  for (const p of state.players) {
    const mine = running && canAct(app, p.color);
    const block = el("div", { class: "tram-player", dataset: { color: p.color } }, el("h3", { class: "row" }, playerLabel(p, i18n), el("span", { class: "grow" }), el("span", { class: "score" }, String(p.score))));
    if (!p.lines.length) block.appendChild(el("p", { class: "muted" }, i18n.t("tram.no_lines")));
    for (const ln of p.lines) {
      const cards = ln.cards.map((c) => (c === "C" ? i18n.t("tram.conductor_short") : String(c))).join(" ");
      const row = el(
        "div",
        { class: "tram-line row", dataset: { line: ln.id } },
        lineColor(ln.color, i18n),
        el("span", { class: "grow" }, el("strong", null, ln.tram ? i18n.t(`tram.tram_${ln.tram}`) : i18n.t("tram.no_tram")), ` · ${cards || "–"}`, el("span", { class: "muted" }, ` · ${i18n.t("tram.line_points", { n: ln.points })}${ln.extra_done ? ` · ${i18n.t("tram.extra_done")}` : ""}`)),
      );
      if (mine && !ln.finished) row.appendChild(el("button", { type: "button", class: "small", dataset: { stop: ln.id }, onclick: () => openStop(app, p.color, ln) }, i18n.t("tram.add_stop")));
      if (mine && !ln.tram) {
        for (const tr of TRAMS) row.appendChild(el("button", { type: "button", class: "small", dataset: { tram: `${ln.id}:${tr}` }, onclick: () => app.act({ type: "tram", player: p.color, line: ln.id, tram: tr }) }, i18n.t(`tram.tram_${tr}`)));
      }
      block.appendChild(row);
    }
    if (mine) {
      block.appendChild(
        el(
          "div",
          { class: "row" },
          el("button", { type: "button", dataset: { newLine: p.color }, onclick: () => openNewLine(app, p.color) }, i18n.t("tram.new_line")),
          el("button", { type: "button", dataset: { endTurn: p.color }, onclick: () => app.act({ type: "end_turn", player: p.color }) }, i18n.t("act.end")),
        ),
      );
    }
    box.appendChild(block);
  }
  if (t.scorings.length) {
    const rows = t.scorings
      .slice()
      .reverse()
      .slice(0, 12)
      .map((s) => el("li", null, `${s.kind === "terminal" ? i18n.t("tram.terminal_scoring", { n: s.terminal_scoring, color: i18n.t(`tram.color_${s.color}`) }) : i18n.t("tram.extra_run", { name: nameOf(state, s.player), line: lineName(i18n, s.line) })}: ${state.players.map((p) => `${p.name} +${s.points[p.color]}`).join(", ")}`));
    box.append(el("h3", null, i18n.t("tram.history")), el("ol", { class: "log", reversed: true }, rows));
  }
}

function trambahnFinal(container, state, app) {
  const { i18n } = app;
  rankedFinals(container, state, i18n, (f) => [
    [i18n.t("tram.terminal_points"), String(f.terminal_points)],
    [i18n.t("tram.extra_points"), String(f.extra_points)],
  ]);
}

// ---- shared entry points (called by main.js) ----------------------------------------------

export function renderGameView(box, app) {
  box.textContent = "";
  const { state } = app;
  if (isEurope(state) || !app.boards?.[state.game]) return;
  if (state.game === "london") londonView(box, app);
  else if (state.game === "transeuropa") teView(box, app);
  else if (state.game === "trambahn") trambahnView(box, app);
}

export function renderGameScores(box, app) {
  const { i18n, state } = app;
  const cols = { london: ["col.player", "col.score", "col.buses", "col.tickets"], transeuropa: ["col.player", "col.score", "col.last_penalty"], trambahn: ["col.player", "col.score", "col.lines"] }[state.game];
  const rows = state.players.map((p) => {
    const current = p.color === state.current && state.phase === "playing";
    const extra =
      state.game === "london"
        ? [el("td", { class: "trains" }, String(p.buses_left)), el("td", { class: "held" }, String(p.tickets_held))]
        : state.game === "transeuropa"
          ? [el("td", { class: "penalty" }, p.penalties.length ? (p.penalties[p.penalties.length - 1] ? `−${p.penalties[p.penalties.length - 1]}` : "0") : "–")]
          : [el("td", { class: "lines" }, String(p.lines.length))];
    return el(
      "tr",
      { class: `${current ? "current" : ""}${p.in_red ? " red-area" : ""}`, "aria-current": current ? "true" : null, dataset: { color: p.color } },
      el("td", null, playerLabel(p, i18n)),
      el("td", { class: "score" }, String(p.final ? p.final.total : p.score)),
      extra,
    );
  });
  box.appendChild(table(cols.map((k) => i18n.t(k)), rows));
}

export function renderGameActions(container, app) {
  const { state } = app;
  if (!app.boards?.[state.game]) return;
  if (state.game === "london") londonActions(container, app);
  else if (state.game === "transeuropa") teActions(container, app);
}

export function drawGameFinal(container, state, app) {
  const { i18n } = app;
  container.textContent = "";
  const winners = state.players.filter((p) => (state.winners || []).includes(p.color)).map((p) => p.name);
  if (winners.length) container.appendChild(el("p", { class: "who" }, el("strong", null, i18n.t("final.winner", { names: winners.join(", ") }))));
  if (state.game === "london" && app.boards?.london) londonFinal(container, state, app);
  else if (state.game === "transeuropa") teFinal(container, state, app);
  else if (state.game === "trambahn") trambahnFinal(container, state, app);
}

export function describeOther(a, app) {
  const { i18n, state } = app;
  const who = a.player && state ? nameOf(state, a.player) : a.player || "";
  const board = app.boards?.london;
  switch (a.type) {
    case "round_penalties":
      return i18n.colon(
        i18n.t("te.round"),
        Object.entries(a.penalties || {})
          .map(([c, n]) => `${state ? nameOf(state, c) : c} ${n ? `−${n}` : "0"}`)
          .join(i18n.t("fmt.list_sep")),
      );
    case "score_round":
      return i18n.t("te.score_position");
    case "passenger":
      return i18n.colon(i18n.t(`tram.color_${a.terminal}`), i18n.t("tram.add_passenger"));
    case "terminal_scoring":
      return i18n.colon(i18n.t(`tram.color_${a.terminal}`), i18n.t("tram.score_now"));
    case "start_line":
      return i18n.colon(who, `${i18n.t("tram.new_line")}${i18n.paren(i18n.t(`tram.color_${a.color}`))}`);
    case "stop":
      return i18n.colon(who, `${lineName(i18n, a.line)} ← ${a.card === "C" ? i18n.t("tram.conductor") : a.card}`);
    case "tram":
      return i18n.colon(who, `${lineName(i18n, a.line)} ← ${i18n.t(`tram.tram_${a.tram}`)}`);
    case "claim": {
      const r = board && board.routes[a.route];
      return i18n.colon(who, `${r ? `${locName(board, r.a)} – ${locName(board, r.b)}` : a.route}${a.cards ? i18n.paren(i18n.cardList(a.cards)) : ""}`);
    }
    default:
      return null;
  }
}

export function gameTitle(i18n, game) {
  return i18n.t(`game.${game || "europe"}`);
}

export { PLAYER_COLORS };
