"""The views (public state, ticket progress, missing routes, the history's event list), tested
directly as pure functions of a fold."""

from __future__ import annotations

import json

from companion.service.fold import fold_game
from companion.service.pending import Confirmation, Pending
from companion.service.views import event_list, missing_routes, public_state, ticket_progress
from companion.store import Event
from tests.service.pure_games import KEEP, MAP, claim, end_turn, europe, events


def test_no_game_is_a_state_too() -> None:
    state = public_state(None, seq=12)
    assert state["seq"] == 12 and state["phase"] == "none" and state["players"] == []
    assert state["pending"] == {
        "payment": None,
        "tickets": None,
        "reader_player": None,
        "confirmations": [],
    }


def test_the_public_state_hides_ticket_ids_and_shows_pairings() -> None:
    fold = europe(claim("red", "berlin-wien"))
    state = public_state(fold, Pending(), {"blue": "token"})
    assert state["game"] == "europe" and state["phase"] == "playing"
    assert state["current"] == "red" and state["acted"] is True and state["can_undo"] is True
    red, blue, _ = state["players"]
    assert red["routes"] == ["berlin-wien"] and red["trains_left"] == MAP.trains_per_player - 3
    assert red["tickets_held"] == 2 and not red["paired"] and blue["paired"]
    text = json.dumps(state)
    assert all(t not in text for t in KEEP["red"])  # no ticket id in the public state
    assert state["last"]["action"]["type"] == "claim"


def test_pending_taps_and_questions_are_in_the_state() -> None:
    pending = Pending(payment_player="red", cards=["red", "red"], duplicates=1)
    pending.tickets_player, pending.tickets = "blue", ["paris-wien"]
    q = Confirmation(
        "c1", "claim", "munchen-wien", "blue", "not their turn", claim("blue", "munchen-wien")
    )
    pending.confirmations.append(q)
    pend = public_state(europe(), pending)["pending"]
    assert pend["payment"] == {"player": "red", "cards": ["red", "red"], "duplicates": 1}
    assert pend["tickets"] == {"player": "blue", "count": 1}  # the count, not the ids
    assert pend["confirmations"][0]["route"] == "munchen-wien"
    assert pend["confirmations"][0]["city"] is None


def test_the_final_scores_are_shown_once_finished() -> None:
    state = public_state(europe(claim("red", "berlin-wien"), {"type": "finish"}))
    assert state["phase"] == "finished" and state["current"] is None
    assert state["announcement_code"] == "game.over" and state["winners"]
    assert all(p["final"] is not None for p in state["players"])


def test_missing_routes_are_the_cheapest_free_ones() -> None:
    fold = europe()
    assert missing_routes(fold.tracker, "red", "berlin", "wien") == ["berlin-wien"]
    assert missing_routes(fold.tracker, "red", "wien", "wien") == []
    fold = europe(claim("red", "berlin-wien"))
    assert missing_routes(fold.tracker, "red", "berlin", "wien") == []  # own route: nothing missing
    fold = europe(claim("red", "berlin-wien"), end_turn("red"))
    detour = missing_routes(fold.tracker, "blue", "berlin", "wien")
    assert detour is not None and "berlin-wien" not in detour and len(detour) >= 2


def test_ticket_progress_tells_what_is_missing() -> None:
    fold = europe(claim("red", "berlin-wien"))
    progress = ticket_progress(fold, "red", ["athina-wilno"])
    assert progress["color"] == "red" and progress["pending"] == ["athina-wilno"]
    assert [t["id"] for t in progress["tickets"]] == KEEP["red"]
    paris_wien = progress["tickets"][1]
    assert paris_wien["completed"] is False and paris_wien["reachable"] is True
    assert paris_wien["missing"] and paris_wien["missing_trains"] == sum(
        MAP.routes[r].length for r in paris_wien["missing"]
    )
    assert progress["points_if_ended_now"] < 0  # two open tickets count against


def test_the_event_list_hides_kept_tickets_until_revealed() -> None:
    log = events(claim("red", "berlin-wien"))
    log.append(Event(6, "g1", 6.0, "host", {"type": "undo", "seq": 5}))
    hidden = event_list(log, hide=True)
    assert [e["seq"] for e in hidden] == [1, 2, 3, 4, 5, 6]
    assert hidden[1]["action"]["tickets"] == 2 and "2 tickets" in hidden[1]["text"]
    assert hidden[4]["undone"] is True and hidden[5]["text"] == "undo #5"
    shown = event_list(log, hide=False)
    assert shown[1]["action"]["tickets"] == KEEP["red"]
    assert fold_game(log, MAP).seq == 6
