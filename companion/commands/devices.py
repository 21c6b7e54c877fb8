"""The devices of a table wired to the service: the card reader, the camera and the controls.

``serve`` starts them for a real table; the demo (``demo_game.DeviceTable``) starts the same reader
and camera code on its simulated devices. Each is a thin adapter: device events become the
service's observations (``card_observation``, ``camera_observation``) or notices
(``camera_notice``), and sightings the game refused are forgotten by the watcher
(``watch_refusals``, ``forget_refused``).
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def card_observation(event: Any) -> dict[str, Any] | None:
    """A reader CardEvent as an observation (None for an unknown card)."""
    from companion.reader.cards import TicketCard, TrainCard

    card = event.card
    if isinstance(card, TrainCard):
        return {"kind": "card_tapped", "card": card.color.value, "uid": event.uid}
    if isinstance(card, TicketCard):
        return {"kind": "ticket_tapped", "ticket": card.id, "uid": event.uid}
    return None


def start_reader(
    service: Any,
    port: str,
    stop: threading.Event,
    *,
    registry_path: Path | None = None,
    watch: Any = None,
) -> threading.Thread:
    """Listen to the card reader in a thread; taps become observations. ``registry_path``: the
    UID registry to use (default: the enrolment registry of ``companion reader enroll``).
    ``watch``: the set-up check's ``doctor.live.ReaderWatch`` (it sees the transport, and takes
    the card of its test tap)."""
    from companion.reader.cards import CardCatalog
    from companion.reader.listener import CardListener
    from companion.reader.registry import Registry, RegistryError, default_path
    from companion.reader.transport import ReaderOpenError, ReaderTransport
    from companion.readerlink import ReaderLink
    from companion.service import Actor

    catalog = CardCatalog.europe()
    try:
        registry: Registry | None = Registry(registry_path or default_path(), catalog)
    except RegistryError as exc:
        log.warning("no card registry (%s): only cards with stickers are known", exc)
        registry = None
    transport = ReaderTransport(port)
    try:
        transport.open_now()
    except ReaderOpenError as exc:
        log.warning("the card reader is not there yet (%s); waiting for it", exc)
    transport.start()
    if watch is not None:
        watch.transport = transport
    listener = CardListener(transport, catalog, registry)
    link = ReaderLink(service, transport)  # taps while it is away: tap again (notice, LED)

    def loop() -> None:
        try:
            while not stop.is_set():
                event = listener.next_event(timeout=0.2)
                link.check()
                if event is None:
                    continue
                if watch is not None and watch.tapped(event.uid):
                    continue  # the set-up check's test card, not a move
                obs = card_observation(event)
                if obs is None:
                    service.notice(
                        f"Unknown card {event.uid}: enroll it first.",
                        "warning",
                        code="reader.unknown_card",
                        params={"uid": event.uid},
                    )
                    continue
                service.observe_nowait(obs, Actor.device("reader"))
        finally:
            transport.stop()
            if registry is not None:
                registry.close()

    t = threading.Thread(target=loop, name="companion-reader", daemon=True)
    t.start()
    return t


def camera_observation(event: Any) -> tuple[str, dict[str, Any] | str]:
    """A live-watcher event as ("observe", observation) or ("notice", text) or ("skip", "")."""
    from companion.service.camera import sighting
    from companion.vision.live import live

    if isinstance(event, live.ClaimSeen):
        seen = sighting("claim", event.route, event.color, unsure=event.unsure, listed=event.listed)
        return "observe", seen
    if isinstance(event, live.StationSeen):
        return "observe", sighting("station", event.city, event.color)
    if isinstance(event, live.NeedsConfirmation | live.Vetoed | live.LookChanged):
        return "notice", f"camera: {event.text()}"
    if isinstance(event, live.BoardLost):
        return "notice", f"camera: {event.reason}"
    return "skip", ""


# camera notices for the host's screens only: a "please check" no player acts on
HOST_NOTICES = frozenset({"camera.look_changed"})


def camera_notice(event: Any) -> tuple[str, dict[str, Any]]:
    """The code and params of a camera notice (see camera_observation), for translation."""
    from companion.vision.live import live

    if isinstance(event, live.NeedsConfirmation | live.Vetoed):
        ch = event.change
        where = {"route": ch.key} if ch.kind == "route" else {"city": ch.key}
        code = (
            "camera.watch_confirm"
            if isinstance(event, live.NeedsConfirmation)
            else "camera.watch_veto"
        )
        return code, {**where, "owner": ch.old, "color": ch.new, "text": event.reason}
    if isinstance(event, live.BoardLost):
        return "camera.board_lost", {"text": event.reason}
    if isinstance(event, live.LookChanged):
        return "camera.look_changed", {"routes": list(event.routes), "n": len(event.routes)}
    return "message", {}


def watch_refusals(service: Any) -> queue.SimpleQueue[tuple[str, str, str, str | None]]:
    """A queue of the sightings the game refused (vetoed, or a question answered no), as
    (watcher kind "route"/"station", id, colour, owner), filled by a service listener."""
    refused: queue.SimpleQueue[tuple[str, str, str, str | None]] = queue.SimpleQueue()

    def heard(kind: str, data: dict[str, Any]) -> None:
        if kind in ("vetoed", "rejected") and data.get("key") and data.get("color"):
            what = "route" if data.get("kind") == "claim" else "station"
            refused.put((what, str(data["key"]), str(data["color"]), data.get("owner")))

    service.listeners.append(heard)
    return refused


def forget_refused(
    watcher: Any,
    refused: queue.SimpleQueue[tuple[str, str, str, str | None]],
    recorder: Any = None,
) -> int:
    """Make the watcher forget the refused sightings (on the camera's thread, before the next
    frame); how many. ``recorder``: the black box, told each one here, where the watcher takes
    it back (its replay forgets it before the same frame)."""
    n = 0
    while True:
        try:
            kind, key, color, owner = refused.get_nowait()
        except queue.Empty:
            return n
        if recorder is not None:
            recorder.forgot(kind, key, color, owner)
        if watcher.forget(kind, key, color, owner):
            log.info("camera: forgot %s %s %s (refused by the game)", kind, key, color)
            n += 1


def playing_colours(service: Any) -> frozenset[str] | None:
    """The colours of the game the service is running (its public state), or None while no
    game is (the watcher then may guess any player colour)."""
    players = service.state().get("players") or []
    colours = frozenset(str(p["color"]) for p in players if p.get("color"))
    return colours or None


def camera_id(spec: str) -> str:
    """The id a camera's table profile is kept under: its source, as configured."""
    return (spec or "auto").strip() or "auto"


def start_camera(
    service: Any, spec: str, stop: threading.Event, *, tap: Any = None, recorder: Any = None
) -> threading.Thread:
    """Watch the camera in a thread; claims and stations seen become observations. ``tap``:
    called with every frame (the set-up check's ``doctor.live.FrameTap``); ``recorder``: the
    black box (``companion.blackbox.recorder.Recorder``), or None."""
    from companion.service import Actor
    from companion.vision.live.live import FrameReader, LiveWatcher, VisionReader, as_questions
    from companion.vision.live.sources import FrameSource, SourceError, open_source

    simulated = (spec or "auto").strip().partition(":")[0].lower() == "sim"
    source: FrameSource
    try:
        if simulated:  # the simulator is loaded only when asked for, never with a real camera
            from companion.sim.camera import open_camera

            source = open_camera(spec)
        else:
            source = open_source(spec)
    except SourceError as exc:
        from companion.cli import CommandError

        raise CommandError(str(exc)) from None
    reader: FrameReader
    if simulated:
        from companion.sim.camera import SimulatedCamera
        from companion.sim.live_oracle import OracleReader

        assert isinstance(source, SimulatedCamera)
        source.realtime = True
        reader = OracleReader(source.renderer.geometry, seed=source.seed)
    else:
        reader = VisionReader(None)
    attach = getattr(service, "attach_camera", None)
    if attach is not None:  # the table's profile: read with it, learnt from the clean frames
        from companion.service.profile_store import TappedReader

        reader = TappedReader(reader, attach(camera_id(spec)))
    if recorder is not None:
        reader = recorder.tap(reader)
    watcher = LiveWatcher(reader)
    refused = watch_refusals(service)

    def loop() -> None:
        try:
            with source:
                for frame in source:
                    if stop.is_set():
                        return
                    if tap is not None:
                        tap(frame)
                    forget_refused(watcher, refused, recorder)
                    watcher.players = playing_colours(service)
                    events = as_questions(watcher, watcher.process(frame))
                    if recorder is not None:  # queues only: never waits for the disk
                        recorder.look(frame, watcher, events)
                    for event in events:
                        what, data = camera_observation(event)
                        if what == "observe":
                            assert isinstance(data, dict)
                            fut = service.observe_nowait(data, Actor.device("camera"))
                            if recorder is not None:
                                recorder.observed(event, fut)
                        elif what == "notice":
                            code, params = camera_notice(event)
                            host = {"audience": "host"} if code in HOST_NOTICES else {}
                            service.notice(str(data), "warning", code=code, params=params, **host)
        except SourceError as exc:  # no camera (or it went away): one line, no traceback
            from companion.doctor.words import source_problem

            log.error("the camera stopped: %s", source_problem(exc))
            service.notice("The camera stopped; see the log.", "error", code="camera.stopped")
        except Exception:
            log.exception("the camera stopped")
            service.notice("The camera stopped; see the log.", "error", code="camera.stopped")

    t = threading.Thread(target=loop, name="companion-camera", daemon=True)
    t.start()
    return t


def start_controls(
    service: Any, config: Any, pin_factory: Any = None, *, claims: Any = None
) -> Any:
    """The buttons, LED and buzzer wired to the service (companion.controls.table), or None
    with a one-line warning when the pins cannot be opened (the game goes on without them).
    ``claims``: the server's host access (the confirm button opens a host-claim window)."""
    from companion.controls import ControlsError
    from companion.controls.table import start_table_controls

    try:
        table = start_table_controls(service, config, pin_factory=pin_factory, claims=claims)
    except ControlsError as exc:
        print(f"companion: warning: no buttons, LED or buzzer: {exc}", file=sys.stderr, flush=True)
        return None
    pins = config.pins
    print(
        f"companion: buttons on GPIO{pins['end_turn']}/{pins['confirm']}/{pins['undo']}, "
        f"LED and buzzer",
        flush=True,
    )
    return table
