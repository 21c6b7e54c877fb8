// Photo mode: upload a photo of a finished board, let the service read it, fix the reading on
// the map (tap a route to cycle its owner, a city for its station), enter each player's tickets,
// confirm (set_board) and finish. With no camera at all, the host taps the whole board in.

import { getJSON, post } from "./api.js";
import { refusalText } from "./notices.js";
import { openTickets } from "./actions.js";
import { closeSheet, el, playerLabel, sheet } from "./ui.js";

function cycle(current, colors) {
  const i = current ? colors.indexOf(current) : -1;
  return i + 1 < colors.length ? colors[i + 1] : null;
}

export async function setup(app) {
  const draft = { routes: {}, stations: {}, tickets: {}, unsure: new Set(), gameId: null, check: [], problems: [], confirmed: new Set() };
  const { i18n } = app;
  // the table's own camera, when there is one: its frame is read with the table's profile
  const tableCamera = await getJSON("/api/camera/profile").then((s) => !!s.camera, () => false);

  const redrawMap = () => {
    const names = Object.fromEntries((app.state?.players || []).map((p) => [p.color, p.name]));
    app.board.update(draft.routes, draft.stations, names, draft.unsure);
  };

  const fromState = () => {
    draft.routes = {};
    draft.stations = {};
    for (const p of app.state.players) {
      for (const r of p.routes) draft.routes[r] = p.color;
      for (const c of p.stations) draft.stations[c] = p.color;
    }
    draft.unsure.clear();
    draft.gameId = app.state.game_id;
  };

  app.routeTap = (id) => {
    const colors = app.state.players.map((p) => p.color);
    const next = cycle(draft.routes[id], colors);
    if (next) draft.routes[id] = next;
    else delete draft.routes[id];
    draft.unsure.delete(id);
    if (draft.check.includes(id)) draft.confirmed.add(id);
    redrawMap();
    drawCheck();
  };
  app.cityTap = (id) => {
    const colors = app.state.players.map((p) => p.color);
    const next = cycle(draft.stations[id], colors);
    if (next) draft.stations[id] = next;
    else delete draft.stations[id];
    if (draft.check.includes(id)) draft.confirmed.add(id);
    redrawMap();
    drawCheck();
  };

  // One line per thing to check: tap its name to see it on the map, ✓ when the reading is
  // right; a wrong one is fixed by tapping it on the map (route: owner, city: station).
  const drawCheck = () => {
    const box = document.getElementById("photo-check");
    if (!box) return;
    box.textContent = "";
    const names = Object.fromEntries((app.state?.players || []).map((p) => [p.color, p.name]));
    const left = draft.check.filter((id) => !draft.confirmed.has(id));
    if (!draft.check.length && !draft.problems.length) return;
    box.appendChild(el("h3", null, i18n.t("photo.check_title", { n: left.length })));
    for (const pr of draft.problems) {
      box.appendChild(el("p", { class: "problem", dataset: { problem: pr.code } }, i18n.t(`photo.problem.${pr.code}`, { color: i18n.color(pr.color), n: pr.count || 0 })));
    }
    const list = el("ul", { class: "tickets photo-check" });
    for (const id of draft.check) {
      const route = app.map.routes[id];
      const city = app.map.cities[id];
      if (!route && !city) continue;
      const owner = route ? draft.routes[id] : draft.stations[id];
      const what = route ? i18n.route(route) : i18n.t("photo.check_station", { city: i18n.city(id) });
      const seen = owner ? `${names[owner] || ""}${i18n.paren(i18n.color(owner))}` : i18n.t(route ? "route.free" : "city.no_station");
      const done = draft.confirmed.has(id);
      const show = () => {
        app.board.highlight([{ routes: route ? [id] : [], cities: city ? [id] : [route.a, route.b].filter(Boolean), color: "#ff00aa" }]);
        app.board.select(id);
        document.getElementById("map").scrollIntoView({ behavior: "smooth", block: "start" });
      };
      list.appendChild(
        el(
          "li",
          { dataset: { check: id, done: String(done) } },
          el("div", { class: "t-head" }, el("button", { type: "button", class: "linkish", onclick: show }, what), el("span", { class: `badge ${done ? "ok" : "open"}` }, seen)),
          done
            ? null
            : el(
                "div",
                { class: "row" },
                el("button", { type: "button", class: "primary", dataset: { confirm: id }, onclick: () => (draft.confirmed.add(id), draft.unsure.delete(id), redrawMap(), drawCheck()) }, i18n.t("photo.check_ok")),
                el("button", { type: "button", dataset: { fix: id }, onclick: show }, i18n.t("photo.check_fix")),
              ),
        ),
      );
    }
    box.appendChild(list);
  };

  // An uploaded photo, or (`file` null) the table camera's newest frame, read with its profile.
  const upload = async (file) => {
    const status = document.getElementById("photo-status");
    status.textContent = i18n.t("photo.reading");
    try {
      let job;
      if (file) {
        const form = new FormData();
        form.append("photo", file);
        ({ job } = await post("/api/photo", form));
      } else {
        ({ job } = await post("/api/camera/photo", {}));
      }
      for (let i = 0; i < 120; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        const res = await getJSON(`/api/photo/${encodeURIComponent(job)}`);
        if (res.status === "reading") continue;
        if (res.status === "failed") {
          status.textContent = i18n.t("photo.failed", { error: res.error || "?" });
          return;
        }
        const reading = res.reading || {};
        draft.routes = {};
        draft.stations = {};
        draft.unsure.clear();
        for (const [id, c] of Object.entries(reading.routes || {})) if (c) draft.routes[id] = c;
        for (const [id, c] of Object.entries(reading.stations || {})) if (c) draft.stations[id] = c;
        for (const [id, conf] of Object.entries(reading.confidence || {})) if (conf < 0.6) draft.unsure.add(id);
        // the reader's check list (routes and cities a person should confirm) and its problems
        draft.check = [...new Set([...(reading.check || []), ...draft.unsure])];
        draft.problems = reading.problems || [];
        draft.confirmed.clear();
        status.textContent = `${i18n.t("photo.fix")}${draft.check.length ? i18n.paren(i18n.colon(i18n.t("photo.low"), draft.check.length)) : ""}`;
        redrawMap();
        drawCheck();
        return;
      }
    } catch (e) {
      status.textContent = refusalText(e, app);
    }
  };

  const confirm = async () => {
    const tickets = {};
    for (const p of app.state.players) tickets[p.color] = draft.tickets[p.color] || [];
    const s = await app.act({ type: "set_board", routes: draft.routes, stations: draft.stations, tickets });
    if (s) await app.act({ type: "finish" });
  };
  // scoring ends the game: asked first
  const askConfirm = () =>
    sheet(
      i18n.t("photo.finish_title"),
      el("p", null, i18n.t("photo.finish_text")),
      el("div", { class: "actions" }, el("button", { type: "button", class: "primary", id: "photo-finish-go", onclick: () => (closeSheet(), confirm().catch((e) => app.refused(e))) }, i18n.t("photo.finish_go")), el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel"))),
    );

  app.pageRender = () => {
    const panel = document.getElementById("photo");
    const fix = document.getElementById("photo-confirm");
    const state = app.state;
    const photoGame = state && state.game_id && state.mode === "photo";
    if (photoGame && draft.gameId !== state.game_id) fromState();
    if (state && state.phase === "finished" && (!state.game || state.game === "europe")) fromState();
    redrawMap();
    if (panel.dataset.game === String(state?.game_id) && panel.dataset.lang === i18n.lang && panel.dataset.phase === state?.phase) return;
    panel.dataset.game = String(state?.game_id);
    panel.dataset.lang = i18n.lang;
    panel.dataset.phase = state?.phase || "";
    panel.textContent = "";
    fix.textContent = "";
    if (!photoGame) {
      panel.appendChild(el("p", { class: "muted" }, i18n.t("photo.start")));
      return;
    }
    // the browser's own file button speaks its own language ("Choose File"): a button of the
    // page's own words opens it, and a word beside it says whether a photo is chosen
    const chosen = el("span", { class: "muted grow", id: "photo-chosen" }, i18n.t("photo.none_chosen"));
    const input = el("input", { type: "file", accept: "image/*", capture: "environment", id: "photo-file", class: "file-hidden", "aria-label": i18n.t("photo.upload"), onchange: () => (chosen.textContent = i18n.t(input.files[0] ? "photo.chosen" : "photo.none_chosen")) });
    panel.append(
      el("div", null, i18n.t("photo.upload")),
      el("div", { class: "row" }, el("label", { class: "file-pick", for: "photo-file" }, i18n.t("photo.choose"), input), chosen),
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", class: "primary", onclick: () => input.files[0] && upload(input.files[0]) }, i18n.t("photo.send")),
        tableCamera ? el("button", { type: "button", id: "photo-camera", onclick: () => upload(null) }, i18n.t("photo.from_camera")) : null,
      ),
      el("p", { class: "muted", id: "photo-status", "aria-live": "polite" }),
      el("div", { id: "photo-check" }),
    );
    drawCheck();
    if (state.phase === "finished") return;
    // each player's tickets with the ticket picker (the variant's tickets, searchable; the ones
    // given to another player are not offered)
    const rows = el("div", { id: "photo-tickets" });
    const drawRows = () => {
      rows.textContent = "";
      for (const p of state.players) {
        const mine = draft.tickets[p.color] || [];
        const others = Object.entries(draft.tickets).filter(([c]) => c !== p.color).flatMap(([, ids]) => ids);
        const names = mine.map((id) => (app.map.tickets[id] ? i18n.ticket(app.map.tickets[id]) : id)).join(i18n.t("fmt.list_sep"));
        const pick = () => openTickets(app, p.color, { held: others, initial: mine, first: true, onDone: (ids) => ((draft.tickets[p.color] = ids), drawRows()) });
        rows.appendChild(el("div", { class: "row photo-ticket-row", dataset: { photoTickets: p.color } }, playerLabel(p, i18n), el("span", { class: "muted grow" }, names), el("button", { type: "button", dataset: { pickTickets: p.color }, onclick: pick }, i18n.t("photo.pick_tickets", { name: p.name, n: mine.length }))));
      }
    };
    drawRows();
    fix.appendChild(rows);
    fix.appendChild(el("div", { class: "row", style: "margin-top:.6rem" }, el("button", { type: "button", class: "primary", id: "photo-confirm-go", onclick: askConfirm }, i18n.t("photo.confirm"))));
  };
}
