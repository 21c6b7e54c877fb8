"""The table's lifecycle through the HTTP API, as the rulebook and a real table play it: setup
(first tickets, out of turn), a turn needs an action, stale views and retries, replacing a
game, refusals that name nobody's holdings, and lenient payment problems until the host
accepts them."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.service.pure_games import KEEP, PLAYERS
from tests.webapp.conftest import BEARER


def act(client: FlaskClient, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    return client.post("/api/actions", json=body, headers=BEARER if headers is None else headers)


def ok(client: FlaskClient, body: dict[str, Any], **kw: Any) -> dict[str, Any]:
    r = act(client, body, **kw)
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def refused(client: FlaskClient, body: dict[str, Any], status: int = 409, **kw: Any) -> Any:
    r = act(client, body, **kw)
    assert r.status_code == status, r.get_json()
    out = r.get_json()
    assert set(out) >= {"error", "code", "params"}
    return out


def new_game(client: FlaskClient, players: list[dict[str, str]] = PLAYERS, **extra: Any) -> Any:
    # a table whose turns end with end_turn (tests/service/test_auto_end.py: turns that end by
    # themselves)
    return ok(client, {"type": "new_game", "players": players, "auto_end": False, **extra})


def keep(client: FlaskClient, color: str, **extra: Any) -> dict[str, Any]:
    return ok(client, {"type": "keep_tickets", "player": color, "tickets": KEEP[color], **extra})


def state(client: FlaskClient) -> dict[str, Any]:
    return client.get("/api/state").get_json()  # type: ignore[no-any-return]


def phone(app: Flask, client: FlaskClient, color: str) -> tuple[FlaskClient, dict[str, str]]:
    """A paired phone: its client (with the cookie) and the headers its page sends."""
    r = client.post(f"/api/players/{color}/pair", headers=BEARER)
    token = r.get_json()["url"].rsplit("/", 1)[1]
    c = app.test_client()
    assert c.get(f"/pair/{token}").status_code == 303
    return c, {"X-CSRF-Token": c.get("/api/session").get_json()["csrf_token"]}


# --- setup ----------------------------------------------------------------------------------


def test_a_players_first_turn_action_waits_until_that_player_has_kept_first_tickets(
    client: FlaskClient,
) -> None:
    new_game(client)
    body = refused(client, {"type": "drew_cards", "player": "red"})
    assert (body["rule"], body["code"], body["params"]) == (
        "first-tickets",
        "rule.first-tickets",
        {"color": "red"},
    )
    body = refused(client, {"type": "end_turn", "player": "red"})
    assert body["rule"] == "first-tickets"
    assert state(client)["current"] == "red"
    keep(client, "red")
    assert ok(client, {"type": "drew_cards", "player": "red"})["acted"] is True


def test_first_tickets_are_kept_out_of_turn_even_after_others_have_played(
    client: FlaskClient,
) -> None:
    new_game(client)
    keep(client, "red")
    ok(client, {"type": "drew_cards", "player": "red"})
    ok(client, {"type": "end_turn", "player": "red"})
    keep(client, "green")  # out of turn, while blue has the turn and has not kept yet
    assert refused(client, {"type": "drew_cards", "player": "blue"})["rule"] == "first-tickets"
    keep(client, "blue")  # blue's first keep, judged by the setup rule after others played
    st = ok(client, {"type": "drew_cards", "player": "blue"})
    assert st["current"] == "blue" and [p["tickets_held"] for p in st["players"]] == [2, 2, 2]


def test_the_setup_rule_of_europe_keeps_at_least_two_of_the_first_deal(
    client: FlaskClient,
) -> None:
    new_game(client)
    ok(client, {"type": "keep_tickets", "player": "red", "tickets": KEEP["red"]})
    ok(client, {"type": "drew_cards", "player": "red"})
    ok(client, {"type": "end_turn", "player": "red"})
    body = refused(
        client, {"type": "keep_tickets", "player": "blue", "tickets": ["budapest-sofia"]}
    )
    assert body["rule"] == "keep-minimum"


def test_a_game_started_without_ticket_tracking_does_not_wait_for_tickets(
    client: FlaskClient,
) -> None:
    st = new_game(client, tickets_tracked=False)
    assert st["phase"] == "setup"
    ok(client, {"type": "drew_cards", "player": "red"})
    st = ok(client, {"type": "end_turn", "player": "red"})
    assert st["current"] == "blue"
    assert (
        act(client, {"type": "new_game", "players": PLAYERS, "tickets_tracked": "no"}).status_code
        == 400
    )


def test_london_first_turn_action_also_waits_for_its_first_keep(client: FlaskClient) -> None:
    two = [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}]
    ok(client, {"type": "new_game", "game": "london", "players": two})
    assert refused(client, {"type": "drew_cards", "player": "red"})["rule"] == "first-tickets"


# --- a turn needs an action -----------------------------------------------------------------


def test_a_turn_needs_an_action_so_a_double_tap_on_end_turn_ends_one_turn(
    client: FlaskClient,
) -> None:
    new_game(client)
    for color in ("red", "blue", "green"):
        keep(client, color)
    ok(client, {"type": "drew_cards", "player": "red"})
    assert ok(client, {"type": "end_turn", "player": "red"})["current"] == "blue"
    body = refused(client, {"type": "end_turn", "player": "blue"})  # the second tap
    assert (body["rule"], body["params"]) == ("turn-needs-action", {"color": "blue"})
    assert state(client)["current"] == "blue"


# --- stale views and retries ----------------------------------------------------------------


def started(client: FlaskClient) -> int:
    new_game(client)
    for color in ("red", "blue", "green"):
        keep(client, color)
    return int(state(client)["seq"])


def test_an_action_sent_from_an_old_view_is_refused_when_the_game_moved_on_for_that_player(
    client: FlaskClient,
) -> None:
    seen = started(client)
    ok(client, {"type": "drew_cards", "player": "red"})  # the host enters red's draw
    claim = {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}
    body = refused(client, {**claim, "after": seen})
    assert (body["code"], body["rule"]) == ("action.stale", "stale")
    assert body["params"]["after"] == seen
    assert state(client)["players"][0]["routes"] == []


def test_an_old_view_is_stale_after_a_turn_change_but_not_after_another_players_keep(
    client: FlaskClient,
) -> None:
    new_game(client)
    keep(client, "red")
    seen = int(state(client)["seq"])
    keep(client, "blue")  # another player's first keep, out of turn: nothing for red
    ok(client, {"type": "drew_cards", "player": "red", "after": seen})
    seen = int(state(client)["seq"])
    ok(client, {"type": "end_turn", "player": "red"})  # a turn change
    keep(client, "green")
    body = refused(client, {"type": "drew_cards", "player": "blue", "after": seen})
    assert body["code"] == "action.stale"
    ok(client, {"type": "drew_cards", "player": "blue", "after": int(state(client)["seq"])})


def test_a_retried_request_never_applies_twice(client: FlaskClient) -> None:
    seen = started(client)
    claim = {
        "type": "claim",
        "player": "red",
        "route": "berlin-wien",
        "cards": ["green"] * 3,
        "after": seen,
    }
    first = ok(client, claim)
    assert act(client, claim).status_code == 409  # the reply was lost: the phone sends it again
    end = {"type": "end_turn", "player": "red", "after": first["seq"]}
    assert ok(client, end)["current"] == "blue"
    assert act(client, end).status_code == 409
    st = state(client)
    assert st["current"] == "blue" and st["players"][0]["trains_left"] == 45 - 3


def test_undo_names_what_it_undoes_and_a_retried_undo_undoes_one_step(
    client: FlaskClient,
) -> None:
    seen = started(client)
    claim = {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}
    done = ok(client, {**claim, "after": seen})
    st = ok(client, {"type": "undo", "after": done["seq"]})
    assert st["last"]["type"] == "undo" and st["last"]["action"]["seq"] == done["seq"]
    assert "berlin-wien" in st["last"]["target"]["text"]
    assert st["last"]["target"]["seq"] == done["seq"]
    again = refused(client, {"type": "undo", "after": done["seq"]})
    assert again["code"] == "action.stale"
    events = client.get(f"/api/games/{st['game_id']}/events", headers=BEARER).get_json()["events"]
    assert [e["seq"] for e in events if e["undone"]] == [done["seq"]]  # the keeps stay
    (claimed,) = [e for e in events if e["seq"] == done["seq"]]
    assert st["last"]["target"]["move"] == claimed["move"] == 4  # after 3 keeps: the 4th move


# --- replacing a game -----------------------------------------------------------------------


def test_new_game_while_a_game_is_unfinished_is_refused_unless_it_says_replace(
    app: Flask, client: FlaskClient
) -> None:
    started(client)
    old = state(client)["game_id"]
    red, red_auth = phone(app, client, "red")
    blue, _ = phone(app, client, "blue")
    body = refused(client, {"type": "new_game", "players": PLAYERS})
    assert (body["code"], body["rule"]) == ("lifecycle.game_running", "game-running")
    assert body["params"]["game_id"] == old and body["params"]["names"] == "Aki, Ben, Cy"
    assert state(client)["game_id"] == old
    two = [{"name": "Aki", "color": "red"}, {"name": "Dee", "color": "yellow"}]
    st = ok(client, {"type": "new_game", "players": two, "replace": True})
    assert st["game_id"] != old
    games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    assert games[old]["phase"] == "abandoned" and games[st["game_id"]]["phase"] == "setup"
    # red stays red: its phone's pairing survives; blue is not in the new game
    assert [p["paired"] for p in st["players"]] == [True, False]
    mine = {"type": "keep_tickets", "player": "red", "tickets": KEEP["red"]}
    assert act(red, mine, headers=red_auth).status_code == 200
    assert red.get("/api/players/red/tickets").status_code == 200
    assert blue.get("/api/players/blue/tickets").status_code in (403, 404)
    events = client.get(f"/api/games/{st['game_id']}/events", headers=BEARER).get_json()["events"]
    assert [e["action"]["type"] for e in events] == ["new_game", "keep_tickets"]
    # move numbers start at 1 in each game (the log's seq goes on over all games)
    assert [e["move"] for e in events] == [0, 1]
    first = client.get(f"/api/games/{old}/events", headers=BEARER).get_json()["events"]
    assert [e["move"] for e in first] == list(range(len(first)))
    assert events[1]["seq"] > first[-1]["seq"]


def test_a_finished_game_is_followed_by_a_new_one_without_asking(client: FlaskClient) -> None:
    started(client)
    ok(client, {"type": "finish"})
    new_game(client)


# --- refusals name nobody's holdings ----------------------------------------------------------


# --- lenient payment problems ---------------------------------------------------------------


def test_a_wrong_payment_accepted_in_lenient_mode_stays_in_the_log_until_the_host_accepts_it(
    app: Flask, client: FlaskClient
) -> None:
    started(client)
    wrong = {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["red"] * 3}
    st = ok(client, wrong)
    assert st["players"][0]["routes"] == ["berlin-wien"] and st["warnings"]
    events = client.get(f"/api/games/{st['game_id']}/events", headers=BEARER).get_json()["events"]
    (problem,) = events[-1]["action"]["problems"]
    assert problem["place"] == "berlin-wien" and problem["player"] == "red"
    assert problem["code"].startswith("rule.") and problem["accepted"] is False
    red, red_auth = phone(app, client, "red")
    accept = {"type": "accept_problem", "problem": problem["id"]}
    assert act(red, accept, headers=red_auth).status_code == 403  # the host's decision
    (marked,) = events[-1]["problems"]  # the history marks the claim ...
    assert marked["accepted"] is False and marked["corrected"] is False
    assert [p["place"] for p in st["problems"]] == ["berlin-wien"]  # ... and so does the state
    st = ok(client, accept)
    assert st["last"]["type"] == "accept_problem" and st["problems"] == []
    events = client.get(f"/api/games/{st['game_id']}/events", headers=BEARER).get_json()["events"]
    claimed = [e for e in events if e["action"]["type"] == "claim"]
    assert claimed[0]["problems"][0]["accepted"] is True  # ... until the host accepts it
    body = refused(client, accept)  # accepted already: nothing open to accept
    assert body["rule"] == "no-payment-problem"
    assert refused(client, {"type": "accept_problem", "problem": "x"}, 400)


def test_london_old_views_are_stale_after_a_turn_change_too(client: FlaskClient) -> None:
    two = [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}]
    ok(client, {"type": "new_game", "game": "london", "players": two})
    ok(
        client,
        {"type": "keep_tickets", "player": "red", "tickets": ["piccadilly-circus--waterloo"]},
    )
    ok(client, {"type": "keep_tickets", "player": "blue", "tickets": ["covent-garden--hyde-park"]})
    seen = int(state(client)["seq"])
    ok(client, {"type": "drew_cards", "player": "red", "after": seen})
    ok(client, {"type": "end_turn", "player": "red"})
    body = refused(client, {"type": "drew_cards", "player": "blue", "after": seen})
    assert body["code"] == "action.stale"
    assert refused(client, {"type": "end_turn", "player": "blue"})["rule"] == "turn-needs-action"


def test_a_wrong_payment_the_host_corrects_is_no_longer_marked(client: FlaskClient) -> None:
    started(client)
    st = ok(
        client, {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["red"] * 3}
    )
    claim_seq = st["seq"]
    right = {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}
    st = ok(client, {"type": "replace", "seq": claim_seq, "action": right})
    assert st["problems"] == []
    events = client.get(f"/api/games/{st['game_id']}/events", headers=BEARER).get_json()["events"]
    (claimed,) = [e for e in events if e["seq"] == claim_seq]
    assert claimed["problems"][0]["corrected"] is True


def test_a_payment_problem_the_host_accepted_stays_accepted_when_an_earlier_claim_is_corrected(
    client: FlaskClient,
) -> None:
    """Correcting an earlier wrong payment renumbers the tracker's problems: the host's
    acceptance of a later one follows that problem, not its old number."""
    started(client)
    red = ok(
        client, {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["red"] * 3}
    )
    ok(client, {"type": "end_turn", "player": "red"})
    st = ok(
        client, {"type": "claim", "player": "blue", "route": "brest-paris", "cards": ["red"] * 3}
    )
    blue_problem = next(p for p in st["problems"] if p["player"] == "blue")
    assert blue_problem["id"] == 1 and len(st["problems"]) == 2
    ok(client, {"type": "accept_problem", "problem": blue_problem["id"]})
    fixed = {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}
    st = ok(client, {"type": "replace", "seq": red["seq"], "action": fixed})
    assert st["problems"] == []  # red's was corrected, blue's stays accepted
    events = client.get(f"/api/games/{st['game_id']}/events", headers=BEARER).get_json()["events"]
    marks = {
        e["action"]["player"]: e["problems"][0]
        for e in events
        if e["action"]["type"] == "claim" and e.get("problems")
    }
    assert marks["blue"]["accepted"] is True and marks["blue"]["corrected"] is False
    assert marks["red"]["accepted"] is False and marks["red"]["corrected"] is True
