"""The host page's network section with the fake twin: how phones reach the box, the Wi-Fi and
page QR codes as the browser draws them (decoded by OpenCV's QR detector to exactly the payload
and the URL), a WPA2 password set from the page (the new code shown before the network restarts),
joining a venue's Wi-Fi from the scan list; in Japanese, and never on a player's page. The table
card's SVG, as chromium renders it, decodes too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.network import Around, FakeNetwork, wifi_qr_payload
from companion.network.box import keep_scan
from companion.webapp.network_api import KEY, NetworkDesk
from tests.hardware_scripts import make_table_card

from .conftest import Server
from .targets import too_small
from .test_dashboard import host_page
from .test_phone_game import latin_words

REPO = Path(__file__).resolve().parents[2]
I18N = {
    lang: json.loads((REPO / f"web/static/i18n/{lang}.json").read_text("utf-8"))
    for lang in ("en", "ja")
}


def with_network(server: Server, state: Path) -> FakeNetwork:
    net = FakeNetwork(
        "companion-B0X1",
        [Around("Cafe", 70, "wpa2", "espresso-42", "192.168.7.31"), Around("Library", 30, "open")],
    )
    keep_scan(net, state)  # as at boot: what the radio saw, then the box's own network
    net.open_hotspot(None)
    server.app.extensions[KEY] = NetworkDesk(net, state, 2.0)  # a change waits two seconds
    return net


def decoded(page: Any, selector: str) -> str:
    """The QR code in this element as the browser shows it, read by OpenCV."""
    from playwright.sync_api import expect

    img = page.locator(f"{selector} img")
    expect(img).to_be_visible()
    page.wait_for_function("(s) => document.querySelector(s).complete", arg=f"{selector} img")
    png = img.screenshot()
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    text, points, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert points is not None, f"no QR code in {selector}"
    return str(text)


def test_the_host_sees_and_changes_the_network(server: Server, phone: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    net = with_network(server, tmp_path / "netstate")
    en = I18N["en"]
    host = host_page(phone, server)
    expect(host.locator("#net-now")).to_have_text(
        en["net.now_hotspot_open"].format(ssid="companion-B0X1")
    )
    port = server.url.rsplit(":", 1)[1]
    assert decoded(host, "#net-wifi-qr") == "WIFI:T:nopass;S:companion-B0X1;;"
    assert decoded(host, "#net-page-qr") == f"http://10.42.0.1:{port}/"
    # a WPA2 password: the code of the network to come is on the screen at once
    host.on("dialog", lambda d: d.accept())
    secret = 'Kaffee;"2:0,\\'
    host.fill("#net-password", secret)
    host.click("#net-password-form button[type=submit]")
    expect(host.locator("#net-coming")).to_have_text(
        en["net.restarting"].format(ssid="companion-B0X1")
    )
    assert decoded(host, "#net-next-wifi") == wifi_qr_payload("companion-B0X1", secret)
    # done a moment later: the page asks again and shows the network as it is now
    expect(host.locator("#net-now")).to_have_text(
        en["net.now_hotspot_wpa2"].format(ssid="companion-B0X1")
    )
    assert decoded(host, "#net-wifi-qr") == wifi_qr_payload("companion-B0X1", secret)
    host.click("#net-scan")
    expect(host.locator("#net-scan-list li")).to_have_count(2)  # kept from before it opened
    host.click("#net-scan-list button[data-ssid=Cafe]")
    host.fill("#net-join-password", "espresso-42")
    host.click("#net-join-form button[type=submit]")
    expect(host.locator("#net-coming")).to_contain_text("Cafe")
    expect(host.locator("#net-now")).to_have_text(en["net.now_wifi"].format(ssid="Cafe"))
    assert net.status().mode == "wifi"
    assert host.js_errors == []


def test_japanese_and_players_see_nothing(server: Server, phone: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with_network(server, tmp_path / "netstate")
    ja = I18N["ja"]
    host = host_page(phone, server, "ja-JP")
    expect(host.locator("#net-now")).to_have_text(
        ja["net.now_hotspot_open"].format(ssid="companion-B0X1")
    )
    text = host.inner_text("#network-panel")
    assert ja["section.network"] in text and ja["net.qr_wifi"] in text
    assert "net." not in text and "notice." not in text and "{" not in text
    # no Latin word on the page: the network's name and the addresses to type are marked as such
    assert latin_words(host) == [] and too_small(host) == [], too_small(host)
    assert host.locator("#net-now [data-literal=network]").inner_text() == "companion-B0X1"
    addresses = host.locator("#network [data-literal=address]").all_inner_texts()
    assert "companion.local" in addresses and any(a.startswith("http://") for a in addresses)
    guest = phone("ja-JP")
    guest.goto(server.url + "/")
    guest.wait_for_selector("body[data-ready='1']")
    assert guest.locator("#network").count() == 0
    assert host.js_errors == [] and guest.js_errors == []


def test_the_table_card_as_chromium_draws_it(needs_browser: Any, tmp_path: Path) -> None:
    done = make_table_card(tmp_path, "--ssid", "companion-B0X1", "--password", "pass:word;1")
    assert done.returncode == 0, done.stderr
    page = needs_browser.new_page(viewport={"width": 800, "height": 1131})
    try:
        page.goto((tmp_path / "table-card.svg").as_uri())
        for gid, want in (
            ("wifi-qr", "WIFI:T:WPA;S:companion-B0X1;P:pass\\:word\\;1;;"),
            ("page-qr", "http://10.42.0.1:8080/"),
        ):
            png = page.locator(f"#{gid}").screenshot()
            image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
            text, points, _ = cv2.QRCodeDetector().detectAndDecode(image)
            assert points is not None and text == want
    finally:
        page.close()
