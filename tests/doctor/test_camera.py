"""The camera's measurements on simulated frames (the simulator in tests only)."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.doctor.camera import (
    Capture,
    capture,
    clipped_share,
    corner_shift,
    measure,
    sharpness,
    space_lengths_px,
)
from companion.doctor.checks import camera_checks
from companion.sim.camera import SimulatedCamera
from companion.vision.live.sources import Frame, FrameSource

SIZE = (960, 540)


def steady_camera(script: list | None = None, seed: int = 5) -> SimulatedCamera:
    cam = SimulatedCamera(script or [], seed=seed, fps=5.0, size=SIZE)
    cam.duration = 1e6
    return cam


@pytest.fixture(scope="module")
def steady() -> Capture:
    return capture(steady_camera(), 10.0, 3)


def test_a_seekable_camera_gives_only_the_kept_frames(steady: Capture) -> None:
    assert [f.index for f in steady.frames] == [0, 25, 50]
    assert steady.read == 51 and steady.span == pytest.approx(10.0)
    assert steady.fps == pytest.approx(5.0)


class Stream(FrameSource):
    """A plain (not seekable) source of ``n`` frames at ``fps``."""

    def __init__(self, image: np.ndarray, fps: float, n: int) -> None:
        self.image, self.fps, self.n, self.i = image, fps, n, 0

    def read(self) -> Frame | None:
        if self.i >= self.n:
            return None
        f = Frame(self.image, self.i / self.fps, self.i)
        self.i += 1
        return f


def test_a_stream_is_read_for_the_span_and_kept_spread() -> None:
    img = np.zeros((40, 60, 3), np.uint8)
    src = Stream(img, 4.0, 1000)
    cap = capture(src, 10.0, 5, clock=lambda: 0.0)
    assert cap.read == 41 and cap.span == pytest.approx(10.0)
    assert [f.index for f in cap.frames] == [0, 10, 20, 30, 40]
    assert cap.fps == pytest.approx(4.0)
    short = capture(Stream(img, 4.0, 6), 10.0, 5)
    assert short.read == 6 and short.span == pytest.approx(1.25)
    assert short.frames[0].index == 0
    # a camera slower than its stamps: reading stops after the wall-clock limit
    slow = capture(Stream(img, 4.0, 1000), 10.0, 5, clock=itertools.count().__next__, timeout=7)
    assert slow.read == 7 and slow.span == pytest.approx(1.5)


def test_a_steady_simulated_board_measures_well(steady: Capture) -> None:
    facts = measure(steady)
    assert (facts.width, facts.height) == SIZE
    assert facts.located == facts.looked == 3
    assert facts.quality is not None and facts.quality > 0.8
    assert facts.space_px is not None and 20 < facts.space_px < 35
    assert facts.sharpness is not None and facts.sharpness > 300
    assert facts.clipped is not None and facts.clipped < 0.01
    assert facts.moved is not None and facts.moved < 0.35
    statuses = {c.id: c.status for c in camera_checks("sim", facts)}
    assert statuses["camera.board"] == statuses["camera.steady"] == "ok"
    assert statuses["camera.sharpness"] == statuses["camera.glare"] == "ok"


def test_blur_and_glare_are_measured_on_the_board(steady: Capture) -> None:
    frame = steady.frames[0]
    loc_facts = measure(Capture((frame,), 1, 0.0))
    assert loc_facts.sharpness is not None
    blurred = cv2.GaussianBlur(frame.image, (0, 0), 1.2)
    mask = np.full(frame.image.shape[:2], 255, np.uint8)
    assert sharpness(blurred, mask) < 0.5 * sharpness(frame.image, mask)
    bright = cv2.convertScaleAbs(frame.image, alpha=1.6)
    assert clipped_share(bright, mask) > 0.1 > clipped_share(frame.image, mask)
    dark = np.zeros_like(frame.image)
    assert clipped_share(dark) == 1.0


def test_a_bumped_board_is_not_steady() -> None:
    cam = steady_camera([{"t": 5.0, "nudge": [40, 25, 2.0]}])
    facts = measure(capture(cam, 10.0, 3))
    assert facts.located == 3
    assert facts.moved is not None and facts.moved > 1.0
    steady = {c.id: c.status for c in camera_checks("sim", facts)}
    assert steady["camera.steady"] == "fail"


def test_no_board_in_view() -> None:
    img = np.full((540, 960, 3), 128, np.uint8)
    facts = measure(Capture((Frame(img, 0.0, 0),), 1, 0.0))
    assert facts.located == 0 and facts.looked == 1 and facts.quality is None
    assert {c.id: c.status for c in camera_checks("x", facts)}["camera.board"] == "fail"


def test_space_length_and_corner_shift_from_geometry() -> None:
    h = np.array([[1500.0, 0, 0], [0, 1000.0, 0], [0, 0, 1]])  # the board 1500 x 1000 px
    lengths = space_lengths_px(h)
    assert lengths.shape == (300,)  # every train space of the board
    # hardware/README.md: a median space is 28.0 mm of an 800 mm wide board
    assert float(np.median(lengths)) == pytest.approx(1500 * 28.0 / 800, rel=0.1)
    a = np.zeros((4, 2))
    assert corner_shift([a, a + np.array([3.0, 4.0]), a]) == pytest.approx(5.0)
    assert corner_shift([a]) == 0.0


def test_a_picture_that_cannot_be_measured_fails_the_camera(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import companion.doctor.camera as camera
    from companion.doctor.runner import camera_from_capture

    def broken(*args: object, **kw: object) -> None:
        raise ValueError("a frame of the wrong kind")

    monkeypatch.setattr(camera, "measure", broken)
    lines = camera_from_capture("v4l2:/dev/video0", Capture((), 0, 0.0))
    assert [(c.id, c.status) for c in lines] == [("camera.found", "fail")]
    assert "wrong kind" in lines[0].params["detail"]
