"""Handlers of `companion vision read` and `companion vision calibrate`."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)


def _imread(path: str) -> Any:
    import cv2

    from companion.cli import CommandError

    p = Path(path)
    if not p.is_file():
        raise CommandError(f"no such image file: {path}")
    image = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if image is None:
        raise CommandError(f"cannot read {path} as an image (JPEG or PNG expected)")
    return image


def _read_photo(path: str, ctx: Any) -> Any:
    """A photo decoded at the size the board needs and read (``vision.decode.read_photo``)."""
    from companion.cli import CommandError
    from companion.vision.reading.decode import NotAnImage, read_photo

    p = Path(path)
    if not p.is_file():
        raise CommandError(f"no such image file: {path}")
    try:
        return read_photo(p.read_bytes(), context=ctx)
    except NotAnImage:
        raise CommandError(f"cannot read {path} as an image (JPEG or PNG expected)") from None
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None


def _parse_corners(text: str) -> np.ndarray:
    from companion.cli import CommandError

    try:
        vals = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise CommandError("--corners needs 8 numbers: x1,y1,x2,y2,x3,y3,x4,y4") from None
    if len(vals) != 8 or not all(np.isfinite(vals)):
        raise CommandError("--corners needs 8 numbers: x1,y1,x2,y2,x3,y3,x4,y4")
    return np.array(vals, dtype=np.float64).reshape(4, 2)


def _format_table(reading: Any) -> str:
    lines = []
    owned = {
        c: [r for r, o in reading.routes.items() if o == c]
        for c in ("blue", "red", "green", "yellow", "black")
    }
    for colour, routes in owned.items():
        stations = [c for c, s in reading.stations.items() if s == colour]
        lines.append(f"{colour:>6}: {len(routes)} routes, {len(stations)} stations")
        for r in sorted(routes):
            lines.append(f"        {r}  ({reading.confidence.get(r, 0.0):.2f})")
        for c in sorted(stations):
            lines.append(f"        station {c}  ({reading.confidence.get(c, 0.0):.2f})")
    free = sum(1 for o in reading.routes.values() if o is None)
    lines.append(f"  free: {free} routes")
    for problem in reading.problems:
        lines.append(f"  problem: {problem['text']} ({', '.join(problem['ids'])})")
    if reading.check:
        lines.append(f"  check before use: {', '.join(reading.check)}")
    return "\n".join(lines)


def read_main(args: argparse.Namespace) -> int:
    from companion.cli import CommandError
    from companion.vision.decide.context import make_context
    from companion.vision.locate import calibration as calib
    from companion.vision.reading.read import read_board
    from companion.vision.types import NoBoardError

    # a photo is decoded at the size the board needs; with a calibration, at its own size
    image = _imread(args.image) if getattr(args, "calibration", None) else None
    ctx = make_context()
    location = None
    if image is not None:
        try:
            cal = calib.load(Path(args.calibration))
        except calib.CalibrationError as exc:
            raise CommandError(str(exc)) from None
        location = cal.location((image.shape[1], image.shape[0]))
    try:
        if image is None:
            reading = _read_photo(args.image, ctx)
        else:
            reading = read_board(image, location=location, context=ctx)
    except NoBoardError as exc:
        raise CommandError(f"{args.image}: {exc}") from None
    if args.json:
        print(json.dumps(reading.to_json(), indent=1))
    else:
        print(_format_table(reading))
    return 0


def _frame_from_source(spec: str) -> Any:
    from companion.cli import CommandError

    try:
        from companion.sim.camera import open_camera
        from companion.vision.live.sources import SourceError
    except ImportError:
        raise CommandError("camera sources are not available; use --image") from None
    try:
        src = open_camera(spec)
        with src:
            frame = src.read()
    except (SourceError, OSError) as exc:
        from companion.doctor.words import source_problem

        raise CommandError(f"camera: {source_problem(exc)}") from None
    if frame is None:
        raise CommandError(f"camera {spec} gave no frame")
    return frame.image


def calibrate_main(args: argparse.Namespace) -> int:
    import cv2

    from companion.cli import CommandError
    from companion.vision.decide.context import make_context
    from companion.vision.locate import calibration as calib
    from companion.vision.locate.locate import BoardLocation, locate_board
    from companion.vision.reading.read import read_board
    from companion.vision.types import NoBoardError

    frame = _imread(args.image) if args.image else _frame_from_source(args.source)
    size = (int(frame.shape[1]), int(frame.shape[0]))
    ctx = make_context()
    if args.corners:
        corners = _parse_corners(args.corners)
        cal = calib.manual(corners, size)
        loc = BoardLocation.from_corners(corners, size, method="manual", quality=0.0)
        check = calib.check_registration(frame, cal, context=ctx)
        cal = calib.Calibration(
            cal.corners, cal.image_size, "manual", round(check.quality, 4), cal.created
        )
        if not check.ok:
            print(f"warning: only {check.quality:.0%} of the spaces look right under these corners")
    else:
        try:
            loc = locate_board(frame, context=ctx)
        except NoBoardError as exc:
            raise CommandError(f"calibration: {exc}") from None
        cal = calib.Calibration.from_location(loc, method="automatic")
    out = Path(args.output) if args.output else calib.default_path()
    try:
        calib.save(cal, out)
    except OSError as exc:
        raise CommandError(f"cannot write {out}: {exc.strerror}") from None
    overlay_path = Path(args.overlay) if args.overlay else out.with_suffix(".png")
    try:
        reading = read_board(frame, location=loc, context=ctx)
    except NoBoardError:
        reading = None
    picture = calib.overlay(frame, loc, reading)
    if not cv2.imwrite(str(overlay_path), picture):
        raise CommandError(f"cannot write the overlay picture {overlay_path}")
    print(f"saved {cal.method} calibration to {out} (quality {cal.quality:.2f})")
    print(f"overlay picture: {overlay_path}")
    return 0
