"""A turn ends by itself once its action is complete (``auto_end``, every table game the service
starts), and the player who acted may take it back from their own phone until the next player
acts (``own_undo``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.core.actions import action_from_json
from companion.core.errors import IllegalActionError
from companion.core.tracker import TableTracker
from companion.service import Actor, Service, fold_game
from companion.service.errors import Conflict, Forbidden
from companion.store import EventStore
from tests.service.pure_games import KEEP, MAP, PLAYERS

HOST = Actor.host()
RED, BLUE, GREEN = Actor.player("red"), Actor.player("blue"), Actor.player("green")


def tracker() -> TableTracker:
    t = TableTracker(MAP, [(p["name"], p["color"]) for p in PLAYERS], turn_needs_action=True)
    t.auto_end = True
    for color, tickets in KEEP.items():
        t.apply(action_from_json({"type": "keep_tickets", "player": color, "tickets": tickets}))
    return t


def apply(t: TableTracker, **a: Any) -> None:
    t.apply(action_from_json(a))


def test_each_complete_action_ends_the_turn() -> None:
    t = tracker()
    assert t.current_player.color == "red" and t.ended_by is None  # first keeps end nothing
    apply(t, type="claim", player="red", route="berlin-wien", cards=["green"] * 3)
    assert t.current_player.color == "blue" and t.ended_by == 0 and not t.acted
    apply(t, type="drew_cards", player="blue", count=2)
    assert t.current_player.color == "green" and t.ended_by == 1
    apply(t, type="build_station", player="green", city="roma", cards=["pink"])
    assert t.current_player.color == "red"
    # drawing tickets is the turn's action: the turn ends with it, and the keep answers the deal
    # after, out of turn (a keep is never a turn's action: see tracking.py, "Keeps answer a deal")
    apply(t, type="draw_tickets", player="red")
    assert t.current_player.color == "blue" and t.turn == 4 and t.ended_by == 0
    apply(t, type="keep_tickets", player="red", tickets=["amsterdam-pamplona"])
    assert t.current_player.color == "blue" and t.turn == 4 and "red" not in t.dealt


def test_a_tunnel_ends_the_turn_once_settled() -> None:
    t = tracker()
    apply(t, type="claim", player="red", route="munchen-zurich", cards=["yellow", "yellow"])
    assert t.current_player.color == "red" and t.tunnel is not None  # not settled yet
    apply(t, type="tunnel_reveal", player="red", cards=["yellow", "locomotive", "blue"])
    assert t.current_player.color == "red"  # a surcharge of 2 to pay or withdraw
    apply(t, type="tunnel_pay", player="red", cards=["yellow", "yellow"])
    assert t.current_player.color == "blue" and "munchen-zurich" in t.route_owner
    apply(t, type="claim", player="blue", route="marseille-zurich", cards=["pink", "pink"])
    apply(t, type="tunnel_reveal", player="blue", cards=["pink", "red", "red"])
    apply(t, type="tunnel_withdraw", player="blue")
    assert t.current_player.color == "green" and "marseille-zurich" not in t.route_owner
    apply(t, type="claim", player="green", route="marseille-zurich", cards=["pink", "pink"])
    apply(t, type="tunnel_reveal", player="green", cards=["red", "red", "blue"])  # no surcharge
    assert t.current_player.color == "red" and t.route_owner["marseille-zurich"] == "green"


def test_the_players_own_end_turn_after_it_ended_changes_nothing() -> None:
    t = tracker()
    apply(t, type="claim", player="red", route="berlin-wien")
    before = t.to_json()
    apply(t, type="end_turn", player="red")  # the habit: accepted, nothing happens
    assert t.to_json() == before
    apply(t, type="drew_cards", player="blue", count=2)
    # once the next player has acted (and their turn ended), red's end of turn is no longer
    # "already ended": it is green's turn, so red is refused
    with pytest.raises(IllegalActionError, match="turn"):
        apply(t, type="end_turn", player="red")
    # and the JSON form keeps the flags
    again = TableTracker.from_json(t.to_json(), MAP)
    assert again.auto_end and again.ended_by == 1


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[Service]:
    store = EventStore(tmp_path)
    s = Service(store).start()
    s.act({"type": "new_game", "players": PLAYERS}, HOST)
    for color, tickets in KEEP.items():
        s.act({"type": "keep_tickets", "player": color, "tickets": tickets}, HOST)
    for color in ("red", "blue", "green"):
        s.pair(color)  # a phone for each player
    yield s
    s.stop()
    store.close()


def test_a_player_takes_back_their_own_move_until_the_next_player_acts(svc: Service) -> None:
    state = svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, RED)
    assert state["current"] == "blue" and state["own_undo"]["player"] == "red"
    seq = state["own_undo"]["seq"]
    # not another player's phone, not another step
    with pytest.raises(Conflict) as other:
        svc.act({"type": "undo", "seq": seq}, BLUE)
    assert other.value.code == "rule.own-undo-gone"
    with pytest.raises(Conflict):
        svc.act({"type": "undo", "seq": seq - 1}, RED)
    with pytest.raises(Forbidden):
        svc.act({"type": "undo"}, RED)  # an undo without its step stays the host's
    back = svc.act({"type": "undo", "seq": seq}, RED)
    assert back["current"] == "red" and back["players"][0]["routes"] == []
    assert back["last"]["target"]["action"]["route"] == "berlin-wien"  # what was undone
    # again, and this time blue acts: red's own undo is gone
    state = svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, RED)
    svc.act({"type": "drew_cards", "player": "blue", "count": 2}, BLUE)
    assert svc.state()["own_undo"]["player"] == "blue"
    with pytest.raises(Conflict):
        svc.act({"type": "undo", "seq": state["own_undo"]["seq"]}, RED)


def test_an_explicit_end_turn_is_accepted_and_not_logged(svc: Service) -> None:
    state = svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    n = len(svc.events)
    again = svc.act({"type": "end_turn", "player": "red"}, HOST)
    assert len(svc.events) == n and again["seq"] == state["seq"] and again["current"] == "blue"
    # the referee box's end-turn button pressed out of habit: blue's turn is not ended
    reply = svc.observe({"kind": "button", "name": "end_turn"}, Actor.device("button"))
    assert reply["result"] == "ignored" and svc.state()["current"] == "blue"
    # an empty turn still cannot be ended from a screen
    svc.act({"type": "drew_cards", "player": "blue", "count": 2}, HOST)
    with pytest.raises(Conflict):
        svc.act({"type": "end_turn", "player": "green"}, HOST)
    # the log is the truth: a restart folds the same turn
    assert svc.fold is not None
    assert fold_game(svc.events, svc.map).tracker.to_json() == svc.fold.tracker.to_json()  # type: ignore[union-attr]


def test_two_players_one_cannot_act_twice_in_a_row() -> None:
    t = TableTracker(MAP, [("Aki", "red"), ("Ben", "blue")], turn_needs_action=True)
    t.auto_end = True
    apply(t, type="claim", player="red", route="berlin-wien")
    assert t.current_player.color == "blue"
    # red is blue's next player too: a second claim would end blue's turn unplayed
    with pytest.raises(IllegalActionError, match="blue's turn"):
        apply(t, type="claim", player="red", route="munchen-wien")
    apply(t, type="drew_cards", player="blue", count=2)
    apply(t, type="claim", player="red", route="munchen-wien")
    assert t.route_owner == {"berlin-wien": "red", "munchen-wien": "red"}
