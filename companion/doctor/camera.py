"""What the set-up check measures of the table's camera, from a few of its frames.

:func:`capture` reads frames from a :class:`~companion.vision.live.sources.FrameSource` for a
span of
its own clock (10 s by default), keeping a few of them spread over the span; a source that can
jump to any frame (``Seekable``: the simulated camera) gives only the kept ones.
:func:`measure` turns a :class:`Capture` into :class:`CameraFacts` with the vision pipeline:
the board located in each kept frame (``vision.locate``), the size of a train space in pixels
(``vision.geometry``), the sharpness (variance of the Laplacian) and the share of clipped pixels
on the board, and how far the located board moved between the kept frames (in train-space
lengths). Pure but for the frames it is given: no device is opened here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from companion.vision.live.sources import Frame

log = logging.getLogger(__name__)


@runtime_checkable
class Seekable(Protocol):
    """A source that renders any frame on demand (the simulated camera)."""

    fps: float

    def frame_at(self, index: int) -> Frame: ...


class Readable(Protocol):
    """What :func:`capture` reads: a ``FrameSource``'s ``read`` (None at the end)."""

    def read(self) -> Frame | None: ...


@dataclass(frozen=True)
class Capture:
    """Frames kept from a camera: ``frames`` spread over ``span`` seconds of the camera's own
    clock, out of ``read`` frames it gave in that time."""

    frames: tuple[Frame, ...]
    read: int
    span: float

    @property
    def fps(self) -> float:
        """Frames per second the camera gave (0 when it gave fewer than two)."""
        if self.read < 2 or self.span <= 0:
            return 0.0
        return (self.read - 1) / self.span


@dataclass(frozen=True)
class CameraFacts:
    """What the checks look at. ``None``: not measured (no board located, no frame)."""

    width: int
    height: int
    fps: float
    located: int  # kept frames in which the board was found
    looked: int  # kept frames looked at
    quality: float | None = None  # share of the board's spaces that look right (0..1)
    space_px: float | None = None  # median length of a train space, in pixels
    sharpness: float | None = None  # variance of the Laplacian of the board's grey picture
    clipped: float | None = None  # share of the board's pixels at the sensor's ends
    moved: float | None = None  # the board's largest corner shift, in train-space lengths
    span: float = 0.0  # seconds the located frames cover
    details: dict[str, float] = field(default_factory=dict)


def capture(
    source: Readable,
    seconds: float,
    keep: int,
    *,
    clock: Callable[[], float] = time.monotonic,
    timeout: float | None = None,
) -> Capture:
    """Read ``seconds`` of frames from an opened ``source`` (by the frames' own timestamps)
    and keep ``keep`` of them spread over that span. Stops early at the end of the stream, or
    after ``timeout`` wall seconds (default: twice the span and 5 s more). Raises the source's
    ``SourceError``."""
    keep = max(2, int(keep))
    if isinstance(source, Seekable):
        fps = float(source.fps)
        last = max(1, round(seconds * fps))
        picks = sorted({round(i * last / (keep - 1)) for i in range(keep)})
        frames = tuple(source.frame_at(i) for i in picks)
        return Capture(frames, last + 1, last / fps)
    limit = timeout if timeout is not None else 2 * seconds + 5.0
    started = clock()
    kept: list[Frame] = []
    read = 0
    t0: float | None = None
    t_last = 0.0
    while clock() - started <= limit:
        frame = source.read()
        if frame is None:
            break
        read += 1
        if t0 is None:
            t0 = frame.timestamp
        t = frame.timestamp - t0
        t_last = t
        if not kept or t >= len(kept) * seconds / (keep - 1) - 1e-9:
            kept.append(frame)
        if t >= seconds:
            break
    return Capture(tuple(kept), read, t_last)


def board_pixels(image: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """A mask (uint8, 255 inside) of the board's quadrilateral in ``image``."""
    from companion.vision.geometry.geometry import homography_corners

    mask = np.zeros(image.shape[:2], np.uint8)
    corners = homography_corners(np.asarray(homography, np.float64))
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 255)
    return mask


def sharpness(image: np.ndarray, mask: np.ndarray | None = None, *, scale: float = 1.0) -> float:
    """Variance of the Laplacian of the grey picture (inside ``mask``): high when sharp.
    ``scale`` (at most 1) shrinks the picture first, so that pictures of the board at different
    sizes are judged alike (the checks shrink it to a fixed length of a train space)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    if scale < 1.0:
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if mask is not None:
            size = (grey.shape[1], grey.shape[0])
            mask = cv2.resize(mask, size, interpolation=cv2.INTER_NEAREST)
    lap = cv2.Laplacian(grey, cv2.CV_64F)
    if mask is None:
        return float(lap.var())
    inner = cv2.erode(mask, np.ones((5, 5), np.uint8))  # the board's own edge is no detail
    values = lap[inner > 0]
    return float(values.var()) if values.size else 0.0


def clipped_share(
    image: np.ndarray, mask: np.ndarray | None = None, *, high: int = 250, low: int = 5
) -> float:
    """Share of pixels (inside ``mask``) blown out to white (every channel at ``high`` or
    above: glare, over-exposure) or sunk to black (every channel at ``low`` or below), where no
    colour can be told."""
    pix = image.reshape(-1, image.shape[2]) if image.ndim == 3 else image.reshape(-1, 1)
    bad = (pix.min(axis=1) >= high) | (pix.max(axis=1) <= low)
    if mask is not None:
        inside = mask.reshape(-1) > 0
        n = int(inside.sum())
        return float(bad[inside].sum()) / n if n else 0.0
    return float(bad.mean()) if bad.size else 0.0


def space_lengths_px(homography: np.ndarray) -> np.ndarray:
    """The length in pixels of every train space of the board under ``homography``."""
    from companion.vision.geometry.geometry import load_geometry, project

    geo = load_geometry()
    a = geo.aspect
    boxes = geo.space_boxes()
    cu = np.array([b.u * a for b in boxes])
    cv = np.array([b.v for b in boxes])
    half = np.array([b.length * a for b in boxes]) / 2
    th = np.radians([b.angle for b in boxes])
    ends = np.stack(
        [
            np.stack([(cu - half * np.cos(th)) / a, cv - half * np.sin(th)], axis=-1),
            np.stack([(cu + half * np.cos(th)) / a, cv + half * np.sin(th)], axis=-1),
        ],
        axis=1,
    )
    px = project(np.asarray(homography, np.float64), ends)
    return np.asarray(np.hypot(*(px[:, 1] - px[:, 0]).T), np.float64)


def corner_shift(corners: list[np.ndarray]) -> float:
    """The largest distance (pixels) any corner of the board moved from its first place."""
    if len(corners) < 2:
        return 0.0
    first = corners[0]
    return float(max(np.hypot(*(c - first).T).max() for c in corners[1:]))


def measure(
    cap: Capture,
    *,
    locate: Callable[[np.ndarray], Any] | None = None,
    space_px: float = 24.0,
    high: int = 250,
    low: int = 5,
) -> CameraFacts:
    """The camera's facts from a capture. ``locate``: image -> ``BoardLocation`` (default:
    ``vision.locate.locate_board``; it raises ``NoBoardError`` when no board is seen).
    ``space_px``: the sharpness is measured on the picture shrunk to this length of a train
    space (when it is larger); ``high``/``low``: the clipped pixels' levels."""
    from companion.vision.types import NoBoardError

    if locate is None:
        from companion.vision.locate.locate import locate_board

        locate = locate_board
    if not cap.frames:
        return CameraFacts(0, 0, cap.fps, 0, 0)
    h, w = cap.frames[0].image.shape[:2]
    found: list[tuple[Frame, Any]] = []
    for frame in cap.frames:
        try:
            found.append((frame, locate(frame.image)))
        except NoBoardError as exc:
            log.info("doctor: no board in frame %d (%s)", frame.index, exc)
    if not found:
        return CameraFacts(w, h, cap.fps, 0, len(cap.frames))
    frame, loc = found[-1]
    hom = np.asarray(loc.homography, np.float64)
    mask = board_pixels(frame.image, hom)
    space = float(np.median(space_lengths_px(hom)))
    corners = [np.asarray(loc.corners, np.float64).reshape(4, 2) for _, loc in found]
    shift_px = corner_shift(corners)
    return CameraFacts(
        w,
        h,
        cap.fps,
        len(found),
        len(cap.frames),
        quality=float(loc.quality),
        space_px=space,
        sharpness=sharpness(frame.image, mask, scale=min(1.0, space_px / space) if space else 1.0),
        clipped=clipped_share(frame.image, mask, high=high, low=low),
        moved=shift_px / space if space > 0 else None,
        span=float(found[-1][0].timestamp - found[0][0].timestamp),
        details={"moved_px": shift_px},
    )
