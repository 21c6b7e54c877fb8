"""Becoming host from a phone, in the page's language: the claim page says what to press, the
phone becomes host inside the window, and on the host page the host adds another device (a
second phone claims) and signs every host device out. A second phone opening a used pairing
link is told to ask the host."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .test_dashboard import host_page, ready, see, two_player_game


def access(server: Server) -> Any:
    return server.app.extensions["companion.hosts"]


def test_a_phone_becomes_host_in_the_window_and_adds_another(server: Server, phone: Any) -> None:
    aki = phone("ja-JP")
    ready(aki, f"{server.url}/host")  # not host yet: the claim page
    assert aki.url.endswith("/host/claim")
    see(
        aki,
        "#claim-status",
        "このボックスにはまだホストがいません。ボックスの確定ボタンを押し（ランプがマゼンタ色で点滅します）、1分以内に「ホストになる」を押してください。",
    )
    aki.click("#claim-go")  # outside a window: refused, in Japanese
    aki.wait_for_selector("#claim-problem:not(.hidden)")
    assert "今はホストになれません" in aki.inner_text("#claim-problem")
    access(server).open_window("button")  # the box's confirm button
    aki.click("#claim-go")
    aki.wait_for_url(f"{server.url}/host")
    aki.wait_for_selector("body[data-ready='1']")
    see(aki, "#host-device-count", "ホストとしてサインイン中の端末：1台")
    assert "この端末" in aki.inner_text(".host-devices")
    # the host adds another device: a second phone claims on its own claim page
    aki.click("#host-add-device")
    aki.wait_for_selector("#host-claim-open")
    assert "/host/claim" in aki.inner_text("#host-claim-open")
    ben = phone("en-US")
    ready(ben, f"{server.url}/host/claim")
    ben.click("#claim-go")
    ben.wait_for_url(f"{server.url}/host")
    see(ben, "#host-device-count", "2 devices are signed in as host.")
    # signing every host device out: both are guests again, the first lands on the claim page
    ben.click("#host-rotate")
    ben.click("#host-rotate-go")
    ben.wait_for_url(f"{server.url}/host/claim")
    assert ben.evaluate("fetch('/api/session').then((r) => r.json())")["role"] == "guest"
    assert not access(server).has_host()
    aki.wait_for_url(f"{server.url}/host/claim", timeout=15_000)
    assert aki.js_errors == [] and ben.js_errors == []


def test_a_used_pairing_link_says_ask_the_host(server: Server, phone: Any) -> None:
    two_player_game(server)
    host = host_page(phone, server, "en-US")
    host.click("[data-pair=blue]")
    url = host.get_attribute("a[data-pair-url=blue]", "href")
    assert url
    first = phone("ja-JP")
    ready(first, url)
    assert first.url.endswith("/me")
    second = phone("ja-JP")
    second.goto(url)
    second.wait_for_selector("body[data-ready='1']")
    see(second, "#pair-used h2", "このペアリング用リンクは使用済みです")
    assert "ホストにコードをもう一度表示してもらい" in second.inner_text("#pair-used")
    assert first.js_errors == [] and second.js_errors == []
