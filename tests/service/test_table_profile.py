"""The table camera's profile on the service side (companion/service/profile_store.py) and its
endpoints (/api/camera/...): the host's guided set-up on rendered frames of one simulated
camera, the profile kept per camera across a restart, learnt from the game's claims, used by the
live reader and by a photo from the table's own camera."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.service import Actor, Service
from companion.service.profile_store import (
    Look,
    TableProfiles,
    TappedReader,
    owners_of,
    settings,
    verdict,
)
from companion.sim.render import BoardRenderer, Scene, own_print_routes, random_view
from companion.store import EventStore
from companion.vision.decide import profile as prof
from companion.vision.live.readers import VisionReader
from companion.vision.live.sources import Frame
from companion.vision.types import PLAYER_COLORS
from companion.webapp import create_app
from tests.waiting import wait_for

TOKEN = "host-token-for-table-profile-tests"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
HOST = Actor.host()
CAMERA = "v4l2:/dev/video0"
PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
RED_ROUTE = "kyiv-smolensk"  # printed red, 3 spaces: red trains on it look like its print


@pytest.fixture(scope="module")
def frames() -> dict[str, Any]:
    """One fixed camera (1280x720): three looks of the empty board, a board with trains of
    their own printed colour on half the routes printed in a player colour, red trains on
    RED_ROUTE."""
    renderer = BoardRenderer()
    gb = renderer.geometry
    view = random_view(np.random.default_rng(302), (1280, 720))
    empty = [
        renderer.render_frame(Scene(seed=2), view, np.random.default_rng(i)) for i in (1, 2, 3)
    ]
    routes = own_print_routes(np.random.default_rng(7), gb)
    same = renderer.render_frame(Scene(routes=routes, seed=7), view, np.random.default_rng(5))
    red = renderer.render_frame(
        Scene(routes={RED_ROUTE: "red"}, seed=2), view, np.random.default_rng(6)
    )
    truth = {r: routes.get(r) for r in gb.drawable_routes()}
    return {"empty": empty, "same": same, "red": red, "truth": truth}


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Looks as fast as the test gives them; a short wait for missing ones."""
    monkeypatch.setitem(settings()["empty"], "spacing", 0.0)
    monkeypatch.setitem(settings()["empty"], "wait", 0.3)


def open_service(state_dir: Path) -> tuple[Service, EventStore, list[dict[str, Any]]]:
    store = EventStore(state_dir)
    svc = Service(store).start()
    notices: list[dict[str, Any]] = []
    svc.listeners.append(lambda kind, data: notices.append(data) if kind == "notice" else None)
    return svc, store, notices


@pytest.fixture
def table(tmp_path: Path, quick: None) -> Iterator[tuple[Service, FlaskClient]]:
    svc, store, _ = open_service(tmp_path)
    app: Flask = create_app(svc, {"HOST_TOKEN": TOKEN})
    yield svc, app.test_client()
    svc.stop()
    store.close()


def show(profiles: TableProfiles, rendered: Any) -> None:
    """The live reader read this clean frame."""
    profiles.seen(rendered.image, rendered.corners)


def wrong(reading: Any, truth: dict[str, str | None]) -> list[str]:
    return [r for r, owner in truth.items() if reading["routes"][r] != owner]


def until(check: Callable[[], bool], timeout: float = 30.0) -> bool:
    return wait_for(check, timeout, step=0.05)


# -- pure parts ------------------------------------------------------------------------------


def test_the_words_for_a_colour_follow_the_data_file() -> None:
    q = settings()["quality"]
    far = {"learnt_from": 9, "to_nearest_colour": 9.0, "to_empty_board": 5.0}
    assert verdict(far, q) == "good"
    assert verdict({**far, "learnt_from": int(q["trains_learnt"]) - 1}, q) == "learning"
    assert verdict({**far, "to_nearest_colour": float(q["colour_close"]) - 0.1}, q) == "close"
    assert verdict({**far, "to_empty_board": float(q["board_close"]) - 0.1}, q) == "board"
    state = {
        "game": "europe",
        "players": [{"color": "red", "routes": ["a-b"]}, {"color": "blue", "routes": ["c-d"]}],
    }
    assert owners_of(state) == {"a-b": "red", "c-d": "blue"}
    assert owners_of({**state, "game": "london"}) == {}


def test_claims_become_lessons_only_with_a_profile_and_only_new_ones(tmp_path: Path) -> None:
    told: list[Any] = []
    p = TableProfiles(lambda *a, **k: told.append(k), tmp_path, clock=lambda: 10.0)
    p.heard("state", {"game_id": "g1", "players": [{"color": "red", "routes": ["x-y"]}]})
    assert p._lessons == []  # no camera: nothing is learnt
    p.attach("cam", {"game_id": "g1", "players": [{"color": "red", "routes": ["x-y"]}]})
    p.heard("state", {"game_id": "g1", "players": [{"color": "red", "routes": ["x-y", "y-z"]}]})
    assert p._lessons == []  # no profile yet: claims teach nothing
    p.profile = object()
    two = [{"color": "red", "routes": ["x-y", "y-z"]}, {"color": "blue", "routes": ["a-b"]}]
    p.heard("state", {"game_id": "g1", "players": two})
    assert [(ls.route, ls.colour) for ls in p._lessons] == [("a-b", "blue")]
    p.heard("rejected", {"kind": "claim", "key": "a-b", "color": "green"})  # blue's: not free
    p.heard("rejected", {"kind": "claim", "key": "q-r", "color": "green"})
    assert [(ls.route, ls.colour) for ls in p._lessons][-1] == ("q-r", None)
    p.heard("state", {"game_id": "g2", "players": []})  # a new game: lessons of the old go
    assert p._lessons == []


# -- through the web app ---------------------------------------------------------------------


def test_only_the_host_sees_or_sets_up_the_profile(table: tuple[Service, FlaskClient]) -> None:
    _, client = table
    assert (
        client.post(
            "/api/actions", json={"type": "new_game", "players": PLAYERS}, headers=BEARER
        ).status_code
        == 200
    )
    token = client.post("/api/players/red/pair", headers=BEARER).get_json()["url"].rsplit("/", 1)[1]
    phone = {"Authorization": f"Bearer {token}"}
    for method, path in (
        ("get", "/api/camera/profile"),
        ("post", "/api/camera/profile/empty"),
        ("post", "/api/camera/profile/forget"),
        ("post", "/api/camera/photo"),
    ):
        r = getattr(client, method)(path, headers=phone, json={})
        assert r.status_code == 403 and r.get_json()["code"] == "auth.host_only", path
        guest = getattr(client, method)(path, json={})
        assert guest.status_code == 401 and guest.get_json()["code"].startswith("auth.")
    r = client.get("/api/camera/profile", headers=BEARER)
    assert r.status_code == 200 and r.get_json()["step"] == "no_camera"
    for path in ("/api/camera/profile/empty", "/api/camera/photo"):
        r = client.post(path, headers=BEARER, json={})
        body = r.get_json()
        assert r.status_code == 409 and body["code"] == "camera.table_no_camera", path
        assert set(body) >= {"error", "code", "params"}


def test_the_empty_board_is_learnt_refused_kept_and_used(
    tmp_path: Path, quick: None, frames: dict[str, Any]
) -> None:
    svc, store, _ = open_service(tmp_path)
    client = create_app(svc, {"HOST_TOKEN": TOKEN}).test_client()
    try:
        profiles = svc.attach_camera(CAMERA)
        assert client.get("/api/camera/profile", headers=BEARER).get_json()["step"] == "empty"
        # no clean frame yet: the board is not seen
        r = client.post("/api/camera/profile/empty", headers=BEARER, json={})
        assert r.status_code == 409 and r.get_json()["code"] == "camera.table_no_board"
        # trains on the board: refused, saying how many routes it sees
        show(profiles, frames["same"])
        r = client.post("/api/camera/profile/empty", headers=BEARER, json={})
        body = r.get_json()
        assert r.status_code == 409 and body["code"] == "camera.table_not_empty"
        assert body["params"]["routes"] > settings()["empty"]["routes_seen"]
        assert body["params"]["stations"] == 0
        assert svc.profiles.profile is None
        # the empty board, three looks: learnt and saved
        for look in frames["empty"]:
            show(profiles, look)
        r = client.post("/api/camera/profile/empty", headers=BEARER, json={})
        status = r.get_json()
        assert r.status_code == 200, status
        assert status["step"] == "colours" and status["empty_looks"] == 3
        assert status["problem"] is None
        assert {c["color"] for c in status["colours"]} == set(PLAYER_COLORS)  # no game: all
        assert all(c["verdict"] == "learning" and c["learnt_from"] == 0 for c in status["colours"])
        path = prof.profile_path(tmp_path, CAMERA)
        assert path.exists() and prof.load(path).empty_count == 3
        # the live reader reads with it: trains on their own printed colour are found
        truth = frames["truth"]
        same = frames["same"]
        frame = Frame(same.image, 1.0, 1)
        plain = VisionReader().read(frame, same.corners).to_json()
        tapped = TappedReader(VisionReader(), profiles).read(frame, same.corners).to_json()
        assert len(wrong(tapped, truth)) <= 1 < len(wrong(plain, truth))
    finally:
        svc.stop()
        store.close()
    # a restart: the camera's profile is loaded again; another camera has none
    svc, store, notices = open_service(tmp_path)
    try:
        assert svc.attach_camera(CAMERA).profile is not None
        assert svc.profiles.status()["empty_looks"] == 3
        other = TableProfiles(svc.notice, tmp_path)
        other.attach("picamera2")
        assert other.profile is None and other.status()["step"] == "empty"
        assert not [n for n in notices if n["code"] == "camera.profile_broken"]
    finally:
        svc.stop()
        store.close()
    # a broken file: ignored, logged, the host told by a code
    path.write_text('{"version": 1, "features": ["L"]}', encoding="utf-8")
    svc, store, notices = open_service(tmp_path)
    client = create_app(svc, {"HOST_TOKEN": TOKEN}).test_client()
    try:
        svc.attach_camera(CAMERA)
        status = client.get("/api/camera/profile", headers=BEARER).get_json()
        assert status["step"] == "empty" and status["problem"] == "camera.profile_broken"
        told = [n for n in notices if n["code"] == "camera.profile_broken"]
        assert told and told[0]["audience"] == "host"
        # forgetting removes the file; learning again clears the problem
        assert client.post("/api/camera/profile/forget", headers=BEARER, json={}).status_code == 200
        assert not path.exists()
    finally:
        svc.stop()
        store.close()


def empty_learnt(svc: Service, client: FlaskClient, frames: dict[str, Any]) -> TableProfiles:
    """The table camera attached, shown the empty board and told (over HTTP) to learn it."""
    profiles = svc.attach_camera(CAMERA)
    for look in frames["empty"]:
        show(profiles, look)
    assert client.post("/api/camera/profile/empty", headers=BEARER, json={}).status_code == 200
    return profiles


def test_colours_are_learnt_from_confirmed_claims_off_the_loop(
    table: tuple[Service, FlaskClient], frames: dict[str, Any]
) -> None:
    svc, client = table
    profiles = empty_learnt(svc, client, frames)
    seen: list[dict[str, Any]] = []
    svc.listeners.append(lambda kind, data: seen.append(data) if kind == "notice" else None)
    svc.act({"type": "new_game", "players": PLAYERS, "tickets_tracked": False}, HOST)
    before = profiles.profile
    svc.act({"type": "claim", "player": "red", "route": RED_ROUTE}, HOST)
    assert len(profiles._lessons) == 1
    # the empty board shows no trains there: the lesson waits for a frame that does
    show(profiles, frames["empty"][0])
    assert until(lambda: not profiles._busy)
    assert profiles.profile is before and len(profiles._lessons) == 1
    show(profiles, frames["red"])
    assert until(lambda: profiles.profile is not before and not profiles._lessons)
    assert profiles.profile.plastic_count["red"] == 3 and before.plastic_count == {}
    status = client.get("/api/camera/profile", headers=BEARER).get_json()
    rows = {c["color"]: c for c in status["colours"]}
    assert set(rows) == {"red", "blue"}  # the game's colours
    assert rows["red"]["learnt_from"] == 3 and rows["red"]["verdict"] != "learning"
    assert rows["red"]["nearest"] in PLAYER_COLORS and rows["red"]["nearest"] != "red"
    assert rows["blue"]["verdict"] == "learning" and status["step"] == "colours"
    assert status["learnt"] == 1
    learnt = [n for n in seen if n["code"] == "camera.colour_learnt"]
    assert learnt and learnt[0]["params"] == {"color": "red", "n": 3}
    assert learnt[0]["audience"] == "host"
    saved = prof.load(prof.profile_path(svc.store.dir, CAMERA))
    assert saved.plastic_count == {"red": 3}
    # redoing the empty step keeps the colours learnt
    for look in frames["empty"]:
        show(profiles, look)
    assert client.post("/api/camera/profile/empty", headers=BEARER, json={}).status_code == 200
    assert profiles.profile.plastic_count == {"red": 3}


def test_a_route_said_free_teaches_its_empty_look(
    tmp_path: Path, quick: None, frames: dict[str, Any]
) -> None:
    clock = [100.0]
    p = TableProfiles(lambda *a, **k: None, tmp_path, clock=lambda: clock[0])
    p.attach("cam", {"game_id": "g", "players": []})
    for look in frames["empty"][:2]:
        p.seen(look.image, look.corners)
        clock[0] += 1
    p.learn_empty()
    before = p.profile
    p.heard("rejected", {"kind": "claim", "key": "brest-paris", "color": "yellow"})
    p.heard("rejected", {"kind": "claim", "key": RED_ROUTE, "color": "yellow"})
    clock[0] += 1
    p.seen(frames["red"].image, frames["red"].corners)  # RED_ROUTE holds trains: not free
    assert until(lambda: not p._busy and not p._lessons)
    from companion.vision.decide.context import default_context

    info = default_context().info
    free, held = info.route_slices["brest-paris"], info.route_slices[RED_ROUTE]
    assert not np.allclose(p.profile.empty[free], before.empty[free])
    assert np.allclose(p.profile.empty[held], before.empty[held])
    assert p.learnt == 1 and p.skipped == 1 and p.profile.plastic_count == {}


def test_a_vision_error_while_learning_is_logged_and_skipped(
    table: tuple[Service, FlaskClient],
    frames: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    svc, _ = table
    profiles = svc.attach_camera(CAMERA)
    for look in frames["empty"]:
        show(profiles, look)
    profiles.learn_empty()
    before = profiles.profile
    svc.act({"type": "new_game", "players": PLAYERS, "tickets_tracked": False}, HOST)

    def broken(look: Look, *, read: bool = False) -> Any:
        raise RuntimeError("a broken frame")

    monkeypatch.setattr(profiles, "_features", broken)
    svc.act({"type": "claim", "player": "red", "route": RED_ROUTE}, HOST)
    show(profiles, frames["red"])
    assert until(lambda: not profiles._busy and not profiles._lessons)
    assert profiles.profile is before and profiles.skipped == 1
    assert "learning the table from the camera failed" in caplog.text
    # the game goes on
    state = svc.act({"type": "end_turn", "player": "red"}, HOST)
    assert state["current"] == "blue"


def test_a_photo_from_the_table_camera_is_read_with_its_profile(
    table: tuple[Service, FlaskClient], frames: dict[str, Any]
) -> None:
    svc, client = table
    profiles = empty_learnt(svc, client, frames)
    show(profiles, frames["same"])
    r = client.post("/api/camera/photo", headers=BEARER, json={})
    assert r.status_code == 202
    job = r.get_json()["job"]
    done: dict[str, Any] = {}

    def read() -> bool:
        done.update(client.get(f"/api/photo/{job}", headers=BEARER).get_json())
        return done["status"] != "reading"

    assert until(read)
    assert done["status"] == "done", done
    reading = done["reading"]
    assert len(wrong(reading, frames["truth"])) <= 1
    assert set(reading) >= {"routes", "stations", "confidence", "check", "problems"}


def test_the_codes_have_words_in_both_catalogues() -> None:
    root = Path(__file__).resolve().parents[2]
    source = (root / "companion" / "service" / "profile_store.py").read_text("utf-8")
    for lang in ("ja", "en"):
        strings = json.loads((root / "web" / "static" / "i18n" / f"{lang}.json").read_text())
        for code in (
            "camera.table_no_camera",
            "camera.table_no_board",
            "camera.table_not_empty",
            "camera.profile_broken",
            "camera.colour_learnt",
        ):
            assert code in source and f"notice.{code}" in strings, (lang, code)
        for v in ("learning", "good", "close", "board"):
            assert f"table.verdict_{v}" in strings, (lang, v)


def test_serve_attaches_its_camera_by_its_source(tmp_path: Path) -> None:
    import threading

    import cv2

    from companion.commands.devices import camera_id, start_camera

    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), np.full((90, 160, 3), 200, np.uint8))
    svc, store, _ = open_service(tmp_path / "state")
    try:
        stop = threading.Event()
        thread = start_camera(svc, f"file:{image}", stop)
        assert svc.profiles.camera == camera_id(f"file:{image}") == f"file:{image}"
        assert svc.profiles.heard in svc.listeners
        stop.set()
        thread.join(timeout=60)
        assert svc.profiles.status()["step"] == "empty"
    finally:
        svc.stop()
        store.close()


def test_the_live_watcher_shows_its_clean_frames_and_reads_with_the_profile(
    table: tuple[Service, FlaskClient], frames: dict[str, Any]
) -> None:
    """Through the real live watcher: its reads of the empty board are the set-up's looks; a
    claim the game took is learnt from its next clean read; its reader then holds the profile."""
    from companion.vision.live.live import LiveWatcher

    svc, client = table
    profiles = svc.attach_camera(CAMERA)
    inner = VisionReader()
    empty = frames["empty"][0]
    watcher = LiveWatcher(TappedReader(inner, profiles), corners=empty.corners)
    t = 0.0
    for i in range(12):
        watcher.process(Frame(frames["empty"][i % 3].image, t, i))
        t += 0.2
    assert watcher.stats["reads"] >= 3 and len(profiles.fresh_looks()) == 3
    assert client.post("/api/camera/profile/empty", headers=BEARER, json={}).status_code == 200
    svc.act({"type": "new_game", "players": PLAYERS, "tickets_tracked": False}, HOST)
    svc.act({"type": "claim", "player": "red", "route": RED_ROUTE}, HOST)
    for i in range(12, 24):
        watcher.process(Frame(frames["red"].image, t, i))
        t += 0.2
    assert until(lambda: not profiles._lessons and not profiles._busy)
    assert profiles.profile.plastic_count == {"red": 3}
    watcher.process(Frame(frames["red"].image, t, 24))
    assert inner.profile is profiles.profile
