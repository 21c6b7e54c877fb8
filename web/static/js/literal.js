// What a page shows as it is, untranslated: an address to type, a network's name, a password,
// a program's version. tMarked() returns a message's parts with such parameters each in its own
// element marked data-literal (its kind); the browser tests' no-Latin check reads past these
// elements and no others.
import { el } from "./ui.js";

const KINDS = {
  url: "address",
  list: "address",
  addresses: "address",
  name: "address",
  ssid: "network",
  password: "password",
  os: "software",
  chip: "software",
};
const MARK = "\u0001";

export function literal(kind, text) {
  return el("span", { class: "literal", translate: "no", dataset: { literal: kind } }, String(text));
}

// i18n.t(key, vars) as nodes, with the parameters of `kinds` marked (the defaults above).
export function tMarked(i18n, key, vars, kinds = KINDS) {
  if (!vars) return [i18n.t(key)];
  const marked = { ...vars };
  for (const k of Object.keys(vars)) if (kinds[k] && vars[k] !== "" && vars[k] !== undefined) marked[k] = `${MARK}${k}${MARK}`;
  return i18n
    .t(key, marked)
    .split(MARK)
    .map((part, i) => (i % 2 ? literal(kinds[part], vars[part]) : part))
    .filter((part) => part !== "");
}
