"""Pending taps on the real server: a player clears only their own, and a payment holds at
most as many cards as a route can take."""

from __future__ import annotations

import json
from typing import Any

from tests.webapp.conftest import BEARER
from tests.webapp.live import PLAYERS, TICKETS, LiveServer


def post(live: LiveServer, path: str, body: Any, token: str | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else BEARER
    return live.request("POST", path, body, headers)


def tap(live: LiveServer, obs: dict[str, Any]) -> Any:
    status, body = post(live, "/api/observations", obs)
    assert status == 200, body
    return body


def pair(live: LiveServer, color: str) -> str:
    status, body = post(live, f"/api/players/{color}/pair", {})
    assert status == 200
    return str(body["url"]).rsplit("/", 1)[1]


def pending(live: LiveServer) -> dict[str, Any]:
    state = live.request("GET", "/api/state")[1]
    return dict(state["pending"])


def test_a_player_clears_only_their_own_taps(live: LiveServer) -> None:
    assert post(live, "/api/actions", {"type": "new_game", "players": PLAYERS})[0] == 200
    for color, ids in TICKETS.items():
        keep = {"type": "keep_tickets", "player": color, "tickets": ids}
        assert post(live, "/api/actions", keep)[0] == 200
    red, blue = pair(live, "red"), pair(live, "blue")
    tap(live, {"kind": "reader_player", "player": "red"})
    tap(live, {"kind": "card_tapped", "card": "green", "uid": "04A1"})
    tap(live, {"kind": "reader_player", "player": "blue"})
    tap(live, {"kind": "ticket_tapped", "ticket": "berlin-roma"})
    got = pending(live)
    assert got["payment"]["player"] == "red" and got["tickets"]["player"] == "blue"
    # blue clears blue's tickets: red's payment stays
    assert post(live, "/api/pending/clear", {}, blue)[0] == 200
    got = pending(live)
    assert got["tickets"] is None and got["payment"]["cards"] == ["green"]
    # blue has nothing left to clear: red's payment is not blue's to clear
    status, body = post(live, "/api/pending/clear", {}, blue)
    assert status == 403 and body["code"] == "auth.not_your_taps"
    assert pending(live)["payment"]["cards"] == ["green"]
    # red clears red's; the host may clear anyone's
    assert post(live, "/api/pending/clear", {}, red)[0] == 200
    assert pending(live)["payment"] is None
    tap(live, {"kind": "ticket_tapped", "ticket": "berlin-roma"})
    assert post(live, "/api/pending/clear", {})[0] == 200
    assert pending(live)["tickets"] is None


def test_a_payment_holds_at_most_a_routes_cards(live: LiveServer) -> None:
    assert post(live, "/api/actions", {"type": "new_game", "players": PLAYERS})[0] == 200
    longest = max(r.length for r in live.service.map.routes.values())
    notices: list[str] = []
    live.service.listeners.append(
        lambda kind, data: notices.append(json.dumps(data)) if kind == "notice" else None
    )
    for i in range(3 * longest):
        tap(live, {"kind": "card_tapped", "card": "red", "uid": f"04B{i:03d}"})
    payment = pending(live)["payment"]
    assert len(payment["cards"]) == longest
    assert any("reader.payment_full" in n for n in notices)
    # tickets: no more than a player is dealt at once
    from companion.service.pending import max_tickets

    most = max_tickets(live.service.map)
    for t in sorted(live.service.map.tickets)[: most + 5]:
        tap(live, {"kind": "ticket_tapped", "ticket": t})
    assert pending(live)["tickets"]["count"] == most
