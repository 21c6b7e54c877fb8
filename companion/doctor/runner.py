"""One runner for the set-up check: every area's facts gathered and judged, in a fixed order
(camera, card reader, controls, storage, network and whether the box routes, clock, versions).

The command (``companion doctor``) gives it devices to open; the running service
(``GET /api/doctor``) gives it what its own devices saw (:mod:`companion.doctor.live`), since
they are in use. Either way the lines are the same :class:`~companion.doctor.Check` objects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.doctor import Check, settings
from companion.doctor.checks import (
    ReaderFacts,
    camera_checks,
    clock_check,
    controls_check,
    network_checks,
    reader_checks,
    routing_check,
    storage_checks,
    versions_check,
)
from companion.doctor.probes import (
    Clock,
    Routing,
    StatusSource,
    StdlibNetwork,
    SystemClock,
    SystemRouting,
    camera_software_missing,
    probe_reader,
    storage_facts,
    versions,
)

if TYPE_CHECKING:
    from companion.doctor.camera import Capture

log = logging.getLogger(__name__)


def camera_trouble(name: str, problem: str) -> list[Check]:
    """The camera's line when it gave no picture: its software missing (the Pi camera without
    picamera2), or else the ``problem``."""
    return camera_checks(name, None, problem, software=not camera_software_missing(name))


def camera_from_capture(name: str, cap: Capture) -> list[Check]:
    """The camera's lines from frames already read."""
    from companion.doctor.camera import measure

    cfg = settings()["camera"]
    try:
        facts = measure(
            cap,
            space_px=float(cfg["sharp_space_px"]),
            high=int(cfg["high"]),
            low=int(cfg["low"]),
        )
    except Exception as exc:  # a picture the vision code cannot take: said, not raised
        log.exception("the camera's pictures could not be measured")
        return camera_checks(name, None, f"the pictures could not be measured: {exc}")
    return camera_checks(name, facts)


def camera_lines(name: str | None, open_source: Callable[[], Any] | None) -> list[Check]:
    """Open the camera (``open_source()`` gives an unopened FrameSource), read its frames for
    the configured span, close it and judge what it saw. ``name`` None: no camera."""
    from companion.doctor.camera import capture
    from companion.vision.live.sources import SourceError

    if name is None or open_source is None:
        return camera_checks(None, None)
    cfg = settings()["camera"]
    try:
        source = open_source()
        with source:
            cap = capture(source, float(cfg["seconds"]), int(cfg["frames"]))
    except SourceError as exc:
        return camera_trouble(name, str(exc))
    except OSError as exc:  # a device that went away under us
        return camera_trouble(name, f"the camera cannot be read: {exc}")
    if not cap.frames:
        return camera_trouble(name, "the camera gave no picture")
    return camera_from_capture(name, cap)


def reader_lines(
    port: str | None,
    *,
    tap: bool = False,
    when_ready: Callable[[], None] | None = None,
) -> list[Check]:
    """Open the card reader at ``port`` and judge it (``tap``: also a test tap)."""
    if port is None:
        return reader_checks(ReaderFacts(None))
    cfg = settings()["reader"]
    facts = probe_reader(
        port,
        hello_seconds=float(cfg["hello_seconds"]),
        tap_seconds=float(cfg["tap_seconds"]) if tap else None,
        when_ready=when_ready,
    )
    return reader_checks(facts)


@dataclass(frozen=True)
class ControlsState:
    """The buttons, LED and buzzer: asked for by the configuration, and opened?"""

    enabled: bool = False
    started: bool = False
    problem: str | None = None


def controls_state(config: Any, pin_factory: Any = None) -> ControlsState:
    """Open the controls of a ControlsConfig once and close them again (the command's check;
    the running service reports its own)."""
    from companion.controls import ControlsError
    from companion.controls.controls import Controls

    if config is None or not config.enabled:
        return ControlsState()
    try:
        Controls(config, pin_factory=pin_factory).close()
    except ControlsError as exc:
        return ControlsState(True, False, str(exc))
    return ControlsState(True, True)


@dataclass
class Setup:
    """What to check. ``camera``/``reader``: the names shown (None: not checked);
    ``open_camera``: makes the camera's unopened source; ``network``: a ``companion.network``
    object (None: the stdlib's fallback); ``routing``: whether the box passes traffic on."""

    state_dir: Path
    camera: str | None = None
    open_camera: Callable[[], Any] | None = None
    reader: str | None = None
    reader_tap: bool = False
    reader_ready: Callable[[], None] | None = None
    controls: ControlsState = field(default_factory=ControlsState)
    network: StatusSource | None = None
    clock: Clock = field(default_factory=SystemClock)
    routing: Routing = field(default_factory=SystemRouting)
    camera_checks: list[Check] | None = None  # already judged (the running service's)
    reader_checks: list[Check] | None = None


def network_lines(network: StatusSource | None) -> list[Check]:
    source = network if network is not None else StdlibNetwork()
    try:
        status = source.status()
    except Exception as exc:  # NetworkManager gone, D-Bus refused: the stdlib's view then
        log.warning("the network's status cannot be read (%s); the stdlib's view instead", exc)
        status = StdlibNetwork().status()
    return network_checks(status)


def run(setup: Setup) -> list[Check]:
    """Every check, in order."""
    out: list[Check] = []
    if setup.camera_checks is not None:
        out += setup.camera_checks
    else:
        out += camera_lines(setup.camera, setup.open_camera)
    if setup.reader_checks is not None:
        out += setup.reader_checks
    else:
        out += reader_lines(setup.reader, tap=setup.reader_tap, when_ready=setup.reader_ready)
    c = setup.controls
    out.append(controls_check(c.enabled, c.started, c.problem))
    out += storage_checks(storage_facts(setup.state_dir))
    out += network_lines(setup.network)
    out.append(routing_check(setup.routing.facts()))
    out.append(clock_check(setup.clock.synchronized()))
    out.append(versions_check(versions()))
    return out
