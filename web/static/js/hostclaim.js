// Becoming host without a terminal (the page /host/claim) and, on the host page, the host's
// devices: who is signed in as host, "add another host device" (a claim window), signing every
// host device out (a new host token); under the new-game form, which phones stay paired.
// See companion/webapp/API.md, "Becoming host".

import { getJSON, post } from "./api.js";
import { noticeText } from "./notices.js";
import { closeSheet, el, sheet, toast } from "./ui.js";

const $ = (id) => document.getElementById(id);

// main.js builds the app (its strings, its state) and marks the body ready
function whenReady() {
  return new Promise((resolve) => {
    const tick = () => (window.companion && document.body.dataset.ready === "1" ? resolve(window.companion) : setTimeout(tick, 100));
    tick();
  });
}

function refusal(e, app) {
  return noticeText({ code: e.code, params: e.params, text: e.message }, app) || app.i18n.t("err.network");
}

// ---- the claim page ----------------------------------------------------------------------------

async function claimPage(app) {
  const box = $("claim");
  const { i18n } = app;
  const status = el("p", { id: "claim-status", role: "status", "aria-live": "polite" });
  const problem = el("p", { class: "problem hidden", id: "claim-problem", role: "alert" });
  const go = el("button", { type: "button", class: "primary", id: "claim-go" }, i18n.t("host.claim_go"));
  // why this device came here from the host page (every host device was signed out)
  const why = { "#signed-out": "notice.host.signed_out", "#rotated": "host.rotated" }[window.location.hash];
  const note = el("p", { class: why ? "announcement" : "announcement hidden", id: "claim-note", role: "status" });
  if (why) history.replaceState(null, "", window.location.pathname);
  let info = null;
  const show = () => {
    if (why) note.textContent = i18n.t(why);
    if (!info) return;
    if (info.open) problem.classList.add("hidden"); // an earlier refusal no longer holds
    status.textContent = info.open ? i18n.t("host.claim_window", { n: info.seconds_left }) : i18n.t(info.has_host ? "host.claim_has_host" : "host.claim_none");
    go.textContent = i18n.t("host.claim_go");
  };
  const refresh = async () => {
    try {
      info = await getJSON("/api/host/claim");
      show();
    } catch {
      /* the next tick tries again */
    }
  };
  go.addEventListener("click", async () => {
    go.disabled = true;
    problem.classList.add("hidden");
    try {
      await post("/api/host/claim", {});
      window.location.assign("/host");
    } catch (e) {
      problem.textContent = refusal(e, app);
      problem.classList.remove("hidden");
      go.disabled = false;
      refresh();
    }
  });
  box.textContent = "";
  box.append(note, status, el("div", { class: "actions" }, go), problem);
  show();
  await refresh();
  setInterval(refresh, 2000);
  $("lang").addEventListener("click", () => setTimeout(show, 300));
}

// ---- the host page: host devices ---------------------------------------------------------------

function when(seconds, i18n) {
  const d = new Date(seconds * 1000);
  return d.toLocaleString(i18n.lang === "ja" ? "ja-JP" : "en-GB", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

async function hostDevices(app) {
  const box = $("host-devices");
  const { i18n } = app;
  let data = null;
  let opened = null;
  const draw = () => {
    box.textContent = "";
    if (!data) return;
    const n = data.sessions.length;
    box.appendChild(el("p", { id: "host-device-count" }, i18n.t("host.devices_count", { n })));
    const list = el("ul", { class: "host-devices" });
    for (const s of data.sessions) {
      const how = i18n.t(s.via === "claim" ? "host.via_claim" : "host.via_link");
      const mine = s.current ? ` · ${i18n.t("host.device_this")}` : "";
      list.appendChild(el("li", { dataset: { session: s.id } }, `${i18n.t("host.device_since", { time: when(s.created, i18n) })} · ${how}${mine}`));
    }
    box.appendChild(list);
    const add = el("button", { type: "button", id: "host-add-device", onclick: addDevice }, i18n.t("host.add_device"));
    const out = el("button", { type: "button", class: "danger", id: "host-rotate", onclick: rotate }, i18n.t("host.rotate"));
    box.appendChild(el("div", { class: "actions" }, add, out));
    if (data.claim && data.claim.open && opened) box.appendChild(el("p", { id: "host-claim-open", role: "status" }, i18n.t("host.add_device_open", { url: opened, n: data.claim.seconds_left })));
  };
  let timer = null;
  const load = async () => {
    try {
      data = await getJSON("/api/host/sessions");
    } catch (e) {
      // signed out (another host device signed every host out): become host again
      if (e.status === 401 || e.status === 403) {
        clearInterval(timer);
        window.location.assign("/host/claim#signed-out");
      }
      return;
    }
    draw();
  };
  async function addDevice() {
    try {
      await post("/api/host/claim/open", {});
      opened = `${window.location.origin}/host/claim`;
    } catch (e) {
      toast(refusal(e, app), "error");
    }
    load();
  }
  function rotate() {
    sheet(
      i18n.t("host.rotate"),
      el("p", null, i18n.t("host.rotate_text")),
      el(
        "div",
        { class: "actions" },
        el(
          "button",
          {
            type: "button",
            class: "danger",
            id: "host-rotate-go",
            onclick: async () => {
              try {
                await post("/api/host/rotate", {});
                window.location.assign("/host/claim#rotated");
              } catch (e) {
                toast(refusal(e, app), "error");
              }
            },
          },
          i18n.t("host.rotate_go"),
        ),
        el("button", { type: "button", onclick: closeSheet }, i18n.t("act.cancel")),
      ),
    );
  }
  await load();
  timer = setInterval(load, 5000);
  $("lang").addEventListener("click", () => setTimeout(draw, 300));
}

// ---- the host page: which phones stay paired in the next game -----------------------------------

// a pairing carries on where the same name sits at the same colour (the server's rule)
const sameName = (a, b) => a.trim().split(/\s+/).join(" ").toLowerCase() === b.trim().split(/\s+/).join(" ").toLowerCase();

function stayPaired(app) {
  const form = $("newgame");
  const out = $("stay-paired");
  if (!form || !out) return;
  const update = () => {
    const st = app.state;
    const paired = st && st.game_id && st.players ? st.players.filter((p) => p.paired) : [];
    if (!paired.length) {
      out.textContent = "";
      return;
    }
    const stay = [];
    for (const row of form.querySelectorAll(".player-row")) {
      const name = row.querySelector("input[type=text]");
      const color = row.querySelector("select");
      if (!name || !color) continue;
      const p = paired.find((q) => q.color === color.value && sameName(q.name, name.value));
      if (p) stay.push(app.i18n.lang === "ja" ? `${p.name}（${app.i18n.color(p.color)}）` : `${p.name} (${app.i18n.color(p.color)})`);
    }
    out.textContent = stay.length ? app.i18n.t("host.stay_paired", { names: stay.join(app.i18n.t("notice.and")) }) : app.i18n.t("host.stay_paired_none");
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  new MutationObserver(update).observe(form, { childList: true, subtree: true });
  setInterval(update, 3000); // the state changes too (a phone pairs)
  update();
}

async function setup() {
  const app = await whenReady();
  if ($("claim")) await claimPage(app);
  if ($("host-devices")) await hostDevices(app);
  stayPaired(app);
}

setup().catch((e) => console.error(e));
