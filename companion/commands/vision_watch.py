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
from companion.vision.types import PLAYER_COLORS

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


def parse_colours(text: str | None) -> frozenset[str] | None:
    """``--colours red,blue``: the colours that play (None: not given). Raises CommandError on
    an unknown colour, a colour named twice or an empty list."""
    if text is None:
        return None
    from companion.cli import CommandError
    from companion.core.cards import parse_player_color
    from companion.core.errors import NotationError

    names = [part for part in (p.strip() for p in text.split(",")) if part]
    if not names:
        raise CommandError("--colours needs at least one player colour, e.g. red,blue")
    try:
        colours = [parse_player_color(name) for name in names]
    except NotationError as exc:
        raise CommandError(f"--colours: {exc}") from None
    twice = sorted({c for c in colours if colours.count(c) > 1})
    if twice:
        raise CommandError(f"--colours names {', '.join(twice)} more than once")
    return frozenset(colours)


def guess_line(players: frozenset[str] | None) -> str:
    """The sentence that says for which colours the same-colour guess is made."""
    if players is None:
        return (
            "same-colour guess: for every player colour (pass --colours to name the colours "
            "that play)"
        )
    ordered = [c for c in PLAYER_COLORS if c in players]
    return f"same-colour guess: only for {', '.join(ordered)}"


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
    players = parse_colours(getattr(args, "colours", None))
    calibration = _load_calibration(getattr(args, "calibration", None))
    try:
        source = open_camera(getattr(args, "source", "auto") or "auto", fps=fps)
        reader = _reader_for(getattr(args, "reader", "auto") or "auto", source, calibration)
        if players is None and isinstance(source, SimulatedCamera):
            players = frozenset(source.script.players)  # as the table simulator is told
        watcher = LiveWatcher(reader, players=players)
        n = watch(source, watcher, frames=frames, as_json=bool(getattr(args, "json", False)))
    except SourceError as exc:
        from companion.doctor.words import source_problem

        raise CommandError(source_problem(exc)) from None
    s = watcher.stats
    print(
        f"{n} frames: {s['claims']} claims, {s['stations']} stations, {s['vetoes']} vetoed, "
        f"{s['confirmations']} to confirm; {s['reads']} readings, {s['occluded']} frames "
        f"occluded, {s['moving']} moving",
        file=sys.stderr,
    )
    print(guess_line(watcher.players), file=sys.stderr)
    return 0
