// The set-up check (点検) on the host's page (see API.md, "Set-up check (host)"): every line of
// GET /api/doctor in the page's language with its advice (the server sends codes and params;
// no ids or codes are shown), and the two steps a person does at the box: a test card on the
// reader, and each button pressed while the LED shows its colours and the buzzer beeps.

import { getJSON, post } from "./api.js";
import { refusalText } from "./notices.js";
import { tMarked } from "./literal.js";
import { el } from "./ui.js";

const BADGE = { ok: "ok", warn: "open", fail: "bad" };
const BUTTONS = ["end_turn", "confirm", "undo"];
const POLL_MS = 500;

export async function setup(app) {
  const box = document.getElementById("doctor");
  if (!box) return;
  const { i18n } = app;
  let checks = null; // the lines of the last check
  let running = false;
  let message = "";
  let reader = null; // the test card's state (GET /api/doctor/reader-test)
  let controls = null; // the press test's state
  let ledAnswer = null; // the host's answer: true (seen and heard) / false

  const has = (id, status) => (checks || []).some((c) => c.id === id && c.status === status);

  const run = async () => {
    running = true;
    message = "";
    draw();
    try {
      checks = (await getJSON("/api/doctor")).checks;
    } catch (e) {
      message = refusalText(e, app);
    }
    running = false;
    draw();
  };

  const poll = (path, set, waiting) => {
    const tick = async () => {
      try {
        const st = await getJSON(path);
        set(st);
        draw();
        if (waiting(st)) setTimeout(tick, POLL_MS);
      } catch (e) {
        message = refusalText(e, app);
        draw();
      }
    };
    setTimeout(tick, POLL_MS);
  };

  // start a device test at ``path``, then ask again while it waits; ``get``/``set``: its state
  const startTest = async (path, get, set) => {
    message = "";
    try {
      set(await post(path, {}));
      draw();
      poll(path, (st) => set({ ...get(), ...st }), (st) => st.state === "waiting");
    } catch (e) {
      message = refusalText(e, app);
      draw();
    }
  };

  const startReader = () => startTest("/api/doctor/reader-test", () => reader, (st) => (reader = st));

  const startControls = () => {
    ledAnswer = null;
    return startTest("/api/doctor/controls-test", () => controls, (st) => (controls = st));
  };

  const line = (c) =>
    el(
      "li",
      { dataset: { status: c.status } },
      el("div", { class: "t-head" }, el("strong", null, i18n.t(`doctor.label.${c.id}`)), el("span", { class: `badge ${BADGE[c.status] || "open"}` }, i18n.t(`doctor.status_${c.status}`))),
      el("div", { class: c.status === "ok" ? "muted" : "" }, tMarked(i18n, c.code, c.params)),
    );

  const readerStep = () => {
    const parts = [el("button", { type: "button", id: "doctor-reader-test", disabled: reader && reader.state === "waiting", onclick: startReader }, i18n.t("doctor.reader_test"))];
    if (reader && reader.state === "waiting") parts.push(el("p", { id: "doctor-reader-state", "aria-live": "polite" }, i18n.t("doctor.reader_waiting", { seconds: Math.ceil(reader.left) })));
    else if (reader && reader.check) parts.push(el("ul", { class: "tickets", id: "doctor-reader-state" }, line(reader.check)));
    return el("div", { class: "doctor-step" }, ...parts);
  };

  const controlsStep = () => {
    const parts = [el("button", { type: "button", id: "doctor-controls-test", disabled: controls && controls.state === "waiting", onclick: startControls }, i18n.t("doctor.controls_test"))];
    if (controls) {
      const seen = new Set(controls.seen || []);
      if (controls.state === "waiting") parts.push(el("p", { "aria-live": "polite" }, i18n.t("doctor.controls_press", { seconds: Math.ceil(controls.left) })));
      parts.push(
        el(
          "ul",
          { class: "doctor-buttons", id: "doctor-buttons" },
          BUTTONS.map((b) => el("li", { dataset: { seen: seen.has(b) ? "yes" : "no" } }, `${seen.has(b) ? "✓" : "・"} ${i18n.t(`doctor.button.${b}`)}`)),
        ),
      );
      if (controls.state === "done") {
        const missing = (controls.missing || []).map((b) => i18n.t(`doctor.button.${b}`));
        parts.push(el("p", { class: missing.length ? "problem" : "" }, missing.length ? i18n.t("doctor.controls_missing", { names: missing.join("・") }) : i18n.t("doctor.controls_all")));
      }
      if (ledAnswer === null) {
        parts.push(
          el(
            "div",
            { class: "row" },
            el("span", null, i18n.t("doctor.controls_led")),
            el("button", { type: "button", id: "doctor-led-yes", onclick: () => ((ledAnswer = true), draw()) }, i18n.t("doctor.seen_yes")),
            el("button", { type: "button", id: "doctor-led-no", onclick: () => ((ledAnswer = false), draw()) }, i18n.t("doctor.seen_no")),
          ),
        );
      } else {
        parts.push(el("p", { class: ledAnswer ? "" : "problem", id: "doctor-led" }, i18n.t(ledAnswer ? "doctor.controls_led_ok" : "doctor.controls_led_bad")));
      }
    }
    return el("div", { class: "doctor-step" }, ...parts);
  };

  function draw() {
    box.textContent = "";
    box.appendChild(el("p", { class: "muted" }, i18n.t("doctor.intro")));
    box.appendChild(el("div", { class: "row" }, el("button", { type: "button", class: checks ? "" : "primary", id: "doctor-run", disabled: running, onclick: run }, i18n.t(checks ? "doctor.run_again" : "doctor.run"))));
    if (running) box.appendChild(el("p", { id: "doctor-running", "aria-live": "polite" }, i18n.t("doctor.running")));
    if (message) box.appendChild(el("p", { class: "problem", id: "doctor-message" }, message));
    if (!checks) return;
    const count = { ok: 0, warn: 0, fail: 0 };
    for (const c of checks) count[c.status] = (count[c.status] || 0) + 1;
    box.appendChild(el("p", { id: "doctor-summary" }, i18n.t("doctor.summary", count)));
    box.appendChild(el("ul", { class: "tickets", id: "doctor-checks" }, checks.map(line)));
    if (has("reader.found", "ok")) box.appendChild(readerStep());
    if (has("controls.found", "ok")) box.appendChild(controlsStep());
  }

  // Redrawn with the page (a language switch).
  const previous = app.pageRender;
  app.pageRender = (a) => {
    if (previous) previous(a);
    draw();
  };
  draw();
}
