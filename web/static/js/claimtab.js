// A guest's "Become host" tab appears while a host-claim window is open (the box's button, or
// the host's "add another host device"), without reloading the page: the server draws the tab
// only when the page loads. See companion/webapp/API.md, "Becoming host".

import { getJSON } from "./api.js";

const EVERY_MS = 4000;

function tab() {
  return document.querySelector('nav.tabs a[data-nav="claim"]');
}

function addTab(app) {
  const a = document.createElement("a");
  a.href = "/host/claim";
  a.dataset.nav = "claim";
  a.dataset.i18n = "nav.claim";
  a.textContent = app.i18n.t("nav.claim");
  const history = document.querySelector('nav.tabs a[data-nav="history"]');
  history.parentNode.insertBefore(a, history);
}

async function look(app) {
  if (document.visibilityState !== "visible") return;
  try {
    const w = await getJSON("/api/host/claim");
    if (w.open && !tab()) addTab(app);
  } catch {
    /* the next look tries again */
  }
}

function whenReady() {
  return new Promise((resolve) => {
    const tick = () => (window.companion && document.body.dataset.ready === "1" ? resolve(window.companion) : setTimeout(tick, 100));
    tick();
  });
}

whenReady().then((app) => {
  if (tab()) return; // drawn by the server already
  setInterval(() => look(app), EVERY_MS);
});
