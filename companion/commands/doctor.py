"""`companion doctor`: the set-up check (camera, card reader, controls, storage, network, clock,
versions), each line ok / warn / fail with its advice.

    companion doctor [--json] [--state-dir DIR] [--camera sim|auto|none|SOURCE]
                     [--reader sim|auto|none|PORT] [--config FILE]

Exit 0 when nothing fails, 1 when something does, 2 on bad input. ``sim``: the demo's
simulated camera (a steady empty board) and card reader (on a pty, a card put on it for the
test tap). While ``companion serve`` runs, its camera and reader are in use: the host page's
点検 section checks them through the service.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.config import CameraConfig

CAMERA_KINDS = ("sim", "auto", "none", "picamera2", "v4l2", "file")
MARKS = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


def register(sub: Any) -> None:
    p = sub.add_parser("doctor", help="check the set-up: camera, reader, controls, storage, ...")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.add_argument("--state-dir", help="the state directory (default: the configuration's)")
    p.add_argument(
        "--camera",
        default="auto",
        metavar="SOURCE",
        help="sim, auto (the configured camera), none, or a source such as v4l2:/dev/video0",
    )
    p.add_argument(
        "--reader",
        default="auto",
        metavar="PORT",
        help="sim, auto (the configured reader), none, or a serial port",
    )
    p.add_argument("--config", help="configuration file (TOML)")
    p.set_defaults(func=run)


def configured_camera_problem(camera: CameraConfig) -> str | None:
    """Why the configured ``camera`` cannot work here, for a terminal
    (None: nothing known against it before it is opened). The Raspberry Pi camera without its
    software is said as the set-up check says it (its ``software_missing`` line: the words, the
    command in brackets); the rest is the configuration's ``camera_backend_problem``."""
    from companion.config import camera_backend_problem
    from companion.doctor.probes import camera_software_missing
    from companion.doctor.words import software_missing_line

    if camera_software_missing(camera.source or None):
        return software_missing_line(camera.source)
    return camera_backend_problem(camera)


def camera_choice(spec: str, cfg: Any) -> tuple[str | None, Callable[[], Any] | None, str | None]:
    """(name, source maker, problem) of ``--camera``; CommandError for a bad one."""
    from companion.cli import CommandError

    text = (spec or "auto").strip()
    kind, _, arg = text.partition(":")
    kind = kind.lower()
    if kind not in CAMERA_KINDS:
        raise CommandError(
            f"unknown camera {text!r}: use sim, auto, none, picamera2, v4l2:DEVICE or file:PATH"
        )
    if kind == "none":
        return None, None, None
    if kind == "sim":
        return "sim", simulated_camera(arg), None
    if kind == "auto":
        source = cfg.camera.source
        if not source:
            return None, None, None
        problem = configured_camera_problem(cfg.camera)
        if problem is not None:
            return source, None, problem
        text = source
    from companion.vision.live.sources import SourceError, open_source

    try:
        open_source(text)  # checks the text; opens nothing
    except SourceError as exc:
        if kind == "auto":
            return text, None, str(exc)
        raise CommandError(str(exc)) from None
    return text, lambda: open_source(text), None


def simulated_camera(arg: str) -> Callable[[], Any]:
    """The demo's simulated camera over an empty board (``sim:SEED[@WxH]``)."""
    from companion.cli import CommandError
    from companion.vision.live.sources import SourceError, parse_size

    seed_text, _, size_text = arg.partition("@")
    try:
        seed = int(seed_text) if seed_text else 2026
        size = parse_size(size_text) if size_text else None
    except (ValueError, SourceError) as exc:
        raise CommandError(f"--camera sim:{arg}: {exc}") from None

    def make() -> Any:
        from companion.commands.demo_game import CAMERA_FPS, CAMERA_SIZE
        from companion.sim.camera import SimulatedCamera

        cam = SimulatedCamera([], seed=seed, fps=CAMERA_FPS, size=size or CAMERA_SIZE)
        cam.duration = 1e6  # as long as the check reads
        return cam

    return make


@contextmanager
def simulated_reader() -> Iterator[tuple[str, Callable[[], None]]]:
    """The demo's simulated card reader on a pty: (its port, put a card on it)."""
    from companion.reader.simulated import SimulatedReader

    with tempfile.TemporaryDirectory(prefix="companion-doctor-") as tmp:
        sim = SimulatedReader(Path(tmp) / "reader").start()
        try:
            yield sim.path, lambda: sim.tap("04A224B2C15E80")
        finally:
            sim.close()


def run(args: argparse.Namespace) -> int:
    from companion.cli import CommandError, config_of
    from companion.doctor import exit_code, report
    from companion.doctor.runner import Setup, controls_state
    from companion.doctor.runner import run as run_checks

    cfg = config_of(args)
    state_dir = Path(args.state_dir) if args.state_dir else cfg.server.state_dir
    if state_dir.exists() and not state_dir.is_dir():
        raise CommandError(f"the state directory {state_dir} is not a directory")
    camera, open_camera, camera_problem = camera_choice(args.camera, cfg)
    reader_spec = (args.reader or "auto").strip()
    if not reader_spec:
        raise CommandError("--reader needs sim, auto, none or a serial port")
    from companion.network import system_network

    with ExitStack() as stack:
        reader: str | None
        ready: Callable[[], None] | None = None
        if reader_spec == "sim":
            reader, ready = stack.enter_context(simulated_reader())
        elif reader_spec == "none":
            reader = None
        elif reader_spec == "auto":
            reader = cfg.reader.port if cfg.reader.enabled else None
        else:
            reader = reader_spec
        setup = Setup(
            state_dir=state_dir,
            camera=camera,
            open_camera=open_camera,
            reader=reader,
            reader_tap=ready is not None,
            reader_ready=ready,
            controls=controls_state(cfg.controls),
            network=system_network(),
        )
        if camera_problem is not None and camera is not None:
            from companion.doctor.runner import camera_trouble

            setup.camera_checks = camera_trouble(camera, camera_problem)
        checks = run_checks(setup)
    if args.json:
        print(json.dumps(report(checks), ensure_ascii=False))
    else:
        print_text(checks)
    return exit_code(checks)


def print_text(checks: list[Any]) -> None:
    from companion.doctor.words import told

    for c in checks:
        print(f"{MARKS[c.status]}  {c.id:<20} {told(c.code, c.params)}")
    held = ("camera.found", "reader.found", "controls.found")
    if any(c.status == "fail" and c.id in held for c in checks):
        print(
            "While `companion serve` runs, it holds the camera, the card reader and the "
            "buttons: check them on the host page (点検) instead."
        )
    sys.stdout.flush()
