"""The whole demo pipeline, fast: a seeded bot game played at a simulated table.

Card taps go through the simulated reader on a pty, the real serial transport and listener;
claims and stations through rendered camera frames, the live watcher and the pixel reader; the
buttons and the host's screen do the rest. The final scores must equal those of the bot's own
game and a fresh ``score_final`` of the final position."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from companion.commands.demo_game import Demo
from companion.core.scoring import PlayerEnd, score_final
from companion.data import europe_map
from tests.serving import running_service

pytestmark = pytest.mark.slow

SEED = 1  # 2 players: tunnels built, paid and withdrawn, ferries, a station, 34 claims
PLAYERS = 2


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    state_dir = tmp_path_factory.mktemp("demo")
    with running_service(state_dir) as svc:
        notices: list[dict[str, Any]] = []
        svc.listeners.append(lambda kind, data: notices.append(data) if kind == "notice" else None)
        t0 = time.monotonic()
        demo = Demo(svc, state_dir, seed=SEED, players=PLAYERS, fast=True).start()
        try:
            finished = demo.wait(timeout=120)
            took = time.monotonic() - t0
            state = svc.state()
            events = svc.store.events(state["game_id"]) if state["game_id"] else []
            yield {
                "finished": finished,
                "took": took,
                "state": state,
                "events": events,
                "demo": demo,
                "notices": notices,
                "game_events": svc.game_events(state["game_id"], reveal=True),
            }
        finally:
            demo.stop()


def test_the_demo_game_finishes_in_bounded_time(played: dict[str, Any]) -> None:
    assert played["finished"], "the demo did not finish within 120 s"
    assert played["took"] < 120
    report = played["demo"].driver.report
    assert report.errors == []
    assert played["state"]["phase"] == "finished"


def test_most_claims_came_through_the_camera(played: dict[str, Any]) -> None:
    report = played["demo"].driver.report
    placed = len(report.camera) + len(report.fallback)
    assert placed >= 20
    assert len(report.camera) >= 0.8 * placed, report.fallback
    table = played["demo"].table
    stats = table.stats
    assert stats["frames"] > 300 and stats["camera_reports"] >= len(report.camera)
    assert table.calibration == "located"  # the pixel locator found the board on the first frame
    m = europe_map()
    actions = [(e.actor, e.action) for e in played["events"]]
    # tunnels start on the screen (the trains go down once the surcharge is settled)
    claims = [
        (a, x)
        for a, x in actions
        if x["type"] == "build_station"
        or (x["type"] == "claim" and not m.routes[x["route"]].tunnel)
    ]
    by_camera = [x for a, x in claims if a == "camera"]
    assert len(by_camera) >= 0.8 * len(claims)
    # the camera's observations carry no cards: these came from the reader's taps
    assert all(x.get("cards") for x in by_camera)


def test_the_table_was_set_up_before_the_first_move_and_colours_learnt(
    played: dict[str, Any],
) -> None:
    """The host's guided set-up: the empty board learnt before the game started; the camera
    then learnt the players' colours from their claims (the dashboard shows it)."""
    from companion.service.profile_store import settings
    from companion.vision.decide.profile import profile_path

    table = played["demo"].table
    assert table.setup == "learnt"
    profiles = table.service.profiles
    status = profiles.status([p["color"] for p in played["state"]["players"]])
    assert status["step"] != "empty" and status["empty_looks"] == 3
    assert status["learnt"] >= 5, status
    need = settings()["quality"]["trains_learnt"]
    assert all(c["learnt_from"] >= need for c in status["colours"]), status["colours"]
    assert profile_path(table.service.store.dir, "demo-sim").exists()


def test_the_reader_and_buttons_did_their_part(played: dict[str, Any]) -> None:
    m = europe_map()
    stats = played["demo"].table.stats
    actions = [(e.actor, e.action) for e in played["events"]]
    assert stats["taps"] > 50
    kinds = {(a, x["type"]) for a, x in actions}
    # tickets tapped and kept with the confirm button; each turn ended with its action (the
    # end-turn button pressed after it changes nothing), so no turn was ended empty
    assert ("button", "keep_tickets") in kinds
    ended = [x for a, x in actions if a == "button" and x["type"] == "end_turn"]
    assert played["state"]["turn"] > 10 and all(x.get("early") for x in ended)
    # a tunnel: three cards tapped and revealed with the confirm button, then paid
    reveals = [x for a, x in actions if a == "button" and x["type"] == "tunnel_reveal"]
    assert reveals and all(len(x["cards"]) == 3 for x in reveals)
    assert any(a == "button" and x["type"] == "tunnel_pay" and x.get("cards") for a, x in actions)
    # a ferry seen by the camera and paid with locomotives tapped on the reader
    ferries = [
        x
        for a, x in actions
        if a == "camera" and x["type"] == "claim" and m.routes[x["route"]].locomotives > 0
    ]
    assert ferries
    assert any("locomotive" in x["cards"] for x in ferries)


def test_the_final_round_was_announced(played: dict[str, Any]) -> None:
    texts = [n["text"] for n in played["notices"]]
    assert any(t.startswith("Final round") for t in texts), texts[-10:]


def test_the_final_scores_are_those_of_the_final_position(played: dict[str, Any]) -> None:
    m = europe_map()
    state = played["state"]
    bot_game = played["demo"].driver.game
    assert bot_game is not None and bot_game.over
    tickets = {p["color"]: [t["id"] for t in p["final"]["tickets"]] for p in state["players"]}
    ends = [
        PlayerEnd(
            color=p["color"],
            name=p["name"],
            routes=tuple(p["routes"]),
            stations=tuple(p["stations"]),
            tickets=tuple(tickets[p["color"]]),
        )
        for p in state["players"]
    ]
    fresh = {p.color: p.total for p in score_final(m, ends).players}
    shown = {p["color"]: p["final"]["total"] for p in state["players"]}
    bot = {p.color: p.total for p in bot_game.final_score().players}
    assert shown == fresh == bot
    # the same board as the bot's game, route for route
    for p in state["players"]:
        assert sorted(p["routes"]) == sorted(bot_game.player(p["color"]).routes)
