"""London's wrong payments at a lenient table wait in the host's panel as Europe's do (issue 23):
open in the state, accepted by the host (logged with the problem's identity, so a replay of the
log and a correction keep it), refused when not open; a player may not accept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.service import Actor, Service
from companion.service.errors import Conflict, Forbidden
from companion.store import EventStore

HOST = Actor.host()
PLAYERS = [{"name": "Aki", "color": "blue"}, {"name": "Ben", "color": "red"}]
KEEPS = {"blue": ["piccadilly-circus--waterloo"], "red": ["covent-garden--hyde-park"]}


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[Service]:
    store = EventStore(tmp_path)
    s = Service(store).start()
    yield s
    s.stop()
    store.close()


def london(svc: Service) -> None:
    svc.act({"type": "new_game", "game": "london", "players": PLAYERS}, HOST)
    for color, tickets in KEEPS.items():
        svc.act({"type": "keep_tickets", "player": color, "tickets": tickets}, HOST)


def test_a_wrong_london_payment_waits_for_the_host(svc: Service, tmp_path: Path) -> None:
    london(svc)
    wrong = {"type": "claim", "player": "blue", "route": "big-ben--waterloo", "cards": ["pink"]}
    st = svc.act(wrong, HOST)
    [problem] = st["problems"]
    assert (problem["player"], problem["place"], problem["code"]) == (
        "blue",
        "big-ben--waterloo",
        "rule.payment-colour",
    )
    with EventStore(tmp_path) as store:  # the log alone gives the same problem
        assert json.loads(Service(store).state_json())["problems"] == [problem]
    with pytest.raises(Forbidden):
        svc.act({"type": "accept_problem", "problem": problem["id"]}, Actor.player("red"))
    with pytest.raises(Conflict):
        svc.act({"type": "accept_problem", "problem": problem["id"] + 1}, HOST)
    st = svc.act({"type": "accept_problem", "problem": problem["id"]}, HOST)
    assert st["problems"] == [] and st["players"][0]["routes"] == ["big-ben--waterloo"]
    [accepted] = [
        e for e in svc.store.events(st["game_id"]) if e.action["type"] == "accept_problem"
    ]
    assert accepted.action["what"]["place"] == "big-ben--waterloo"
    with EventStore(tmp_path) as store:  # and the acceptance replays
        assert json.loads(Service(store).state_json())["problems"] == []
    with pytest.raises(Conflict):  # accepted once: not open any more
        svc.act({"type": "accept_problem", "problem": problem["id"]}, HOST)


def test_a_right_payment_leaves_no_problem(svc: Service) -> None:
    london(svc)
    right = {"type": "claim", "player": "blue", "route": "big-ben--waterloo", "cards": ["blue"]}
    assert svc.act(right, HOST)["problems"] == []
