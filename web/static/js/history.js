// Past games: the list from /api/games; opening one shows its board and final breakdown.

import { getJSON } from "./api.js";
import { drawFinal } from "./final.js";
import { drawGameFinal, gameTitle, isEurope, loadBoard } from "./games.js";
import { el, toast } from "./ui.js";

export async function setup(app) {
  const { i18n } = app;
  let games = [];
  const open = async (id) => {
    try {
      const s = await getJSON(`/api/games/${encodeURIComponent(id)}`);
      if (!isEurope(s)) {
        await loadBoard(app, s.game);
        document.getElementById("map").classList.add("hidden");
        const panel = document.getElementById("final-panel");
        panel.classList.remove("hidden");
        const box = document.getElementById("final");
        if (s.phase === "finished") drawGameFinal(box, s, app);
        else {
          box.textContent = "";
          box.appendChild(el("p", { class: "muted" }, `${gameTitle(i18n, s.game)}: ${s.players.map((p) => `${p.name} ${p.score}`).join(", ")}`));
        }
        panel.scrollIntoView({ behavior: "smooth" });
        return;
      }
      const owners = {};
      const stations = {};
      const names = {};
      for (const p of s.players) {
        names[p.color] = p.name;
        for (const r of p.routes) owners[r] = p.color;
        for (const c of p.stations) stations[c] = p.color;
      }
      document.getElementById("map").classList.remove("hidden");
      app.board.update(owners, stations, names);
      const panel = document.getElementById("final-panel");
      panel.classList.toggle("hidden", s.phase !== "finished");
      if (s.phase === "finished") drawFinal(document.getElementById("final"), s, app);
      app.board.container.scrollIntoView({ behavior: "smooth" });
    } catch (e) {
      toast(i18n.t("err.generic", { error: e.message }), "error");
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
      const when = g.created ? new Date(typeof g.created === "number" ? g.created * 1000 : g.created).toLocaleString(i18n.lang) : "";
      const who = (g.players || []).map((p) => `${p.name} (${i18n.color(p.color)})`).join(", ");
      list.appendChild(
        el(
          "li",
          { dataset: { game: g.id } },
          el("div", { class: "t-head" }, el("strong", null, `${["london", "transeuropa", "trambahn"].includes(g.variant) ? gameTitle(i18n, g.variant) : i18n.t(`variant.${g.variant}`)} · ${when}`), el("span", { class: "badge open" }, i18n.t(`phase.${g.phase}`).split(/[:：]/)[0])),
          el("div", { class: "muted" }, who),
          el("button", { type: "button", onclick: () => open(g.id) }, i18n.t("history.open")),
        ),
      );
    }
    box.appendChild(list);
  };
  try {
    games = (await getJSON("/api/games")).games || [];
  } catch (e) {
    toast(i18n.t("err.generic", { error: e.message }), "error");
  }
  app.pageRender = draw;
}
