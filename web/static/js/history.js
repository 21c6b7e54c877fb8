// Past games: the list from /api/games with each game's winners and scores (from its state);
// opening one shows its board, a replay slider over its moves (the state after move N, from
// /api/games/<id>/state?seq=N) and, when finished, the final breakdown.

import { describeAction, problemOf } from "./actions.js";
import { getJSON } from "./api.js";
import { drawFinal } from "./final.js";
import { drawGameFinal, gameTitle, isEurope, loadBoard } from "./games.js";
import { openProblems, problemText, refusalText } from "./notices.js";
import { el, toast } from "./ui.js";

const OTHER_GAMES = ["london", "transeuropa", "trambahn"];
const MOVES = new Set(["claim", "build_station", "draw_tickets", "keep_tickets", "drew_cards", "end_turn", "tunnel_reveal", "tunnel_pay", "tunnel_withdraw", "finish", "set_board", "round_penalties", "score_round", "passenger", "terminal_scoring", "start_line", "stop", "tram"]);

function title(i18n, g) {
  if (OTHER_GAMES.includes(g.variant)) return gameTitle(i18n, g.variant);
  return g.variant && g.variant !== "europe" ? `${i18n.t("game.europe")} · ${i18n.t(`variant.${g.variant}`)}` : i18n.t("game.europe");
}

function scoreLine(state, i18n) {
  const ranked = [...state.players].sort((a, b) => (b.final ? b.final.total : b.score) - (a.final ? a.final.total : a.score));
  return ranked.map((p) => el("span", { class: "hist-score", dataset: { color: p.color } }, el("span", { class: `swatch ${p.color}`, role: "img", "aria-label": i18n.color(p.color) }), ` ${p.name} ${p.final ? p.final.total : p.score}`));
}

function boardOf(state) {
  const owners = {};
  const stations = {};
  const names = {};
  for (const p of state.players) {
    names[p.color] = p.name;
    for (const r of p.routes) owners[r] = p.color;
    for (const c of p.stations) stations[c] = p.color;
  }
  return { owners, stations, names };
}

export async function setup(app) {
  const { i18n } = app;
  let games = [];
  const states = {};
  let opened = null; // {id, events, state, at}
  const photos = await import("./history_photos.js").then((m) => m.photos(app)).catch(() => null);

  const showBoard = (s) => {
    const { owners, stations, names } = boardOf(s);
    document.getElementById("map").classList.remove("hidden");
    app.board.update(owners, stations, names);
    app.board.markProblems(openProblems(s).map((p) => p.place));
  };

  const drawReplay = () => {
    const box = document.getElementById("replay");
    box.textContent = "";
    if (!opened) {
      box.classList.add("hidden");
      return;
    }
    box.classList.remove("hidden");
    const { events, at, state } = opened;
    const g = games.find((x) => x.id === opened.id) || {};
    box.appendChild(el("h2", null, `${title(i18n, g)}`));
    if (events.length > 1) {
      const slider = el("input", { type: "range", id: "replay-slider", min: "1", max: String(events.length), value: String(at + 1), step: "1", "aria-label": i18n.t("history.replay") });
      const move = async (i) => {
        opened.at = i;
        try {
          opened.state = await getJSON(`/api/games/${encodeURIComponent(opened.id)}/state?seq=${events[i].seq}`);
        } catch (e) {
          toast(refusalText(e, app), "error");
          return;
        }
        drawReplay();
        if (isEurope(opened.state)) showBoard(opened.state);
        document.getElementById("replay-slider")?.focus({ preventScroll: true });
      };
      slider.addEventListener("change", () => move(Number(slider.value) - 1));
      const step = (d) => el("button", { type: "button", class: "step", "aria-label": i18n.t(d < 0 ? "history.back" : "history.forward"), disabled: d < 0 ? at <= 0 : at >= events.length - 1, onclick: () => move(Math.min(events.length - 1, Math.max(0, at + d))) }, d < 0 ? "◀" : "▶");
      box.appendChild(el("label", { class: "replay-label" }, i18n.t("history.after_move", { n: at + 1, m: events.length })));
      box.appendChild(el("div", { class: "row replay-row" }, step(-1), el("div", { class: "grow" }, slider), step(1)));
      const ev = events[at];
      const shownApp = { ...app, state };
      // a claim whose payment problem is still open at that point (not accepted, not corrected)
      const problem = problemOf(ev, shownApp);
      const mark = problem ? el("span", { class: "problem-mark", role: "img", title: problemText(problem, shownApp), "aria-label": problemText(problem, shownApp) }, ` ⚠ ${i18n.t("log.payment_problem")}`) : null;
      box.appendChild(el("p", { class: "muted", id: "replay-move" }, describeAction({ ...(ev.action || {}) }, shownApp), mark));
    }
    box.appendChild(el("div", { class: "hist-scores", id: "replay-scores" }, scoreLine(state, i18n)));
    // payments still to check at that point, marked on the map too
    const open = openProblems(state);
    if (open.length) box.appendChild(el("ul", { class: "problem-list" }, open.map((p) => el("li", { dataset: { problem: String(p.id) } }, el("span", { class: "problem-mark" }, "⚠"), el("span", null, problemText(p, { ...app, state }))))));
    // the camera's photo at this position (history_photos.js)
    if (photos) photos.show(box, opened.id, events.length ? events[at].seq : null);
  };

  const open = async (id) => {
    try {
      const s = states[id] || (await getJSON(`/api/games/${encodeURIComponent(id)}`));
      let events = [];
      try {
        events = ((await getJSON(`/api/games/${encodeURIComponent(id)}/events`)).events || []).filter((e) => !e.undone && MOVES.has((e.action || {}).type));
      } catch {
        events = [];
      }
      opened = { id, events, state: s, at: Math.max(0, events.length - 1) };
      drawReplay();
      const panel = document.getElementById("final-panel");
      const box = document.getElementById("final");
      if (!isEurope(s)) {
        await loadBoard(app, s.game);
        document.getElementById("map").classList.add("hidden");
        panel.classList.toggle("hidden", s.phase !== "finished");
        if (s.phase === "finished") drawGameFinal(box, s, app);
        document.getElementById("replay").scrollIntoView({ behavior: "smooth" });
        return;
      }
      showBoard(s);
      panel.classList.toggle("hidden", s.phase !== "finished");
      if (s.phase === "finished") drawFinal(box, s, app);
      document.getElementById("replay").scrollIntoView({ behavior: "smooth" });
    } catch (e) {
      toast(refusalText(e, app), "error");
    }
  };

  const draw = () => {
    const box = document.getElementById("history");
    box.textContent = "";
    if (!games.length) {
      box.appendChild(el("p", { class: "muted" }, i18n.t("history.none")));
      return;
    }
    const list = el("ul", { class: "tickets" });
    for (const g of games) {
      const when = g.created ? new Date(typeof g.created === "number" ? g.created * 1000 : g.created).toLocaleString(i18n.lang, { dateStyle: "medium", timeStyle: "short" }) : "";
      const s = states[g.id];
      const phase = g.phase === "finished" ? "finished" : g.phase === "abandoned" ? "abandoned" : "running";
      const winners = s && s.phase === "finished" ? s.players.filter((p) => (s.winners || []).includes(p.color)) : [];
      list.appendChild(
        el(
          "li",
          { dataset: { game: g.id, phase } },
          el("div", { class: "t-head" }, el("strong", null, title(i18n, g)), el("span", { class: `badge ${phase === "finished" ? "ok" : phase === "abandoned" ? "bad" : "open"}` }, i18n.t(`history.phase_${phase}`))),
          el("div", { class: "muted" }, when),
          winners.length ? el("div", { class: "hist-winners" }, i18n.t("final.winner", { names: winners.map((p) => p.name).join(i18n.t("notice.and")) })) : null,
          s ? el("div", { class: "hist-scores" }, scoreLine(s, i18n)) : el("div", { class: "muted" }, (g.players || []).map((p) => p.name).join(i18n.t("notice.and"))),
          el("button", { type: "button", onclick: () => open(g.id) }, i18n.t("history.open")),
        ),
      );
    }
    box.appendChild(list);
    drawReplay();
  };
  try {
    games = (await getJSON("/api/games")).games || [];
  } catch (e) {
    toast(refusalText(e, app), "error");
  }
  // each game's winners and scores come from its state (the 30 latest)
  await Promise.all(
    games.slice(0, 30).map((g) =>
      getJSON(`/api/games/${encodeURIComponent(g.id)}`)
        .then((s) => (states[g.id] = s))
        .catch(() => null),
    ),
  );
  app.pageRender = draw;
}
