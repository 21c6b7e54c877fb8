"""A later keep on a phone: "more tickets" draws (the turn's action) and keeps what is chosen;
the reply is that of any keep, even for a ticket the other player holds, which only the host's
page shows as a clash."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .test_dashboard import api, host_page, ready, two_player_game


def test_more_tickets_on_a_phone_draws_then_keeps(server: Server, phone: Any) -> None:
    from playwright.sync_api import expect

    two_player_game(server)  # A (blue) holds paris-wien, berlin-roma; B (red) kyiv-sochi, ...
    token = api(server, "POST", "/api/players/blue/pair")["url"].rsplit("/", 1)[1]
    aki = phone()
    ready(aki, f"{server.url}/pair/{token}")
    aki.wait_for_selector("#whose-turn[data-color=blue]")
    aki.click("#more-tickets")
    for t in ("brest-marseille", "kyiv-sochi"):  # the second is B's
        aki.check(f".sheet label[data-ticket='{t}'] input")
    aki.click("#keep-go")
    aki.wait_for_selector("#my-tickets li[data-ticket='kyiv-sochi']")
    events = api(server, "GET", f"/api/games/{api(server, 'GET', '/api/state')['game_id']}/events")
    kinds = [e["action"]["type"] for e in events["events"]][-2:]
    assert kinds == ["draw_tickets", "keep_tickets"]
    assert aki.locator("#toasts .toast.error").count() == 0
    host = host_page(phone, server)
    expect(host.locator("#clash-panel")).to_be_visible()
    expect(host.locator("#clash-panel button")).to_have_count(3)  # A, B, both again
    assert aki.locator("#clash-panel:not([hidden])").count() == 0
    assert aki.js_errors == [] and host.js_errors == []
