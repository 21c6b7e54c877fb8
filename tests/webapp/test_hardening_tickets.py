"""Who holds a ticket stays secret, on a real waitress on 127.0.0.1: a paired phone that sends a
keep naming each ticket gets byte for byte the same answers whether or not its opponent holds
it (before its first keep, with no deal open, and the keeps that are taken); only the host's
event stream hears of the clash."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.data import europe_map
from companion.service import ledger as ledger_module

from .conftest import BEARER
from .live import LOOPBACK, LiveServer

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
EMAP = europe_map()
TICKETS = sorted(t.id for group in EMAP.tickets_of_variant(EMAP.variant("europe")) for t in group)
NAMED = ("paris-wien", "kyiv-sochi")  # red's first keep
BLUE = {"held": ["paris-wien", "berlin-roma"], "free": ["essen-kyiv", "brest-marseille"]}


@pytest.fixture
def servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, LiveServer]]:
    monkeypatch.setattr(ledger_module, "new_game_id", lambda: "g0123456789")
    # (no rate limits here: they answer alike in both worlds, and this is about the tickets)
    made = {name: LiveServer(tmp_path / name, app_config={"RATE_LIMITS": None}) for name in BLUE}
    yield made
    for s in made.values():
        s.close()


def raw(live: LiveServer, body: Any, token: str) -> tuple[int, list[tuple[str, str]], bytes]:
    """One request of red's phone: the status, the headers but the date, the body's bytes."""
    conn = http.client.HTTPConnection(LOOPBACK, live.port, timeout=5)
    try:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        conn.request("POST", "/api/actions", body=json.dumps(body).encode(), headers=headers)
        resp = conn.getresponse()
        return resp.status, [h for h in resp.getheaders() if h[0] != "Date"], resp.read()
    finally:
        conn.close()


def setup(live: LiveServer, blue: list[str]) -> str:
    assert (
        live.request("POST", "/api/actions", {"type": "new_game", "players": PLAYERS}, BEARER)[0]
        == 200
    )
    keep = {"type": "keep_tickets", "player": "blue", "tickets": blue}
    assert live.request("POST", "/api/actions", keep, BEARER)[0] == 200
    status, body = live.request("POST", "/api/players/red/pair", {}, BEARER)
    assert status == 200
    return str(body["url"]).rsplit("/", 1)[1]


def test_a_phone_probing_every_ticket_learns_nothing(servers: dict[str, LiveServer]) -> None:
    tokens = {name: setup(servers[name], BLUE[name]) for name in servers}
    subs = {name: s.service.subscribe(None, host=True) for name, s in servers.items()}
    answers: dict[str, list[Any]] = {}
    for name, live in servers.items():

        def probe(tickets: list[str], live: LiveServer = live, name: str = name) -> Any:
            return raw(
                live, {"type": "keep_tickets", "player": "red", "tickets": tickets}, tokens[name]
            )

        got = [probe([t]) for t in TICKETS]  # one first ticket is too few, whoever holds it
        got.append(probe(list(NAMED)))  # paris-wien is blue's in one world: kept all the same
        got += [probe([t]) for t in TICKETS]  # no deal open
        answers[name] = got
    assert answers["held"] == answers["free"]
    statuses = [a[0] for a in answers["held"]]
    assert statuses.count(409) == 2 * len(TICKETS) and statuses.count(200) == 1
    codes = {json.loads(a[2]).get("code") for a in answers["held"] if a[0] == 409}
    assert codes == {"rule.keep-minimum", "rule.no-ticket-deal"}
    for name, live in servers.items():  # the host's stream alone has the clash
        told = []
        while not subs[name].queue.empty():
            m = subs[name].queue.get_nowait()
            if m is not None and m[0] == "notice":
                told.append(json.loads(m[2]))
        clash = [n for n in told if n["code"] == "tickets.clash"]
        if name == "held":
            assert [n["params"]["ticket"] for n in clash] == ["paris-wien"]
            assert clash[0]["audience"] == "host"
        else:
            assert clash == []
        subs[name].close()
        status, body = live.request("GET", "/api/clashes", headers=BEARER)
        assert status == 200 and len(body["clashes"]) == (1 if name == "held" else 0)
