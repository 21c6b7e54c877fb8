// The dashboard: one module per page kind, chosen by <body data-page>. State arrives once from
// /api/state, then live over /api/events; every render is a pure function of the latest state.

import { act, getJSON, subscribe } from "./api.js";
import { describeAction, openCity, openRoute, renderActions, renderLog, renderNewGame, renderPairing, renderPending, renderTurnBar, renderTurnSlot } from "./actions.js";
import { drawChart, mergeState, seriesFromEvents } from "./chart.js";
import { drawFinal } from "./final.js";
import { drawGameFinal, gameTitle, isEurope, loadBoard, renderGameScores, renderGameView, useStrings } from "./games.js";
import { chooseLang, I18n } from "./i18n.js";
import { BoardMap, unpackMap } from "./map.js";
import { announcementText, forThisPage, noticeText, openProblems, problemText, refusalText, warningText } from "./notices.js";
import { drawTickets, loadTickets } from "./tickets.js";
import { el, playerLabel, toast } from "./ui.js";

const $ = (id) => document.getElementById(id);

function banner(app) {
  const box = $("banner");
  if (!box) return;
  const { state, i18n } = app;
  box.textContent = "";
  box.classList.toggle("final", !!(state && state.final_round && state.phase === "playing"));
  if (!state || !state.game_id || state.phase === "none") {
    box.appendChild(el("span", null, i18n.t("phase.none")));
    return;
  }
  const cur = state.players.find((p) => p.color === state.current);
  const text = el("div", { class: "grow" });
  if (state.phase === "playing" && cur) {
    if (state.final_round) text.appendChild(el("span", { class: "final-flag", id: "final-round" }, `${i18n.t("final.round")}${state.turns_left ? ` · ${i18n.t("final.turns_left", { n: state.turns_left })}` : ""}`));
    const mine = app.role === "player" && cur.color === app.color;
    text.appendChild(el("span", { class: "who", id: "whose-turn", dataset: { color: cur.color } }, mine ? i18n.t("turn.you") : i18n.t("turn.of", { name: cur.name, color: i18n.color(cur.color) })));
    const step = state.tunnel ? i18n.t("turn.tunnel") : state.acted ? i18n.t("turn.acted") : "";
    text.appendChild(el("div", { class: "muted", id: "turn-step" }, `${i18n.t("turn.number", { n: state.turn + 1 })}${step ? ` · ${step}` : ""}`));
    box.appendChild(el("span", { class: `swatch ${cur.color}`, "aria-hidden": "true" }));
  } else {
    text.appendChild(el("span", { class: "who", id: "phase" }, i18n.t(`phase.${state.phase}`)));
  }
  if (state.last && state.last.type) text.appendChild(el("div", { class: "muted", id: "last-move" }, describeAction({ ...state.last, ...(state.last.action || {}) }, app)));
  const ann = announcementText(state, app);
  if (ann) text.appendChild(el("div", { class: "announcement", id: "announcement", role: "status" }, ann));
  box.appendChild(text);
}

function scoreboard(app) {
  const box = $("scores");
  if (!box) return;
  const { state, i18n } = app;
  box.textContent = "";
  if (!state || !state.players || !state.players.length) {
    box.appendChild(el("p", { class: "muted" }, i18n.t("phase.none")));
    return;
  }
  if (!isEurope(state)) {
    renderGameScores(box, app);
    return;
  }
  const head = el("tr", null, ...["col.player", "col.score", "col.trains", "col.stations", "col.tickets"].map((k) => el("th", { scope: "col" }, i18n.t(k))));
  const body = el("tbody");
  for (const p of state.players) {
    const current = p.color === state.current && state.phase === "playing";
    body.appendChild(
      el(
        "tr",
        { class: current ? "current" : "", "aria-current": current ? "true" : null, dataset: { color: p.color } },
        el("td", null, playerLabel(p, i18n)),
        el("td", { class: "score" }, String(p.final ? p.final.total : p.score)),
        el("td", { class: "trains" }, String(p.trains_left)),
        el("td", { class: "stations" }, String(p.stations_left)),
        el("td", { class: "held" }, String(p.tickets_held)),
      ),
    );
  }
  box.appendChild(el("table", null, el("thead", null, head), body));
}

function boardFromState(app) {
  const { state } = app;
  if (!app.board || app.page === "photo" || app.page === "history" || !isEurope(state)) return;
  const owners = {};
  const stations = {};
  const names = {};
  for (const p of state?.players || []) {
    names[p.color] = p.name;
    for (const r of p.routes) owners[r] = p.color;
    for (const c of p.stations) stations[c] = p.color;
  }
  app.board.update(owners, stations, names);
  app.board.markProblems(openProblems(state).map((p) => p.place));
}

// Payment problems stay visible until the host accepts or corrects them.
function problems(app) {
  const box = $("problems");
  if (!box) return;
  const { i18n, state } = app;
  box.textContent = "";
  const open = openProblems(state);
  if (!open.length) return;
  const items = open.map((p) =>
    el(
      "li",
      { dataset: { problem: String(p.id), place: p.place } },
      el("span", { class: "problem-mark" }, "⚠"),
      el("span", { class: "grow" }, problemText(p, app)),
      app.role === "host" ? el("button", { type: "button", class: "small", dataset: { accept: String(p.id) }, onclick: () => app.act({ type: "accept_problem", problem: p.id }) }, i18n.t("problem.accept")) : null,
    ),
  );
  box.appendChild(el("section", { class: "panel problems" }, el("h2", null, i18n.t("problem.title", { n: open.length })), el("ul", { class: "problem-list" }, items), app.role === "host" ? el("p", { class: "muted" }, i18n.t("problem.host_hint")) : null));
}

async function refreshChart(app, full) {
  const box = $("chart");
  if (!box || !app.state) return;
  if (!isEurope(app.state)) {
    app.points = app.state.series || [];
  } else if (full && app.state.game_id) {
    try {
      const { events } = await getJSON(`/api/games/${encodeURIComponent(app.state.game_id)}/events`);
      app.points = seriesFromEvents(events || [], app.state, app.map);
    } catch {
      app.points = mergeState([], app.state);
    }
  } else {
    app.points = mergeState(app.points || [], app.state);
  }
  drawChart(box, app.points, app.state, app.i18n);
}

function render(app) {
  app.i18n.apply();
  if (app.gone) return;
  // the game's phase: a page's parts that declare their phases (data-phases) come first in it
  document.body.dataset.phase = (app.state && app.state.phase) || "none";
  for (const a of document.querySelectorAll("nav.tabs a")) {
    if (a.dataset.nav === app.page) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  $("lang").textContent = app.i18n.t("lang.switch");
  const europe = isEurope(app.state);
  if (app.page !== "history" && app.page !== "photo") {
    if ($("map")) $("map").classList.toggle("hidden", !europe);
    for (const h of document.querySelectorAll(".map-hint")) h.classList.toggle("hidden", !europe);
  }
  if ($("game-panel")) {
    $("game-panel").classList.toggle("hidden", europe);
    $("game-title").textContent = europe ? "" : gameTitle(app.i18n, app.state.game);
    renderGameView($("game"), app);
  }
  banner(app);
  problems(app);
  scoreboard(app);
  boardFromState(app);
  if ($("turn-slot")) renderTurnSlot($("turn-slot"), app);
  if ($("turnbar")) renderTurnBar($("turnbar"), app);
  if ($("actions")) renderActions($("actions"), app);
  if ($("pending")) renderPending($("pending"), app);
  const finished = app.state && app.state.phase === "finished";
  if ($("final-panel") && app.page !== "history") {
    $("final-panel").classList.toggle("hidden", !finished);
    if (finished) (europe ? drawFinal : drawGameFinal)($("final"), app.state, app);
  }
  if ($("pairing")) renderPairing($("pairing"), app);
  if ($("log")) renderLog($("log"), app);
  if ($("tickets")) app.refreshTickets();
  if (app.pageRender) app.pageRender(app);
}

async function main() {
  const body = document.body;
  const i18n = new I18n();
  useStrings(i18n);
  const [, raw] = await Promise.all([i18n.load(chooseLang()), fetch("/static/map.json").then((r) => r.json())]);
  const map = unpackMap(raw);
  for (const c of Object.values(map.cities)) i18n.mapNames[c.id] = c.name;
  const app = {
    page: body.dataset.page,
    role: body.dataset.role,
    color: body.dataset.color || null,
    i18n,
    map,
    state: null,
    pending: null,
    points: [],
    board: null,
  };
  app.show = (lines) => {
    if (!app.board) return;
    app.board.highlight(lines);
    app.board.reveal(lines);
    $("map").scrollIntoView({ behavior: "smooth", block: "start" });
  };
  app.setState = (s) => {
    if (!s || typeof s.seq !== "number") return;
    const gameChanged = !app.state || app.state.game_id !== s.game_id;
    const changed = !app.state || s.seq !== app.state.seq;
    if (app.state && s.seq < app.state.seq && !gameChanged) return; // an older state arriving late
    app.state = s;
    if (s.pending) app.pending = s.pending;
    if (changed && app.board) {
      app.board.highlight([]);
      // the route last tapped keeps its outline only while its sheet is open (an undone route
      // must not look like the last move)
      if (!document.querySelector(".sheet")) app.board.select(null);
    }
    if (!isEurope(s) && !(app.boards && app.boards[s.game])) {
      loadBoard(app, s.game)
        .then(() => app.state === s && (render(app), refreshChart(app, false)))
        .catch(() => toast(i18n.t("err.network"), "error"));
    }
    render(app);
    refreshChart(app, gameChanged);
  };
  app.act = async (action) => {
    const body = app.state && typeof app.state.seq === "number" && action.type !== "new_game" ? { ...action, after: app.state.seq } : action;
    try {
      const s = await act(body);
      app.setState(s);
      // a wrong payment in lenient mode: the notice (and the problems panel) says it in the
      // page's language; a warning that came as a code is shown here too
      const coded = (s.warnings || []).filter((w) => w && typeof w === "object");
      if (coded.length) toast(coded.map((w) => warningText(w, app, action)).join(" "), "warning", 6000);
      return s;
    } catch (e) {
      const stale = e.status === 401 || (e.status === 403 && /stale|not valid|pair again|another game/i.test(`${e.code || ""} ${e.message}`));
      if (stale && app.role === "player") {
        app.pairingGone();
        return null;
      }
      toast(refusalText(e, app, action), "error", 6000);
      return null;
    }
  };
  app.refused = (e, action) => toast(refusalText(e, app, action), "error", 6000);
  // A phone whose pairing is gone (a new game, a new code): one page that says to ask the host
  // for a new code, instead of refusals on every tap.
  app.pairingGone = () => {
    if (app.role !== "player" || app.gone) return;
    app.gone = true;
    const main = $("app");
    main.textContent = "";
    main.appendChild(
      el(
        "section",
        { class: "panel gone", id: "gone" },
        el("h2", { dataset: { i18n: "pair.gone_title" } }, i18n.t("pair.gone_title")),
        el("p", { dataset: { i18n: "pair.gone_text" } }, i18n.t("pair.gone_text")),
        el("p", null, el("a", { href: "/", class: "pair-link", dataset: { i18n: "pair.gone_table" } }, i18n.t("pair.gone_table"))),
      ),
    );
    for (const id of ["turnbar"]) if ($(id)) $(id).remove();
    document.body.classList.remove("has-bar");
  };
  let ticketsBusy = null;
  app.refreshTickets = () => {
    if (!$("tickets")) return Promise.resolve(); // only a player's page lists tickets
    if (ticketsBusy) return ticketsBusy;
    ticketsBusy = loadTickets(app).then((data) => {
      ticketsBusy = null;
      if (data && (data.error === 401 || data.error === 403)) app.pairingGone();
      else if ($("tickets")) drawTickets($("tickets"), data, app);
    });
    return ticketsBusy;
  };

  if ($("map")) {
    app.board = new BoardMap($("map"), map, i18n);
    app.board.onRoute = (id) => (app.routeTap ? app.routeTap(id) : openRoute(app, id));
    app.board.onCity = (id) => (app.cityTap ? app.cityTap(id) : openCity(app, id));
    // On a phone the whole board is too small to hit a route: start zoomed in, so that a route
    // is one tap; − shows the whole board.
    if (window.innerWidth < 700) requestAnimationFrame(() => app.board.setZoom(2.5, 0.45, 0.45));
  }
  if ($("newgame") && app.page !== "photo") {
    try {
      app.kinds = (await getJSON("/api/kinds")).games;
    } catch {
      app.kinds = null;
    }
  }
  if ($("newgame")) renderNewGame($("newgame"), app, app.page === "photo" ? "photo" : "table");
  if (app.page === "photo") await (await import("./photo.js")).setup(app);
  if (app.page === "history") await (await import("./history.js")).setup(app);
  if (app.page === "host" && $("clashes")) await (await import("./clashes.js")).setup(app);
  if (app.page === "host" && $("table-camera")) await (await import("./table.js")).setup(app);
  if (app.page === "host" && $("network")) await (await import("./network.js")).setup(app);
  if (app.page === "host" && $("doctor")) await (await import("./doctor.js")).setup(app);
  if (app.page === "host" && $("blackbox")) await (await import("./blackbox.js")).setup(app);

  $("lang").addEventListener("click", async () => {
    const next = i18n.other();
    await i18n.load(next);
    i18n.remember(next);
    if (app.board) app.board.relabel();
    if ($("newgame")) renderNewGame($("newgame"), app, app.page === "photo" ? "photo" : "table");
    render(app);
    if ($("chart")) drawChart($("chart"), app.points, app.state, i18n);
  });

  try {
    app.setState(await getJSON("/api/state"));
  } catch {
    toast(i18n.t("err.network"), "error");
  }
  const conn = $("conn");
  subscribe({
    onState: (s) => app.setState(s),
    onPending: (p) => {
      app.pending = p;
      if ($("pending")) renderPending($("pending"), app);
      if ($("actions")) renderActions($("actions"), app);
      if ($("turnbar")) renderTurnBar($("turnbar"), app);
    },
    onNotice: (n) => forThisPage(n, app) && toast(noticeText(n, app), n.level || "info", 6000),
    onOpen: () => {
      conn.classList.remove("off");
      conn.dataset.i18n = "conn.live";
      conn.textContent = i18n.t("conn.live");
    },
    onError: () => {
      conn.classList.add("off");
      conn.dataset.i18n = "conn.offline";
      conn.textContent = i18n.t("conn.offline");
    },
  });
  window.companion = app; // for the browser tests and the curious
  body.dataset.ready = "1";
}

main().catch((e) => {
  console.error(e);
  toast(String(e), "error", 10000);
});
