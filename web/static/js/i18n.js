// Strings in English and Japanese. The language comes from the browser (navigator.languages)
// unless the switch stored a choice in localStorage.

const LANGS = ["en", "ja"];
const KEY = "companion.lang";

export function chooseLang() {
  let stored = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {
    stored = null;
  }
  if (LANGS.includes(stored)) return stored;
  const prefs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const p of prefs) {
    const base = String(p).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

export class I18n {
  constructor() {
    this.lang = "en";
    this.strings = {};
    this.cities = {};
    this.mapNames = {};
  }

  async load(lang) {
    const res = await fetch(`/static/i18n/${lang}.json`);
    const data = await res.json();
    this.cities = data.cities || {};
    delete data.cities;
    this.strings = data;
    this.lang = lang;
    document.documentElement.lang = lang;
  }

  remember(lang) {
    try {
      localStorage.setItem(KEY, lang);
    } catch {
      /* private mode: the choice lasts for this page only */
    }
  }

  other() {
    return this.lang === "ja" ? "en" : "ja";
  }

  t(key, vars) {
    let s = Object.hasOwn(this.strings, key) ? this.strings[key] : key;
    if (vars) {
      s = s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] === undefined ? m : String(vars[k])));
    }
    return s;
  }

  city(id) {
    return this.cities[id] || this.mapNames[id] || id;
  }

  card(c) {
    return this.t(`card.${c}`);
  }

  color(c) {
    return this.t(`color.${c}`);
  }

  route(r) {
    // r: a map route object
    return `${this.city(r.a)} – ${this.city(r.b)}`;
  }

  ticket(t) {
    return `${this.city(t.a)} – ${this.city(t.b)}`;
  }

  cardList(cards) {
    if (!cards || !cards.length) return this.t("cards.none");
    const counts = new Map();
    for (const c of cards) counts.set(c, (counts.get(c) || 0) + 1);
    return [...counts].map(([c, n]) => (n > 1 ? `${this.card(c)} ×${n}` : this.card(c))).join(this.lang === "ja" ? "、" : ", ");
  }

  // Fill [data-i18n] texts and [data-i18n-label] aria-labels under root.
  apply(root = document) {
    for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = this.t(el.dataset.i18n);
    for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", this.t(el.dataset.i18nLabel));
    document.title = this.t("app.title");
  }
}
