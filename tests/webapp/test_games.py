"""London, Trans Europa and Trambahn through the HTTP API: new game, actions, refusals (409 with a
sentence), undo, finish/totals, and a restart that replays the log to the same state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.service import Service
from companion.store import EventStore
from companion.webapp import create_app

from .conftest import BEARER, TOKEN

SPEC_PLAYER_FIELDS = {
    "name",
    "color",
    "score",
    "trains_left",
    "stations_left",
    "routes",
    "stations",
    "tickets_held",
}


def post(client: FlaskClient, body: Any) -> Any:
    return client.post("/api/actions", json=body, headers=BEARER)


def ok(client: FlaskClient, body: Any) -> dict[str, Any]:
    r = post(client, body)
    assert r.status_code == 200, r.json
    return r.json  # type: ignore[no-any-return]


def refused(client: FlaskClient, body: Any, status: int = 409) -> str:
    r = post(client, body)
    assert r.status_code == status, r.json
    text: str = r.json["error"]
    assert text[0].isupper() and text.endswith("."), text
    return text


def replayed(tmp_path: Path, client: FlaskClient) -> None:
    """A second service on the same log folds the events to exactly the live state."""
    live = client.get("/api/state").json
    store = EventStore(tmp_path)
    again = Service(store)
    try:
        app = create_app(again, {"HOST_TOKEN": TOKEN})
        assert app.test_client().get("/api/state").json == live
    finally:
        store.close()


def new_game(client: FlaskClient, game: str, players: list[tuple[str, str]], **extra: Any) -> Any:
    body = {
        "type": "new_game",
        "game": game,
        "players": [{"name": n, "color": c} for n, c in players],
        **extra,
    }
    return ok(client, body)


def check_spec_fields(st: dict[str, Any], game: str) -> None:
    assert st["game"] == game and st["variant"] == game and st["mode"] == "table"
    for key in ("game_id", "phase", "current", "players", "seq", "winners", "last", "can_undo"):
        assert key in st
    for p in st["players"]:
        assert set(p) >= SPEC_PLAYER_FIELDS
        assert isinstance(p["tickets_held"], int) and isinstance(p["routes"], list)


# --- choosing the game --------------------------------------------------------------------


def test_new_game_validates_the_game_choice(client: FlaskClient) -> None:
    two = [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}]
    r = post(client, {"type": "new_game", "game": "monopoly", "players": two})
    assert r.status_code == 400 and "unknown game 'monopoly'" in r.json["error"].lower()
    assert "london, transeuropa, trambahn" in r.json["error"]
    r = post(client, {"type": "new_game", "game": 7, "players": two})
    assert r.status_code == 400
    r = post(client, {"type": "new_game", "game": "london", "players": two, "mode": "photo"})
    assert r.status_code == 400 and "table mode only" in r.json["error"]
    r = post(
        client, {"type": "new_game", "game": "london", "players": two, "payment_mode": "maybe"}
    )
    assert r.status_code == 400 and "payment_mode" in r.json["error"]
    r = post(client, {"type": "new_game", "game": "trambahn", "players": [*two, two[0]]})
    assert r.status_code == 409 and r.json["error"] == "Trambahn is for 2 players, not 3."
    r = post(
        client,
        {"type": "new_game", "game": "transeuropa", "players": [{"color": "black"}, two[0]]},
    )
    assert r.status_code == 400 and "black" in r.json["error"]
    r = post(client, {"type": "new_game", "game": "london", "players": [two[0], two[0]]})
    assert r.status_code == 409 and r.json["rule"] == "same-colour"
    assert client.get("/api/state").json["phase"] == "none"  # nothing was started
    # Europe stays the default
    st = ok(client, {"type": "new_game", "players": two})
    assert st["game"] == "europe" and st["variant"] == "europe"


def test_kinds_and_board_facts(client: FlaskClient) -> None:
    kinds = {k["game"]: k for k in client.get("/api/kinds").json["games"]}
    assert list(kinds) == ["europe", "london", "transeuropa", "trambahn"]
    assert (kinds["london"]["min_players"], kinds["london"]["max_players"]) == (2, 4)
    assert (kinds["trambahn"]["min_players"], kinds["trambahn"]["max_players"]) == (2, 2)
    assert (
        kinds["transeuropa"]["max_players"] == 6 and "black" not in kinds["transeuropa"]["colors"]
    )
    london = client.get("/api/map/london").json
    assert len(london["districts"]) == 5 and "big-ben--waterloo" in london["routes"]
    assert london["locations"]["big-ben"]["district"] == 2
    te = client.get("/api/map/transeuropa").json
    assert len(te["cities"]) == 35 and te["start_points"] == 13
    assert client.get("/api/map/trambahn").json["colors"] == ["blue", "brown", "green", "yellow"]
    assert client.get("/api/map/chess").status_code == 404


# --- London ------------------------------------------------------------------------------


def test_london_flow(client: FlaskClient, tmp_path: Path) -> None:
    st = new_game(client, "london", [("Aki", "red"), ("Ben", "blue")])
    check_spec_fields(st, "london")
    assert st["phase"] == "setup" and st["current"] == "red"
    assert [p["trains_left"] for p in st["players"]] == [17, 17]
    assert all(p["stations_left"] == 0 for p in st["players"])
    # a Europe action is malformed here; an unknown London route too
    assert "Unknown Ticket to Ride: London action type" in refused(
        client, {"type": "build_station", "player": "red", "city": "wien"}, 400
    )
    refused(client, {"type": "claim", "player": "red", "route": "paris-wien"}, 400)
    ok(
        client,
        {"type": "keep_tickets", "player": "red", "tickets": ["piccadilly-circus--waterloo"]},
    )
    st = ok(
        client,
        {
            "type": "keep_tickets",
            "player": "blue",
            "tickets": ["covent-garden--hyde-park", "british-museum--piccadilly-circus"],
        },
    )
    assert st["phase"] == "playing" and [p["tickets_held"] for p in st["players"]] == [1, 2]
    assert "covent-garden--hyde-park" not in client.get("/api/state").get_data(as_text=True)
    st = ok(client, {"type": "claim", "player": "red", "route": "big-ben--waterloo"})
    red = st["players"][0]
    assert red["routes"] == ["big-ben--waterloo"] and red["score"] == 1 and red["buses_left"] == 16
    # the claim was the whole turn: it ended by itself (red may take it back until blue acts)
    assert st["current"] == "blue" and st["own_undo"]["player"] == "red"
    text = refused(client, {"type": "claim", "player": "red", "route": "big-ben--trafalgar-square"})
    assert "It is blue's turn" in text
    assert refused(client, {"type": "claim", "player": "blue", "route": "big-ben--waterloo"})
    ok(client, {"type": "end_turn", "player": "red"})  # accepted: nothing to end
    st = ok(client, {"type": "drew_cards", "player": "blue", "count": 2})
    assert st["acted"] is False and st["current"] == "red"
    st = ok(client, {"type": "undo"})
    assert st["current"] == "blue" and st["acted"] is False and st["can_undo"] is True
    ok(client, {"type": "drew_cards", "player": "blue", "count": 2})
    ok(client, {"type": "end_turn", "player": "blue"})
    ok(client, {"type": "claim", "player": "red", "route": "piccadilly-circus--trafalgar-square-1"})
    ok(client, {"type": "end_turn", "player": "red"})
    ok(client, {"type": "claim", "player": "blue", "route": "big-ben--trafalgar-square"})
    # the private tickets: the host (or blue's phone) only
    mine = client.get("/api/players/red/tickets", headers=BEARER).json
    assert mine["game"] == "london" and mine["tickets"][0]["id"] == "piccadilly-circus--waterloo"
    assert mine["tickets"][0]["completed"] is False
    assert client.get("/api/players/red/tickets").status_code == 401
    replayed(tmp_path, client)
    st = ok(client, {"type": "finish"})
    assert st["phase"] == "finished"
    finals = {p["color"]: p["final"] for p in st["players"]}
    assert {d["district"] for d in finals["red"]["districts"]} == {1, 2, 3, 4, 5}
    for f in finals.values():
        assert f["total"] == f["route_points"] + f["ticket_points"] + f["district_points"]
    assert finals["red"]["route_points"] == 1 + 1  # two 1-bus routes
    assert finals["red"]["ticket_points"] == -3
    assert st["winners"] == [c for c, f in finals.items() if f["rank"] == 1]
    assert st["announcement_code"] == "game.over"
    refused(client, {"type": "end_turn", "player": "blue"})
    replayed(tmp_path, client)
    st = ok(client, {"type": "undo"})
    assert st["phase"] == "playing" and st["winners"] == []
    games = client.get("/api/games").json["games"]
    assert games[0]["variant"] == "london" and games[0]["finished"] is None
    events = client.get(f"/api/games/{st['game_id']}/events").json["events"]
    texts = [e["text"] for e in events]
    assert "red claim big-ben--waterloo" in texts and "blue keeps 2 tickets" in texts


def test_london_end_turn_button_and_camera_is_ignored(
    service: Service, client: FlaskClient
) -> None:
    new_game(client, "london", [("Aki", "red"), ("Ben", "blue")])
    ok(
        client,
        {"type": "keep_tickets", "player": "red", "tickets": ["piccadilly-circus--waterloo"]},
    )
    ok(client, {"type": "keep_tickets", "player": "blue", "tickets": ["covent-garden--hyde-park"]})
    res = service.observe({"kind": "claim_seen", "route": "paris-wien", "color": "red"})
    assert res["result"] == "ignored" and "Europe" in res["text"]
    res = service.observe({"kind": "button", "name": "end_turn"})
    assert res["result"] == "applied" and service.state()["current"] == "blue"
    res = service.observe({"kind": "button", "name": "undo"})
    assert res["result"] == "applied" and service.state()["current"] == "red"


def test_a_phone_acts_only_for_its_own_colour(app: Flask, client: FlaskClient) -> None:
    new_game(client, "trambahn", [("Aki", "red"), ("Ben", "blue")])
    r = client.post("/api/players/red/pair", headers=BEARER)
    token = r.json["url"].rsplit("/", 1)[1]
    phone = {"Authorization": f"Bearer {token}"}
    r = client.post(
        "/api/actions", json={"type": "start_line", "player": "red", "color": "blue"}, headers=phone
    )
    assert r.status_code == 200
    r = client.post(
        "/api/actions",
        json={"type": "start_line", "player": "blue", "color": "blue"},
        headers=phone,
    )
    assert r.status_code == 403
    r = client.post(
        "/api/actions", json={"type": "terminal_scoring", "terminal": "blue"}, headers=phone
    )
    assert r.status_code == 403 and "host" in r.json["error"]


# --- Trans Europa ----------------------------------------------------------------------


def position(done: str) -> dict[str, Any]:
    """An end position: ``done``'s five cities joined by track, the other's not."""
    return {
        "players": [
            {"color": "red", "cities": ["london", "paris", "malmo", "minsk", "roma"]},
            {"color": "white", "cities": ["madrid", "berlin", "oslo", "kyiv", "sofia"]},
        ],
        "tracks": [],
    }


def test_transeuropa_flow(client: FlaskClient, tmp_path: Path) -> None:
    st = new_game(client, "transeuropa", [("Aki", "red"), ("Ben", "white")], start_points=10)
    check_spec_fields(st, "transeuropa")
    assert [p["score"] for p in st["players"]] == [10, 10] and st["phase"] == "playing"
    assert st["table"]["round"] == 1 and st["table"]["start_player"] == "red"
    assert st["announcement_code"] == "transeuropa.round"
    refused(client, {"type": "round_penalties", "penalties": {"red": -1, "white": 0}}, 400)
    refused(client, {"type": "round_penalties", "penalties": {"red": "x", "white": 0}}, 400)
    text = refused(client, {"type": "round_penalties", "penalties": {"red": 2}})
    assert "leave out white" in text
    text = refused(client, {"type": "finish"})
    assert "No round" in text
    st = ok(client, {"type": "round_penalties", "penalties": {"red": 0, "white": 4}})
    assert [p["score"] for p in st["players"]] == [10, 6]
    assert st["table"]["start_player"] == "white" and st["table"]["round"] == 2
    assert st["players"][1]["penalties"] == [4]
    # a position where nobody is joined yet is not a round's end
    text = refused(client, {"type": "score_round", "position": position("red")})
    assert "not over" in text
    refused(client, {"type": "score_round", "position": {"players": "?"}}, 400)
    st = ok(client, {"type": "round_penalties", "penalties": {"red": 3, "white": 0}})
    assert [p["score"] for p in st["players"]] == [7, 6]
    st = ok(client, {"type": "undo"})
    assert [p["score"] for p in st["players"]] == [10, 6] and len(st["table"]["rounds"]) == 1
    ok(client, {"type": "round_penalties", "penalties": {"red": 3, "white": 0}})
    replayed(tmp_path, client)
    # into the red area: the game ends by itself
    st = ok(client, {"type": "round_penalties", "penalties": {"red": 0, "white": 6}})
    assert st["phase"] == "finished" and st["winners"] == ["red"]
    assert st["players"][1]["in_red"] is True and st["players"][1]["score"] == 0
    assert [r["scores"] for r in st["table"]["rounds"]][-1] == {"red": 7, "white": 0}
    assert st["players"][0]["final"]["rank"] == 1 and st["players"][1]["final"]["rank"] == 2
    assert [pt["scores"]["white"] for pt in st["series"]] == [10, 6, 6, 0]
    text = refused(client, {"type": "round_penalties", "penalties": {"red": 0, "white": 1}})
    assert "game is over" in text
    games = client.get("/api/games").json["games"]
    assert games[0]["finished"] is not None and games[0]["winners"] == ["red"]
    replayed(tmp_path, client)
    st = ok(client, {"type": "undo"})
    assert st["phase"] == "playing" and st["winners"] == []
    st = ok(client, {"type": "finish"})
    assert st["phase"] == "finished" and st["table"]["ended_early"] is True
    assert st["winners"] == ["red"]


def test_transeuropa_round_scored_from_a_position(client: FlaskClient) -> None:
    from companion.transeuropa import Round, trans_europa

    lat = trans_europa()
    # Join red's cities with the cheapest track the penalty computes, then score the round.
    pos = position("red")
    rnd = Round.from_json(lat, pos)
    build = list(rnd.score().players[0].build)
    expected_white = None
    pos["tracks"] = build
    rnd2 = Round.from_json(lat, pos)
    res = rnd2.score()
    assert res.players[0].complete
    expected_white = res.players[1].penalty
    assert expected_white is not None and expected_white > 0
    new_game(client, "transeuropa", [("Aki", "red"), ("Ben", "white")], start_points=60)
    st = ok(client, {"type": "score_round", "position": pos})
    assert [p["score"] for p in st["players"]] == [60, 60 - expected_white]
    rnd_info = st["table"]["rounds"][0]
    assert rnd_info["source"] == "position" and rnd_info["reason"] == "connected"
    assert rnd_info["complete"] == {"red": True, "white": False}
    bad = dict(pos, players=[dict(pos["players"][0], color="green"), pos["players"][1]])
    assert "green" in refused(client, {"type": "score_round", "position": bad})


# --- Trambahn ----------------------------------------------------------------------------


def test_trambahn_flow(client: FlaskClient, tmp_path: Path) -> None:
    st = new_game(client, "trambahn", [("Aki", "red"), ("Ben", "blue")])
    check_spec_fields(st, "trambahn")
    assert st["table"]["terminal_scorings"] == 0 and st["table"]["terminal_scorings_total"] == 10
    refused(client, {"type": "start_line", "player": "red", "color": "purple"}, 400)
    refused(client, {"type": "stop", "player": "red", "line": "brown-1", "card": 11}, 400)
    ok(client, {"type": "start_line", "player": "red", "color": "brown"})
    ok(client, {"type": "stop", "player": "red", "line": "brown-1", "card": 6})
    text = refused(client, {"type": "stop", "player": "red", "line": "brown-1", "card": 5})
    assert "ascending" in text
    refused(client, {"type": "stop", "player": "red", "line": "green-1", "card": 5})
    refused(client, {"type": "start_line", "player": "green", "color": "brown"})
    ok(client, {"type": "tram", "player": "red", "line": "brown-1", "tram": "horse"})
    text = refused(client, {"type": "tram", "player": "red", "line": "brown-1", "tram": "steam"})
    assert "one per line" in text
    ok(client, {"type": "stop", "player": "red", "line": "brown-1", "card": "C"})
    ok(client, {"type": "stop", "player": "red", "line": "brown-1", "card": 7})
    ok(client, {"type": "start_line", "player": "blue", "color": "green"})
    st = ok(client, {"type": "end_turn", "player": "blue"})  # no tram: the line leaves
    assert st["players"][1]["lines"] == []
    for _ in range(3):
        st = ok(client, {"type": "passenger", "terminal": "brown", "card": 3})
    assert st["table"]["passengers"]["brown"] == 3 and st["players"][0]["score"] == 0
    st = ok(client, {"type": "passenger", "terminal": "brown"})
    # brown-1: stops 6 and 7 -> 1 + 2 points, horse tram x2
    assert st["players"][0]["score"] == 6 and st["players"][1]["score"] == 0
    assert st["table"]["terminal_scorings"] == 1 and st["table"]["passengers"]["brown"] == 0
    st = ok(client, {"type": "undo"})
    assert st["table"]["terminal_scorings"] == 0 and st["players"][0]["score"] == 0
    ok(client, {"type": "passenger", "terminal": "brown"})
    replayed(tmp_path, client)
    for i in range(9):
        st = ok(client, {"type": "terminal_scoring", "terminal": "brown" if i % 2 else "blue"})
    assert st["phase"] == "finished" and st["table"]["terminal_scorings"] == 10
    assert st["players"][0]["score"] == 6 * 5 and st["winners"] == ["red"]
    assert st["players"][0]["final"]["terminal_points"] == 30
    assert [row["totals"]["red"] for row in st["table"]["scorings"]][:3] == [6, 6, 12]
    text = refused(client, {"type": "terminal_scoring", "terminal": "blue"})
    assert "game is over" in text
    replayed(tmp_path, client)
    st = ok(client, {"type": "undo"})
    assert st["phase"] == "playing" and st["table"]["terminal_scorings"] == 9
    st = ok(client, {"type": "finish"})
    assert st["phase"] == "finished" and st["table"]["ended_early"] is True


@pytest.mark.parametrize("game", ["london", "transeuropa", "trambahn"])
def test_redo_and_replace_work_in_every_game(client: FlaskClient, game: str) -> None:
    if game == "london":
        new_game(client, game, [("A", "red"), ("B", "blue")])
        first = ok(
            client,
            {"type": "keep_tickets", "player": "red", "tickets": ["big-ben--tower-of-london"]},
        )
        other = {
            "type": "keep_tickets",
            "player": "red",
            "tickets": ["brick-lane--globe-theatre", "big-ben--tower-of-london"],
        }
    elif game == "transeuropa":
        new_game(client, game, [("A", "red"), ("B", "blue")])
        first = ok(client, {"type": "round_penalties", "penalties": {"red": 1, "blue": 2}})
        other = {"type": "round_penalties", "penalties": {"red": 5, "blue": 0}}
    else:
        new_game(client, game, [("A", "red"), ("B", "blue")])
        first = ok(client, {"type": "start_line", "player": "red", "color": "blue"})
        other = {"type": "start_line", "player": "red", "color": "yellow"}
    seq = first["seq"]
    ok(client, {"type": "undo", "seq": seq})
    again = ok(client, {"type": "redo", "seq": seq})
    assert {k: again[k] for k in ("players", "table")} == {
        k: first[k] for k in ("players", "table")
    }
    fixed = ok(client, {"type": "replace", "seq": seq, "action": other})
    assert fixed["players"] != first["players"] or fixed["table"] != first["table"]
    r = post(client, {"type": "replace", "seq": seq, "action": {"type": "claim", "player": "red"}})
    assert r.status_code == 400


def test_london_final_round_is_announced(service: Service, client: FlaskClient) -> None:
    from companion.london import london_map

    m = london_map()
    new_game(client, "london", [("Aki", "red"), ("Ben", "blue")])
    ok(
        client,
        {"type": "keep_tickets", "player": "red", "tickets": ["piccadilly-circus--waterloo"]},
    )
    ok(client, {"type": "keep_tickets", "player": "blue", "tickets": ["covent-garden--hyde-park"]})
    routes = sorted(m.routes.values(), key=lambda r: (-r.length, r.id))
    st = client.get("/api/state").json
    for _ in range(40):  # each turn: the longest route the current player may still claim
        if st["final_round"]:
            break
        color = st["current"]
        for r in routes:
            res = post(client, {"type": "claim", "player": color, "route": r.id})
            if res.status_code == 200:
                break
            assert res.status_code == 409, res.json
        st = ok(client, {"type": "end_turn", "player": color})
    assert st["final_round"] is True and st["announcement_code"] == "london.final_round"
    params = st["announcement_params"]
    assert params["n"] <= 2 and params["name"] in ("Aki", "Ben")
    assert st["announcement"].startswith(f"Final round: {params['name']}")
    while st["phase"] != "over":  # the last turns: each draws (a turn needs an action)
        ok(client, {"type": "drew_cards", "player": st["current"]})
        st = ok(client, {"type": "end_turn", "player": st["current"]})
    assert st["announcement_code"] == "game.last_turn_played" and st["current"] is None
    assert "game is over" in refused(client, {"type": "drew_cards", "player": "red"})
    st = ok(client, {"type": "finish"})
    assert st["announcement_code"] == "game.over" and st["series"][-1]["scores"] == {
        p["color"]: p["final"]["total"] for p in st["players"]
    }


def test_history_of_another_game_at_any_step(client: FlaskClient) -> None:
    st = new_game(client, "transeuropa", [("Aki", "red"), ("Ben", "blue")])
    first = ok(client, {"type": "round_penalties", "penalties": {"red": 1, "blue": 2}})
    ok(client, {"type": "round_penalties", "penalties": {"red": 3, "blue": 0}})
    gid = st["game_id"]
    then = client.get(f"/api/games/{gid}/state?seq={first['seq']}").json
    assert [p["score"] for p in then["players"]] == [12, 11] and then["game"] == "transeuropa"
    events = client.get(f"/api/games/{gid}/events").json["events"]
    assert [e["text"] for e in events[1:]] == [
        "round penalties: blue -2, red -1",
        "round penalties: blue 0, red -3",
    ]
