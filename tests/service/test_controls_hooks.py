"""The service's side of the referee box: listener hooks and the confirm button's meaning.

No GPIO here: these are the service contracts companion.controls.table relies on.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.service import Actor, BadRequest, Conflict, Service
from companion.store import EventStore
from tests.service.pure_games import keep_first_tickets

HOST = Actor.host()
BUTTON = Actor.device("button")
PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


class Heard:
    """A listener that records (kind, data) and the thread it was called on."""

    def __init__(self) -> None:
        self.items: list[tuple[str, dict[str, Any]]] = []
        self.threads: set[str] = set()

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        self.items.append((kind, data))
        self.threads.add(threading.current_thread().name)

    def kinds(self) -> list[str]:
        return [k for k, _ in self.items]


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[Service]:
    store = EventStore(tmp_path)
    s = Service(store).start()
    s.act({"type": "new_game", "players": PLAYERS}, HOST)
    keep_first_tickets(s, HOST)
    yield s
    s.stop()
    store.close()


def button(s: Service, name: str) -> dict[str, Any]:
    return s.observe({"kind": "button", "name": name}, BUTTON)


def tap(s: Service, card: str) -> None:
    s.observe({"kind": "card_tapped", "card": card}, Actor.device("reader"))


def test_a_refusal_is_told_to_the_listeners_on_the_loop(svc: Service) -> None:
    heard = Heard()
    svc.listeners.append(heard)
    svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    with pytest.raises(Conflict):
        svc.act({"type": "claim", "player": "blue", "route": "berlin-wien"}, HOST)
    refused = [d for k, d in heard.items if k == "refused"]
    assert len(refused) == 1
    assert refused[0]["rule"] == "route-taken"
    assert "claimed by red" in refused[0]["error"]
    assert heard.threads == {"companion-loop"}


def test_a_malformed_request_is_not_a_refusal_by_the_rules(svc: Service) -> None:
    heard = Heard()
    svc.listeners.append(heard)
    with pytest.raises(BadRequest):
        svc.act({"type": "claim", "player": "red"}, HOST)  # no route: 400, not 409
    assert "refused" not in heard.kinds()


def test_a_refused_button_is_told_too(svc: Service) -> None:
    svc.act(
        {"type": "claim", "player": "red", "route": "angora-smyrna", "cards": ["orange"] * 3}, HOST
    )
    heard = Heard()
    svc.listeners.append(heard)
    with pytest.raises(Conflict, match="settle the tunnel"):
        button(svc, "end_turn")  # the same rule as the phone's end-turn button
    assert heard.kinds() == ["refused"]
    assert heard.items[0][1]["rule"] == "tunnel-pending"
    assert svc.state()["current"] == "red"


def test_a_camera_veto_is_told_before_its_notice(svc: Service) -> None:
    svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    heard = Heard()
    svc.listeners.append(heard)
    reply = svc.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue"})
    assert reply["result"] == "vetoed"
    assert heard.kinds() == ["vetoed", "notice"]
    assert heard.items[0][1]["color"] == "blue"
    assert "belongs to red" in heard.items[0][1]["text"]


def test_a_failing_listener_does_not_stop_the_game(svc: Service) -> None:
    def broken(kind: str, data: dict[str, Any]) -> None:
        raise RuntimeError("listener bug")

    heard = Heard()
    svc.listeners.extend([broken, heard])
    state = button(svc, "end_turn")
    assert state["result"] == "applied"
    assert svc.state()["current"] == "blue"
    assert "state" in heard.kinds()


def test_confirm_with_nothing_open_is_ignored(svc: Service) -> None:
    seq = svc.seq
    ignored = {"result": "ignored", "text": "Nothing to confirm.", "seq": seq}
    assert button(svc, "confirm") == ignored
    assert button(svc, "reject")["text"] == "Nothing to reject."
    assert svc.seq == seq


def test_confirm_settles_a_tunnel_with_the_tapped_cards(svc: Service) -> None:
    svc.act(
        {"type": "claim", "player": "red", "route": "angora-smyrna", "cards": ["orange"] * 3}, HOST
    )
    assert svc.state()["tunnel"]["revealed"] is None
    # No revealed cards tapped yet: nothing happens.
    reply = button(svc, "confirm")
    assert reply["result"] == "ignored" and "revealed cards" in reply["text"]
    for card in ("orange", "blue", "green"):
        tap(svc, card)
    reply = button(svc, "confirm")
    assert reply["result"] == "applied"
    state = svc.state()
    assert state["tunnel"]["revealed"] == ["orange", "blue", "green"]
    assert state["tunnel"]["extra"] == 1
    assert state["pending"]["payment"] is None  # the revealed cards are not the payment
    assert state["last"]["actor"] == "button"
    tap(svc, "orange")
    reply = button(svc, "confirm")
    assert reply["result"] == "applied"
    state = svc.state()
    assert state["tunnel"] is None
    assert "angora-smyrna" in state["players"][0]["routes"]
    assert state["pending"]["payment"] is None
    events = svc.game_events(state["game_id"], reveal=True)["events"]
    assert events[-1]["action"] == {"type": "tunnel_pay", "player": "red", "cards": ["orange"]}


def test_confirm_pays_a_strict_tunnel_only_with_enough_cards(svc: Service) -> None:
    svc.act({"type": "set_payment_mode", "payment_mode": "strict"}, HOST)
    svc.act(
        {"type": "claim", "player": "red", "route": "angora-smyrna", "cards": ["orange"] * 3}, HOST
    )
    for card in ("orange", "orange", "green"):
        tap(svc, card)
    button(svc, "confirm")
    assert svc.state()["tunnel"]["extra"] == 2
    tap(svc, "orange")
    with pytest.raises(Conflict):
        button(svc, "confirm")
    assert svc.state()["tunnel"] is not None
    assert svc.state()["pending"]["payment"]["cards"] == ["orange"]  # the taps are kept


def test_confirm_keeps_the_tapped_tickets(svc: Service) -> None:
    svc.act({"type": "drew_cards", "player": "red", "count": 2}, HOST)
    button(svc, "end_turn")
    assert svc.state()["current"] == "blue"
    for ticket in ("berlin-roma", "athina-wilno"):
        svc.observe({"kind": "ticket_tapped", "ticket": ticket}, Actor.device("reader"))
    reply = button(svc, "confirm")
    assert reply["result"] == "applied"
    state = svc.state()
    assert state["players"][1]["tickets_held"] == 4
    assert state["pending"]["tickets"] is None
    assert svc.tickets("blue")["tickets"][-1]["id"] == "athina-wilno"


def test_a_camera_question_comes_before_the_taps(svc: Service) -> None:
    tap(svc, "green")
    reply = svc.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue"})
    assert reply["result"] == "pending"
    button(svc, "confirm")
    state = svc.state()
    assert state["pending"]["confirmations"] == []
    assert "berlin-wien" in state["players"][1]["routes"]
