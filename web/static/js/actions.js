// Everything that changes the game: claims, payments, tunnels, stations, tickets, turns, undo,
// new game, pairing. The host may act for anyone; a paired phone only for its own colour.

import { getJSON, post } from "./api.js";
import { describeOther, isEurope, openLondonTickets, renderGameActions } from "./games.js";
import { PLAYER_COLORS } from "./map.js";
import { fold } from "./i18n.js";
import { keepTickets } from "./keep.js";
import { openProblems, problemText, reasonText, refusalText, settledProblem } from "./notices.js";
import { cardPicker, closeSheet, colorSelect, el, playerLabel, sheet, toast } from "./ui.js";

const STATION_COSTS = [1, 2, 3];
const COLORS = ["blue", "red", "green", "yellow", "black"];

function canAct(app, color) {
  return app.role === "host" || (app.role === "player" && color === app.color);
}

function playing(state) {
  return state && (state.phase === "playing" || state.phase === "setup");
}

function player(state, color) {
  return state.players.find((p) => p.color === color);
}

// Cards that would pay a route exactly when the route has one colour: a quick fill.
function suggestion(route) {
  if (route.color === "grey") return null;
  const out = [];
  for (let i = 0; i < route.length - route.locomotives; i++) out.push(route.color);
  for (let i = 0; i < route.locomotives; i++) out.push("locomotive");
  return out;
}

function tappedFor(app, color) {
  const pay = app.pending && app.pending.payment;
  return pay && pay.player === color && pay.cards && pay.cards.length ? pay.cards : null;
}

// ---- route and city sheets ------------------------------------------------------------

export function openRoute(app, id) {
  const { i18n, map, state } = app;
  const r = map.routes[id];
  if (!r) return;
  app.board.select(id);
  const owner = app.board.owners[id];
  const info = el("p", null, app.board.describeRoute(id), " · ", i18n.t("route.points", { n: r.points }));
  const content = [info];
  const actor = app.role === "host" ? state?.current : app.color;
  // what the rules would refuse is said before the tap, not offered and refused after it
  const cannot = owner || !state || state.phase !== "playing" ? null : claimBlocked(app, r, actor);
  if (cannot) content.push(el("p", { class: "cannot", id: "cannot", role: "note" }, cannot));
  if (!cannot && !owner && state && state.phase === "playing" && !state.tunnel && actor && canAct(app, actor)) {
    const who = app.role === "host" ? colorSelect(state.players, actor, i18n, { "aria-label": i18n.t("act.claim_for"), name: "player" }) : null;
    const color = () => (who ? who.value : actor);
    const tapped = tappedFor(app, color());
    // The cards the route asks for, ready: its colour (and a ferry's locomotives); a grey route
    // fills with the colour tapped. Cards tapped on the reader go first.
    const ferry = Array(r.locomotives).fill("locomotive");
    const initial = tapped || suggestion(r) || ferry;
    const picker = cardPicker(i18n, { fill: r.length, initial });
    if (tapped) content.push(el("p", { class: "muted", id: "reader-cards" }, i18n.t("cards.tapped", { cards: i18n.cardList(tapped) })));
    else if (r.color === "grey") content.push(el("p", { class: "muted" }, i18n.t("cards.grey_hint", { n: r.length })));
    if (who) content.push(el("label", null, i18n.t("act.claim_for"), who));
    const claim = (cards) => app.act({ type: "claim", player: color(), route: id, ...(cards ? { cards } : {}) }).then((s) => s && closeSheet());
    // a tunnel: the three cards turned up are tapped here too; the third sends the claim with
    // its payment and the reveal (no surcharge: built, the turn ends; else pay or withdraw)
    const reveal =
      r.tunnel && state.payment_mode !== "off"
        ? cardPicker(i18n, {
            max: 3,
            caption: el("strong", null, i18n.t("tunnel.reveal_now")),
            onChange: async (cards) => {
              const pay = picker.cards.length ? picker.cards : tapped;
              if (cards.length !== 3 || !pay) return;
              const who = color();
              const s = await app.act({ type: "claim", player: who, route: id, cards: pay });
              if (!s) return;
              closeSheet();
              revealTunnel(app, who, cards);
            },
          })
        : null;
    content.push(
      picker.el,
      reveal ? el("div", { id: "reveal-now" }, reveal.el) : null,
      state.payment_mode === "strict" ? null : el("div", { class: "actions" }, el("button", { type: "button", id: "claim-nocards", onclick: () => claim(undefined) }, i18n.t("act.no_cards"))),
      el(
        "div",
        { class: "actions" },
        el("button", { type: "button", class: "primary", id: "claim-go", onclick: () => claim(picker.cards.length ? picker.cards : tapped || undefined) }, i18n.t(r.tunnel ? "act.claim_tunnel" : "act.claim")),
        el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel")),
      ),
    );
  } else {
    content.push(el("div", { class: "actions" }, el("button", { type: "button", onclick: closeSheet }, i18n.t("act.close"))));
  }
  sheet(i18n.route(r), ...content.filter(Boolean));
}

// Why this page cannot claim route r for actor now (a sentence), or null: a phone whose player
// is not to move, a double route closed by its twin, a double's twin already the actor's.
function claimBlocked(app, r, actor) {
  const { i18n, state } = app;
  if (app.role === "player" && state.current && state.current !== app.color) {
    const cur = player(state, state.current);
    return i18n.t("turn.not_you", { name: cur ? cur.name : "", color: i18n.color(state.current) });
  }
  if (app.board.isClosed(r.id)) return i18n.t("route.closed");
  if (r.twin && actor && app.board.owners[r.twin] === actor) return i18n.t("route.twin_own");
  return null;
}

// The tunnel's three turned-up cards; with no surcharge the tunnel is built at once: say so.
export async function revealTunnel(app, who, cards) {
  const s = await app.act({ type: "tunnel_reveal", player: who, cards });
  if (s && !s.tunnel) toast(app.i18n.t("tunnel.none"), "info", 5000);
  return s;
}

export function openCity(app, id) {
  const { i18n, state } = app;
  app.board.select(id);
  const owner = app.board.stationOwners[id];
  const name = owner ? player(state, owner)?.name || i18n.color(owner) : "";
  const content = [el("p", null, owner ? i18n.t("city.station_of", { name, color: i18n.color(owner) }) : i18n.t("city.no_station"))];
  const actor = app.role === "host" ? state?.current : app.color;
  const me = actor && state ? player(state, actor) : null;
  const notYou = !owner && state && state.phase === "playing" && app.role === "player" && state.current !== app.color;
  if (notYou) {
    const cur = player(state, state.current);
    content.push(el("p", { class: "cannot", id: "cannot", role: "note" }, i18n.t("turn.not_you", { name: cur ? cur.name : "", color: i18n.color(state.current) })));
  }
  if (!notYou && !owner && me && state.phase === "playing" && !state.tunnel && canAct(app, actor) && me.stations_left > 0) {
    const n = 4 - me.stations_left;
    const who = app.role === "host" ? colorSelect(state.players, actor, i18n, { "aria-label": i18n.t("act.claim_for") }) : null;
    const picker = cardPicker(i18n, { fill: STATION_COSTS[n - 1] || n });
    if (who) content.push(el("label", null, i18n.t("act.claim_for"), who));
    content.push(el("p", { class: "muted" }, i18n.t((STATION_COSTS[n - 1] || n) === 1 ? "act.station_cost_one" : "act.station_cost", { n, cost: STATION_COSTS[n - 1] || n })));
    const build = () => {
      const color = who ? who.value : actor;
      const cards = picker.cards.length ? picker.cards : tappedFor(app, color);
      app.act({ type: "build_station", player: color, city: id, ...(cards ? { cards } : {}) }).then((s) => s && closeSheet());
    };
    content.push(picker.el, el("div", { class: "actions" }, el("button", { type: "button", class: "primary", id: "station-go", onclick: build }, i18n.t("act.station")), el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel"))));
  } else {
    content.push(el("div", { class: "actions" }, el("button", { type: "button", onclick: closeSheet }, i18n.t("act.close"))));
  }
  sheet(i18n.city(id), ...content);
}

// ---- tickets ---------------------------------------------------------------------------

// The ticket picker: search by city (either language, kana, no diacritics), the tickets chosen
// listed above the list. Offered: the variant's tickets, less those this page knows the player
// holds (a phone its own; photo mode the ones given to others) and, after the first keep, the
// long ones (dealt only at the start, except in Big Cities). opts: {held, initial, first, onDone}
// (onDone(ids): instead of keeping them, e.g. photo mode's board).
export function openTickets(app, color, opts = {}) {
  const { i18n, map, state } = app;
  const variant = map.variants.find((v) => v.id === state.variant) || map.variants[0];
  const me = player(state, color);
  const first = opts.first ?? !(me && me.ready);
  const held = new Set(opts.held || (color === app.color && app.heldTickets) || []);
  const longs = first || variant.decks.includes("big_cities");
  const all = Object.values(map.tickets).filter((t) => t.decks.some((d) => variant.decks.includes(d)) && !held.has(t.id) && (longs || !t.long));
  all.sort((a, b) => i18n.ticket(a).localeCompare(i18n.ticket(b), i18n.lang));
  const chosen = new Set(opts.initial || []);
  const count = el("span", { class: "muted", "aria-live": "polite" }, i18n.t("tickets.selected", { n: chosen.size }));
  const picked = el("p", { class: "picked", id: "tickets-picked", "aria-live": "polite" });
  const showPicked = () => {
    const names = [...chosen].map((id) => (map.tickets[id] ? i18n.ticket(map.tickets[id]) : id));
    picked.textContent = names.length ? i18n.colon(i18n.t("tickets.chosen"), names.join(i18n.t("fmt.list_sep"))) : i18n.t("tickets.none_chosen");
    count.textContent = i18n.t("tickets.selected", { n: chosen.size });
  };
  showPicked();
  const list = el("div", { class: "pick-list" });
  const filter = el("input", { type: "search", placeholder: i18n.t("act.search"), "aria-label": i18n.t("act.search") });
  const labels = [];
  for (const t of all) {
    const box = el("input", {
      type: "checkbox",
      value: t.id,
      checked: chosen.has(t.id),
      onchange: (e) => {
        if (e.target.checked) chosen.add(t.id);
        else chosen.delete(t.id);
        showPicked();
      },
    });
    const text = `${i18n.ticket(t)}${i18n.paren(t.points)}${t.long ? ` · ${i18n.t("tickets.long")}` : ""}`;
    const label = el("label", { dataset: { ticket: t.id, search: `${i18n.citySearch(t.a)} ${i18n.citySearch(t.b)}` } }, box, el("span", null, text));
    labels.push(label);
    list.appendChild(label);
  }
  const search = () => {
    const q = fold(filter.value.trim());
    for (const l of labels) l.classList.toggle("hidden", q !== "" && !l.dataset.search.includes(q));
  };
  filter.addEventListener("input", search);
  // names in the other language come with the first search: then every label knows them
  i18n.searchNames().then(() => {
    for (const l of labels) {
      const t = map.tickets[l.dataset.ticket];
      if (t) l.dataset.search = `${i18n.citySearch(t.a)} ${i18n.citySearch(t.b)}`;
    }
    search();
  });
  const keep = () => {
    if (opts.onDone) {
      opts.onDone([...chosen]);
      closeSheet();
      return;
    }
    keepTickets(app, color, [...chosen]).then((s) => s && (closeSheet(), app.refreshTickets && app.refreshTickets()));
  };
  sheet(
    `${i18n.t("tickets.pick")} – ${me ? me.name : i18n.color(color)}`,
    picked,
    filter,
    list,
    el(
      "div",
      { class: "actions" },
      count,
      el("button", { type: "button", class: "primary", id: "keep-go", onclick: keep }, i18n.t(opts.onDone ? "act.ok" : "act.keep")),
      el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel")),
    ),
  );
}

// ---- the turn: tunnel step at the top, the current player's choices in the bottom bar --------

// The tunnel's reveal-and-pay step (the tunnel surcharge). Shown at the top of the page as soon as
// a tunnel claim waits; the turn cannot end until it is paid or withdrawn.
export function tunnelPanel(app, tunnel) {
  const { i18n, map } = app;
  const r = map.routes[tunnel.route];
  const box = el("section", { class: "panel tunnel", id: "tunnel" }, el("h2", null, i18n.t("tunnel.title", { route: r ? i18n.route(r) : "" })));
  box.appendChild(el("p", { class: "muted" }, i18n.t("tunnel.played", { cards: i18n.cardList(tunnel.played || []) })));
  if (!canAct(app, tunnel.player)) {
    box.appendChild(el("p", null, i18n.t("tunnel.waiting", { name: player(app.state, tunnel.player)?.name || i18n.color(tunnel.player) })));
    return box;
  }
  if (!tunnel.revealed) {
    // the third card tapped sends the reveal at once
    const send = (cards) => revealTunnel(app, tunnel.player, cards);
    const picker = cardPicker(i18n, { max: 3, caption: el("strong", null, i18n.t("tunnel.reveal")), onChange: (cards) => cards.length === 3 && send(cards) });
    box.append(picker.el);
    box.appendChild(el("div", { class: "row" }, el("button", { type: "button", id: "reveal-go", onclick: () => send(picker.cards) }, i18n.t("tunnel.reveal_btn"))));
  } else {
    const extra = tunnel.extra || 0;
    const c = tunnel.extra_color;
    const msg = !extra ? i18n.t("tunnel.no_extra") : c && c !== "locomotive" ? i18n.t("tunnel.extra", { n: extra, color: i18n.card(c) }) : i18n.t("tunnel.extra_loco", { n: extra });
    box.appendChild(el("p", { class: "surcharge", role: "status" }, el("strong", null, msg), el("br"), el("span", { class: "muted" }, i18n.t("tunnel.revealed", { cards: i18n.cardList(tunnel.revealed) }))));
    const picker = cardPicker(i18n, { initial: Array(extra).fill(c || "locomotive"), max: Math.max(extra, 3), caption: i18n.t("tunnel.pay_pick") });
    // the surcharge comes filled; changing it is the exception, folded away so that the pay and
    // withdraw buttons stay in view
    if (extra) box.appendChild(el("details", { class: "pay-other" }, el("summary", null, i18n.t("tunnel.pay_other", { cards: i18n.cardList(picker.cards) })), picker.el));
    box.appendChild(
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", class: "primary", id: "tunnel-pay", onclick: () => app.act({ type: "tunnel_pay", player: tunnel.player, ...(picker.cards.length ? { cards: picker.cards } : {}) }) }, i18n.t(extra ? "tunnel.pay" : "tunnel.build")),
        el("button", { type: "button", id: "tunnel-withdraw", onclick: () => app.act({ type: "tunnel_withdraw", player: tunnel.player }) }, i18n.t("tunnel.withdraw")),
      ),
    );
  }
  return box;
}

// The slot under the banner: the tunnel step, or the first-ticket keep this page may enter.
export function renderTurnSlot(container, app) {
  const { state } = app;
  const before = container.dataset.shown || "";
  container.textContent = "";
  let shown = "";
  if (state && isEurope(state) && state.tunnel && state.phase === "playing") {
    container.appendChild(tunnelPanel(app, state.tunnel));
    shown = `tunnel:${state.tunnel.route}:${state.tunnel.revealed ? 1 : 0}`;
  }
  container.dataset.shown = shown;
  if (shown && shown !== before && canAct(app, state.tunnel.player)) {
    closeSheet();
    window.scrollTo({ top: 0 });
  }
}

function actorOf(app) {
  const { state } = app;
  if (!state || state.phase !== "playing") return null;
  if (app.role === "host") return state.current;
  return app.role === "player" && app.color === state.current ? app.color : null;
}

// The bottom bar: what the current player can do now, where the thumb is. Europe only (the
// other games keep their rows in the actions panel).
export function renderTurnBar(bar, app) {
  const { i18n, state } = app;
  bar.textContent = "";
  const london = state && state.game === "london";
  if (!state || !state.game_id || !(isEurope(state) || london) || state.mode === "photo" || app.page === "photo" || app.page === "history") {
    bar.classList.add("hidden");
    document.body.classList.remove("has-bar");
    return;
  }
  const items = [];
  const setupKeep = state.players.filter((p) => !p.ready && canAct(app, p.color) && (state.phase === "setup" || state.phase === "playing"));
  const actor = actorOf(app);
  if (app.role === "player" && setupKeep.length && !london) {
    items.push(el("button", { type: "button", class: "primary", dataset: { keep: app.color }, onclick: () => openTickets(app, app.color) }, i18n.t("act.keep_first")));
  }
  // the player who just acted may take it back on their own phone until the next player acts
  const own = state.own_undo;
  if (own && app.role === "player" && own.player === app.color && !state.tunnel) items.push(ownUndo(app, own));
  // (a tunnel being settled: its own panel at the top holds every choice; the bar would only
  // cover its buttons)
  if (actor && !state.tunnel) {
    const acted = !!state.acted;
    items.push(el("button", { type: "button", id: "drew", disabled: acted, onclick: () => app.act({ type: "drew_cards", player: actor, count: 2 }) }, i18n.t(london ? "act.drew_london" : "act.drew")));
    items.push(el("button", { type: "button", id: "more-tickets", disabled: acted, onclick: () => (london ? openLondonTickets(app, actor) : openTickets(app, actor)) }, i18n.t(london ? "act.keep" : "act.more_tickets")));
    // a turn ends by itself after its action; a game started before that (or the referee
    // box's table) may still have a turn waiting for its end
    if (acted) items.push(el("button", { type: "button", class: "primary", id: "end-turn", onclick: () => app.act({ type: "end_turn", player: actor }) }, i18n.t("act.end")));
  }
  bar.classList.toggle("hidden", !items.length);
  document.body.classList.toggle("has-bar", !!items.length);
  if (items.length) bar.append(...items);
}

// The player's own last move, named, with the button that takes it back (their own undo).
function ownUndo(app, own) {
  const { i18n } = app;
  const step = (app.events || []).find((e) => e.seq === own.seq);
  const last = app.state.last && app.state.last.seq === own.seq ? { ...app.state.last, ...(app.state.last.action || {}) } : step && step.action;
  const what = last ? doneText(last, app) : "";
  return el(
    "div",
    { class: "own-undo", id: "own-undo", role: "status" },
    el("span", { class: "grow" }, what),
    el("button", { type: "button", id: "own-undo-go", onclick: () => app.act({ type: "undo", seq: own.seq }) }, i18n.t("act.take_back")),
  );
}

function routeChooser(app, actor) {
  // The same claim as a map tap, for screen readers and small screens: pick a free route.
  const { i18n, map } = app;
  const taken = app.board.owners;
  const s = el("select", { id: "route-select", "aria-label": i18n.t("act.claim") }, el("option", { value: "" }, i18n.t("act.claim_pick")));
  const free = Object.values(map.routes).filter((r) => !taken[r.id]);
  free.sort((a, b) => i18n.route(a).localeCompare(i18n.route(b), i18n.lang));
  for (const r of free) s.appendChild(el("option", { value: r.id }, `${i18n.route(r)}${i18n.paren(`${r.length}・${i18n.card(r.color)}${r.tunnel ? `・${i18n.t("route.tunnel")}` : ""}`)}`));
  s.addEventListener("change", () => s.value && openRoute(app, s.value));
  const c = el("select", { id: "city-select", "aria-label": i18n.t("act.station") }, el("option", { value: "" }, i18n.t("act.station_pick")));
  const cities = Object.keys(map.cities).filter((id) => !app.board.stationOwners[id]);
  cities.sort((a, b) => i18n.city(a).localeCompare(i18n.city(b), i18n.lang));
  for (const id of cities) c.appendChild(el("option", { value: id }, i18n.city(id)));
  c.addEventListener("change", () => c.value && openCity(app, c.value));
  return [s, c];
}

export function renderActions(container, app) {
  const { i18n, state } = app;
  container.textContent = "";
  container.closest("section")?.classList.remove("hidden");
  if (!state || !state.game_id || state.phase === "none") {
    container.appendChild(el("p", { class: "muted" }, i18n.t("phase.none")));
    return;
  }
  const host = app.role === "host";
  if (!isEurope(state)) {
    renderGameActions(container, app);
    if (host) container.appendChild(hostRow(app));
    return;
  }
  if (host && (state.phase === "setup" || (state.phase === "playing" && state.players.some((p) => !p.ready)))) {
    for (const p of state.players) {
      if (p.ready) continue;
      container.appendChild(el("div", { class: "row" }, playerLabel(p, i18n), el("span", { class: "grow" }), el("button", { type: "button", class: "primary", dataset: { keep: p.color }, onclick: () => openTickets(app, p.color) }, i18n.t("act.keep_first"))));
    }
  }
  const actor = actorOf(app);
  if (actor && !state.tunnel) {
    const [routes, cities] = routeChooser(app, actor);
    container.append(routes, cities);
  } else if (app.role === "player" && state.phase === "playing" && state.current !== app.color) {
    const cur = player(state, state.current);
    container.appendChild(el("p", { class: "muted" }, i18n.t("turn.waiting", { name: cur ? cur.name : "" })));
  }
  if (host) container.appendChild(hostRow(app));
  // nothing to offer now (a tunnel being settled): no empty panel
  const panel = container.closest("section");
  if (panel) panel.classList.toggle("hidden", !container.childElementCount);
}

function hostRow(app) {
  const { i18n, state } = app;
  const row = el("div", { class: "row", style: "margin-top:.6rem" });
  // (the step to undo is named: a retry after a lost answer cannot undo a second one)
  const undo = state.undo_seq ? { type: "undo", seq: state.undo_seq } : { type: "undo" };
  row.appendChild(el("button", { type: "button", id: "undo", disabled: !state.can_undo, onclick: () => app.act(undo) }, i18n.t("act.undo")));
  if (state.phase !== "finished") {
    row.appendChild(
      el(
        "button",
        {
          type: "button",
          class: "danger",
          id: "finish",
          onclick: () =>
            sheet(i18n.t("act.finish"), el("p", null, i18n.t("act.finish_sure")), el("div", { class: "actions" }, el("button", { type: "button", class: "primary", id: "finish-go", onclick: () => app.act({ type: "finish" }).then(closeSheet) }, i18n.t("act.confirm")), el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel")))),
        },
        i18n.t("act.finish"),
      ),
    );
  }
  return row;
}

// ---- pending taps and camera questions -----------------------------------------------------

export function renderPending(container, app) {
  const { i18n, state, pending } = app;
  container.textContent = "";
  if (!pending || !state || !state.players) return;
  const items = [];
  const name = (c) => player(state, c)?.name || i18n.color(c);
  if (pending.payment && pending.payment.cards && pending.payment.cards.length) {
    items.push(el("p", null, i18n.t("pending.payment", { name: name(pending.payment.player), cards: i18n.cardList(pending.payment.cards) })));
  }
  if (pending.tickets && pending.tickets.count) items.push(el("p", null, i18n.t("pending.tickets", { name: name(pending.tickets.player), n: pending.tickets.count })));
  if (items.length && app.role === "host") items.push(el("button", { type: "button", onclick: () => post("/api/pending/clear", {}).catch((e) => toast(refusalText(e, app), "error")) }, i18n.t("pending.clear")));
  for (const c of pending.confirmations || []) {
    if (!canAct(app, c.color)) continue;
    const r = c.route && app.map.routes[c.route];
    const what = r ? i18n.route(r) : c.city ? i18n.city(c.city) : "";
    const answer = (accept) => post(`/api/confirmations/${encodeURIComponent(c.id)}`, { accept }).then((s) => app.setState(s)).catch((e) => toast(refusalText(e, app, c.action), "error"));
    items.push(
      el(
        "div",
        { class: "row" },
        el("span", { class: "grow" }, i18n.colon(name(c.color), `${what} — ${reasonText(c, app)}`)),
        el("button", { type: "button", class: "primary", onclick: () => answer(true) }, i18n.t("act.accept")),
        el("button", { type: "button", onclick: () => answer(false) }, i18n.t("act.reject")),
      ),
    );
  }
  if (items.length) container.appendChild(el("section", { class: "panel" }, el("h2", null, i18n.t("section.pending")), ...items));
}

// ---- host: new game, pairing, moves ----------------------------------------------------------

const DEFAULT_KINDS = [{ game: "europe", min_players: 2, max_players: 5, colors: COLORS }];

export function renderNewGame(container, app, mode = "table") {
  const { i18n, map } = app;
  container.textContent = "";
  const kinds = mode === "photo" ? DEFAULT_KINDS : app.kinds || DEFAULT_KINDS;
  const form = app.newGameForm || (app.newGameForm = { game: "europe", names: ["", "", "", "", "", ""], count: 3 });
  const names = form.names;
  const kind = kinds.find((k) => k.game === form.game) || kinds[0];
  form.count = Math.min(kind.max_players, Math.max(kind.min_players, form.count));
  const rows = el("div");
  const rowEls = [];
  const redraw = () => {
    rows.textContent = "";
    rowEls.length = 0;
    for (let i = 0; i < form.count; i++) {
      const name = el("input", { type: "text", value: names[i], maxlength: "24", "aria-label": `${i18n.t("new.name")} ${i + 1}`, placeholder: i18n.t("new.name_placeholder", { n: i + 1 }), required: true, autocomplete: "off", oninput: (e) => (names[i] = e.target.value), dataset: { i: String(i) } });
      const color = el("select", { "aria-label": `${i18n.t("new.color")} ${i + 1}` });
      for (const c of kind.colors) color.appendChild(el("option", { value: c }, i18n.color(c)));
      color.value = kind.colors[i % kind.colors.length];
      const rm = el("button", { type: "button", "aria-label": `${i18n.t("new.remove")} ${i + 1}`, disabled: form.count <= kind.min_players, onclick: () => (names.splice(i, 1), names.push(""), (form.count -= 1), redraw()) }, "×");
      rowEls.push({ name, color });
      rows.appendChild(el("div", { class: "player-row" }, name, color, rm));
    }
    add.disabled = form.count >= kind.max_players;
  };
  const add = el("button", { type: "button", onclick: () => ((form.count += 1), redraw()) }, i18n.t("new.add"));
  const gameSel = el("select", { id: "game", "aria-label": i18n.t("new.game") });
  for (const k of kinds) gameSel.appendChild(el("option", { value: k.game }, i18n.t(`game.${k.game}`)));
  gameSel.value = kind.game;
  gameSel.addEventListener("change", () => {
    form.game = gameSel.value;
    renderNewGame(container, app, mode);
  });
  const europe = kind.game === "europe";
  const variant = el("select", { id: "variant", "aria-label": i18n.t("new.variant") });
  for (const v of map.variants) variant.appendChild(el("option", { value: v.id }, i18n.t(`variant.${v.id}`)));
  const pay = el("select", { id: "payment", "aria-label": i18n.t("new.payment") });
  for (const m of ["lenient", "strict", "off"]) pay.appendChild(el("option", { value: m }, i18n.t(`pay.${m}`)));
  const modeSel = el("select", { id: "mode", "aria-label": i18n.t("new.mode") });
  for (const m of ["table", "photo"]) modeSel.appendChild(el("option", { value: m }, i18n.t(`mode.${m}`)));
  modeSel.value = mode;
  // tickets tracked from the start: turns wait for each player's first keep (off: the table enters no first tickets)
  const tracked = el("input", { type: "checkbox", id: "tickets-tracked", checked: true });
  const startPoints = el("input", { type: "number", id: "start-points", min: "1", max: "99", value: "13", inputmode: "numeric", "aria-label": i18n.t("new.start_points") });
  const problem = el("p", { class: "problem hidden", id: "new-problem", role: "alert" });
  const start = () => {
    // every player needs a name: an empty one is pointed at, not silently made up
    const empty = rowEls.findIndex((r) => !r.name.value.trim());
    for (const r of rowEls) r.name.removeAttribute("aria-invalid");
    if (empty >= 0) {
      rowEls[empty].name.setAttribute("aria-invalid", "true");
      rowEls[empty].name.focus();
      problem.textContent = i18n.t("new.name_required", { n: empty + 1 });
      problem.classList.remove("hidden");
      return;
    }
    problem.classList.add("hidden");
    const players = rowEls.map((r) => ({ name: r.name.value.trim(), color: r.color.value }));
    let action;
    if (europe) action = { type: "new_game", variant: variant.value, payment_mode: pay.value, mode: modeSel.value, tickets_tracked: tracked.checked, players };
    else if (kind.game === "london") action = { type: "new_game", game: "london", payment_mode: pay.value, tickets_tracked: tracked.checked, players };
    else if (kind.game === "transeuropa") action = { type: "new_game", game: "transeuropa", start_points: Number(startPoints.value) || 13, players };
    else action = { type: "new_game", game: kind.game, players };
    const go = (replace) => app.act(replace ? { ...action, replace: true } : action).then((s) => s && (closeSheet(), toast(i18n.t("new.started"))));
    const st = app.state;
    if (st && st.game_id && ["setup", "playing", "over"].includes(st.phase)) {
      // a running game is replaced only when the host says so; it stays in the history
      const names = st.players.map((p) => p.name).join(i18n.t("notice.and"));
      sheet(
        i18n.t("new.replace_title"),
        el("p", null, i18n.t("new.replace_text", { game: gameName(i18n, st), names, n: (st.turn || 0) + 1 })),
        el("div", { class: "actions" }, el("button", { type: "button", class: "danger", id: "replace-go", onclick: () => go(true) }, i18n.t("new.replace_go")), el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel"))),
      );
      return;
    }
    go(false);
  };
  const parts = [
    kinds.length > 1 ? el("label", null, i18n.t("new.game"), gameSel) : null,
    el("fieldset", null, el("legend", null, i18n.t("new.players")), rows, add),
    europe ? el("label", null, i18n.t("new.variant"), variant) : null,
    europe || kind.game === "london" ? el("label", null, i18n.t("new.payment"), pay) : null,
    europe ? el("label", null, i18n.t("new.mode"), modeSel) : null,
    europe || kind.game === "london" ? el("label", { class: "check" }, tracked, ` ${i18n.t("new.tickets_tracked")}`) : null,
    kind.game === "transeuropa" ? el("label", null, i18n.t("new.start_points"), startPoints) : null,
    problem,
    el("div", { class: "row", style: "margin-top:.6rem" }, el("button", { type: "button", class: "primary", id: "start-game", onclick: start }, i18n.t("act.start"))),
  ];
  container.append(...parts.filter(Boolean));
  redraw();
}

export function renderPairing(container, app) {
  const { i18n, state } = app;
  container.textContent = "";
  if (!state || !state.players || !state.players.length) return;
  for (const p of state.players) {
    // "paired" only once the phone opened its link; a link made but not opened yet is "waiting"
    const status = p.phone_seen || (p.paired && p.phone_seen === undefined) ? "paired" : p.paired ? "waiting" : "not";
    const open = async () => {
      try {
        // a phone already paired gets a new code (the old one stops working); otherwise the
        // code is shown (made on first use)
        const res = await post(`/api/players/${p.color}/pair`, status === "paired" ? { rotate: true } : {});
        const qr = el("div", { class: "qr" });
        qr.innerHTML = res.qr_svg; // SVG made by the server (segno), not user input
        sheet(
          i18n.t("pair.scan", { name: p.name, color: i18n.color(p.color) }),
          qr,
          el("p", { class: "muted" }, i18n.t("pair.how")),
          el("p", null, el("a", { href: res.url, "data-pair-url": p.color, class: "pair-link" }, i18n.t("pair.link"))),
          el("div", { class: "actions" }, el("button", { type: "button", onclick: closeSheet }, i18n.t("act.close"))),
        );
      } catch (e) {
        toast(refusalText(e, app), "error");
      }
    };
    const label = { paired: "act.pair_again", waiting: "act.pair_show", not: "act.pair" }[status];
    container.appendChild(el("div", { class: "row pair-row", dataset: { pairStatus: status, color: p.color } }, playerLabel(p, i18n), el("span", { class: "muted grow" }, i18n.t(`pair.${status}`)), el("button", { type: "button", dataset: { pair: p.color }, onclick: open }, i18n.t(label))));
  }
}

function gameName(i18n, st) {
  if (st.game && st.game !== "europe") return i18n.t(`game.${st.game}`);
  return `${i18n.t("game.europe")}${st.variant && st.variant !== "europe" ? ` (${i18n.t(`variant.${st.variant}`)})` : ""}`;
}

// A move's number in its game (the log's "move", from 1 in each game), from its log seq.
function moveOf(app, seq) {
  return (app.moves && app.moves.get(seq)) ?? seq;
}

// A move in the log, in the past tense: 「アキ：ベルリン – ウィーンを建設しました（緑×4）」.
export function describeAction(a, app) {
  const { i18n, map, state } = app;
  const who = a.player ? (state && player(state, a.player)?.name) || i18n.color(a.player) : "";
  const r = a.route && map.routes[a.route];
  const line = (what) => i18n.t("log.line", { name: who, what });
  const target = a.target && a.target.action;
  switch (a.type) {
    case "claim":
      if (!isEurope(state)) return describeOther(a, app) || i18n.t("log.other");
      return line(a.cards && a.cards.length ? i18n.t("log.claim_cards", { route: r ? i18n.route(r) : i18n.t("log.a_route"), cards: i18n.cardList(a.cards) }) : i18n.t("log.claim", { route: r ? i18n.route(r) : i18n.t("log.a_route") }));
    case "build_station":
      return line(i18n.t("log.station", { city: i18n.city(a.city) }));
    case "keep_tickets":
      return line(i18n.t("log.keep", { n: Array.isArray(a.tickets) ? a.tickets.length : Number(a.tickets) || 0 }));
    case "drew_cards":
      return line(i18n.t("log.drew"));
    case "draw_tickets":
      return line(i18n.t("log.draw_tickets"));
    case "settle_clash":
      return i18n.t("log.settle_clash");
    case "end_turn":
      return line(i18n.t("log.end_turn"));
    case "tunnel_reveal":
      return line(i18n.t("log.tunnel_reveal", { cards: i18n.cardList(a.cards) }));
    case "tunnel_pay":
      return line(i18n.t("log.tunnel_pay"));
    case "tunnel_withdraw":
      return line(i18n.t("log.tunnel_withdraw"));
    case "new_game":
      return i18n.t("log.new_game");
    case "finish":
      return i18n.t("log.finish");
    // a correction says what it changed (the state's last.target names the step), not where
    // it sits in the log
    case "undo":
      if (target) return i18n.t("log.undo_what", { what: moveNoun(target, app) });
      return a.seq ? i18n.t("log.undo_n", { n: moveOf(app, a.seq) }) : i18n.t("log.undo");
    case "redo":
      if (target) return i18n.t("log.redo_what", { what: moveNoun(target, app) });
      return i18n.t("log.redo_n", { n: moveOf(app, a.seq) });
    case "replace":
      if (target) return i18n.t("log.replace_what", { what: moveNoun(target, app) });
      return i18n.t("log.replace_n", { n: moveOf(app, a.seq) });
    case "set_payment_mode":
      return i18n.t("log.payment_mode", { mode: i18n.t(`pay.${a.payment_mode}`) });
    case "set_board":
      return i18n.t("log.set_board");
    case "accept_problem":
      return i18n.t("log.accept_problem");
    default:
      return describeOther(a, app) || (who ? line(i18n.t("log.other")) : i18n.t("log.other"));
  }
}

// A move as a noun, for "… was undone": 「さくらのフランクフルト – パリ」.
export function moveNoun(a, app) {
  const { i18n, map, state } = app;
  const name = a.player ? (state && player(state, a.player)?.name) || i18n.color(a.player) : "";
  const r = a.route && map.routes[a.route];
  switch (a.type) {
    case "claim":
      if (r) return i18n.t("what.claim", { name, route: i18n.route(r) });
      break;
    case "build_station":
      return i18n.t("what.station", { name, city: i18n.city(a.city) });
    case "keep_tickets":
      return i18n.t("what.keep", { name });
    case "drew_cards":
    case "end_turn":
    case "tunnel_reveal":
    case "tunnel_pay":
    case "tunnel_withdraw":
      return i18n.t(`what.${a.type === "drew_cards" ? "drew" : a.type}`, { name });
    default:
      break;
  }
  const text = describeAction(a, app);
  return text || i18n.t("what.move", { n: moveOf(app, a.seq) });
}

function doneText(a, app) {
  return moveNoun(a, app);
}

// A payment problem recorded with a claim (lenient mode): a mark until the host settles it, by
// accepting it or by correcting the claim. The event list gives each logged problem with
// `accepted` and `corrected` (either one settles it); the logged action has them as they were
// when logged. A problem still open is the state's open problem of the same player and place
// (the state numbers its problems afresh when an earlier claim is corrected: ids may move).
export function problemOf(ev, app) {
  const a = (ev && ev.action) || {};
  const open = openProblems(app && app.state);
  const logged = Array.isArray(ev && ev.problems) ? ev.problems : a.problems || [];
  if (logged.length) {
    const mine = logged.filter((p) => p && !settledProblem(p));
    return open.find((x) => mine.some((p) => p.player === x.player && p.place === x.place)) || null;
  }
  const place = a.route || a.city;
  if (!place) return null;
  return open.find((x) => x.player === a.player && x.place === place && ["claim", "build_station", "tunnel_pay"].includes(a.type)) || null;
}

export async function renderLog(container, app) {
  const { i18n, state } = app;
  if (!state || !state.game_id) {
    container.textContent = i18n.t("log.empty");
    return;
  }
  let events;
  try {
    events = (await getJSON(`/api/games/${encodeURIComponent(state.game_id)}/events`)).events || [];
  } catch {
    return;
  }
  app.events = events;
  app.moves = new Map(events.map((e) => [e.seq, typeof e.move === "number" ? e.move : e.seq]));
  container.textContent = "";
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  const row = (ev) => {
    let a = ev.action || {};
    // a correction names the move it changed
    if (["undo", "redo", "replace"].includes(a.type) && bySeq.has(a.seq)) a = { ...a, target: { action: bySeq.get(a.seq).action } };
    const problem = problemOf(ev, app);
    const li = el("li", { class: ev.undone ? "undone" : "", value: String(moveOf(app, ev.seq)) }, describeAction(a, app), ev.undone ? ` (${i18n.t("log.undone")}) ` : " ");
    if (problem && !ev.undone) li.appendChild(el("span", { class: "problem-mark", role: "img", title: problemText(problem, app), "aria-label": problemText(problem, app) }, `⚠ ${i18n.t("log.payment_problem")}`));
    if (a.type !== "new_game" && a.type !== "undo" && a.type !== "redo" && a.type !== "finish") {
      if (ev.undone) li.appendChild(el("button", { type: "button", class: "small", onclick: () => app.act({ type: "redo", seq: ev.seq }) }, i18n.t("act.redo")));
      else li.appendChild(el("button", { type: "button", class: "small", onclick: () => app.act({ type: "undo", seq: ev.seq }) }, i18n.t("act.undo_this")));
    }
    return li;
  };
  const shown = events.slice().reverse();
  if (!shown.length) {
    container.appendChild(el("p", { class: "muted" }, i18n.t("log.empty")));
    return;
  }
  container.appendChild(el("ol", { class: "log", reversed: true, start: String(moveOf(app, shown[0].seq)) }, shown.slice(0, 4).map(row)));
  if (shown.length > 4) {
    const more = el("details", null, el("summary", null, i18n.t("log.show", { n: shown.length })), el("ol", { class: "log", reversed: true, start: String(moveOf(app, shown[4].seq)) }, shown.slice(4, 200).map(row)));
    container.appendChild(more);
  }
}

export { PLAYER_COLORS };
