// The table camera's profile on the host's page (see API.md, "The table camera's profile"): the
// guided set-up (1. learn the empty board, 2. each colour learnt from its first trains) and how
// well each colour is learnt, in plain words (with the lessons set aside: trains that looked like
// another colour, and those taken back when the table corrected a claim). Host only: players never
// see it.

import { getJSON, post } from "./api.js";
import { refusalText } from "./notices.js";
import { el, swatch } from "./ui.js";

export async function setup(app) {
  const box = document.getElementById("table-camera");
  if (!box) return;
  const { i18n } = app;
  let status = null;
  let busy = false;
  let message = "";
  let seenSeq = null;
  let fetching = null;

  const refresh = () => {
    if (fetching) return fetching;
    fetching = getJSON("/api/camera/profile")
      .then((s) => {
        status = s;
        message = "";
      })
      .catch((e) => {
        message = refusalText(e, app);
      })
      .finally(() => {
        fetching = null;
        draw();
      });
    return fetching;
  };

  const run = async (path) => {
    busy = true;
    message = i18n.t("table.learning");
    draw();
    try {
      status = await post(path, {});
      message = "";
    } catch (e) {
      message = refusalText(e, app);
    }
    busy = false;
    draw();
  };

  const colourLine = (c) => {
    const words = i18n.t(`table.verdict_${c.verdict}`, { other: i18n.color(c.nearest), color: i18n.color(c.color) });
    const numbers = c.learnt_from ? `${i18n.t("table.learnt_from", { n: c.learnt_from })} · ${i18n.t("table.distances", { colour: c.to_nearest_colour.toFixed(1), board: c.to_empty_board.toFixed(1) })}` : "";
    return el(
      "li",
      { dataset: { color: c.color, verdict: c.verdict } },
      el("div", { class: "t-head" }, el("span", null, swatch(c.color, i18n), " ", i18n.color(c.color)), el("span", { class: `badge ${c.verdict === "good" ? "ok" : "open"}` }, words)),
      numbers ? el("div", { class: "muted" }, numbers) : null,
      c.set_aside ? el("div", { class: "muted", dataset: { setAside: c.set_aside } }, i18n.t("table.set_aside", { n: c.set_aside })) : null,
    );
  };

  function draw() {
    box.textContent = "";
    if (!status) {
      if (message) box.appendChild(el("p", { class: "muted" }, message));
      return;
    }
    if (!status.camera) {
      box.appendChild(el("p", { class: "muted", id: "table-step" }, i18n.t("table.no_camera")));
      return;
    }
    const step = status.step;
    if (status.problem) box.appendChild(el("p", { class: "problem" }, i18n.t(`notice.${status.problem}`)));
    const first = step === "empty" ? i18n.t("table.step_empty") : i18n.t("table.empty_looks", { n: status.empty_looks });
    box.appendChild(el("p", { id: "table-step", dataset: { step } }, first));
    if (step !== "empty") box.appendChild(el("p", null, step === "ready" ? i18n.t("table.step_ready") : i18n.t("table.step_colours")));
    if (status.colours.length) box.appendChild(el("ul", { class: "tickets table-colours" }, status.colours.map(colourLine)));
    // lessons the camera took back (claims corrected or undone) since the service started
    if (status.taken_out) box.appendChild(el("p", { class: "muted", id: "table-taken-out" }, i18n.t("table.taken_out", { n: status.taken_out })));
    const buttons = el(
      "div",
      { class: "row" },
      el("button", { type: "button", class: step === "empty" ? "primary" : "", id: "table-learn", disabled: busy, onclick: () => run("/api/camera/profile/empty") }, i18n.t(step === "empty" ? "table.learn_empty" : "table.learn_again")),
      step === "empty"
        ? null
        : el("button", { type: "button", id: "table-forget", disabled: busy, onclick: () => window.confirm(i18n.t("table.forget_sure")) && run("/api/camera/profile/forget") }, i18n.t("table.forget")),
    );
    box.appendChild(buttons);
    if (message) box.appendChild(el("p", { class: "muted", id: "table-message", "aria-live": "polite" }, message));
    box.appendChild(el("p", { class: "muted" }, i18n.t("table.hint")));
  }

  // Redrawn with the page (a language switch); asked again when the game moved (a claim may
  // have taught a colour), at most once per state.
  const previous = app.pageRender;
  app.pageRender = (a) => {
    if (previous) previous(a);
    const seq = app.state ? app.state.seq : null;
    if (seq !== seenSeq && !busy) {
      seenSeq = seq;
      refresh();
      // a claim is learnt from the camera's next clean frame, a moment later
      if (status && status.step === "colours") setTimeout(refresh, 3000);
    } else {
      draw();
    }
  };
  await refresh();
}
