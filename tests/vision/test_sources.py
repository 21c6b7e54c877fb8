"""Frame sources: files, the simulated camera, the factory and its messages."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.sim.camera import SimEvent, SimulatedCamera, open_camera, simulated_game
from companion.sim.render import BoardRenderer
from companion.vision.live.sources import (
    CameraSoftwareMissing,
    FileSource,
    Picamera2Source,
    SourceError,
    V4L2Source,
)


def _write_images(folder: Path, n: int) -> list[np.ndarray]:
    images = []
    for i in range(n):
        img = np.full((40, 60, 3), 10 * i, np.uint8)
        cv2.imwrite(str(folder / f"f{i:03d}.png"), img)
        images.append(img)
    return images


def test_file_source_reads_a_folder_in_order_with_timestamps(tmp_path: Path) -> None:
    images = _write_images(tmp_path, 5)
    (tmp_path / "notes.txt").write_text("not an image")
    with FileSource(str(tmp_path), fps=4.0) as src:
        frames = list(src)
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert [f.timestamp for f in frames] == [0.0, 0.25, 0.5, 0.75, 1.0]
    for f, img in zip(frames, images, strict=True):
        assert np.array_equal(f.image, img)


def test_file_source_glob_and_single_image(tmp_path: Path) -> None:
    _write_images(tmp_path, 4)
    src = open_camera(f"file:{tmp_path}/f00[13].png")
    with src:
        got = [int(f.image[0, 0, 0]) for f in src]
    assert got == [10, 30]
    with open_camera(f"file:{tmp_path / 'f002.png'}") as one:
        assert len(list(one)) == 1


def test_file_source_reads_a_video(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 12.0, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for i in range(6):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    with FileSource(str(path)) as src:
        frames = list(src)
    assert len(frames) == 6
    assert src.fps == pytest.approx(12.0)
    assert frames[3].timestamp == pytest.approx(0.25)
    assert abs(int(frames[3].image.mean()) - 120) < 8


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("file:/no/such/file.mp4", "no such file"),
        ("file:", "needs a path"),
        ("bogus:1", "unknown source"),
        ("sim:abc", "whole number"),
        ("v4l2:/dev/no-such-camera", "no camera"),
        ("picamera2:12by3", "frame size"),
    ],
)
def test_bad_specs_give_one_plain_sentence(spec: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        src = open_camera(spec)
        src.open()


def test_a_file_that_is_no_video(tmp_path: Path) -> None:
    p = tmp_path / "clip.mp4"
    p.write_bytes(b"this is not a video")
    with pytest.raises(SourceError, match="neither an image nor a video"):
        FileSource(str(p)).open()


def test_missing_picamera2_is_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as when not installed
    src = open_camera("picamera2:1280x720")
    assert isinstance(src, Picamera2Source) and src.size == (1280, 720)
    with pytest.raises(CameraSoftwareMissing) as caught:
        src.open()
    assert isinstance(caught.value, SourceError) and caught.value.source == "picamera2"


def test_factory_builds_each_kind() -> None:
    v = open_camera("v4l2:/dev/video3@640x480")
    assert isinstance(v, V4L2Source) and v.device == "/dev/video3" and v.size == (640, 480)
    s = open_camera("sim:7@320x180", fps=4)
    assert isinstance(s, SimulatedCamera) and s.seed == 7 and s.size == (320, 180)
    assert s.fps == 4


def test_simulated_camera_plays_its_script(renderer: BoardRenderer) -> None:
    script = [
        {"t": 0.5, "until": 2.5, "hand": [0.5, 0.4], "edge": "bottom", "sleeve": None},
        {"t": 1.5, "claim": "berlin-wien", "color": "green"},
        {"t": 3.0, "station": "wien", "color": "red"},
    ]
    cam = SimulatedCamera(script, seed=2, fps=4, size=(320, 180), renderer=renderer)
    assert cam.frame_count == 20  # the script's end plus two seconds
    with cam:
        frames = list(cam)
    assert len(frames) == 20
    by_t = {f.timestamp: f for f in frames}
    assert by_t[0.25].truth is not None and not by_t[0.25].truth.scene.routes
    assert by_t[1.5].truth is not None and by_t[1.5].truth.scene.routes == {"berlin-wien": "green"}
    assert by_t[1.5].truth.occlusion > 0 and by_t[1.5].truth.moving
    assert by_t[3.0].truth is not None and by_t[3.0].truth.scene.stations == {"wien": "red"}
    assert by_t[3.0].truth.occlusion == 0 and not by_t[3.0].truth.moving
    again = SimulatedCamera(script, seed=2, fps=4, size=(320, 180), renderer=renderer)
    assert np.array_equal(again.frame_at(7).image, frames[7].image)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"t": 1, "claim": "nowhere-else", "color": "red"}, "unknown route"),
        ({"t": 1, "claim": "berlin-wien", "color": "purple"}, "colour"),
        ({"t": 1, "station": "atlantis", "color": "red"}, "unknown city"),
        ({"t": 1, "until": 2, "hand": [0.5, 0.5], "edge": "up"}, "comes from"),
        ({"t": 1}, "no claim"),
        ({"claim": "berlin-wien"}, "bad simulated"),
    ],
)
def test_bad_scripts_are_refused(renderer: BoardRenderer, event: dict, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        SimulatedCamera([event], renderer=renderer)


def test_simulated_game_follows_the_piece_limits(renderer: BoardRenderer) -> None:
    geo = renderer.geometry
    for seed in range(3):
        script = simulated_game(seed, renderer=renderer)
        trains: dict[str, int] = {}
        stations: dict[str, int] = {}
        routes: set[str] = set()
        for e in script.events:
            if e.kind == "claim":
                assert e.route not in routes
                routes.add(e.route)
                trains[e.color] = trains.get(e.color, 0) + geo.routes[e.route].length
            elif e.kind == "station":
                stations[e.color] = stations.get(e.color, 0) + 1
        assert max(trains.values()) <= 45 and max(stations.values(), default=0) <= 3
        assert len(routes) >= 40  # a full game, not a few turns
        assert any(e.kind == "hand" for e in script.events)
        assert sum(e.kind == "nudge" for e in script.events) == 1
        times = [e.t for e in script.events]
        assert times == sorted(times)
    assert (
        simulated_game(1, renderer=renderer).events == simulated_game(1, renderer=renderer).events
    )


def test_sim_event_json_form() -> None:
    e = SimEvent.from_dict({"t": 2, "until": 4, "hand": [0.2, 0.3], "edge": "left", "skin": 2})
    assert e.kind == "hand" and e.target == (0.2, 0.3) and e.edge == "left" and e.until == 4
    n = SimEvent.from_dict({"t": 5, "nudge": [3, -2, 0.5]})
    assert n.kind == "nudge" and n.offset == (3.0, -2.0, 0.5)
