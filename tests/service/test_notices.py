"""Every notice and announcement carries a stable code and params (the dashboard translates
them), next to the English sentence; every code the service sends has an en and a ja string."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.commands.devices import camera_notice, start_reader
from companion.reader.simulated import SimulatedReader
from companion.service import Actor, Service
from companion.store import EventStore
from companion.vision.live import live
from tests.service.pure_games import keep_first_tickets

HOST = Actor.host()
REPO = Path(__file__).resolve().parents[2]
PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


def strings(lang: str) -> dict[str, str]:
    return json.loads((REPO / "web" / "static" / "i18n" / f"{lang}.json").read_text("utf-8"))


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[tuple[Service, list[dict[str, Any]]]]:
    store = EventStore(tmp_path)
    s = Service(store).start()
    got: list[dict[str, Any]] = []
    s.listeners.append(lambda kind, data: got.append(data) if kind == "notice" else None)
    yield s, got
    s.stop()
    store.close()


def game(s: Service, **extra: Any) -> None:
    s.act({"type": "new_game", "players": PLAYERS, **extra}, HOST)
    keep_first_tickets(s, HOST)


def translated(code: str) -> bool:
    key = f"notice.{code}"
    return key in strings("en") and key in strings("ja")


def test_camera_and_reader_notices_have_codes(svc: tuple[Service, list[dict[str, Any]]]) -> None:
    s, got = svc
    game(s, payment_mode="strict")
    s.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "yellow"})
    s.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue"})  # not blue's turn
    s.observe({"kind": "claim_seen", "route": "paris-zurich", "color": "red"})  # no cards
    for _ in range(2):
        s.observe({"kind": "card_tapped", "card": "red", "uid": "04AA"})
    s.observe({"kind": "reader_player", "player": "blue"})
    s.observe({"kind": "ticket_tapped", "ticket": "paris-wien"}, Actor.device("reader"))
    by_code: dict[str, dict[str, Any]] = {}
    for n in got:
        by_code.setdefault(n["code"], n)  # the first of each kind
    assert by_code["camera.not_playing"]["params"] == {"color": "yellow"}
    assert "yellow" in by_code["camera.not_playing"]["text"]
    ask = by_code["camera.confirm_claim"]["params"]
    assert ask["color"] == "blue" and ask["route"] == "berlin-wien"
    assert ask["reason"]["code"] == "camera.not_their_turn"
    assert ask["reason"]["params"] == {"color": "blue", "current": "red"}
    strict = [
        n for n in got if n["code"] == "camera.confirm_claim" and n["params"]["color"] == "red"
    ]
    assert strict and strict[0]["params"]["reason"]["code"] == "rule.no-cards-given"
    assert by_code["reader.duplicate_card"]["params"] == {"card": "red", "player": "red"}
    assert "reader.ticket_held" not in by_code  # who holds a ticket is never told
    assert s.state()["pending"]["tickets"] == {"player": "blue", "count": 1}
    # the questions in the state carry the same reason codes
    confs = s.state()["pending"]["confirmations"]
    assert {c["reason_code"] for c in confs} == {"camera.not_their_turn", "rule.no-cards-given"}
    for n in got:
        assert set(n) == {"level", "text", "color", "code", "params"}
        assert n["text"] and translated(n["code"]), n
        for sub in n["params"].values():
            if isinstance(sub, dict) and "code" in sub:
                assert translated(sub["code"]), sub


def test_a_veto_by_the_rules_has_the_rule_code(svc: tuple[Service, list[dict[str, Any]]]) -> None:
    s, got = svc
    game(s)
    s.act({"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}, HOST)
    s.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue"})
    veto = got[-1]
    assert veto["code"] == "camera.route_taken"
    assert veto["params"] == {"color": "blue", "route": "berlin-wien", "owner": "red"}


def test_announcements_have_codes(svc: tuple[Service, list[dict[str, Any]]]) -> None:
    s, _ = svc
    st = s.state()
    assert st["announcement"] is None and st["announcement_code"] is None
    game(s)
    s.act({"type": "drew_cards", "player": "red", "count": 2}, HOST)
    s.act({"type": "end_turn", "player": "red"}, HOST)
    s.act({"type": "finish"}, HOST)
    st = s.state()
    assert st["announcement_code"] == "game.over"
    winners = st["announcement_params"]["winners"]
    assert winners and all(w in {"Aki", "Ben"} for w in winners)
    assert st["announcement"].startswith("Game over.")
    assert translated("game.over") and translated("final.round") and translated("final.round_one")
    assert translated("game.last_turn_played")


def test_camera_watcher_notices_have_codes() -> None:
    change = live.Change("route", "berlin-wien", None, "red", 0.4)
    code, params = camera_notice(live.NeedsConfirmation(change, "low confidence", 3, 1.0))
    assert code == "camera.watch_confirm" and params["route"] == "berlin-wien"
    assert params["color"] == "red" and params["owner"] is None
    code, params = camera_notice(
        live.Vetoed(live.Change("station", "wien", "red", "blue"), "x", 1, 0)
    )
    assert code == "camera.watch_veto" and params["city"] == "wien"
    code, params = camera_notice(live.BoardLost("no board in view", 1, 0.0))
    assert code == "camera.board_lost" and params == {"text": "no board in view"}
    for c in ("camera.watch_confirm", "camera.watch_veto", "camera.board_lost", "camera.stopped"):
        assert translated(c)


def test_unknown_card_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    store = EventStore(tmp_path)
    s = Service(store).start()
    got: list[dict[str, Any]] = []
    s.listeners.append(lambda kind, data: got.append(data) if kind == "notice" else None)
    stop = threading.Event()
    sim = SimulatedReader().start()
    try:
        game(s)
        t = start_reader(s, sim.path, stop, registry_path=tmp_path / "cards.sqlite")
        time.sleep(0.3)
        sim.tap("04FFEEDDCCBBAA", None)  # a blank sticker nobody enrolled
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not got:
            time.sleep(0.02)
        assert got and got[0]["code"] == "reader.unknown_card"
        assert got[0]["params"] == {"uid": "04FFEEDDCCBBAA"}
        assert translated("reader.unknown_card")
        assert (tmp_path / "cards.sqlite").exists()  # the registry named, not the user's
    finally:
        stop.set()
        t.join(timeout=5)
        sim.close()
        s.stop()
        store.close()


def test_an_unsure_camera_claim_is_a_question(svc: tuple[Service, list[dict[str, Any]]]) -> None:
    """Trains on a route printed in their own colour: the camera saw the pixels change but
    cannot read the colour; the game asks instead of recording it, and a yes records it."""
    s, got = svc
    game(s)
    out = s.observe({"kind": "claim_seen", "route": "paris-zurich", "color": "red", "unsure": True})
    assert out["result"] == "pending"
    assert "paris-zurich" not in s.fold.tracker.route_owner  # not recorded unasked
    confs = s.state()["pending"]["confirmations"]
    assert [c["reason_code"] for c in confs] == ["camera.unsure_same_colour"]
    ask = next(n for n in got if n["code"] == "camera.confirm_claim")
    assert ask["params"]["reason"]["params"] == {"color": "red", "route": "paris-zurich"}
    assert translated("camera.unsure_same_colour")
    s.confirm(confs[0]["id"], True, HOST)
    assert s.fold.tracker.route_owner.get("paris-zurich") == "red"
    # a flag that is not a boolean is refused with one sentence
    from companion.service import BadRequest

    with pytest.raises(BadRequest, match="unsure"):
        s.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue", "unsure": "yes"})
    with pytest.raises(BadRequest, match="listed"):
        s.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue", "listed": 1})


def test_a_listed_camera_claim_is_a_question(svc: tuple[Service, list[dict[str, Any]]]) -> None:
    """A claim the reading put on its check list: asked with its own reason, a yes records it."""
    s, got = svc
    game(s)
    obs = {"kind": "claim_seen", "route": "paris-zurich", "color": "red", "unsure": True}
    out = s.observe({**obs, "listed": True})
    assert out["result"] == "pending"
    assert "paris-zurich" not in s.fold.tracker.route_owner
    confs = s.state()["pending"]["confirmations"]
    assert [c["reason_code"] for c in confs] == ["camera.unsure_listed"]
    ask = next(n for n in got if n["code"] == "camera.confirm_claim")
    assert ask["params"]["reason"]["code"] == "camera.unsure_listed"
    assert translated("camera.unsure_listed")
    s.confirm(confs[0]["id"], True, HOST)
    assert s.fold.tracker.route_owner.get("paris-zurich") == "red"
