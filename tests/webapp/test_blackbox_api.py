"""The black box over HTTP: the history's photo per move and its time-lapse, who may see them,
the space used, deleting a game's frames and the report bundle."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.blackbox.recorder import Recorder, Settings, for_service
from companion.service import Service
from companion.webapp import create_app
from tests.blackbox_fakes import Frame, Watcher

from .conftest import BEARER, TOKEN

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


class Camera:
    """Frames that the test shows the recorder, as the camera's thread would."""

    def __init__(self, box: Recorder) -> None:
        self.box = box
        self.index = 0
        self.watcher = Watcher()

    def look(self) -> None:
        shade = (self.index * 37) % 200
        image = np.full((72, 128, 3), shade, np.uint8)
        image[10:20, self.index % 100 : self.index % 100 + 20] = 255
        self.box.look(Frame(image, self.index * 1.0, self.index), self.watcher, [])
        self.index += 1


@pytest.fixture
def box(service: Service) -> Iterator[Recorder]:
    rec = for_service(service, service.store.dir, Settings(every=30.0), camera="cam")
    yield rec
    rec.stop()


@pytest.fixture
def app(service: Service, box: Recorder) -> Flask:
    return create_app(service, {"HOST_TOKEN": TOKEN, "BLACKBOX": box})


def post(client: FlaskClient, body: Any) -> Any:
    r = client.post("/api/actions", json=body, headers=BEARER)
    assert r.status_code == 200, r.json
    return r.json


def play(client: FlaskClient, cam: Camera, box: Recorder) -> str:
    """A short game at the table, a camera frame after every move."""
    state = post(client, {"type": "new_game", "variant": "europe", "players": PLAYERS})
    cam.look()
    for color, tickets in (
        ("red", ["paris-wien", "brest-marseille"]),
        ("blue", ["budapest-zurich", "brindisi-zurich"]),
    ):
        post(client, {"type": "keep_tickets", "player": color, "tickets": tickets})
        cam.look()
    claim = {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}
    post(client, claim)
    cam.look()
    cam.look()
    assert box.flush()
    return str(state["game_id"])


def test_history_frames_per_move_and_who_sees_them(
    app: Flask, client: FlaskClient, box: Recorder
) -> None:
    cam = Camera(box)
    game = play(client, cam, box)
    events = client.get(f"/api/games/{game}/events", headers=BEARER).json["events"]
    r = client.get(f"/api/games/{game}/frames", headers=BEARER)
    assert r.status_code == 200
    seqs = [f["seq"] for f in r.json["frames"]]
    # a photo at every move made while the camera watched (after the first frame)
    assert seqs == [e["seq"] for e in events][: len(seqs)] and len(seqs) >= 3
    n = r.json["frames"][-1]["frame"]
    pic = client.get(f"/api/games/{game}/frames/{n}", headers=BEARER)
    assert pic.status_code == 200 and pic.mimetype == "image/jpeg" and pic.data[:2] == b"\xff\xd8"
    # others: not while the game runs (a frame can show a hand of cards) ...
    guest = app.test_client()
    r = guest.get(f"/api/games/{game}/frames")
    assert r.status_code == 403 and r.json["code"] == "blackbox.photos_after_game"
    assert guest.get(f"/api/games/{game}/frames/{n}").status_code == 403
    assert guest.get(f"/api/games/{game}/timelapse").status_code == 403
    # ... but once it is finished, as the history's tickets
    post(client, {"type": "finish"})
    cam.look()
    assert box.flush()
    assert guest.get(f"/api/games/{game}/frames").status_code == 200
    assert guest.get(f"/api/games/{game}/frames/{n}").status_code == 200
    assert client.get(f"/api/games/{game}/frames/9999", headers=BEARER).status_code == 404
    assert client.get("/api/games/gnothere/frames", headers=BEARER).status_code == 404


def test_the_time_lapse(app: Flask, client: FlaskClient, box: Recorder) -> None:
    import cv2

    cam = Camera(box)
    game = play(client, cam, box)
    r = client.get(f"/api/games/{game}/timelapse", headers=BEARER)
    assert r.status_code == 200
    assert "attachment" in r.headers["Content-Disposition"]
    if r.mimetype == "image/webp":
        assert r.data[:4] == b"RIFF" and r.data[8:12] == b"WEBP"
        first = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR)
        assert first is not None and first.shape[1] == 128  # narrower than 480: kept as it is
    else:
        assert r.mimetype == "video/mp4" and r.data[4:8] == b"ftyp"
    again = client.get(f"/api/games/{game}/timelapse", headers=BEARER)
    assert again.data == r.data  # kept until the recording changes


def test_usage_delete_and_report(app: Flask, client: FlaskClient, box: Recorder) -> None:
    cam = Camera(box)
    game = play(client, cam, box)
    guest = app.test_client()
    assert guest.get("/api/blackbox").status_code == 401
    r = client.get("/api/blackbox", headers=BEARER)
    assert r.status_code == 200
    assert r.json["cap"] == Settings().cap and r.json["bytes"] > 0
    row = r.json["games"][0]
    assert row["game_id"] == game and row["current"] is True and row["frames"] >= 3
    assert r.json["recorder"]["dropped"] == 0
    # the report: a zip with the game's events and frames, no token
    rep = client.get("/api/blackbox/report", headers=BEARER)
    assert rep.status_code == 200 and rep.mimetype == "application/zip"
    data = rep.get_data()
    rep.close()  # the bundle is sent from its open file
    assert "companion-report-" in rep.headers["Content-Disposition"]
    assert not list(Path(box.state_dir).glob(".report-*"))  # no file left behind
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert manifest["game_id"] == game
        assert TOKEN.encode() not in b"".join(zf.read(n) for n in zf.namelist())
    assert client.get("/api/blackbox/report?game=gnothere", headers=BEARER).status_code == 404
    # the current game's frames stay; a finished game's go
    r = client.delete(f"/api/blackbox/games/{game}", headers=BEARER)
    assert r.status_code == 409 and r.json["code"] == "blackbox.current_game"
    post(client, {"type": "finish"})
    r = client.delete(f"/api/blackbox/games/{game}", headers=BEARER)
    assert r.status_code == 200 and r.json["freed"] > 0 and r.json["games"] == []
    r = client.get(f"/api/games/{game}/frames", headers=BEARER)
    assert r.status_code == 200 and r.json["frames"] == []
    assert client.get(f"/api/games/{game}/timelapse", headers=BEARER).status_code == 404
