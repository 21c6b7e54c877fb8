"""A saved board calibration: where the board is in a fixed camera's frame.

The file (JSON) holds the board's four corners in the frame (TL TR BR BL, board orientation), the
frame size, whether the corners were found automatically or given by hand, and the quality of the
fit when saved. ``check_registration`` tells whether the board is still where the calibration
says (it was not bumped); ``reregister`` locates it again when it was.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.durable import write_atomic
from companion.vision.decide.context import ReadContext, default_context
from companion.vision.features.sample import U8Array
from companion.vision.geometry.geometry import FloatArray, corners_homography, homography_corners
from companion.vision.locate.fit import board_fit
from companion.vision.locate.locate import BoardLocation, locate_board

FORMAT = "companion-vision-calibration/1"


class CalibrationError(ValueError):
    """A calibration file that cannot be used (missing, malformed, wrong frame)."""


@dataclass(frozen=True)
class Calibration:
    corners: tuple[tuple[float, float], ...]  # TL TR BR BL in frame pixels
    image_size: tuple[int, int]  # (width, height)
    method: str  # "manual" or "automatic"
    quality: float  # share of spaces explained when it was made
    created: float = 0.0  # unix time

    @property
    def homography(self) -> FloatArray:
        return corners_homography(np.array(self.corners, dtype=np.float64))

    def location(self, image_size: tuple[int, int] | None = None) -> BoardLocation:
        """The board location for frames of ``image_size`` (default: the calibrated size)."""
        loc = BoardLocation(self.homography, self.quality, self.image_size, method="calibration")
        if image_size is not None and tuple(image_size) != tuple(self.image_size):
            loc = loc.scaled(image_size)
        return loc

    @staticmethod
    def from_location(loc: BoardLocation, method: str = "automatic") -> Calibration:
        c = homography_corners(loc.homography)
        return Calibration(
            corners=tuple((round(float(x), 2), round(float(y), 2)) for x, y in c),
            image_size=(int(loc.image_size[0]), int(loc.image_size[1])),
            method=method,
            quality=round(float(loc.quality), 4),
            created=time.time(),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "board": "europe",
            "corners": [list(c) for c in self.corners],
            "image_size": list(self.image_size),
            "method": self.method,
            "quality": self.quality,
            "created": self.created,
        }

    @staticmethod
    def from_json(data: Any) -> Calibration:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError("not a companion vision calibration file")
        try:
            corners = np.asarray(data["corners"], dtype=np.float64)
            size = [int(v) for v in data["image_size"]]
            method = str(data["method"])
            quality = float(data.get("quality", 0.0))
            created = float(data.get("created", 0.0))
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"calibration file is malformed ({exc})") from None
        if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
            raise CalibrationError("calibration corners must be four x,y pairs")
        if len(size) != 2 or min(size) <= 0:
            raise CalibrationError("calibration image_size must be two positive numbers")
        if method not in ("manual", "automatic"):
            raise CalibrationError("calibration method must be manual or automatic")
        return Calibration(
            corners=tuple((float(x), float(y)) for x, y in corners),
            image_size=(size[0], size[1]),
            method=method,
            quality=quality,
            created=created,
        )


def default_path() -> Path:
    from companion.config import default_state_dir

    override = os.environ.get("COMPANION_STATE_DIR", "")
    base = Path(override) if override else default_state_dir(os.environ)
    return base / "vision_calibration.json"


def save(cal: Calibration, path: Path) -> None:
    """Written whole or not at all (``durable.write_atomic``: a crash leaves the old file or the
    new one), 0644; written by root, given to its folder's owner (the state directory's, whose
    service reads it and may calibrate again), like ``last-backup.json``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = (json.dumps(cal.to_json(), indent=1) + "\n").encode("utf-8")
    write_atomic(path, body, mode=0o644, owner_of=path.parent)


def load(path: Path) -> Calibration:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"cannot read calibration {path}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise CalibrationError(f"calibration {path} is not JSON") from None
    return Calibration.from_json(data)


def manual(corners: Any, image_size: tuple[int, int]) -> Calibration:
    """A hand-given calibration (the 4-corner override), kept as given."""
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    return Calibration(
        corners=tuple((float(x), float(y)) for x, y in c),
        image_size=(int(image_size[0]), int(image_size[1])),
        method="manual",
        quality=0.0,
        created=time.time(),
    )


@dataclass(frozen=True)
class RegistrationCheck:
    ok: bool
    quality: float  # share of spaces explained under the calibration on this frame
    threshold: float


def check_registration(
    frame: U8Array, cal: Calibration, *, context: ReadContext | None = None
) -> RegistrationCheck:
    """Is the board still where ``cal`` says in ``frame``?"""
    ctx = context if context is not None else default_context()
    loc = cal.location((frame.shape[1], frame.shape[0]))
    explained, _ = board_fit(frame, loc.homography, ctx)
    thr = float(ctx.cfg["calibration"]["still_there_min_explained"])
    return RegistrationCheck(ok=explained >= thr, quality=explained, threshold=thr)


def reregister(
    frame: U8Array, cal: Calibration, *, context: ReadContext | None = None
) -> Calibration:
    """Locate the board again (after a bump). Raises NoBoardError when it is not found.

    A manual calibration is replaced by an automatic one only if the board moved.
    """
    ctx = context if context is not None else default_context()
    check = check_registration(frame, cal, context=ctx)
    if check.ok:
        return cal
    return Calibration.from_location(locate_board(frame, context=ctx), method="automatic")


def overlay(frame: U8Array, loc: BoardLocation, reading: Any = None) -> U8Array:
    """A picture to check a calibration: the board outline, every space box and city spot."""
    import cv2

    from companion.vision.geometry.geometry import load_geometry, project

    g = load_geometry()
    out = frame.copy()
    thick = max(1, round(max(frame.shape[:2]) / 800))
    c = homography_corners(loc.homography).astype(np.int32)
    cv2.polylines(out, [c.reshape(-1, 1, 2)], True, (0, 255, 0), 2 * thick)
    cv2.circle(out, (int(c[0][0]), int(c[0][1])), 6 * thick, (0, 255, 0), -1)  # top-left mark
    colours = {
        None: (255, 0, 255),
        "blue": (255, 80, 0),
        "red": (0, 0, 255),
        "green": (0, 160, 0),
        "yellow": (0, 230, 255),
        "black": (40, 40, 40),
    }
    a = g.aspect
    for rid in g.route_ids:
        owner = reading.routes.get(rid) if reading is not None else None
        for b in g.spaces[rid]:
            th = np.radians(b.angle)
            dl = np.array([np.cos(th), np.sin(th)]) * b.length * a / 2
            dw = np.array([-np.sin(th), np.cos(th)]) * b.width / 2
            cen = np.array([b.u * a, b.v])
            pts = np.array([cen - dl - dw, cen + dl - dw, cen + dl + dw, cen - dl + dw])
            pts[:, 0] /= a
            img = project(loc.homography, pts).astype(np.int32)
            cv2.polylines(
                out, [img.reshape(-1, 1, 2)], True, colours.get(owner, (255, 0, 255)), thick
            )
    for cid in g.city_ids:
        s = g.cities[cid]
        p = project(loc.homography, np.array([[s.u, s.v]]))[0]
        cv2.circle(out, (int(p[0]), int(p[1])), 5 * thick, (0, 255, 255), thick)
    return np.asarray(out, dtype=np.uint8)
