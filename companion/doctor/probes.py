"""Where the set-up check's facts come from: the OS and the devices, each behind a small
interface with a fake twin for the tests.

- :func:`storage_facts`: the state directory's file system, event log and ``last-backup.json``;
- :class:`SystemClock` (``timedatectl``) and :class:`FakeClock`: is the clock synchronised?
- :func:`versions`: companion, Python, numpy, OpenCV and the OS;
- :class:`StdlibNetwork`: the network's status from the standard library, when no
  ``companion.network`` object is given (it cannot tell the mode, Wi-Fi or the box's own);
- :class:`SystemRouting` and :class:`FakeRouting`: does the box route? Its firewall's unit
  (``systemctl show``), IPv4 forwarding (``/proc``) and, as root only, its nftables table;
- :func:`probe_reader`: open the card reader, wait for its HELLO, optionally a test tap;
- :func:`camera_software_missing`: the Raspberry Pi camera chosen, and picamera2 cannot be
  imported.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import platform
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from companion.doctor.checks import FIREWALL_UNIT, ReaderFacts, RoutingFacts, StorageFacts

log = logging.getLogger(__name__)

BACKUP_FILE = "last-backup.json"  # written by `companion backup` (the shared contract)
LOG_FILES = ("companion.sqlite3", "companion.sqlite3-wal")


# --- camera -----------------------------------------------------------------------------------

PI_CAMERA = "picamera2"  # the source name (``picamera2`` or ``picamera2:WxH``) and its module


def camera_software_missing(
    source: str | None, load: Callable[[str], Any] = importlib.import_module
) -> bool:
    """Whether ``source`` is the Raspberry Pi camera and its module cannot be imported (not
    installed, or installed for another Python or numpy)."""
    if source is None or source.partition(":")[0].strip().lower() != PI_CAMERA:
        return False
    try:
        load(PI_CAMERA)
    except Exception as exc:  # ImportError, or a library that fails as it loads
        log.info("the Raspberry Pi camera's module cannot be imported: %s", exc)
        return True
    return False


# --- storage ----------------------------------------------------------------------------------


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing parent (a state directory not made yet)."""
    p = path.resolve()
    while not p.exists() and p.parent != p:
        p = p.parent
    return p


def read_backup(state_dir: Path) -> dict[str, Any] | None:
    """``last-backup.json`` (None: none; ``{}``: there but not readable as one)."""
    path = state_dir / BACKUP_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeError):
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def storage_facts(
    state_dir: Path,
    now: float | None = None,
    *,
    access: Callable[[Path, int], bool] = os.access,
) -> StorageFacts:
    """The free space of the state directory's file system, the event log's size and the last
    backup's record (``access``: may this user look into the directory?)."""
    usage = shutil.disk_usage(_existing(state_dir))
    readable = not state_dir.is_dir() or access(state_dir, os.R_OK | os.X_OK)
    size = 0
    for name in LOG_FILES:
        try:
            size += (state_dir / name).stat().st_size
        except OSError:
            continue
    return StorageFacts(
        path=str(state_dir),
        free_bytes=int(usage.free),
        log_bytes=size,
        backup=read_backup(state_dir) if readable else None,
        now=time.time() if now is None else now,
        readable=readable,
    )


# --- the clock --------------------------------------------------------------------------------


class Clock(Protocol):
    def synchronized(self) -> bool | None:
        """True when the system clock is synchronised from the network (None: cannot tell)."""
        ...


def ask(run: Callable[..., Any], args: list[str]) -> Any:
    """``run(args)`` with its output captured and a 5 s bound, as the system probes ask systemd
    and nft; None (logged) when the program cannot be run."""
    try:
        return run(args, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("%s: %s", args[0], exc)
        return None


class SystemClock:
    """systemd's answer (``timedatectl show -p NTPSynchronized --value``): a Pi has no battery
    clock, so until it reaches a time server its clock may be days off."""

    def __init__(self, run: Callable[..., Any] = subprocess.run) -> None:
        self._run = run

    def synchronized(self) -> bool | None:
        done = ask(self._run, ["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
        if done is None:
            return None
        answer = str(done.stdout or "").strip().lower()
        if done.returncode != 0 or answer not in ("yes", "no"):
            return None
        return answer == "yes"


@dataclass
class FakeClock:
    value: bool | None = True

    def synchronized(self) -> bool | None:
        return self.value


# --- versions ---------------------------------------------------------------------------------


def os_name(release: Path = Path("/etc/os-release")) -> str:
    """The OS's PRETTY_NAME (e.g. ``Debian GNU/Linux 12 (bookworm)``), else platform's."""
    try:
        for line in release.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key == "PRETTY_NAME":
                return value.strip().strip('"')
    except (OSError, UnicodeError):
        pass
    return f"{platform.system()} {platform.release()}".strip()


def versions() -> dict[str, str]:
    import cv2
    import numpy

    from companion import __version__

    return {
        "companion": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "opencv": cv2.__version__,
        "os": os_name(),
    }


# --- the network ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LocalStatus:
    """The network's status as the stdlib sees it (the attributes of
    ``companion.network.NetworkStatus``)."""

    mode: str = "unknown"
    ssid: str | None = None
    security: str | None = None
    addresses: tuple[str, ...] = ()
    mdns: str | None = None
    interface: str | None = None


class StatusSource(Protocol):
    """What the check needs of ``companion.network.Network``: its ``status()``."""

    def status(self) -> Any: ...


def local_addresses(fib_trie: Path = Path("/proc/net/fib_trie")) -> list[str]:
    """This machine's own IPv4 addresses, from the kernel's routing table (read, no socket)."""
    try:
        lines = fib_trie.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return []
    found: list[str] = []
    last = ""
    for line in lines:
        text = line.strip()
        if text.startswith("|--"):
            last = text[3:].strip()
        elif text.startswith("/32 host LOCAL") and last and last not in found:
            found.append(last)
    return found


class StdlibNetwork:
    """The fallback when no ``companion.network`` object is given: this machine's addresses
    (the kernel's table: nothing is sent) and ``<host>.local`` when Avahi runs. It cannot tell
    the box's own network from a venue's Wi-Fi."""

    def __init__(
        self,
        fib_trie: Path = Path("/proc/net/fib_trie"),
        avahi: Path = Path("/run/avahi-daemon/pid"),
    ) -> None:
        self.fib_trie = fib_trie
        self.avahi = avahi

    def status(self) -> LocalStatus:
        found = local_addresses(self.fib_trie)
        host = socket.gethostname()
        mdns = f"{host.split('.')[0]}.local" if self.avahi.exists() else None
        # loopback last: what phones can reach comes first
        found.sort(key=lambda a: a.startswith("127."))
        return LocalStatus(addresses=tuple(found), mdns=mdns)


# --- the box routes nothing ----------------------------------------------------------------

# where scripts/install.sh puts the firewall's unit (and where a package would)
FIREWALL_UNIT_FILES = tuple(
    Path(d) / FIREWALL_UNIT
    for d in ("/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system")
)
IP_FORWARD = Path("/proc/sys/net/ipv4/ip_forward")
FIREWALL_TABLE = ("inet", "companion")


class Routing(Protocol):
    def facts(self) -> RoutingFacts:
        """Whether the box could pass traffic on between networks."""
        ...


def _is_root() -> bool:
    return os.geteuid() == 0


class SystemRouting:
    """The firewall's unit as systemd tells any user (``systemctl show``: no privilege needed,
    as ``timedatectl`` for the clock), IPv4 forwarding from ``/proc`` (readable by all) and,
    only when run as root (``sudo companion doctor``), whether ``nft`` lists the table itself:
    the service's own user cannot read the ruleset, and an active unit is the sign that its
    ``nft -f`` loaded the table."""

    def __init__(
        self,
        run: Callable[..., Any] = subprocess.run,
        unit_files: tuple[Path, ...] = FIREWALL_UNIT_FILES,
        ip_forward: Path = IP_FORWARD,
        is_root: Callable[[], bool] = _is_root,
    ) -> None:
        self._run = run
        self.unit_files = unit_files
        self.ip_forward = ip_forward
        self._is_root = is_root

    def facts(self) -> RoutingFacts:
        if not any(p.is_file() for p in self.unit_files):
            return RoutingFacts(installed=False, forwarding=self.forwarding())
        active, enabled = self.unit_state()
        table = self.table() if self._is_root() else None
        return RoutingFacts(True, active, enabled, self.forwarding(), table)

    def forwarding(self) -> bool | None:
        try:
            text = self.ip_forward.read_text(encoding="ascii").strip()
        except (OSError, UnicodeError):
            return None
        return None if text not in ("0", "1") else text == "1"

    def unit_state(self) -> tuple[str | None, str | None]:
        """(ActiveState, UnitFileState); (None, None) when systemd cannot be asked."""
        done = ask(
            self._run,
            ["systemctl", "show", "-p", "ActiveState", "-p", "UnitFileState", FIREWALL_UNIT],
        )
        if done is None or done.returncode != 0:
            return None, None
        found: dict[str, str] = {}
        for line in str(done.stdout or "").splitlines():
            key, sep, value = line.partition("=")
            if sep:
                found[key.strip()] = value.strip()
        return found.get("ActiveState") or None, found.get("UnitFileState") or None

    def table(self) -> bool | None:
        """The table in the ruleset (None: nft cannot be asked)."""
        done = ask(self._run, ["nft", "list", "table", *FIREWALL_TABLE])
        if done is None:
            return None
        if done.returncode == 0:
            return True
        return False if "No such file or directory" in str(done.stderr or "") else None


@dataclass
class FakeRouting:
    value: RoutingFacts = field(default_factory=lambda: RoutingFacts(installed=False))

    def facts(self) -> RoutingFacts:
        return self.value


# --- the card reader --------------------------------------------------------------------------


def probe_reader(
    port: str,
    *,
    hello_seconds: float,
    tap_seconds: float | None = None,
    when_ready: Callable[[], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> ReaderFacts:
    """Open the reader at ``port`` (exclusively: not while the service holds it), wait up to
    ``hello_seconds`` for its HELLO (the transport sends PING on opening) and, with
    ``tap_seconds``, for a card (``when_ready`` is called first: a simulated reader puts one
    down there)."""
    from companion.reader.protocol import Tag
    from companion.reader.transport import ReaderOpenError, ReaderTransport

    transport = ReaderTransport(port)
    try:
        transport.open_now()
    except ReaderOpenError as exc:
        return ReaderFacts(port, opened=False, problem=str(exc))
    transport.start()
    try:
        deadline = clock() + hello_seconds
        while transport.hello is None and clock() < deadline:
            transport.get(timeout=0.05)
        hello = transport.hello
        facts = ReaderFacts(
            port,
            opened=True,
            firmware=hello.fw_version if hello else None,
            chip=hello.chip if hello else None,
        )
        if tap_seconds is None:
            return facts
        while transport.get(timeout=0) is not None:  # what came before the test
            pass
        if when_ready is not None:
            when_ready()
        start = clock()
        while clock() - start < tap_seconds:
            got = transport.get(timeout=0.05)
            if got is not None and isinstance(got[1], Tag):
                return _with_tap(facts, clock() - start, None)
        return _with_tap(facts, None, tap_seconds)
    finally:
        transport.stop()


def _with_tap(facts: ReaderFacts, seconds: float | None, waited: float | None) -> ReaderFacts:
    from dataclasses import replace

    return replace(facts, tap_seconds=seconds, tap_waited=waited)


def state_dir_of(path: str | os.PathLike[str] | None) -> Path:
    """The state directory named, or the configuration's."""
    if path:
        return Path(path)
    from companion.config import load_config

    return load_config(None).server.state_dir
