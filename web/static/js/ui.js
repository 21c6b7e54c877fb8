// Small DOM helpers: element builder, bottom sheets, toasts, the card picker.

import { CARD_COLORS } from "./map.js";

export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(e.dataset, v);
      else e.setAttribute(k, v === true ? "" : v);
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function swatch(color, i18n) {
  return el("span", { class: `swatch ${color}`, role: "img", "aria-label": i18n.color(color) });
}

export function playerLabel(p, i18n) {
  return el("span", { class: "pname" }, swatch(p.color, i18n), el("span", null, p.name), el("small", null, i18n.paren(i18n.color(p.color)).trim()));
}

let openSheet = null;

export function closeSheet() {
  if (openSheet) {
    openSheet.remove();
    openSheet = null;
  }
}

// A bottom sheet (modal dialog). Returns the sheet element.
export function sheet(title, ...content) {
  closeSheet();
  const id = `sheet-title-${Date.now()}`;
  const box = el("div", { class: "sheet", role: "dialog", "aria-modal": "true", "aria-labelledby": id }, el("h2", { id }, title), ...content);
  const back = el("div", { class: "sheet-backdrop" }, box);
  back.addEventListener("click", (e) => {
    if (e.target === back) closeSheet();
  });
  document.body.appendChild(back);
  openSheet = back;
  const first = box.querySelector("button, input, select");
  if (first) first.focus({ preventScroll: true });
  return box;
}

export function toast(text, level = "info", ms = 4000) {
  const host = document.getElementById("toasts");
  if (!host) return;
  const t = el("div", { class: `toast ${level}`, role: level === "error" ? "alert" : "status" }, text);
  host.appendChild(t);
  setTimeout(() => t.remove(), ms);
}

const CARDS = ["red", "blue", "green", "yellow", "orange", "pink", "white", "black", "locomotive"];

// Tap a card to add one; the line below lists what was tapped. `max` limits the count.
// With `fill` (a payment of `fill` cards, e.g. a route's length): tapping a colour fills the
// payment with that colour (beside the locomotives already in it), tapping a locomotive turns one
// coloured card into a locomotive; so a claim is one tap for its colour and one per locomotive.
// `onChange(cards)` runs after each tap.
export function cardPicker(i18n, { max = 99, initial = [], deck = CARDS, fill = 0, onChange = null, caption = null } = {}) {
  let cards = [...initial];
  const counts = {};
  const buttons = {};
  const paid = el("div", { class: "paid", "aria-live": "polite" });
  const grid = el("div", { class: "cards", role: "group", "aria-label": i18n.t("cards.pick") });
  const refresh = () => {
    for (const c of deck) counts[c] = 0;
    for (const c of cards) counts[c] = (counts[c] || 0) + 1;
    for (const c of deck) {
      buttons[c].querySelector(".n").textContent = counts[c] ? String(counts[c]) : "";
      buttons[c].setAttribute("aria-pressed", counts[c] ? "true" : "false");
    }
    paid.textContent = cards.length ? i18n.t("cards.paid_line", { cards: i18n.cardList(cards), n: cards.length }) : i18n.cardList(cards);
  };
  const WILD = new Set(["locomotive", "bus"]);
  const tap = (c) => {
    if (fill) {
      const wild = cards.filter((x) => WILD.has(x));
      const colour = cards.filter((x) => !WILD.has(x));
      if (WILD.has(c)) {
        if (cards.length < fill) cards.push(c);
        else if (colour.length) cards = [...colour.slice(1), ...wild, c];
      } else {
        cards = [...Array(Math.max(0, fill - wild.length)).fill(c), ...wild];
      }
    } else if (cards.length < max) cards.push(c);
    refresh();
    if (onChange) onChange([...cards]);
  };
  for (const c of deck) {
    const b = el(
      "button",
      { type: "button", dataset: { card: c }, onclick: () => tap(c) },
      el("span", { class: "chip", style: `background:${CARD_COLORS[c]}` }),
      el("span", { class: "grow" }, i18n.card(c)),
      el("span", { class: "n" }),
    );
    buttons[c] = b;
    grid.appendChild(b);
  }
  const clear = el("button", { type: "button", class: "clear", onclick: () => ((cards = []), refresh(), onChange && onChange([])) }, i18n.t("cards.clear"));
  const root = el("div", { class: "stack picker" }, el("div", { class: "muted" }, caption || i18n.t(fill ? "cards.pick_fill" : "cards.pick")), grid, el("div", { class: "row" }, el("div", { class: "grow paid-wrap" }, paid), clear));
  refresh();
  return {
    el: root,
    get cards() {
      return [...cards];
    },
    set(list) {
      cards = [...list].slice(0, fill || max);
      refresh();
    },
  };
}

export function colorSelect(players, selected, i18n, attrs) {
  const s = el("select", attrs || {});
  for (const p of players) {
    const o = el("option", { value: p.color }, `${p.name} (${i18n.color(p.color)})`);
    if (p.color === selected) o.selected = true;
    s.appendChild(o);
  }
  return s;
}

// A host-page section that follows the game: after the page's own render, ``refresh`` (asks the
// server again) when the game moved since it last asked, ``draw`` (a language switch) otherwise.
export function refreshOnMove(app, refresh, draw) {
  let seenSeq = null;
  const previous = app.pageRender;
  app.pageRender = (a) => {
    if (previous) previous(a);
    const seq = app.state ? app.state.seq : null;
    if (seq !== seenSeq) {
      seenSeq = seq;
      refresh();
    } else {
      draw();
    }
  };
}
