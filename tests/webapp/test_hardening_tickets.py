"""Who holds a ticket stays secret (real waitress on 127.0.0.1): a phone asking to keep another
player's ticket gets a 409 that names nobody, in table and in photo mode, and the host is told
when one phone keeps asking."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import BEARER
from .live import LiveServer

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path / "state")
    yield s
    s.close()


def post(live: LiveServer, body: Any, token: str | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else BEARER
    return live.request("POST", "/api/actions", body, headers)


@pytest.mark.parametrize("mode", ["table", "photo"])
def test_a_refused_ticket_names_nobody_and_repeats_are_told_to_the_host(
    live: LiveServer, mode: str
) -> None:
    assert post(live, {"type": "new_game", "players": PLAYERS, "mode": mode})[0] == 200
    red_keeps = {"type": "keep_tickets", "player": "red", "tickets": ["paris-wien", "berlin-roma"]}
    assert post(live, red_keeps)[0] == 200
    status, body = live.request("POST", "/api/players/blue/pair", {}, BEARER)
    blue = str(body["url"]).rsplit("/", 1)[1]
    told: list[dict[str, Any]] = []
    live.service.listeners.append(lambda k, d: told.append(d) if k == "notice" else None)
    probe = {"type": "keep_tickets", "player": "blue", "tickets": ["paris-wien", "brest-marseille"]}
    for attempt in (1, 2, 3):
        status, body = post(live, probe, blue)
        assert status == 409 and body["code"] == "rule.ticket-unavailable"
        text = json.dumps(body).lower()
        assert "red" not in text and "aki" not in text, body
        repeated = [n for n in told if n.get("code") == "setup.ticket_unavailable_repeated"]
        assert len(repeated) == attempt - 1  # from the second refusal on
    assert repeated[-1]["params"] == {"player": "blue", "n": 3}
