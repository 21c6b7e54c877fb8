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
    this.readings = {}; // city id -> other names people type (both languages' catalogues)
    this.places = {}; // London's places in this language (when the catalogue names them)
  }

  async load(lang) {
    const res = await fetch(`/static/i18n/${lang}.json`);
    const data = await res.json();
    this.cities = data.cities || {};
    delete data.cities;
    const own = data.readings || {};
    delete data.readings;
    this.places = data.places || {};
    delete data.places;
    this.strings = data;
    this.lang = lang;
    this.otherNames = null; // loaded when a search first needs them
    this.readings = {};
    this.addReadings(own);
    document.documentElement.lang = lang;
  }

  addReadings(readings, cities) {
    for (const [id, names] of Object.entries(readings || {})) this.readings[id] = [...(this.readings[id] || []), ...[].concat(names)];
    for (const [id, name] of Object.entries(cities || {})) this.readings[id] = [...(this.readings[id] || []), name];
  }

  // The other language's city names and readings, so that a search finds a city by any of them
  // (fetched once, when a search first needs them).
  async searchNames() {
    if (this.otherNames) return;
    const lang = this.lang;
    let other = { cities: {}, readings: {} };
    try {
      const o = await (await fetch(`/static/i18n/${this.other()}.json`)).json();
      other = { cities: o.cities || {}, readings: o.readings || {} };
    } catch {
      /* offline: this language's names only */
    }
    if (this.lang !== lang || this.otherNames) return;
    this.otherNames = other;
    this.addReadings(other.readings, other.cities);
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

  has(key) {
    return Object.hasOwn(this.strings, key);
  }

  // The string for key; with vars.n === 1 the key's "_one" form when it has one (English plurals).
  t(key, vars) {
    if (vars && vars.n !== undefined && vars.n !== "" && Number(vars.n) === 1 && this.has(`${key}_one`)) key = `${key}_one`;
    let s = this.has(key) ? this.strings[key] : key;
    if (vars) {
      s = s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] === undefined ? m : String(vars[k])));
    }
    return s;
  }

  city(id) {
    return this.cities[id] || this.mapNames[id] || id;
  }

  // Every name a city goes by (this language, the map's, the other language's, readings), folded.
  citySearch(id) {
    return [this.city(id), this.mapNames[id], id, ...(this.readings[id] || [])].filter(Boolean).map(fold).join(" ");
  }

  // Punctuation as each language writes it (the glossary: full-width 「：」 and （） in Japanese)
  paren(x) {
    return this.t("fmt.paren", { x });
  }

  colon(a, b) {
    return this.t("fmt.colon", { a, b });
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

// Text folded for search: no case, no diacritics (München = munchen), hiragana = katakana,
// no spaces, hyphens or middle dots.
export function fold(text) {
  return String(text)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f\u3099\u309a]/g, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/ø/g, "o")
    .replace(/ł/g, "l")
    .replace(/[\u3041-\u3096]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 0x60))
    .replace(/[\s\-‐–—・･.'’]/g, "");
}
