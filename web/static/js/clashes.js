// Ticket clashes on the host's page (see API.md, "Ticket clashes"): two players kept the same
// ticket. Each of them was answered as for any other keep; only the host sees the clash, names
// both players and decides whose keep stands (the other enters the ticket really held), or that
// both enter theirs again. Host only: players never see it.

import { getJSON } from "./api.js";
import { ticketName } from "./notices.js";
import { el, refreshOnMove } from "./ui.js";

export async function setup(app) {
  const box = document.getElementById("clashes");
  const panel = document.getElementById("clash-panel");
  if (!box || !panel) return;
  const { i18n } = app;
  let clashes = [];

  const settle = (ticket, keeps) => app.act({ type: "settle_clash", ticket, keeps });

  function draw() {
    box.textContent = "";
    panel.hidden = clashes.length === 0;
    const list = el("ul", { class: "clash-list" });
    for (const c of clashes) {
      const names = c.holders.map((h) => h.name);
      const item = el(
        "li",
        { dataset: { ticket: c.ticket } },
        el("p", null, i18n.t("clash.line", { ticket: ticketName(c.ticket, app), names: names.join(i18n.t("notice.and")) })),
        el(
          "div",
          { class: "row" },
          ...c.holders.map((h) => el("button", { type: "button", class: "small", dataset: { keeps: h.color }, onclick: () => settle(c.ticket, h.color) }, i18n.t("clash.keeps", { name: h.name }))),
          el("button", { type: "button", class: "small", dataset: { keeps: "" }, onclick: () => settle(c.ticket, null) }, i18n.t("clash.nobody")),
        ),
      );
      list.appendChild(item);
    }
    if (!clashes.length) return;
    box.appendChild(list);
    box.appendChild(el("p", { class: "muted" }, i18n.t("clash.hint")));
  }

  const refresh = () =>
    getJSON("/api/clashes")
      .then((d) => {
        clashes = d.clashes || [];
      })
      .catch(() => {
        clashes = [];
      })
      .finally(draw);

  // asked again whenever the game moved (a keep may have opened a clash); redrawn otherwise
  refreshOnMove(app, refresh, draw);
  await refresh();
}
