"""The first evening at a friend's table, as a new owner plays it (issue 21's QA): what the claim
page says when a refusal no longer holds, and the words a host device reads when every host
device was signed out (on the one that did it and on the others)."""

from __future__ import annotations

import re
from typing import Any

from .conftest import Server
from .test_dashboard import host_page, ready, see


def access(server: Server) -> Any:
    return server.app.extensions["companion.hosts"]


def test_a_refusal_goes_away_once_the_window_opens(server: Server, phone: Any) -> None:
    aki = phone("ja-JP")
    ready(aki, f"{server.url}/host/claim")
    aki.click("#claim-go")  # before anyone pressed the box's button: refused
    aki.wait_for_selector("#claim-problem:not(.hidden)")
    access(server).open_window("button")
    # the page looks again every 2 s: the window is open, the old refusal is not shown beside it
    aki.wait_for_selector("#claim-problem.hidden", state="attached", timeout=6_000)
    assert "今ならホストになれます" in aki.inner_text("#claim-status")
    assert aki.js_errors == []


def test_every_host_device_signed_out_is_told_so(server: Server, phone: Any) -> None:
    aki = phone("ja-JP")
    ready(aki, f"{server.url}/host/claim")
    see(aki, "#claim-note", "")  # came here by hand: nothing to explain
    access(server).open_window("button")
    aki.click("#claim-go")
    aki.wait_for_url(f"{server.url}/host")
    aki.wait_for_selector("#host-add-device")
    aki.click("#host-add-device")
    aki.wait_for_selector("#host-claim-open")
    ben = phone("en-US")
    ready(ben, f"{server.url}/host/claim")
    ben.click("#claim-go")
    ben.wait_for_url(f"{server.url}/host")
    ben.wait_for_selector("#host-rotate")
    ben.click("#host-rotate")
    ben.click("#host-rotate-go")
    # the one who signed everyone out reads that it happened, and how to be host again
    ben.wait_for_url(f"{server.url}/host/claim")
    ben.wait_for_selector("#claim-note:not(.hidden)")
    assert ben.inner_text("#claim-note").startswith("Every host device is signed out.")
    # the other host device, still on the host page, lands on the claim page with the reason
    aki.wait_for_url(f"{server.url}/host/claim", timeout=15_000)
    aki.wait_for_selector("#claim-note:not(.hidden)")
    assert "この端末はホストではなくなりました" in aki.inner_text("#claim-note")
    assert aki.js_errors == [] and ben.js_errors == []


def test_a_guest_on_the_table_page_sees_become_host_when_the_host_adds_a_device(
    server: Server, phone: Any
) -> None:
    aki = phone("ja-JP")
    access(server).open_window("button")
    ready(aki, f"{server.url}/host/claim")
    aki.click("#claim-go")
    aki.wait_for_url(f"{server.url}/host")
    ben = phone("ja-JP")
    ready(ben, f"{server.url}/")  # the box has a host, no window: no tab to become host
    assert ben.locator('nav a[data-nav="claim"]').count() == 0
    aki.wait_for_selector("#host-add-device")
    aki.click("#host-add-device")
    # without reloading, the guest's page shows the way in, in its language
    ben.wait_for_selector('nav a[data-nav="claim"]', timeout=10_000)
    assert ben.inner_text('nav a[data-nav="claim"]') == "ホストになる"
    ben.click('nav a[data-nav="claim"]')
    ben.wait_for_selector("#claim-go")
    ben.click("#claim-go")
    ben.wait_for_url(f"{server.url}/host")
    assert aki.js_errors == [] and ben.js_errors == []


def test_without_network_manager_the_host_page_still_shows_the_page_code(
    server: Server, phone: Any, tmp_path: Any
) -> None:
    import cv2

    host = host_page(phone, server, "ja-JP")  # the test server manages no network
    host.wait_for_selector("#net-page-qr img")
    assert "同じネットワーク" in host.inner_text("#net-now")
    # in Japanese words only: no program's name, no address to read (the code carries it)
    words = re.findall(r"[A-Za-z]+", host.inner_text("#network"))
    assert words == [], words
    shot = tmp_path / "qr.png"
    host.locator("#net-page-qr img").screenshot(path=str(shot))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(cv2.imread(str(shot)))
    assert text == f"{server.url}/"
    assert host.js_errors == []
