"""The camera's "please check" when several routes changed at once (``camera.look_changed``):
the host's page names the routes by their cities, in the page's language, and no player's
phone or table view shows it."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .test_dashboard import api, host_page, ready, two_player_game

ROUTES = ["amsterdam-essen", "barcelona-madrid"]


def test_the_host_is_told_which_routes_changed_at_once(server: Server, phone: Any) -> None:
    from playwright.sync_api import expect

    two_player_game(server)
    host = host_page(phone, server)
    host_ja = host_page(phone, server, "ja-JP")
    table = phone()
    ready(table, server.url + "/")
    for page in (host, host_ja, table):
        page.wait_for_selector("#conn:not(.off)")
    server.service.notice(
        "camera: several routes changed at once",
        "warning",
        code="camera.look_changed",
        params={"routes": ROUTES, "n": 2},
        audience="host",
    )
    server.service.notice("A notice for every screen.")
    for page in (host, host_ja, table):
        expect(page.locator("#toasts .toast", has_text="A notice for every screen.")).to_have_count(
            1
        )
    toast = host.locator("#toasts .toast", has_text="changed at once")
    expect(toast).to_have_count(1)
    text = toast.inner_text()
    assert "Amsterdam – Essen and Barcelona – Madrid" in text
    assert "{" not in text and "amsterdam-essen" not in text
    ja = host_ja.locator("#toasts .toast", has_text="同時に変わりました")
    expect(ja).to_have_count(1)
    assert "（" in ja.inner_text() and "amsterdam-essen" not in ja.inner_text()
    assert not [t for t in table.locator("#toasts .toast").all_text_contents() if "once" in t]
    assert api(server, "GET", "/api/state")["players"]  # the game goes on
    assert host.js_errors == [] and host_ja.js_errors == [] and table.js_errors == []
