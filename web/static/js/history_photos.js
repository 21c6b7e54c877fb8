// The history's photos (see API.md, "The black box (host)"): beside the drawn map, the camera's
// photo of the board at the replay slider's position, where one was kept, and the game's
// time-lapse to download. A game's photos are the host's until the game is finished (a photo
// shows the table around the board: a hand of cards, tickets put down); after that, anyone's
// who sees the history. Self-contained: history.js only calls show() when it draws the replay.

import { getJSON } from "./api.js";
import { el } from "./ui.js";

export function photos(app) {
  const { i18n } = app;
  const known = {}; // game id -> {frames: Map(seq -> frame), timelapse} | null (none to show)
  const asked = {};

  const load = (id) => {
    if (!asked[id]) {
      asked[id] = getJSON(`/api/games/${encodeURIComponent(id)}/frames`)
        .then((d) => {
          known[id] = { frames: new Map((d.frames || []).map((f) => [f.seq, f])), timelapse: !!d.timelapse };
        })
        .catch(() => {
          known[id] = null; // no recording, or not shown to this phone while the game runs
        });
    }
    return asked[id];
  };

  const figure = (id, seq) => {
    const rec = known[id];
    if (!rec || !rec.frames.size) return null;
    const f = seq == null ? null : rec.frames.get(seq);
    const base = `/api/games/${encodeURIComponent(id)}`;
    const pic = f
      ? el("img", { src: `${base}/frames/${f.frame}`, alt: i18n.t("history.photo"), loading: "lazy", style: "display:block;width:100%;height:auto;border-radius:.4rem" })
      : el("p", { class: "muted" }, i18n.t("history.no_photo"));
    const lapse = rec.timelapse ? el("a", { href: `${base}/timelapse`, download: "", class: "button" }, i18n.t("history.timelapse")) : null;
    return el("figure", { id: "replay-photo", class: "replay-photo", style: "margin:.6rem 0 0" }, pic, lapse ? el("figcaption", { style: "margin-top:.4rem" }, lapse) : null);
  };

  // Put the photo of ``seq`` into ``box`` (the replay panel, just above the map).
  const show = (box, id, seq) => {
    if (!box || !id) return;
    if (!(id in known)) {
      load(id).then(() => {
        if (document.body.contains(box) && !box.querySelector("#replay-photo")) {
          const fig = figure(id, seq);
          if (fig) box.appendChild(fig);
        }
      });
      return;
    }
    const fig = figure(id, seq);
    if (fig) box.appendChild(fig);
  };

  return { show };
}
