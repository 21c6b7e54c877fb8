"""The table profile learns from the game, and unlearns what the table corrected
(companion/service/profile_store.py): a claim the host corrects or undoes has its lesson taken
out of the profile exactly, the corrected owner's colour learnt from the next clean frame, nothing
for a freed route; a lesson far from its colour and nearer another is set aside. Rendered frames
of one simulated camera (1280x720)."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.service import Actor, Service
from companion.service.profile_store import TableProfiles, settings
from companion.sim.render import BoardRenderer, Scene, random_view
from companion.store import EventStore
from companion.vision.decide import profile as prof
from companion.vision.decide.context import default_context
from tests.waiting import wait_for

HOST = Actor.host()
CAMERA = "usb:table"
PLAYERS = [{"name": "Aki", "color": "black"}, {"name": "Ben", "color": "blue"}]
BLUE_ROUTE = "marseille-paris"  # printed grey, 4 spaces: blue trains on it
BLACK_ROUTES = ("berlin-danzig", "kharkov-kyiv")  # printed grey, 4 spaces each: black trains


@pytest.fixture(scope="module")
def frames() -> dict[str, Any]:
    """One fixed camera: three looks of the empty board; blue trains on BLUE_ROUTE and black
    trains on BLACK_ROUTES."""
    renderer = BoardRenderer()
    view = random_view(np.random.default_rng(302), (1280, 720))
    empty = [
        renderer.render_frame(Scene(seed=2), view, np.random.default_rng(i)) for i in (1, 2, 3)
    ]
    routes = {BLUE_ROUTE: "blue", **{r: "black" for r in BLACK_ROUTES}}
    game = renderer.render_frame(Scene(routes=routes, seed=2), view, np.random.default_rng(6))
    return {"empty": empty, "game": game}


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(settings()["empty"], "spacing", 0.0)
    monkeypatch.setitem(settings()["empty"], "wait", 0.3)


@pytest.fixture
def service(tmp_path: Path, quick: None) -> Iterator[Service]:
    store = EventStore(tmp_path)
    svc = Service(store).start()
    yield svc
    svc.stop()
    store.close()


def show(profiles: TableProfiles, rendered: Any) -> None:
    profiles.seen(rendered.image, rendered.corners)


def until(check: Callable[[], bool], timeout: float = 30.0) -> bool:
    return wait_for(check, timeout, step=0.05)


def settled(profiles: TableProfiles) -> bool:
    """Nothing is being learnt or taken out (a lesson may wait for its frame)."""

    def idle() -> bool:
        with profiles._lock:
            return not profiles._busy and not profiles._undo

    # the worker may still hold a job queued behind the last one: wait for it too
    return until(idle) and profiles._worker().submit(lambda: None).result(30) is None


def set_up(svc: Service, frames: dict[str, Any]) -> TableProfiles:
    profiles = svc.attach_camera(CAMERA)
    for look in frames["empty"]:
        show(profiles, look)
    profiles.learn_empty()
    svc.act({"type": "new_game", "players": PLAYERS, "tickets_tracked": False}, HOST)
    return profiles


def test_a_corrected_claim_takes_its_lesson_out_and_teaches_the_right_colour(
    service: Service, frames: dict[str, Any]
) -> None:
    """The camera read blue trains as black: black's claim taught black blue; the host corrects
    the claim to blue: black's lesson is out, blue is learnt from the next clean frame."""
    svc = service
    profiles = set_up(svc, frames)
    empty_only = profiles.profile
    svc.act({"type": "claim", "player": "black", "route": BLUE_ROUTE}, HOST)
    claim_seq = svc.seq
    show(profiles, frames["game"])
    assert settled(profiles)
    wrong = profiles.profile
    assert wrong.plastic_count == {"black": 4} and set(wrong.lessons) == {BLUE_ROUTE}
    # the host corrects the claim: blue's
    correction = {"type": "claim", "player": "blue", "route": BLUE_ROUTE}
    svc.act({"type": "replace", "seq": claim_seq, "action": correction}, HOST)
    assert settled(profiles)
    assert [(ls.route, ls.colour) for ls in profiles._lessons] == [(BLUE_ROUTE, "blue")]
    out = profiles.profile
    assert out.plastic_count == {} and out.plastic == empty_only.plastic == {}
    assert out.lessons == {} and profiles.taken_out == 1
    assert np.array_equal(out.sums("black"), np.zeros(9))
    # the corrected colour from the next clean frame
    show(profiles, frames["game"])
    assert settled(profiles)
    right = profiles.profile
    assert right.plastic_count == {"blue": 4} and right.lessons[BLUE_ROUTE][0] == "blue"
    # what it learnt of blue sits nearer the reader's blue than any other plastic does
    base = default_context().model
    d = {
        c: float(np.sum(((right.plastic["blue"] - v) / base.scale) ** 2))
        for c, v in base.plastic.items()
    }
    assert min(d, key=lambda c: d[c]) == "blue"
    saved = prof.load(prof.profile_path(svc.store.dir, CAMERA))
    assert saved.plastic_count == {"blue": 4} and saved.game == svc.state()["game_id"]
    status = profiles.status(["black", "blue"])
    assert status["taken_out"] == 1 and status["set_aside"] == 0


def test_an_undone_claim_is_taken_out_and_nothing_is_learnt_of_the_freed_route(
    service: Service, frames: dict[str, Any]
) -> None:
    svc = service
    profiles = set_up(svc, frames)
    svc.act({"type": "claim", "player": "black", "route": BLACK_ROUTES[0]}, HOST)
    show(profiles, frames["game"])
    assert settled(profiles)
    once = profiles.profile
    assert once.plastic_count == {"black": 4}
    svc.act({"type": "end_turn", "player": "black"}, HOST)
    svc.act({"type": "claim", "player": "blue", "route": BLUE_ROUTE}, HOST)
    show(profiles, frames["game"])
    assert settled(profiles)
    assert profiles.profile.plastic_count == {"black": 4, "blue": 4}
    svc.act({"type": "undo"}, HOST)  # blue's claim
    assert settled(profiles)
    show(profiles, frames["game"])  # the trains still there: the freed route teaches nothing
    assert settled(profiles)
    after = profiles.profile
    assert after.plastic_count == {"black": 4} and set(after.lessons) == {BLACK_ROUTES[0]}
    # taken out exactly: the sums are those before blue's lesson, bit for bit
    assert np.array_equal(after.sums("black"), once.sums("black"))
    assert np.array_equal(after.sums("blue"), np.zeros(9)) and profiles.taken_out == 1


def empty_learnt_on_a_clock(
    tmp_path: Path, frames: dict[str, Any]
) -> tuple[TableProfiles, list[float]]:
    """Profiles on a clock the test moves (``clock[0]``), the empty board shown a second apart
    and learnt."""
    clock = [100.0]
    p = TableProfiles(lambda *a, **k: None, tmp_path, clock=lambda: clock[0])
    p.attach("cam", {"game_id": "g", "players": []})
    for look in frames["empty"]:
        show(p, look)
        clock[0] += 1
    p.learn_empty()
    return p, clock


def test_a_lesson_still_waiting_for_its_frame_is_dropped_when_corrected(
    tmp_path: Path, quick: None, frames: dict[str, Any]
) -> None:
    p, clock = empty_learnt_on_a_clock(tmp_path, frames)
    black = {"game_id": "g", "players": [{"color": "black", "routes": [BLUE_ROUTE]}]}
    p.heard("state", black)
    assert [(ls.route, ls.colour) for ls in p._lessons] == [(BLUE_ROUTE, "black")]
    clock[0] += 1
    blue = {
        "game_id": "g",
        "players": [{"color": "black", "routes": []}, {"color": "blue", "routes": [BLUE_ROUTE]}],
    }
    p.heard("state", blue)
    assert [(ls.route, ls.colour) for ls in p._lessons] == [(BLUE_ROUTE, "blue")]
    clock[0] += 1
    show(p, frames["game"])
    assert settled(p)
    assert p.profile.plastic_count == {"blue": 4} and p.taken_out == 0
    # another game's correction of the same route takes nothing out of this game's lessons
    p.heard("state", {"game_id": "h", "players": []})
    p.heard("state", {"game_id": "h", "players": [{"color": "red", "routes": [BLUE_ROUTE]}]})
    p.heard("state", {"game_id": "h", "players": []})
    assert settled(p)
    assert p.profile.plastic_count == {"blue": 4} and p.taken_out == 0


def test_a_lesson_far_from_its_colour_and_near_another_is_set_aside(
    tmp_path: Path,
    quick: None,
    frames: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Black learnt from 8 spaces of its own trains; a claim of black on blue trains (the
    camera read them wrong), whose best black windows sit nearer the empty board's look than
    black, teaches nothing: set aside, logged, counted, shown to the host."""
    p, clock = empty_learnt_on_a_clock(tmp_path, frames)
    guard = settings()["guard"]
    assert len(BLACK_ROUTES) * 4 >= int(guard["min_spaces"])
    p.heard("state", {"game_id": "g", "players": [{"color": "black", "routes": BLACK_ROUTES}]})
    clock[0] += 1
    show(p, frames["game"])
    assert settled(p)
    black = p.profile.sums("black").copy()
    assert p.profile.plastic_count == {"black": 8}
    routes = [*BLACK_ROUTES, BLUE_ROUTE]
    caplog.set_level(logging.WARNING, "companion.service.profile_store")
    p.heard("state", {"game_id": "g", "players": [{"color": "black", "routes": routes}]})
    clock[0] += 1
    show(p, frames["game"])
    assert settled(p)
    assert np.array_equal(p.profile.sums("black"), black)  # not learnt
    assert p.profile.set_aside == {"black": 1} and BLUE_ROUTE not in p.profile.lessons
    # the best black windows on blue trains: nearer the empty board's look than black
    assert f"black's trains on {BLUE_ROUTE} look nearer the empty board than black" in caplog.text
    status = p.status(["black", "blue"])
    rows = {c["color"]: c for c in status["colours"]}
    assert status["set_aside"] == 1 and rows["black"]["set_aside"] == 1
    assert rows["blue"]["set_aside"] == 0
    # kept with the profile
    assert prof.load(prof.profile_path(tmp_path, "cam")).set_aside == {"black": 1}
    # blue's own claim of its trains is learnt (blue has too few spaces to be guarded yet)
    p.heard(
        "state",
        {
            "game_id": "g",
            "players": [
                {"color": "black", "routes": list(BLACK_ROUTES)},
                {"color": "blue", "routes": [BLUE_ROUTE]},
            ],
        },
    )
    clock[0] += 1
    show(p, frames["game"])
    assert settled(p)
    assert p.profile.plastic_count == {"black": 8, "blue": 4}


def test_a_set_aside_lesson_has_words_in_both_catalogues() -> None:
    root = Path(__file__).resolve().parents[2]
    js = (root / "web" / "static" / "js" / "table.js").read_text("utf-8")
    assert "table.set_aside" in js and "table.taken_out" in js
    for lang in ("ja", "en"):
        strings = json.loads((root / "web" / "static" / "i18n" / f"{lang}.json").read_text())
        for key in ("table.set_aside", "table.taken_out"):
            assert "{n}" in strings[key], (lang, key)


def test_frames_read_often_still_give_the_set_up_looks_apart_in_time(tmp_path: Path) -> None:
    """A camera read every 50 ms (the demo's fast camera): the set-up's looks are each
    ``spacing`` after the one before (the newest frame kept apart for lessons and photos)."""
    clock = [0.0]
    p = TableProfiles(lambda *a, **k: None, tmp_path, clock=lambda: clock[0])
    p.attach("cam")
    image = np.zeros((4, 4, 3), np.uint8)
    for _ in range(40):
        p.seen(image, np.zeros((4, 2)))
        clock[0] += 0.05
    looks = p.fresh_looks()
    spacing = float(settings()["empty"]["spacing"])
    assert len(looks) == int(settings()["empty"]["looks"]) == 3
    assert all(b.at - a.at >= spacing - 1e-9 for a, b in itertools.pairwise(looks))
    assert p.newest_look().at == pytest.approx(39 * 0.05)
