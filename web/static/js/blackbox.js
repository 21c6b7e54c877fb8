// The black box on the host's page (see API.md, "The black box (host)"): the space the camera's
// photos take, each recorded game with a button to delete its photos (not the game being played),
// and 「問題を報告」: a download of the game's report bundle (its moves, photos, table profile,
// configuration and last log lines; never a token) to send to the developers. Host only.
// Self-contained: its own section (web/templates/blackbox_panel.html) and this module.

import { ApiError, getJSON } from "./api.js";
import { refusalText } from "./notices.js";
import { el, refreshOnMove } from "./ui.js";

function csrf() {
  const m = document.querySelector('meta[name="csrf-token"]');
  return m ? m.content : "";
}

async function remove(path) {
  const res = await fetch(path, { method: "DELETE", credentials: "same-origin", headers: { "X-CSRF-Token": csrf(), Accept: "application/json" } });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || `HTTP ${res.status}`, data && data.rule, data && data.code, data && data.params);
  return data;
}

// a size in the page's language (a Japanese page spells the units in katakana)
function size(bytes, i18n) {
  if (bytes >= 1 << 30) return i18n.t("unit.gb", { n: (bytes / (1 << 30)).toFixed(1) });
  if (bytes >= 1 << 20) return i18n.t("unit.mb", { n: (bytes / (1 << 20)).toFixed(1) });
  return i18n.t("unit.kb", { n: Math.max(1, Math.round(bytes / 1024)) });
}

export async function setup(app) {
  const box = document.getElementById("blackbox");
  if (!box) return;
  const { i18n } = app;
  let usage = null;
  let message = "";
  let chosen = null; // the game the report is of (null: the newest recorded)

  const refresh = async () => {
    try {
      usage = await getJSON("/api/blackbox");
      message = "";
    } catch (e) {
      message = refusalText(e, app);
    }
    draw();
  };

  const when = (g) => (g.created ? new Date(g.created * 1000).toLocaleString(i18n.lang, { dateStyle: "medium", timeStyle: "short" }) : "—");

  const draw = () => {
    box.textContent = "";
    box.appendChild(el("p", { class: "muted" }, i18n.t("blackbox.hint")));
    if (usage) {
      box.appendChild(el("p", { id: "blackbox-used" }, i18n.t("blackbox.used", { used: size(usage.bytes, i18n), cap: size(usage.cap, i18n) })));
      const rec = usage.recorder;
      if (rec && rec.stopped) box.appendChild(el("p", { class: "warn", role: "status" }, i18n.t(`blackbox.stopped.${rec.stopped}`)));
      if (rec && rec.dropped) box.appendChild(el("p", { class: "muted" }, i18n.t("blackbox.dropped", { n: rec.dropped })));
      const games = usage.games || [];
      if (!games.length) box.appendChild(el("p", { class: "muted" }, i18n.t("blackbox.none")));
      const list = el("ul", { class: "tickets", id: "blackbox-games" });
      for (const g of games) {
        const pick = el("input", { type: "radio", name: "blackbox-game", value: g.game_id, checked: (chosen || games[0].game_id) === g.game_id, onchange: () => (chosen = g.game_id) });
        const label = el("label", null, pick, " ", i18n.t("blackbox.game_row", { when: when(g), frames: g.frames, size: size(g.bytes, i18n) }), g.current ? ` ${i18n.t("blackbox.current")}` : "");
        const del = g.current
          ? null
          : el("button", {
              type: "button",
              onclick: async () => {
                if (!window.confirm(i18n.t("blackbox.delete_confirm"))) return;
                try {
                  usage = await remove(`/api/blackbox/games/${encodeURIComponent(g.game_id)}`);
                  if (chosen === g.game_id) chosen = null;
                  message = "";
                } catch (e) {
                  message = refusalText(e, app);
                }
                draw();
              },
            }, i18n.t("blackbox.delete"));
        list.appendChild(el("li", { dataset: { game: g.game_id } }, label, del));
      }
      if (games.length) box.appendChild(list);
      if (games.length) {
        const game = chosen || games[0].game_id;
        box.appendChild(el("a", { class: "button", id: "blackbox-report", href: `/api/blackbox/report?game=${encodeURIComponent(game)}`, download: "" }, i18n.t("blackbox.report")));
        box.appendChild(el("p", { class: "muted" }, i18n.t("blackbox.report_hint")));
      }
    }
    if (message) box.appendChild(el("p", { class: "muted", "aria-live": "polite" }, message));
  };

  // Redrawn with the page (a language switch); asked again when the game moved.
  refreshOnMove(app, refresh, draw);
  await refresh();
}
