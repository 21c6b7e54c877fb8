// The box's network on the host's page (see API.md, "Network (host)"): how phones reach the box
// now, the Wi-Fi QR code and the page's QR code (SVG made by the server), a WPA2 password for the
// box's own network, joining the venue's Wi-Fi from a scan list, opening the box's network again.
// A change answers first (with the codes of the network to come) and happens a moment later: the
// host's phone may lose the box then, so the codes to scan stay on the screen.

import { getJSON, post } from "./api.js";
import { refusalText } from "./notices.js";
import { literal, tMarked } from "./literal.js";
import { el } from "./ui.js";

const QR_STYLE = "width:min(60vw,220px);height:auto;image-rendering:pixelated;background:#fff;border-radius:4px";

export async function setup(app) {
  const box = document.getElementById("network");
  if (!box) return;
  const { i18n } = app;
  let data = null; // GET /api/network
  let coming = null; // the network a change is making: {kind, next}
  let message = "";
  let lost = false;
  let scan = null; // GET /api/network/scan
  let chosen = null; // a network of the scan list
  let busy = false;
  let timer = null;
  let here = null; // GET /api/network/page, where the box does not manage its network

  const changeText = (c) => {
    if (!c) return "";
    if (c.state === "pending") return i18n.t("net.change_pending");
    if (c.state === "failed") return i18n.t(`notice.${c.code}`, { ssid: c.ssid || "", ...(c.params || {}) });
    return "";
  };

  const refresh = async () => {
    try {
      data = await getJSON("/api/network");
      lost = false;
      message = "";
      if (data.change && data.change.state !== "pending") coming = null;
    } catch (e) {
      if (e.status === 0 && (coming || data)) lost = true;
      else message = refusalText(e, app);
      if (e.code === "network.unavailable" && !here) here = await getJSON("/api/network/page").catch(() => null);
    }
    draw();
    clearTimeout(timer);
    if (coming || lost || (data && data.change && data.change.state === "pending")) timer = setTimeout(refresh, 3000);
  };

  const change = async (path, body, confirmKey, vars) => {
    if (confirmKey && !window.confirm(i18n.t(confirmKey, vars))) return;
    busy = true;
    draw();
    try {
      const res = await post(path, body);
      coming = { kind: res.change.kind, next: res.next, ssid: res.change.ssid };
      message = "";
      chosen = null;
    } catch (e) {
      message = refusalText(e, app);
    }
    busy = false;
    await refresh();
  };

  const qr = (src, alt, id, caption, lines) =>
    el(
      "figure",
      { class: "net-qr", id, style: "margin:.4rem 0;display:inline-block;vertical-align:top;text-align:center;padding:0 .4rem" },
      el("img", { src, alt, style: QR_STYLE }),
      el("figcaption", null, el("strong", null, caption), ...lines.filter(Boolean).map((l) => el("div", { class: "muted", style: "word-break:break-all" }, l))),
    );

  function nowLine(d) {
    const vars = { ssid: d.ssid || "" };
    const key = d.mode === "hotspot" ? (d.security === "wpa2" ? "net.now_hotspot_wpa2" : "net.now_hotspot_open") : `net.now_${d.mode}`;
    return el("p", { id: "net-now", dataset: { mode: d.mode } }, tMarked(i18n, key, vars));
  }

  function codes(d, forNext) {
    const out = el("div", { class: "net-codes", id: forNext ? "net-next-codes" : "net-codes" });
    if (d.wifi_qr) {
      out.appendChild(
        qr(d.qr_svg.wifi, i18n.t("net.qr_wifi_alt", { ssid: d.ssid }), forNext ? "net-next-wifi" : "net-wifi-qr", i18n.t("net.qr_wifi"), [
          tMarked(i18n, "net.ssid", { ssid: d.ssid }),
          d.security === "wpa2" && d.password ? tMarked(i18n, "net.password_is", { password: d.password }) : i18n.t("net.no_password"),
        ]),
      );
    } else if (d.mode === "wifi") {
      out.appendChild(el("p", { class: "muted" }, tMarked(i18n, "net.qr_wifi_venue", { ssid: d.ssid || "" })));
    }
    out.appendChild(qr(d.qr_svg.page, i18n.t("net.qr_page_alt"), forNext ? "net-next-page" : "net-page-qr", i18n.t("net.qr_page"), [d.page_url, ...(d.page_urls || []).slice(1)].filter(Boolean).map((u) => literal("address", u))));
    return out;
  }

  function passwordForm(d) {
    const input = el("input", { type: "text", id: "net-password", minlength: "8", maxlength: "63", autocomplete: "off", spellcheck: "false", "aria-label": i18n.t("net.password_label"), placeholder: i18n.t("net.password_label") });
    const form = el(
      "form",
      {
        class: "row",
        id: "net-password-form",
        onsubmit: (e) => {
          e.preventDefault();
          change("/api/network/hotspot", { password: input.value }, "net.password_sure", { ssid: d.ssid || "" });
        },
      },
      input,
      el("button", { type: "submit", disabled: busy }, i18n.t(d.password_set ? "net.password_change" : "net.password_set")),
    );
    return el("div", null, el("h3", null, i18n.t("net.password_title")), form, el("p", { class: "muted" }, i18n.t("net.password_hint")));
  }

  function joinPart(d) {
    const part = el("div", { id: "net-join" }, el("h3", null, i18n.t("net.join_title")));
    part.appendChild(
      el(
        "button",
        {
          type: "button",
          id: "net-scan",
          disabled: busy,
          onclick: async () => {
            try {
              scan = await getJSON("/api/network/scan");
              message = "";
            } catch (e) {
              message = refusalText(e, app);
            }
            draw();
          },
        },
        i18n.t("net.scan"),
      ),
    );
    if (scan) {
      if (scan.saved) part.appendChild(el("p", { class: "muted" }, i18n.t("net.scan_saved")));
      if (!scan.networks.length) part.appendChild(el("p", { class: "muted" }, i18n.t("net.scan_none")));
      const list = el("ul", { class: "tickets", id: "net-scan-list" });
      for (const n of scan.networks) {
        const lock = n.security === "open" ? i18n.t("net.open") : i18n.t("net.secured");
        const pick = el(
          "button",
          { type: "button", class: chosen && chosen.ssid === n.ssid ? "primary small" : "small", dataset: { ssid: n.ssid }, disabled: n.security === "other" || busy, onclick: () => ((chosen = n), draw()) },
          i18n.t("net.choose"),
        );
        list.appendChild(el("li", { class: "row" }, el("span", { class: "grow" }, literal("network", n.ssid)), el("span", { class: "muted" }, `${i18n.t("net.signal", { n: n.signal })} · ${lock}`), pick));
      }
      part.appendChild(list);
    }
    if (chosen) {
      const needs = chosen.security !== "open";
      const input = needs ? el("input", { type: "text", id: "net-join-password", autocomplete: "off", spellcheck: "false", "aria-label": i18n.t("net.join_password", { ssid: chosen.ssid }), placeholder: i18n.t("net.join_password", { ssid: chosen.ssid }) }) : null;
      part.appendChild(
        el(
          "form",
          {
            class: "row",
            id: "net-join-form",
            onsubmit: (e) => {
              e.preventDefault();
              const body = { ssid: chosen.ssid };
              if (input) body.password = input.value;
              change("/api/network/join", body, "net.join_sure", { ssid: chosen.ssid });
            },
          },
          input,
          el("button", { type: "submit", class: "primary", disabled: busy }, tMarked(i18n, "net.join", { ssid: chosen.ssid })),
        ),
      );
    }
    part.appendChild(el("p", { class: "muted" }, i18n.t("net.join_hint")));
    return part;
  }

  function draw() {
    box.textContent = "";
    if (lost) box.appendChild(el("p", { class: "problem", id: "net-lost" }, i18n.t("net.lost")));
    if (coming) {
      const text = coming.kind === "join" ? tMarked(i18n, "net.joining", { ssid: coming.ssid, url: (coming.next.page_urls || [""])[0] }) : tMarked(i18n, "net.restarting", { ssid: coming.next.ssid });
      box.appendChild(el("p", { class: "announcement", id: "net-coming", role: "status" }, text));
      if (coming.kind === "hotspot") box.appendChild(codes(coming.next, true));
    }
    if (message) box.appendChild(el("p", { class: "problem", id: "net-message", "aria-live": "polite" }, message));
    if (!data && here) {
      // not managed here: phones join the network the box is on, then scan the page's code (its
      // address is the one this page shows in the browser already)
      box.appendChild(el("p", { id: "net-now" }, i18n.t("net.now_unmanaged")));
      box.appendChild(el("div", { class: "net-codes", id: "net-codes" }, qr(here.qr_svg, i18n.t("net.qr_page_alt"), "net-page-qr", i18n.t("net.qr_page_only"), [])));
    }
    if (!data) return;
    box.appendChild(nowLine(data));
    const more = [];
    // the addresses a phone may type, each as it is (marked: not a word to translate)
    if (data.addresses.length) more.push(tMarked(i18n, "net.addresses", { list: data.addresses.join(i18n.lang === "ja" ? "、" : ", ") }));
    if (data.mdns) more.push(tMarked(i18n, "net.mdns", { name: data.mdns }));
    if (more.length) box.appendChild(el("p", { class: "muted", id: "net-where" }, more.flatMap((m, i) => (i ? [" · ", ...m] : m))));
    const c = changeText(data.change);
    if (c && !coming) box.appendChild(el("p", { class: data.change.state === "failed" ? "problem" : "muted", id: "net-change" }, c));
    if (!coming) box.appendChild(codes(data, false));
    if (data.mode === "hotspot") box.appendChild(passwordForm(data));
    box.appendChild(joinPart(data));
    if (data.mode !== "hotspot") {
      box.appendChild(
        el(
          "div",
          { class: "row" },
          el("button", { type: "button", id: "net-reopen", disabled: busy, onclick: () => change("/api/network/hotspot", {}, "net.reopen_sure", { ssid: data.ssid || "" }) }, i18n.t("net.reopen")),
        ),
      );
    }
  }

  // Redrawn when the page's language changes (not on every move: a password being typed stays).
  let drawnLang = i18n.lang;
  const previous = app.pageRender;
  app.pageRender = (a) => {
    if (previous) previous(a);
    if (i18n.lang !== drawnLang) {
      drawnLang = i18n.lang;
      draw();
    }
  };
  await refresh();
}
