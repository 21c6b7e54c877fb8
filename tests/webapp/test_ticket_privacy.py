"""A sharp player learns nothing about anyone else's tickets (create_app's test client).

The attack: a paired phone sends keeps naming every ticket, at every moment (before its first
keep, with no deal open, after drawing tickets), once in a world where the opponent holds the
tickets it names and once where the opponent holds others. Every answer, every message on its
event stream, its own ticket view, the public state and the history it may read are byte for
byte the same in both worlds. Only the host hears of a clash, and settles it.
"""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from companion.data import europe_map
from companion.service import Service
from companion.service import ledger as ledger_module
from companion.store import EventStore
from companion.webapp import create_app

from .conftest import BEARER, TOKEN

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
EMAP = europe_map()
TICKETS = sorted(t.id for group in EMAP.tickets_of_variant(EMAP.variant("europe")) for t in group)
NAMED = ("paris-wien", "berlin-roma")  # red keeps these: first keep, then a drawn one
RED_OWN = "kyiv-sochi"  # red's second first ticket, never anyone else's
HELD = {"held": [NAMED[0], NAMED[1]], "free": ["essen-kyiv", "brest-marseille"]}  # blue's


class World:
    """A service whose opponent (blue, Ben) kept ``blue`` as first tickets; red's phone paired."""

    def __init__(self, state_dir: Path, blue: list[str]) -> None:
        self.store = EventStore(state_dir)
        self.service = Service(self.store).start()
        self.app: Flask = create_app(self.service, {"HOST_TOKEN": TOKEN, "RATE_LIMITS": None})
        self.host = self.app.test_client()
        assert self.act({"type": "new_game", "players": PLAYERS}).status_code == 200
        keep = {"type": "keep_tickets", "player": "blue", "tickets": blue}
        assert self.act(keep).status_code == 200
        url = self.host.post("/api/players/red/pair", headers=BEARER).get_json()["url"]
        self.token = str(url).rsplit("/", 1)[1]
        self.phone = self.app.test_client()
        assert self.phone.get(f"/pair/{self.token}").status_code == 303
        # (the phone's own session: the link's token no longer signs in once opened)
        self.red = {"X-CSRF-Token": self.phone.get("/api/session").get_json()["csrf_token"]}
        self.service.call(lambda: None)  # (the phone's "seen" is in before the streams begin)
        self.player_stream = self.service.subscribe(None, host=False)
        self.host_stream = self.service.subscribe(None, host=True)

    def act(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        return self.host.post("/api/actions", json=body, headers=headers or BEARER)

    def probe(self, body: dict[str, Any]) -> tuple[int, bytes, str | None]:
        """red's phone sends ``body``: the answer's status, bytes and type, as it sees them."""
        r = self.phone.post("/api/actions", json=body, headers=self.red)
        return r.status_code, r.get_data(), r.headers.get("Content-Type")

    def drain(self, sub: Any) -> list[Any]:
        out = []
        while True:
            try:
                out.append(sub.get(0.05))
            except queue.Empty:
                return out

    def close(self) -> None:
        self.player_stream.close()
        self.host_stream.close()
        self.service.stop()
        self.store.close()


@pytest.fixture
def worlds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, World]]:
    # both worlds' game has the same id: only what blue holds differs
    monkeypatch.setattr(ledger_module, "new_game_id", lambda: "g0123456789")
    made = {name: World(tmp_path / name, blue) for name, blue in HELD.items()}
    yield made
    for w in made.values():
        w.close()


def keep(*tickets: str) -> dict[str, Any]:
    return {"type": "keep_tickets", "player": "red", "tickets": list(tickets)}


def attack(w: World) -> list[tuple[int, bytes, str | None]]:
    """Every keep a phone might try, in order: 4 × 46 + 3 requests."""
    answers = []
    others = [t for t in TICKETS if t not in NAMED and t != RED_OWN]
    # before its first keep: one ticket is too few, five too many, whatever they are
    answers += [w.probe(keep(t)) for t in TICKETS]
    answers += [w.probe(keep(t, *others[:4])) for t in TICKETS]
    answers.append(w.probe(keep(NAMED[0], RED_OWN)))  # blue's in one world: kept all the same
    # no deal open: refused the same way whatever is named
    answers += [w.probe(keep(t)) for t in TICKETS]
    answers.append(w.probe({"type": "draw_tickets", "player": "red"}))
    answers += [w.probe(keep(t, *others[:3])) for t in TICKETS]  # four of three drawn
    answers.append(w.probe(keep(NAMED[1])))  # blue's in one world: kept all the same
    return answers


def test_every_keep_is_answered_the_same_whatever_the_opponent_holds(
    worlds: dict[str, World],
) -> None:
    held, free = worlds["held"], worlds["free"]
    a, b = attack(held), attack(free)
    assert len(a) == 4 * len(TICKETS) + 3
    assert a == b  # status, bytes and content type of every answer
    codes = [json.loads(body).get("code") for _, body, _ in a]
    assert codes.count("rule.keep-minimum") == len(TICKETS)
    assert codes.count("rule.keep-maximum") == 2 * len(TICKETS)
    assert codes.count("rule.no-ticket-deal") == len(TICKETS)
    assert [s for s, _, _ in a].count(200) == 3  # first keep, draw, drawn keep
    # the same events on red's phone's stream, the same state, the same own tickets
    assert held.drain(held.player_stream) == free.drain(free.player_stream)
    for path in ("/api/state", "/api/players/red/tickets", "/api/session"):
        got = [w.phone.get(path, headers=w.red) for w in (held, free)]
        assert got[0].status_code == got[1].status_code == 200, path
        if path == "/api/session":  # (each phone's CSRF token is its session's own)
            same = [{**r.get_json(), "csrf_token": None} for r in got]
            assert same[0] == same[1] and same[0]["role"] == "player"
            continue
        assert got[0].get_data() == got[1].get_data(), path
    mine = held.phone.get("/api/players/red/tickets", headers=held.red).get_json()
    assert [t["id"] for t in mine["tickets"]] == [NAMED[0], RED_OWN, NAMED[1]]
    assert mine["deal"] is None

    def history(w: World) -> list[dict[str, Any]]:
        events = w.phone.get("/api/games/g0123456789/events", headers=w.red).get_json()["events"]
        return [{k: v for k, v in e.items() if k != "ts"} for e in events]

    assert history(held) == history(free)
    # the host alone hears of the clashes, naming both players
    told = [m for m in held.drain(held.host_stream) if m[0] == "notice"]
    clash = [json.loads(m[2]) for m in told if b"tickets.clash" in m[2].encode()]
    assert [c["params"]["ticket"] for c in clash] == list(NAMED)
    assert {(c["params"]["keeper"], c["params"]["holders"]) for c in clash} == {("Aki", "Ben")}
    assert all(c["audience"] == "host" for c in clash)
    assert not [m for m in free.drain(free.host_stream) if b"tickets.clash" in m[2].encode()]
    listed = held.host.get("/api/clashes", headers=BEARER).get_json()["clashes"]
    assert [c["ticket"] for c in listed] == list(NAMED)
    assert listed[0]["holders"] == [
        {"color": "red", "name": "Aki"},
        {"color": "blue", "name": "Ben"},
    ]
    assert free.host.get("/api/clashes", headers=BEARER).get_json() == {"clashes": []}
    assert held.phone.get("/api/clashes", headers=held.red).status_code == 403


def test_the_host_settles_a_clash_and_nothing_of_it_reaches_the_table(
    worlds: dict[str, World],
) -> None:
    w = worlds["held"]
    assert w.probe(keep(NAMED[0], RED_OWN))[0] == 200
    refused = w.act({"type": "finish"})  # the host must settle it first
    assert refused.status_code == 409
    assert refused.get_json()["code"] == "rule.ticket-clash-open"
    settle = {"type": "settle_clash", "ticket": NAMED[0], "keeps": "blue"}
    assert w.probe(settle)[0] == 403  # the host's decision
    bad = w.act({**settle, "ticket": RED_OWN})
    assert bad.status_code == 409 and bad.get_json()["code"] == "rule.no-ticket-clash"
    bad = w.act({**settle, "keeps": "green"})
    assert bad.status_code == 409 and bad.get_json()["code"] == "rule.clash-player"
    assert w.act({**settle, "keeps": "purple"}).status_code == 400
    st = w.act(settle).get_json()
    assert st["last"]["action"] == {"type": "settle_clash"}
    assert NAMED[0] not in json.dumps(st) and "clash" not in st["last"]["text"]
    assert w.host.get("/api/clashes", headers=BEARER).get_json() == {"clashes": []}
    # red enters the ticket really held, once
    mine = w.phone.get("/api/players/red/tickets", headers=w.red).get_json()
    assert [t["id"] for t in mine["tickets"]] == [RED_OWN]
    assert mine["deal"] == {"kind": "reenter", "n": 1}
    assert json.loads(w.probe(keep("brindisi-zagrab", "erzurum-kobenhavn"))[1])["code"] == (
        "rule.keep-reenter"
    )
    assert w.probe(keep("brindisi-zagrab"))[0] == 200
    # the history a player reads names no ticket of the settling; the host's does
    events = w.phone.get("/api/games/g0123456789/events", headers=w.red).get_json()["events"]
    (settled,) = [e for e in events if e["action"]["type"] == "settle_clash"]
    assert settled["action"] == {"type": "settle_clash"} and NAMED[0] not in settled["text"]
    events = w.host.get("/api/games/g0123456789/events", headers=BEARER).get_json()["events"]
    (settled,) = [e for e in events if e["action"]["type"] == "settle_clash"]
    assert settled["action"] == settle and settled["text"] == f"{NAMED[0]}: blue keeps it"
    assert w.act({"type": "finish"}).status_code == 200


def test_a_restart_finds_the_clash_still_open(tmp_path: Path) -> None:
    w = World(tmp_path / "s", HELD["held"])
    try:
        assert w.probe(keep(NAMED[0], RED_OWN))[0] == 200
        before = w.host.get("/api/clashes", headers=BEARER).get_json()
    finally:
        w.close()
    store = EventStore(tmp_path / "s")
    svc = Service(store).start()
    try:
        client = create_app(svc, {"HOST_TOKEN": TOKEN, "RATE_LIMITS": None}).test_client()
        assert client.get("/api/clashes", headers=BEARER).get_json() == before
        assert before["clashes"][0]["ticket"] == NAMED[0]
    finally:
        svc.stop()
        store.close()


def test_a_london_phone_probing_every_ticket_learns_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.london import london_map

    ids = list(london_map().tickets)
    monkeypatch.setattr(ledger_module, "new_game_id", lambda: "g0123456789")
    answers = {}
    streams = {}
    for name, blue in (("held", ids[:2]), ("free", ids[2:4])):
        store = EventStore(tmp_path / name)
        svc = Service(store).start()
        try:
            app = create_app(svc, {"HOST_TOKEN": TOKEN, "RATE_LIMITS": None})
            host = app.test_client()
            new = {"type": "new_game", "game": "london", "players": PLAYERS}
            assert host.post("/api/actions", json=new, headers=BEARER).status_code == 200
            keep_blue = {"type": "keep_tickets", "player": "blue", "tickets": blue}
            assert host.post("/api/actions", json=keep_blue, headers=BEARER).status_code == 200
            url = host.post("/api/players/red/pair", headers=BEARER).get_json()["url"]
            red = {"Authorization": f"Bearer {str(url).rsplit('/', 1)[1]}"}
            sub = svc.subscribe(None, host=False)

            def probe(body: dict[str, Any], red: dict[str, str] = red, host: Any = host) -> Any:
                r = host.post("/api/actions", json=body, headers=red)
                return r.status_code, r.get_data()

            got = [probe(keep(t, *[u for u in ids[4:7] if u != t][:2])) for t in ids]  # 3 of 2
            got.append(probe(keep(ids[0], ids[6])))  # blue's in one world
            got += [probe(keep(t)) for t in ids]  # no deal open
            got.append(probe({"type": "draw_tickets", "player": "red"}))
            got += [probe(keep(t, *[u for u in ids[7:10] if u != t][:2])) for t in ids]  # 3 of 2
            got.append(probe(keep(ids[1])))  # blue's in one world
            got.append((200, host.get("/api/players/red/tickets", headers=red).get_data()))
            answers[name] = got
            streams[name] = World.drain(None, sub)  # type: ignore[arg-type]
            clashes = host.get("/api/clashes", headers=BEARER).get_json()["clashes"]
            assert [c["ticket"] for c in clashes] == (ids[:2] if name == "held" else [])
            sub.close()
        finally:
            svc.stop()
            store.close()
    assert answers["held"] == answers["free"]
    assert streams["held"] == streams["free"]
    assert [a[0] for a in answers["held"]].count(200) == 4
