"""A claim the camera reports after its player pressed "end turn" (before the camera's steady
frames and reads), and the refusals the camera's watcher is told about (serve's wiring)."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.commands.devices import forget_refused, watch_refusals
from companion.service import Actor, Service, fold_game
from companion.store import EventStore
from tests.service.pure_games import KEEP, PLAYERS

HOST = Actor.host()
BUTTON = Actor.device("button")
CAMERA = Actor.device("camera")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EventStore]:
    s = EventStore(tmp_path)
    yield s
    s.close()


@pytest.fixture
def svc(store: EventStore) -> Iterator[Service]:
    s = Service(store).start()
    # the referee box's table: its end-turn button ends each turn (no auto_end)
    s.act({"type": "new_game", "players": PLAYERS, "auto_end": False}, HOST)
    for color, tickets in KEEP.items():
        s.act({"type": "keep_tickets", "player": color, "tickets": tickets}, HOST)
    yield s
    s.stop()


def seen(s: Service, route: str, color: str) -> dict[str, Any]:
    return s.observe({"kind": "claim_seen", "route": route, "color": color}, CAMERA)


def end_turn(s: Service) -> None:
    assert s.observe({"kind": "button", "name": "end_turn"}, BUTTON)["result"] == "applied"


def tracker_json(s: Service) -> dict[str, Any]:
    assert s.fold is not None
    return s.fold.tracker.to_json()  # type: ignore[union-attr]


def test_a_claim_seen_after_an_early_end_turn_goes_into_that_turn(
    svc: Service, store: EventStore
) -> None:
    notices: list[dict[str, Any]] = []
    svc.listeners.append(lambda k, d: notices.append(d) if k == "notice" else None)
    end_turn(svc)  # red presses the button before the camera has read the trains
    assert svc.state()["current"] == "blue"
    reply = seen(svc, "berlin-wien", "red")
    assert reply["result"] == "applied", reply
    state = svc.state()
    assert state["current"] == "blue"  # blue's turn goes on
    assert svc.fold is not None and svc.fold.tracker.route_owner == {"berlin-wien": "red"}  # type: ignore[union-attr]
    assert state["pending"]["confirmations"] == []
    assert [n["code"] for n in notices] == ["camera.late_claim"]
    assert notices[0]["params"] == {"color": "red", "route": "berlin-wien"}
    # the log is the truth: replaying it gives the same state, and a restart too
    assert fold_game(svc.events, svc.map).tracker.to_json() == tracker_json(svc)  # type: ignore[union-attr]
    last = [e.action["type"] for e in store.events(svc.fold.game_id)[-3:]]
    assert last == ["end_turn", "replace", "end_turn"]
    svc.stop()
    again = Service(store).start()
    try:
        assert tracker_json(again) == tracker_json(svc)
        assert again.state()["current"] == "blue"
        # blue plays on as usual
        again.act({"type": "claim", "player": "blue", "route": "brest-paris"}, HOST)
        assert again.state()["current"] == "blue"
    finally:
        again.stop()


def test_the_cards_tapped_before_the_early_end_turn_pay_for_the_late_claim(
    svc: Service,
) -> None:
    svc.act({"type": "set_payment_mode", "payment_mode": "strict"}, HOST)
    for card in ("green", "green", "locomotive"):
        svc.observe({"kind": "card_tapped", "card": card}, Actor.device("reader"))
    end_turn(svc)
    assert svc.state()["pending"]["payment"] is None  # not blue's payment
    assert seen(svc, "berlin-wien", "red")["result"] == "applied"
    replace = svc.events[-2].action
    assert replace["type"] == "replace"
    assert replace["action"]["cards"] == ["green", "green", "locomotive"]
    red = svc.fold.tracker.player("red")  # type: ignore[union-attr]
    assert red.routes == ["berlin-wien"]
    assert svc.state()["current"] == "blue"


def test_a_late_claim_after_a_turn_that_had_its_action_is_still_a_question(
    svc: Service,
) -> None:
    svc.act({"type": "claim", "player": "red", "route": "brest-paris"}, HOST)
    end_turn(svc)
    seq = svc.seq
    reply = seen(svc, "berlin-wien", "red")
    assert reply["result"] == "pending"
    assert "blue's turn" in reply["text"]
    assert svc.seq == seq  # nothing logged
    assert svc.fold is not None and "berlin-wien" not in svc.fold.tracker.route_owner  # type: ignore[union-attr]
    assert svc.state()["current"] == "blue"
    assert [c["route"] for c in svc.state()["pending"]["confirmations"]] == ["berlin-wien"]


def test_no_late_claim_once_the_next_player_has_acted(svc: Service) -> None:
    end_turn(svc)
    svc.act({"type": "drew_cards", "player": "blue"}, HOST)
    reply = seen(svc, "berlin-wien", "red")
    assert reply["result"] in ("pending", "vetoed")
    assert svc.fold is not None and "berlin-wien" not in svc.fold.tracker.route_owner  # type: ignore[union-attr]
    assert svc.state()["current"] == "blue"


def test_a_route_taken_meanwhile_is_still_vetoed(svc: Service) -> None:
    end_turn(svc)
    svc.act({"type": "claim", "player": "blue", "route": "berlin-wien"}, HOST)
    assert seen(svc, "berlin-wien", "red")["result"] == "vetoed"


# --- serve: the watcher hears what the game refused -------------------------------------------


class FakeWatcher:
    def __init__(self) -> None:
        self.record = {"berlin-wien": "yellow", "brest-paris": "red"}
        self.forgotten: list[tuple[str, str, str, str | None]] = []

    def forget(self, kind: str, key: str, color: str, owner: str | None = None) -> bool:
        if self.record.get(key) != color:
            return False
        self.forgotten.append((kind, key, color, owner))
        del self.record[key]
        return True


def test_vetoed_and_rejected_sightings_are_forgotten_by_the_watcher(svc: Service) -> None:
    refused = watch_refusals(svc)
    watcher = FakeWatcher()
    # a false sighting of a colour nobody plays: vetoed by the service
    assert seen(svc, "berlin-wien", "yellow")["result"] == "vetoed"
    # a question (not blue's turn) the host answers no
    assert seen(svc, "brest-paris", "blue")["result"] == "pending"
    conf = svc.state()["pending"]["confirmations"][0]
    svc.confirm(conf["id"], False, HOST)
    assert forget_refused(watcher, refused) == 1  # brest-paris was recorded red, not blue
    assert watcher.forgotten == [("route", "berlin-wien", "yellow", None)]
    with pytest.raises(queue.Empty):
        refused.get_nowait()
    # the real claim later is applied
    assert seen(svc, "berlin-wien", "red")["result"] == "applied"


def test_a_veto_for_a_taken_route_hands_the_owner_to_the_watcher(svc: Service) -> None:
    refused = watch_refusals(svc)
    svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    svc.act({"type": "end_turn", "player": "red"}, HOST)
    assert seen(svc, "berlin-wien", "blue")["result"] == "vetoed"
    assert refused.get_nowait() == ("route", "berlin-wien", "blue", "red")
