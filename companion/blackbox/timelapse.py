"""A game's board, again: the photo at each log position, and the time-lapse of the whole game.

``positions``: for each log position where the camera saw the board, the last frame kept at it
(the board as the move left it, before the next one). ``timelapse``: those frames, in order, as
an animated WebP (OpenCV 4.11's ``imwriteanimation``) or else an MP4 (``VideoWriter``, mp4v), a
few seconds long (``timelapse_seconds``; ``timelapse_fps_min``..``timelapse_fps_max`` frames a
second; more positions than that are thinned evenly), ``timelapse_width`` pixels wide.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from companion.blackbox import layout


def positions(records: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Log position -> the last frame record kept at it."""
    out: dict[int, dict[str, Any]] = {}
    for r in records:
        if r.get("type") == "frame" and r.get("file"):
            out[int(r["seq"])] = r
    return dict(sorted(out.items()))


def frame_file(state_dir: Path, game_id: str, n: int) -> Path | None:
    """The file of frame ``n`` of a game's recording (None: there is none)."""
    folder = layout.game_dir(state_dir, game_id)
    path = folder / layout.frame_name(n)
    return path if path.is_file() else None


def choose(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], float]:
    """The frames of the time-lapse (one per position, distinct pictures, thinned) and its
    frame rate."""
    cfg = layout.settings()
    seen: set[int] = set()
    frames = []
    for r in positions(records).values():
        if int(r["n"]) not in seen:
            seen.add(int(r["n"]))
            frames.append(r)
    seconds = float(cfg["timelapse_seconds"])
    fps_max, fps_min = float(cfg["timelapse_fps_max"]), float(cfg["timelapse_fps_min"])
    most = max(1, int(seconds * fps_max))
    if len(frames) > most:
        step = len(frames) / most
        frames = [frames[int(i * step)] for i in range(most)]
    fps = min(fps_max, max(fps_min, len(frames) / seconds))
    return frames, fps


def timelapse(state_dir: Path, game_id: str) -> tuple[bytes, str] | None:
    """(the time-lapse's bytes, its media type), or None when the game has no frame. Kept in the
    game's folder (``timelapse.webp`` / ``.mp4``) until its index changes."""
    folder = layout.game_dir(state_dir, game_id)
    index = folder / layout.INDEX
    if not index.is_file():
        return None
    for name, mime in (("timelapse.webp", "image/webp"), ("timelapse.mp4", "video/mp4")):
        kept = folder / name
        try:
            if kept.stat().st_mtime_ns >= index.stat().st_mtime_ns:
                return kept.read_bytes(), mime
        except OSError:
            continue
    made = make(state_dir, game_id)
    if made is not None:
        ext = "webp" if made[1] == "image/webp" else "mp4"
        tmp = folder / f".timelapse.{ext}"
        try:
            tmp.write_bytes(made[0])
            tmp.replace(folder / f"timelapse.{ext}")
        except OSError:
            tmp.unlink(missing_ok=True)
    return made


def make(state_dir: Path, game_id: str) -> tuple[bytes, str] | None:
    """The time-lapse made afresh (see :func:`timelapse`)."""
    import cv2
    import numpy as np

    records = layout.read_index(layout.game_dir(state_dir, game_id))
    chosen, fps = choose(records)
    width = int(layout.settings()["timelapse_width"])
    pictures = []
    for r in chosen:
        path = frame_file(state_dir, game_id, int(r["n"]))
        if path is None:
            continue
        image = cv2.imdecode(np.fromfile(str(path), np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        if w > width:
            image = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
        pictures.append(image)
    if not pictures:
        return None
    if hasattr(cv2, "imwriteanimation") and hasattr(cv2, "Animation"):
        return _webp(pictures, fps), "image/webp"
    return _mp4(pictures, fps), "video/mp4"


def _webp(pictures: list[Any], fps: float) -> bytes:
    import cv2

    anim = cv2.Animation()
    anim.frames = pictures
    anim.durations = [round(1000 / fps)] * len(pictures)
    return _through_file(
        ".webp", lambda p: cv2.imwriteanimation(p, anim, [cv2.IMWRITE_WEBP_QUALITY, 70])
    )


def _mp4(pictures: list[Any], fps: float) -> bytes:
    import cv2

    h, w = pictures[0].shape[:2]

    def write(path: str) -> bool:
        out = cv2.VideoWriter(path, cv2.VideoWriter.fourcc(*"mp4v"), fps, (w, h))
        if not out.isOpened():
            return False
        for p in pictures:
            out.write(p)
        out.release()
        return True

    return _through_file(".mp4", write)


def _through_file(suffix: str, write: Any) -> bytes:
    fd, path = tempfile.mkstemp(prefix="companion-timelapse-", suffix=suffix)
    os.close(fd)
    try:
        if not write(path):
            raise ValueError("OpenCV could not write the time-lapse")
        return Path(path).read_bytes()
    finally:
        Path(path).unlink(missing_ok=True)
