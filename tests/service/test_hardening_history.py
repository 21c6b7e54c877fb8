"""History reads: the fold of the effective log (a finish undone later reveals no ticket at
any position), computed once per log position and cached (real waitress on 127.0.0.1)."""

from __future__ import annotations

import json

import pytest

from companion.service.views import event_list
from tests.webapp.conftest import BEARER
from tests.webapp.live import PLAYERS, TICKETS, LiveServer


def act(live: LiveServer, action: dict[str, object]) -> dict[str, object]:
    status, body = live.request("POST", "/api/actions", action, BEARER)
    assert status == 200, body
    assert isinstance(body, dict)
    return body


def test_after_finish_and_undo_no_position_shows_the_tickets(live: LiveServer) -> None:
    act(live, {"type": "new_game", "players": PLAYERS})
    for color, ids in TICKETS.items():
        act(live, {"type": "keep_tickets", "player": color, "tickets": ids})
    finished = act(live, {"type": "finish"})
    finish_seq = int(str(finished["seq"]))
    game = str(finished["game_id"])
    assert finished["phase"] == "finished"
    # while finished, the breakdown is public
    status, at = live.request("GET", f"/api/games/{game}/state?seq={finish_seq}")
    assert status == 200 and "paris-wien" in json.dumps(at)
    act(live, {"type": "undo", "seq": finish_seq})
    for path in (
        "/api/state",
        f"/api/games/{game}",
        f"/api/games/{game}/state?seq={finish_seq}",
        f"/api/games/{game}/state?seq={finish_seq + 1}",
        f"/api/games/{game}/events",
        "/api/games",
    ):
        status, body = live.request("GET", path)
        text = json.dumps(body)
        assert status == 200, path
        for ids in TICKETS.values():
            for t in ids:
                assert t not in text, (path, t)
        assert '"final": {' not in text, path
    status, at = live.request("GET", f"/api/games/{game}/state?seq={finish_seq}")
    assert at["phase"] != "finished" and at["winners"] == []
    # the game goes on, and a finish then shows them again
    again = act(live, {"type": "finish"})
    assert "paris-wien" in json.dumps(again)


def test_history_is_computed_once_per_log_position(live: LiveServer) -> None:
    history = live.service.history
    act(live, {"type": "new_game", "players": PLAYERS})
    for color, ids in TICKETS.items():  # (the tickets first: then a turn)
        act(live, {"type": "keep_tickets", "player": color, "tickets": ids})
    for color in ("red", "blue", "red"):
        act(live, {"type": "drew_cards", "player": color, "count": 2})
        act(live, {"type": "end_turn", "player": color})
    game = str(live.service.state()["game_id"])
    first = int(str(live.service.state()["seq"])) - 5  # the first draw
    paths = [f"/api/games/{game}/events", f"/api/games/{game}/state?seq={first}"]
    before = history.computed
    answers = [live.request("GET", p) for p in paths]
    assert history.computed == before + 2
    for _ in range(5):  # the same positions again: nothing replayed
        assert [live.request("GET", p) for p in paths] == answers
    assert history.computed == before + 2
    # a new step: the log is read again, the earlier state is not
    act(live, {"type": "drew_cards", "player": "blue", "count": 2})
    live.request("GET", paths[1])
    assert history.computed == before + 2
    status, log = live.request("GET", paths[0])
    assert history.computed == before + 3
    # the cached log is the log: the same as replaying the store's events
    events = live.store.events(game)
    assert log["events"] == json.loads(json.dumps(event_list(events, hide=True)))
    # a correction changes earlier positions: replayed again
    one = {"type": "drew_cards", "player": "red", "count": 1}
    act(live, {"type": "replace", "seq": first, "action": one})
    status, _ = live.request("GET", paths[1])
    assert status == 200 and history.computed == before + 4


def test_states_from_the_replay_marks_are_the_fold_of_the_effective_log(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.service.fold import fold_game
    from companion.service.history import Replay, effective_upto
    from companion.service.views import public_state

    monkeypatch.setattr(Replay, "every", 3)  # many marks in a short game
    act(live, {"type": "new_game", "players": PLAYERS})
    for color, ids in TICKETS.items():
        act(live, {"type": "keep_tickets", "player": color, "tickets": ids})
    for color in ("red", "blue", "red", "blue", "red"):
        act(live, {"type": "drew_cards", "player": color, "count": 2})
        act(live, {"type": "end_turn", "player": color})
    draw = int(str(live.service.state()["seq"])) - 7
    act(live, {"type": "replace", "seq": draw, "action": {**dict(live.service.events[-8].action)}})
    act(live, {"type": "drew_cards", "player": "blue", "count": 1})
    undone = act(live, {"type": "undo"})
    act(live, {"type": "redo", "seq": int(str(undone["seq"])) - 1})
    game = str(live.service.state()["game_id"])
    events = live.store.events(game)
    # positions in a shuffled order (seeded): marks made out of order serve later ones too
    import random

    positions = [e.seq for e in events]
    random.Random(7).shuffle(positions)
    for at in positions:
        status, got = live.request("GET", f"/api/games/{game}/state?seq={at}")
        assert status == 200
        want = public_state(
            fold_game(effective_upto(events, at), live.service.map),
            None,
            live.store.tokens_of(game),
            seq=at,
        )
        want = json.loads(json.dumps(want))
        # (its "last" is the log's line at that position, not a correction made after it)
        assert got.pop("last")["seq"] <= at
        want.pop("last")
        assert got == want, at


def test_a_long_log_goes_gzipped_and_an_unchanged_one_is_a_304(live: LiveServer) -> None:
    import gzip
    import http.client

    act(live, {"type": "new_game", "players": PLAYERS})
    for color, ids in TICKETS.items():
        act(live, {"type": "keep_tickets", "player": color, "tickets": ids})
    for i in range(60):  # a log of some 20 kB
        color = ("red", "blue")[i % 2]
        act(live, {"type": "drew_cards", "player": color, "count": 2})
        act(live, {"type": "end_turn", "player": color})
    game = str(live.service.state()["game_id"])
    plain = live.request("GET", f"/api/games/{game}/events")[1]
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=10)
    try:
        conn.request("GET", f"/api/games/{game}/events", headers={"Accept-Encoding": "gzip"})
        r = conn.getresponse()
        body = r.read()
        assert r.status == 200 and r.getheader("Content-Encoding") == "gzip"
        assert json.loads(gzip.decompress(body)) == plain
        assert len(body) * 4 < len(json.dumps(plain))
        tag = r.getheader("ETag")
        assert tag
        conn.request("GET", f"/api/games/{game}/events", headers={"If-None-Match": tag})
        r = conn.getresponse()
        assert r.status == 304 and r.read() == b""
        act(live, {"type": "drew_cards", "player": "red", "count": 2})  # the log changed
        conn.request("GET", f"/api/games/{game}/events", headers={"If-None-Match": tag})
        r = conn.getresponse()
        assert r.status == 200 and len(json.loads(r.read())["events"]) == len(plain["events"]) + 1
    finally:
        conn.close()
