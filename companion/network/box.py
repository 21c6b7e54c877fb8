"""What the box does with its network, on any :class:`~companion.network.Network`: the boot-time
choice (a known Wi-Fi, else its own network) and joining a venue's Wi-Fi with its own network as
the fallback."""

from __future__ import annotations

import logging
import shutil
import socket
import time
from collections.abc import Callable
from pathlib import Path

from .fake import Around, FakeNetwork
from .model import Network, NetworkError, NetworkStatus, box_ssid
from .nmcli import NmcliNetwork
from .saved import save_scan

log = logging.getLogger(__name__)

MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))
AUTO_WAIT = 45.0  # seconds a known Wi-Fi has to connect at boot
POLL = 2.0
OPEN_TRIES = 3  # attempts to open the box's own network at boot
OPEN_RETRY = 5.0  # seconds between them


def machine_id(files: tuple[Path, ...] = MACHINE_ID_FILES) -> str:
    """This machine's id (systemd's), or its host name where there is none."""
    for path in files:
        try:
            text = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeError):
            continue
        if text:
            return text
    return socket.gethostname()


def default_ssid() -> str:
    """The name of this box's own network: ``companion-XXXX``."""
    return box_ssid(machine_id())


def system_network(interface: str | None = None) -> NmcliNetwork | None:
    """This machine's network through NetworkManager, or None where nmcli is not installed."""
    if shutil.which("nmcli") is None:
        return None
    return NmcliNetwork(default_ssid(), interface)


def demo_network(state_dir: Path | None = None) -> FakeNetwork:
    """The demo's network: the fake twin with two made-up venue networks in range, its own
    network open (the scan seen before it opened kept in ``state_dir``, as at boot)."""
    fake = FakeNetwork(
        default_ssid(),
        [Around("Cafe Central", 72, "wpa2", "melange-1873"), Around("Library", 41, "open")],
    )
    keep_scan(fake, state_dir)
    fake.open_hotspot(None)
    return fake


def keep_scan(network: Network, state_dir: Path | None) -> None:
    """Keep what the radio sees now for the host's list (it cannot scan once it serves)."""
    if state_dir is None:
        return
    try:
        nets = network.scan()
    except NetworkError as exc:
        log.info("no scan kept: %s", exc)
        return
    if nets:
        try:
            save_scan(state_dir, nets)
        except OSError as exc:
            log.warning("cannot keep the scan in %s: %s", state_dir, exc)


def auto(
    network: Network,
    password: str | None,
    *,
    wait: float = AUTO_WAIT,
    state_dir: Path | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    poll: float = POLL,
) -> tuple[str, NetworkStatus]:
    """At boot: wait up to ``wait`` seconds for a known Wi-Fi (none known: do not wait), else
    open the box's own network (WPA2 with ``password``, open without). Returns what was done
    ("wifi": a known network is connected, "kept": the box's network was already as wanted,
    "hotspot": it was opened) and the status."""
    known = network.known_networks()
    deadline = clock() + (wait if known else 0.0)
    while True:
        st = network.status()
        if st.mode == "wifi":
            return "wifi", st
        if st.mode == "hotspot" and (st.security == "wpa2") == bool(password):
            return "kept", st
        left = deadline - clock()
        if left <= 0:
            break
        sleep(min(poll, left))
    if st.mode != "hotspot":
        keep_scan(network, state_dir)
    # right after NetworkManager starts the radio may not be ready yet: try again a few times
    attempt = 1
    while True:
        try:
            return "hotspot", network.open_hotspot(password)
        except NetworkError as exc:
            if attempt >= OPEN_TRIES or exc.code in ("network.no_wifi", "network.unavailable"):
                raise
            log.warning("the box's network did not open (%s); trying again", exc.message)
        attempt += 1
        sleep(OPEN_RETRY)


def join_or_fall_back(
    network: Network, ssid: str, password: str | None, own_password: str | None
) -> NetworkStatus:
    """Join a venue's Wi-Fi; when that fails, open the box's own network again (so that the
    phones find the box where they were) and raise the join's error."""
    try:
        return network.join(ssid, password)
    except NetworkError as exc:
        log.warning("could not join %s (%s); the box's own network opens again", ssid, exc.code)
        try:
            network.open_hotspot(own_password)
        except NetworkError as again:
            log.error("the box's own network does not open either: %s", again)
        raise


__all__ = [
    "AUTO_WAIT",
    "auto",
    "default_ssid",
    "demo_network",
    "join_or_fall_back",
    "keep_scan",
    "machine_id",
    "system_network",
]
