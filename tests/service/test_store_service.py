"""The event log, the fold, corrections, reconcile and the subscriber queue."""

from __future__ import annotations

import queue
import sqlite3
from pathlib import Path

import pytest

from companion.service import (
    Actor,
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    Pending,
    Service,
    fold_game,
    missing_routes,
    public_state,
    reconcile,
)
from companion.store import EventStore
from tests.service.pure_games import keep_first_tickets

HOST = Actor.host()
PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


def new_game(s: Service, **extra: object) -> dict:
    # a table whose turns end with end_turn (test_auto_end.py: the turns that end by themselves)
    return s.act({"type": "new_game", "players": PLAYERS, "auto_end": False, **extra}, HOST)


def setup_tickets(s: Service) -> None:
    keep_first_tickets(s, HOST)


def red_claims_berlin_wien(s: Service) -> dict:
    """A new game, its first tickets kept, whose first move is red's claim of berlin-wien with
    three green cards: the state after it."""
    new_game(s)
    setup_tickets(s)
    return s.act(
        {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}, HOST
    )


def test_store_pragmas_and_mode(tmp_path: Path) -> None:
    store = EventStore(tmp_path)
    assert store.pragma("journal_mode") == "wal"
    assert store.pragma("synchronous") == 2  # FULL
    assert (tmp_path / "companion.sqlite3").stat().st_mode & 0o777 == 0o600
    store.close()


def test_events_are_committed_before_act_returns(svc: Service, tmp_path: Path) -> None:
    new_game(svc)
    # Another connection sees the event at once: it is committed, not buffered.
    db = sqlite3.connect(tmp_path / "companion.sqlite3")
    rows = db.execute("SELECT seq, actor, action FROM events").fetchall()
    db.close()
    assert len(rows) == 1 and rows[0][1] == "host" and '"new_game"' in rows[0][2]


def test_fold_of_the_log_equals_the_live_state(svc: Service, tmp_path: Path) -> None:
    red_claims_berlin_wien(svc)
    svc.act({"type": "end_turn", "player": "red"}, HOST)
    svc.act({"type": "build_station", "player": "blue", "city": "wien", "cards": ["green"]}, HOST)
    live = svc.state_json()
    with EventStore(tmp_path) as store:
        assert Service(store).state_json() == live
    folded = fold_game(svc.store.events(svc.state()["game_id"]), svc.map)
    assert public_state(folded, None, {}, seq=folded.seq)["players"] == svc.state()["players"]


def test_public_state_has_the_spec_fields_and_no_ticket_ids(svc: Service) -> None:
    new_game(svc)
    setup_tickets(svc)
    st = svc.state()
    assert st["phase"] == "playing" and st["current"] == "red" and st["game_id"]
    p = st["players"][0]
    for key in ("name", "color", "score", "trains_left", "stations_left", "routes", "stations"):
        assert key in p
    assert p["tickets_held"] == 2
    assert "paris-wien" not in svc.state_json()


def test_illegal_actions_change_nothing(svc: Service) -> None:
    red_claims_berlin_wien(svc)
    before = svc.state_json()
    with pytest.raises(Conflict) as err:
        svc.act({"type": "claim", "player": "red", "route": "munchen-wien"}, HOST)
    assert err.value.rule == "one-action-per-turn"
    with pytest.raises(Conflict) as err:
        svc.act({"type": "claim", "player": "blue", "route": "berlin-wien"}, HOST)
    assert err.value.rule == "route-taken" and err.value.message.endswith(".")
    with pytest.raises(Conflict) as err:
        svc.act({"type": "build_station", "player": "blue", "city": "atlantis"}, HOST)
    assert err.value.rule == "unknown-city"
    with pytest.raises(BadRequest):
        svc.act({"type": "claim", "player": "purple", "route": "berlin-wien"}, HOST)
    with pytest.raises(BadRequest):
        svc.act({"type": "fly"}, HOST)
    assert svc.state_json() == before
    assert len(svc.store.events(svc.state()["game_id"])) == 4


def test_payment_modes_per_game(svc: Service) -> None:
    new_game(svc, payment_mode="strict")
    setup_tickets(svc)
    with pytest.raises(Conflict) as err:
        svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    assert err.value.rule == "no-cards-given"
    svc.act({"type": "set_payment_mode", "payment_mode": "off"}, HOST)
    st = svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    assert st["payment_mode"] == "off" and "berlin-wien" in st["players"][0]["routes"]


def test_undo_redo_replace_are_events(svc: Service) -> None:
    st = red_claims_berlin_wien(svc)
    claim_seq = st["seq"]
    st = svc.act({"type": "undo"}, HOST)
    assert st["players"][0]["routes"] == [] and st["last"]["type"] == "undo"
    st = svc.act({"type": "redo", "seq": claim_seq}, HOST)
    assert st["players"][0]["routes"] == ["berlin-wien"]
    st = svc.act(
        {
            "type": "replace",
            "seq": claim_seq,
            "action": {
                "type": "claim",
                "player": "red",
                "route": "pamplona-paris-1",
                "cards": ["blue"] * 4,
            },
        },
        HOST,
    )
    assert st["players"][0]["routes"] == ["pamplona-paris-1"]
    kinds = [e.action["type"] for e in svc.store.events(st["game_id"])]
    assert kinds[-3:] == ["undo", "redo", "replace"]
    with pytest.raises(NotFound):
        svc.act({"type": "undo", "seq": 9999}, HOST)


def test_a_correction_that_would_make_a_later_step_illegal_is_refused(svc: Service) -> None:
    st = red_claims_berlin_wien(svc)
    claim_seq = st["seq"]
    svc.act({"type": "end_turn", "player": "red"}, HOST)
    svc.act(
        {"type": "claim", "player": "blue", "route": "munchen-wien", "cards": ["orange"] * 3},
        HOST,
    )
    # Correcting red's claim to munchen-wien would make blue's later claim of it illegal.
    wrong = {"type": "claim", "player": "red", "route": "munchen-wien", "cards": ["orange"] * 3}
    with pytest.raises(Conflict) as err:
        svc.act({"type": "replace", "seq": claim_seq, "action": wrong}, HOST)
    assert "illegal" in err.value.message and err.value.rule == "route-taken"
    assert svc.state()["players"][0]["routes"] == ["berlin-wien"]
    assert svc.state()["players"][1]["routes"] == ["munchen-wien"]


def test_finish_gives_breakdown_and_can_be_undone(svc: Service) -> None:
    red_claims_berlin_wien(svc)
    st = svc.act({"type": "finish"}, HOST)
    assert st["phase"] == "finished" and st["winners"]
    final = st["players"][0]["final"]
    assert {t["id"] for t in final["tickets"]} == {"brest-marseille", "paris-wien"}
    assert final["longest_trail"] == ["berlin-wien"]
    with pytest.raises(Conflict):
        svc.act({"type": "end_turn", "player": "red"}, HOST)
    st = svc.act({"type": "undo"}, HOST)
    assert st["phase"] == "playing" and st["players"][0]["final"] is None
    assert svc.store.game(st["game_id"]).finished is None  # type: ignore[union-attr]


def test_players_act_only_for_themselves(svc: Service) -> None:
    new_game(svc)
    svc.pair("red")
    with pytest.raises(Forbidden):
        svc.act(
            {"type": "keep_tickets", "player": "blue", "tickets": ["paris-wien"]},
            Actor.player("red"),
        )
    with pytest.raises(Forbidden):
        svc.act({"type": "finish"}, Actor.player("red"))
    st = svc.act(
        {"type": "keep_tickets", "player": "red", "tickets": ["paris-wien", "brest-marseille"]},
        Actor.player("red"),
    )
    assert st["players"][0]["tickets_held"] == 2 and st["players"][0]["paired"]


def test_reconcile_camera_claims(svc: Service) -> None:
    new_game(svc)
    setup_tickets(svc)
    fold = svc.fold
    assert fold is not None
    ok = reconcile(fold, Pending(), {"kind": "claim_seen", "route": "berlin-wien", "color": "red"})
    assert ok.kind == "apply" and ok.action == {
        "type": "claim",
        "player": "red",
        "route": "berlin-wien",
    }
    ask = reconcile(
        fold, Pending(), {"kind": "claim_seen", "route": "berlin-wien", "color": "blue"}
    )
    assert ask.kind == "confirm" and "turn" in ask.reason
    svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    veto = reconcile(
        svc.fold, Pending(), {"kind": "claim_seen", "route": "berlin-wien", "color": "blue"}
    )
    assert veto.kind == "veto" and "belongs to red" in veto.reason
    unknown = reconcile(svc.fold, Pending(), {"kind": "claim_seen", "route": "x-y", "color": "red"})
    assert unknown.kind == "veto"


def test_taps_become_the_payment_and_duplicates_are_flagged(svc: Service) -> None:
    new_game(svc, payment_mode="strict")
    setup_tickets(svc)
    for uid in ("a1", "a2", "a2", "a3"):
        svc.observe({"kind": "card_tapped", "card": "green", "uid": uid})
    pend = svc.state()["pending"]["payment"]
    assert pend == {"player": "red", "cards": ["green"] * 3, "duplicates": 1}
    out = svc.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "red"})
    assert out["result"] == "applied"
    st = svc.state()
    assert st["players"][0]["routes"] == ["berlin-wien"] and st["pending"]["payment"] is None
    last = svc.store.events(st["game_id"])[-1]
    assert last.action["cards"] == ["green", "green", "green"] and last.actor == "camera"


def test_camera_question_then_confirmation(svc: Service) -> None:
    new_game(svc)
    setup_tickets(svc)
    out = svc.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue"})
    assert out["result"] == "pending"
    conf = svc.state()["pending"]["confirmations"]
    assert len(conf) == 1 and conf[0]["route"] == "berlin-wien" and "red" in conf[0]["reason"]
    assert svc.state()["players"][1]["routes"] == []
    with pytest.raises(Forbidden):
        svc.confirm(conf[0]["id"], True, Actor.player("red"))
    # The host says yes: red's turn ends (red drew cards) and blue's claim counts.
    st = svc.confirm(conf[0]["id"], True, HOST)
    assert st["players"][1]["routes"] == ["berlin-wien"] and st["pending"]["confirmations"] == []
    assert st["current"] == "blue"
    with pytest.raises(NotFound):
        svc.confirm(conf[0]["id"], True, HOST)


def test_tickets_tapped_on_the_reader_are_kept_privately(svc: Service) -> None:
    new_game(svc)
    svc.observe({"kind": "reader_player", "player": "blue"})
    svc.observe({"kind": "ticket_tapped", "ticket": "budapest-zurich"})
    svc.observe({"kind": "ticket_tapped", "ticket": "brindisi-zurich"})
    assert svc.state()["pending"]["tickets"] == {"player": "blue", "count": 2}
    assert "budapest-zurich" not in svc.state_json()
    assert svc.tickets("blue")["pending"] == ["budapest-zurich", "brindisi-zurich"]
    st = svc.act({"type": "keep_tickets", "player": "blue"}, HOST)
    assert st["players"][1]["tickets_held"] == 2


def test_ticket_progress_missing_routes(svc: Service) -> None:
    red_claims_berlin_wien(svc)
    prog = {t["id"]: t for t in svc.tickets("red")["tickets"]}
    pw = prog["paris-wien"]
    assert not pw["completed"] and pw["reachable"]
    m = svc.map
    # The missing routes plus berlin-wien join Paris and Wien.
    cities = {"paris"}
    frontier = [*pw["missing"], "berlin-wien"]
    for _ in range(len(frontier) + 1):
        for rid in list(frontier):
            r = m.routes[rid]
            if r.a in cities or r.b in cities:
                cities |= {r.a, r.b}
                frontier.remove(rid)
    assert "wien" in cities and frontier == []
    assert pw["missing_trains"] == sum(m.routes[r].length for r in pw["missing"])
    assert missing_routes(svc.fold.tracker, "red", "berlin", "wien") == []  # type: ignore[union-attr]


def test_tunnel_reveal_surcharge_and_pay(svc: Service) -> None:
    new_game(svc, payment_mode="strict")
    setup_tickets(svc)
    tunnel = next(
        r for r in svc.map.routes.values() if r.tunnel and r.color is not None and r.length == 2
    )
    c = tunnel.color.value  # type: ignore[union-attr]
    svc.act({"type": "claim", "player": "red", "route": tunnel.id, "cards": [c, c]}, HOST)
    st = svc.act(
        {
            "type": "tunnel_reveal",
            "player": "red",
            "cards": [c, "locomotive", "pink" if c != "pink" else "blue"],
        },
        HOST,
    )
    assert st["tunnel"]["extra"] == 2 and st["tunnel"]["route"] == tunnel.id
    with pytest.raises(Conflict):
        svc.act({"type": "end_turn", "player": "red"}, HOST)
    st = svc.act({"type": "tunnel_pay", "player": "red", "cards": [c, "locomotive"]}, HOST)
    assert st["tunnel"] is None and tunnel.id in st["players"][0]["routes"]


def test_photo_mode_set_board_and_finish(svc: Service) -> None:
    new_game(svc, mode="photo")
    board = {
        "type": "set_board",
        "routes": {"paris-zurich": "red", "munchen-wien": "red", "munchen-zurich": "blue"},
        "stations": {"zurich": "red"},
        "tickets": {"red": ["paris-wien"]},
    }
    st = svc.act(board, HOST)
    assert st["players"][0]["routes"] == ["munchen-wien", "paris-zurich"]
    assert st["players"][0]["stations"] == ["zurich"]
    with pytest.raises(Conflict):
        svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    with pytest.raises(Conflict):
        svc.act({"type": "set_board", "routes": {"paris-zurich": "green"}}, HOST)
    st = svc.act({"type": "finish"}, HOST)
    red = st["players"][0]["final"]
    assert red["tickets"][0]["completed"] and red["station_routes"] == {"zurich": "munchen-zurich"}


def test_history_lists_games_and_events(svc: Service) -> None:
    first = new_game(svc)["game_id"]
    setup_tickets(svc)
    second = new_game(svc, replace=True)["game_id"]  # the first, unfinished, is replaced
    games = svc.games()["games"]
    assert [g["id"] for g in games] == [second, first]
    ev = svc.game_events(first, reveal=False)["events"]
    assert ev[1]["action"]["tickets"] == 2  # hidden: the game is not finished
    assert svc.game_events(first, reveal=True)["events"][1]["action"]["tickets"] == [
        "brest-marseille",
        "paris-wien",
    ]
    assert svc.game_state(first, upto=ev[1]["seq"])["players"][0]["tickets_held"] == 2
    with pytest.raises(NotFound):
        svc.game_state("nope")


def test_subscribers_get_every_state_and_resume(svc: Service) -> None:
    sub = svc.subscribe()
    first = sub.get(1.0)
    assert first is not None and first[0] is None
    new_game(svc)
    setup_tickets(svc)
    got = [sub.get(1.0) for _ in range(3)]
    seqs = [g[1] for g in got if g is not None]
    assert seqs == sorted(seqs) and len(seqs) == 3
    sub.close()
    resumed = svc.subscribe(seqs[0])
    again = [resumed.get(1.0), resumed.get(1.0)]
    assert [g[1] for g in again if g is not None] == seqs[1:]
    with pytest.raises(queue.Empty):
        resumed.get(0.05)
    resumed.close()
    assert svc.subscriber_count == 0
