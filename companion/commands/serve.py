"""`companion serve`: the dashboard, the API and the game loop in one process.

    companion serve [--state-dir DIR] [--host H] [--port 8080] [--demo]

The first start writes ``DIR/host-token`` (mode 0600, atomically) and prints the host link with a
QR code to a terminal. A fresh state directory has no host device: a phone becomes host in a
claim window (the box's confirm button, or ``companion host open-claim``).
The API is described in companion/webapp/API.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from companion.commands.devices import start_camera, start_controls, start_reader
from companion.statedir import TOKEN_FILE, read_or_create_token

log = logging.getLogger(__name__)

__all__ = ["TOKEN_FILE", "read_or_create_token", "register", "run", "serve"]
THREADS = 48  # web worker threads: 36 streams of players and guests, 4 of the host, 8 spare
SPARE_THREADS = 8  # threads never taken by event streams (actions, pages, history reads)


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="serve the dashboard and the API (the table's referee)")
    p.add_argument("--state-dir", help="where the event log and the host token live")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=int, help="port (default 8080; 0 picks a free one)")
    p.add_argument("--config", help="configuration file (TOML)")
    p.add_argument("--demo", action="store_true", help="play a scripted demo game")
    p.add_argument(
        "--demo-delay", type=float, default=2.0, help="seconds between demo moves (default 2)"
    )
    p.add_argument("--demo-seed", type=int, default=2026, help="seed of the demo game")
    p.add_argument("--demo-players", type=int, default=4, choices=range(2, 6))
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name the server answers for (repeatable)",
    )
    p.add_argument("--public-url", help="base URL put into pairing links and QR codes")
    p.add_argument(
        "--threads",
        type=int,
        default=THREADS,
        help=f"web worker threads (default {THREADS}; each live event stream holds one)",
    )
    p.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    p.add_argument(
        "--host-link", action="store_true", help="print the host link and its QR code, and exit"
    )
    p.add_argument(
        "--set-aside-damaged-log",
        action="store_true",
        help="keep a damaged event log under another name and begin a new one",
    )
    p.add_argument(
        "--reader", metavar="PORT", help="card reader serial port (e.g. /dev/ttr-reader)"
    )
    p.add_argument(
        "--camera", metavar="SOURCE", help="camera source: picamera2, v4l2:/dev/video0, sim, ..."
    )
    p.add_argument(
        "--no-devices", action="store_true", help="ignore the camera and reader of the config"
    )
    p.add_argument(
        "--no-controls",
        action="store_true",
        help="ignore the buttons, status LED and buzzer of the config ([controls])",
    )
    p.set_defaults(func=run)


def lan_address() -> str:
    """This machine's address on the LAN (no packet is sent), or 127.0.0.1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))
        addr = str(s.getsockname()[0])
    except OSError:
        addr = "127.0.0.1"
    finally:
        s.close()
    return addr


def _url_host(listen: str) -> str:
    if listen in ("0.0.0.0", "::", ""):
        return lan_address()
    return f"[{listen}]" if ":" in listen else listen


def run(args: argparse.Namespace) -> int:
    from companion.cli import CommandError, config_of

    cfg = config_of(args)
    state_dir = Path(args.state_dir) if args.state_dir else cfg.server.state_dir
    host = args.host or cfg.server.host
    port = cfg.server.port if args.port is None else args.port
    if not 0 <= port <= 65535:
        raise CommandError("--port must be between 0 and 65535")
    if args.threads < 4:
        raise CommandError("--threads must be at least 4")
    if args.demo_delay < 0:
        raise CommandError("--demo-delay must not be negative")
    reader = args.reader
    camera = args.camera
    unusable: str | None = None  # a configured camera that cannot work here (the check says why)
    if cfg.path is not None and not args.no_devices and not args.demo:
        # A configured installation: the devices of the config file unless named on the line.
        if reader is None and cfg.reader.enabled:
            reader = cfg.reader.port
        if camera is None:
            from companion.commands.doctor import configured_camera_problem

            problem = configured_camera_problem(cfg.camera)
            if problem is None:
                camera = cfg.camera.source or None
            else:  # one line, not a traceback at every start; the game runs without a camera
                print(f"companion: warning: no camera: {problem}", file=sys.stderr, flush=True)
                unusable = cfg.camera.source or None
    controls = cfg.controls if cfg.controls.enabled and not args.no_controls else None
    if args.host_link:
        return print_host_link(state_dir, host, port, args.public_url, show_qr=not args.no_qr)
    return serve(
        state_dir,
        host,
        port,
        recording=cfg.recording,
        reader=reader,
        camera=camera,
        unusable_camera=unusable,
        controls=controls,
        demo=args.demo,
        demo_delay=args.demo_delay,
        demo_seed=args.demo_seed,
        demo_players=args.demo_players,
        allowed_hosts=args.allowed_host,
        public_url=args.public_url,
        threads=args.threads,
        show_qr=not args.no_qr,
        set_aside_damaged=args.set_aside_damaged_log,
    )


def serve(
    state_dir: Path,
    host: str,
    port: int,
    *,
    demo: bool = False,
    demo_delay: float = 2.0,
    demo_seed: int = 2026,
    demo_players: int = 4,
    allowed_hosts: list[str] | None = None,
    public_url: str | None = None,
    threads: int = THREADS,
    show_qr: bool = True,
    set_aside_damaged: bool = False,
    ready: threading.Event | None = None,
    reader: str | None = None,
    camera: str | None = None,
    controls: Any = None,
    recording: Any = None,
    unusable_camera: str | None = None,
) -> int:
    """Serve until SIGTERM/SIGINT. ``controls``: a ControlsConfig to drive the buttons, the
    status LED and the buzzer (None: none). ``recording``: the black box's RecordingConfig
    (None: the defaults); it records while a camera (or the demo's) watches a game.
    ``unusable_camera``: the configured camera that cannot work here (the set-up check says
    why)."""
    from companion.cli import CommandError
    from companion.hosts import HostAccess
    from companion.statedir import (
        StartError,
        StateDirInUse,
        host_link_lines,
        lock_state_dir,
        open_event_log,
    )
    from companion.webapp import create_app
    from companion.webapp.ratelimit import RateLimiter
    from companion.webapp.server import make_server

    try:
        token, created = read_or_create_token(state_dir)
        lock = lock_state_dir(state_dir)  # one server per state directory
    except StateDirInUse as exc:
        raise CommandError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot use the state directory {state_dir}: {exc}") from None
    try:
        store, service = open_event_log(state_dir, set_aside_damaged=set_aside_damaged)
    except StartError as exc:
        lock.release()
        raise CommandError(str(exc)) from None
    service.start()
    access = HostAccess(token, state_dir)
    rates = RateLimiter()  # (shared by the app and the server's gate)
    try:
        # limits judged from headers, many slow/idle connections, timeouts: webapp/server.py
        server = make_server(
            _placeholder_app, host, port, host_token=access, threads=threads, rate_limiter=rates
        )
    except OSError as exc:
        service.stop()
        store.close()
        lock.release()
        raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    box = None
    if camera or demo:
        from companion.blackbox.recorder import Settings, for_service
        from companion.commands.demo_game import DEMO_CAMERA
        from companion.commands.devices import camera_id

        box = for_service(
            service,
            state_dir,
            Settings.of(recording),
            camera=camera_id(camera) if camera else DEMO_CAMERA,
        )
    real_port = int(server.effective_port)
    network = box_network(demo, state_dir)
    doctor = _doctor_devices(state_dir, camera, reader, controls, network, unusable_camera)
    base = public_url.rstrip("/") if public_url else f"http://{_url_host(host)}:{real_port}"
    app = create_app(
        service,
        {
            "HOST_TOKEN": token,
            "HOST_ACCESS": access,
            "RATE_LIMITS": rates,
            "ALLOWED_HOSTS": list(allowed_hosts or []),
            # pairing links: --public-url, else the address each request came to (the box's
            # own network, a venue's Wi-Fi, companion.local: it may change while serving)
            "PUBLIC_URL": base if public_url else "",
            **stream_caps(threads),
            "NETWORK": network,
            "NETWORK_STATE_DIR": state_dir,
            "DOCTOR": doctor,
            "BLACKBOX": box,
            "REPORT_CONFIG": {
                "camera": camera,
                "card_reader": reader,
                "recording": dataclasses.asdict(recording) if recording is not None else None,
            },
        },
    )
    server.application = app
    login = f"{base}/host/login?token={token}"
    print(f"companion: serving on {base}/ (state in {state_dir})", flush=True)
    lines, on_terminal = host_link_lines(login, created=created, state_dir=state_dir, base=base)
    for line in lines:  # the token only to a terminal, never into a journal
        print(line, flush=True)
    if show_qr and on_terminal:
        _print_qr(login)
    if not access.has_host():
        print(
            f"companion: no host device yet: press the box's confirm button (or run: companion "
            f"host open-claim --state-dir {state_dir}), then open {base}/host/claim on the phone",
            flush=True,
        )
    watchdog_stop = threading.Event()
    _start_watchdog(service, watchdog_stop)
    access.watch(watchdog_stop)  # claim files of `companion host open-claim`; the window's end
    if reader:
        start_reader(service, reader, watchdog_stop, watch=doctor.reader)
        print(f"companion: card reader on {reader}", flush=True)
    if camera:
        start_camera(service, camera, watchdog_stop, tap=doctor.frames, recorder=box)
        print(f"companion: camera {camera}", flush=True)
    table = start_controls(service, controls, claims=access) if controls is not None else None
    doctor.controls.attach(table)
    demo_run = None
    if demo:
        from companion.commands.demo_game import Demo

        demo_run = Demo(
            service,
            state_dir,
            seed=demo_seed,
            players=demo_players,
            delay=demo_delay,
            fast=demo_delay == 0,
            recorder=box,
        ).start()
        from companion.doctor.live import FrameTap

        doctor.camera = "sim"  # the set-up check sees the simulated camera's frames
        doctor.frames = demo_run.table.frame_tap = FrameTap()
        print(
            f"companion: demo game at a simulated table (camera and card reader), "
            f"watch it on {base}/",
            flush=True,
        )
    _notify("READY=1", f"STATUS=serving on {base}")

    def stop(signum: int, frame: Any) -> None:
        # End the event streams first: waitress then waits for its threads to finish their
        # responses while its trigger is still open (closing it under a live stream is a
        # traceback: "Bad file descriptor" from pull_trigger).
        service.close_streams()
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, stop)
    old_int = signal.signal(signal.SIGINT, stop)
    if ready is not None:
        ready.set()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, old)
        signal.signal(signal.SIGINT, old_int)
        _notify("STOPPING=1")
        watchdog_stop.set()
        if demo_run is not None:
            demo_run.stop()
        service.close_streams()
        server.task_dispatcher.shutdown(timeout=3)
        server.close()
        if table is not None:
            table.stop()
        if box is not None:
            box.stop()
        service.stop()
        store.close()
        lock.release()
    return 0


def _doctor_devices(
    state_dir: Path,
    camera: str | None,
    reader: str | None,
    controls: Any,
    network: Any,
    unusable_camera: str | None = None,
) -> Any:
    """What the host page's set-up check looks at: this server's own devices (a configured
    camera that could not be used: named, with no frames, so that the check says why)."""
    from companion.doctor.live import ControlsWatch, Devices, FrameTap, ReaderWatch

    return Devices(
        state_dir,
        camera=camera or unusable_camera or None,
        frames=FrameTap() if camera else None,
        reader=ReaderWatch(reader) if reader else None,
        controls=ControlsWatch(enabled=controls is not None),
        network=network,
    )


def stream_caps(threads: int) -> dict[str, int]:
    """The event streams that ``threads`` web threads serve (each stream holds a thread while
    it lasts): the host's 4 (1 below 24 threads) apart, 3 from one client address, and
    :data:`SPARE_THREADS` always left for the other requests."""
    host = 4 if threads >= 24 else 1
    return {
        "SSE_MAX": max(2, threads - SPARE_THREADS - host),
        "SSE_HOST": host,
        "SSE_PER_ADDRESS": 3,
    }


def print_host_link(
    state_dir: Path, host: str, port: int, public_url: str | None, *, show_qr: bool = True
) -> int:
    """`companion serve --host-link`: the host link of this state directory (and its QR)."""
    from companion.cli import CommandError

    try:
        token, _ = read_or_create_token(state_dir)
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot use the state directory {state_dir}: {exc}") from None
    base = public_url.rstrip("/") if public_url else f"http://{_url_host(host)}:{port}"
    login = f"{base}/host/login?token={token}"
    print(f"companion: host link: {login}", flush=True)
    if show_qr:
        _print_qr(login)
    return 0


def box_network(demo: bool, state_dir: Path) -> Any:
    """The box's network for the host page: the fake twin for a demo, NetworkManager where nmcli
    is installed, None elsewhere."""
    from companion.network import demo_network, system_network

    return demo_network(state_dir) if demo else system_network()


def _placeholder_app(environ: Any, start_response: Any) -> list[bytes]:
    start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
    return [b"starting\n"]


def _print_qr(text: str) -> None:
    try:
        import segno

        segno.make(text, error="l").terminal(out=sys.stdout, compact=True)
    except (ImportError, OSError, UnicodeError) as exc:
        log.info("no QR code in the terminal: %s", exc)
    sys.stdout.flush()


def _notify(*states: str) -> None:
    try:
        from companion import sdnotify
    except ImportError:
        return
    sdnotify.notify(*states)


def _start_watchdog(service: Any, stop: threading.Event) -> None:
    """Pet systemd's watchdog only while the game loop answers."""
    try:
        from companion.sdnotify import Watchdog
    except ImportError:
        return
    wd = Watchdog.from_env()
    if not wd.enabled or wd.interval is None:
        return
    interval = wd.interval

    def loop() -> None:
        while not stop.wait(interval / 2):
            try:
                service.post(lambda: None).result(timeout=interval)
            except Exception:
                log.warning("the game loop did not answer; not petting the watchdog")
                continue
            wd.pet()

    threading.Thread(target=loop, name="companion-watchdog", daemon=True).start()
