// Photo mode: upload a photo of a finished board, let the service read it, fix the reading on
// the map (tap a route to cycle its owner, a city for its station), enter each player's tickets,
// confirm (set_board) and finish. With no camera at all, the host taps the whole board in.

import { getJSON, post } from "./api.js";
import { refusalText } from "./notices.js";
import { el, playerLabel } from "./ui.js";

function cycle(current, colors) {
  const i = current ? colors.indexOf(current) : -1;
  return i + 1 < colors.length ? colors[i + 1] : null;
}

export async function setup(app) {
  const draft = { routes: {}, stations: {}, tickets: {}, unsure: new Set(), gameId: null };
  const { i18n } = app;

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
    redrawMap();
  };
  app.cityTap = (id) => {
    const colors = app.state.players.map((p) => p.color);
    const next = cycle(draft.stations[id], colors);
    if (next) draft.stations[id] = next;
    else delete draft.stations[id];
    redrawMap();
  };

  const upload = async (file) => {
    const status = document.getElementById("photo-status");
    status.textContent = i18n.t("photo.reading");
    try {
      const form = new FormData();
      form.append("photo", file);
      const { job } = await post("/api/photo", form);
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
        status.textContent = `${i18n.t("photo.fix")}${draft.unsure.size ? ` (${i18n.t("photo.low")}: ${draft.unsure.size})` : ""}`;
        redrawMap();
        return;
      }
    } catch (e) {
      status.textContent = refusalText(e, app);
    }
  };

  const confirm = async () => {
    const tickets = {};
    for (const p of app.state.players) {
      const sel = document.querySelector(`select[data-photo-tickets="${p.color}"]`);
      if (sel) tickets[p.color] = [...sel.selectedOptions].map((o) => o.value);
    }
    const s = await app.act({ type: "set_board", routes: draft.routes, stations: draft.stations, tickets });
    if (s) await app.act({ type: "finish" });
  };

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
    const input = el("input", { type: "file", accept: "image/*", capture: "environment", id: "photo-file", "aria-label": i18n.t("photo.upload") });
    panel.append(
      el("label", null, i18n.t("photo.upload"), input),
      el("div", { class: "row" }, el("button", { type: "button", class: "primary", onclick: () => input.files[0] && upload(input.files[0]) }, i18n.t("photo.send"))),
      el("p", { class: "muted", id: "photo-status", "aria-live": "polite" }),
    );
    if (state.phase === "finished") return;
    // the tickets of this game's variant only
    const variant = app.map.variants.find((v) => v.id === state.variant) || app.map.variants[0];
    const tickets = Object.values(app.map.tickets).filter((t) => t.decks.some((d) => variant.decks.includes(d))).sort((a, b) => i18n.ticket(a).localeCompare(i18n.ticket(b), i18n.lang));
    for (const p of state.players) {
      const sel = el("select", { multiple: true, size: "5", dataset: { photoTickets: p.color }, "aria-label": i18n.t("photo.tickets", { name: p.name }) });
      for (const t of tickets) sel.appendChild(el("option", { value: t.id }, `${i18n.ticket(t)} (${t.points})`));
      fix.appendChild(el("label", null, el("div", { class: "row" }, playerLabel(p, i18n)), i18n.t("photo.tickets", { name: p.name }), sel));
    }
    fix.appendChild(el("div", { class: "row", style: "margin-top:.6rem" }, el("button", { type: "button", class: "primary", id: "photo-confirm-go", onclick: () => confirm().catch((e) => app.refused(e)) }, i18n.t("photo.confirm"))));
  };
}
