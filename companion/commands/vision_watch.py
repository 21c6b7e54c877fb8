"""`companion vision watch`: print claims and stations as a camera (or a video) sees them."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any, TextIO

from companion.sim.camera import SimulatedCamera, open_camera
from companion.vision.live.live import Event, FrameReader, LiveWatcher, VisionReader
from companion.vision.live.sources import FrameSource, SourceError

log = logging.getLogger(__name__)


def _reader_for(kind: str, source: FrameSource, calibration: Any) -> FrameReader:
    from companion.cli import CommandError

    if kind == "auto":
        kind = "oracle" if isinstance(source, SimulatedCamera) else "vision"
    if kind == "oracle":
        if not isinstance(source, SimulatedCamera):
            raise CommandError("--reader oracle only reads the simulated camera (--source sim)")
        from companion.sim.live_oracle import OracleReader

        return OracleReader(source.renderer.geometry, seed=source.seed)
    if kind == "vision":
        try:
            import companion.vision.reading.read  # noqa: F401
        except ImportError as exc:
            raise CommandError(f"the board reader is not available: {exc}") from None
        return VisionReader(calibration)
    raise CommandError(f"unknown reader {kind!r}: use auto, vision or oracle")


def _load_calibration(path: str | None) -> Any:
    if not path:
        return None
    from companion.cli import CommandError

    try:
        from companion.vision.locate import calibration as cal_mod
    except ImportError as exc:
        raise CommandError(f"calibrations cannot be read here: {exc}") from None
    try:
        return cal_mod.load(Path(path))
    except ValueError as exc:  # CalibrationError is a ValueError
        raise CommandError(str(exc)) from None


def _print(event: Event, as_json: bool, out: TextIO) -> None:
    if as_json:
        out.write(json.dumps(event.to_json(), sort_keys=False) + "\n")
    else:
        out.write(f"[{event.t:8.2f}s frame {event.frame:6d}] {event.text()}\n")
    out.flush()


def watch(
    source: FrameSource,
    watcher: LiveWatcher,
    *,
    frames: int | None = None,
    as_json: bool = False,
    out: TextIO | None = None,
) -> int:
    """Feed ``source`` to ``watcher`` and print its events; returns the number of frames seen."""
    out = out or sys.stdout
    n = 0
    with source:
        for frame in source:
            for event in watcher.process(frame):
                _print(event, as_json, out)
            n += 1
            if frames is not None and n >= frames:
                break
    return n


def watch_main(args: argparse.Namespace) -> int:
    from companion.cli import CommandError

    frames = getattr(args, "frames", None)
    if frames is not None and frames <= 0:
        raise CommandError("--frames must be a positive number of frames")
    fps = getattr(args, "fps", None)
    if fps is not None and fps <= 0:
        raise CommandError("--fps must be positive")
    calibration = _load_calibration(getattr(args, "calibration", None))
    try:
        source = open_camera(getattr(args, "source", "auto") or "auto", fps=fps)
        reader = _reader_for(getattr(args, "reader", "auto") or "auto", source, calibration)
        watcher = LiveWatcher(reader)
        n = watch(source, watcher, frames=frames, as_json=bool(getattr(args, "json", False)))
    except SourceError as exc:
        raise CommandError(str(exc)) from None
    s = watcher.stats
    print(
        f"{n} frames: {s['claims']} claims, {s['stations']} stations, {s['vetoes']} vetoed, "
        f"{s['confirmations']} to confirm; {s['reads']} readings, {s['occluded']} frames "
        f"occluded, {s['moving']} moving",
        file=sys.stderr,
    )
    return 0
