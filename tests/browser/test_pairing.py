"""Pairing as a table sees it: "waiting" until the phone opened its link, and a phone whose
pairing is gone gets one page saying to ask the host for a new code (no refusal on every tap)."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .test_dashboard import api, host_page, ready, see, two_player_game


def test_waiting_until_the_phone_opens_its_link(server: Server, phone: Any) -> None:
    two_player_game(server)
    host = host_page(phone, server, "ja-JP")
    see(host, ".pair-row[data-color=blue]", "not", attr="data-pair-status")
    host.click("[data-pair=blue]")
    url = host.get_attribute("a[data-pair-url=blue]", "href")
    assert url
    host.click(".sheet .actions button")
    # the code exists, the phone has not opened it: waiting, in the page's language
    see(host, ".pair-row[data-color=blue]", "waiting", attr="data-pair-status")
    assert "スマホの読み取り待ち" in host.inner_text(".pair-row[data-color=blue]")
    state = api(server, "GET", "/api/state")
    blue = next(p for p in state["players"] if p["color"] == "blue")
    assert blue["paired"] is True and blue["phone_seen"] is False
    aki = phone("ja-JP")
    ready(aki, url)
    assert aki.url.endswith("/me")
    see(host, ".pair-row[data-color=blue]", "paired", attr="data-pair-status")
    assert "登録済み" in host.inner_text(".pair-row[data-color=blue]")
    assert host.js_errors == [] and aki.js_errors == []


def test_a_phone_whose_pairing_is_gone_is_told_to_ask_for_a_new_code(
    server: Server, phone: Any
) -> None:
    two_player_game(server)
    host = host_page(phone, server, "ja-JP")
    host.click("[data-pair=blue]")
    old = host.get_attribute("a[data-pair-url=blue]", "href")
    host.click(".sheet .actions button")
    aki = phone("ja-JP")
    ready(aki, old or "")
    aki.wait_for_selector("#my-tickets")
    see(host, ".pair-row[data-color=blue]", "paired", attr="data-pair-status")
    # The host makes a new code (the phone was lost, say): the old one stops working.
    host.click("[data-pair=blue]")
    new = host.get_attribute("a[data-pair-url=blue]", "href")
    assert new and new != old
    host.click(".sheet .actions button")
    see(host, ".pair-row[data-color=blue]", "waiting", attr="data-pair-status")
    # The old phone, at its next change, shows one page: ask the host for a new code.
    api(server, "POST", "/api/actions", {"type": "drew_cards", "player": "blue", "count": 2})
    aki.wait_for_selector("#gone")
    assert "ホストに新しいコードをもらい" in aki.inner_text("#gone")
    assert aki.locator("#turnbar").count() == 0
    # Reloading /me or opening the old link gives that page too (403), not a loop.
    res = aki.goto(aki.url)
    assert res is not None and res.status == 403
    aki.wait_for_selector("body[data-ready='1']")
    assert "ホストに新しいコードをもらい" in aki.inner_text("#gone")
    res = aki.goto(old or "")
    assert res is not None and res.status == 403 and aki.url == old
    aki.wait_for_selector("body[data-ready='1']")
    assert "新しいコード" in aki.inner_text("#gone")
    assert aki.js_errors == [] and host.js_errors == []


def test_replacing_a_running_game_asks_and_keeps_it_as_abandoned(
    server: Server, phone: Any
) -> None:
    two_player_game(server)
    first = api(server, "GET", "/api/state")["game_id"]
    host = host_page(phone, server, "ja-JP")
    host.fill("#newgame input[data-i='0']", "Aki")
    host.fill("#newgame input[data-i='1']", "Ben")
    host.fill("#newgame input[data-i='2']", "Chie")
    host.click("#start-game")
    see(host, ".sheet h2", "進行中のゲームを置き換えますか？")
    assert "A、Bのチケット・トゥ・ライド：ヨーロッパ（1手番目）" in host.inner_text(".sheet")
    assert api(server, "GET", "/api/state")["game_id"] == first  # nothing yet
    host.click("#replace-go")
    host.wait_for_selector("#scores tr[data-color=green]")
    assert api(server, "GET", "/api/state")["game_id"] != first
    # the replaced game stays in the history, as abandoned, in the page's language
    ready(host, server.url + "/history")
    row = host.locator(f"#history li[data-game='{first}']")
    see(host, f"#history li[data-game='{first}']", "abandoned", attr="data-phase")
    assert "中断" in row.inner_text()
    assert host.js_errors == []
