"""The box's network through NetworkManager's command line, ``nmcli`` (terse, machine-readable
output, ``LC_ALL=C``).

* The box's own network is one connection profile, ``companion-hotspot``: Wi-Fi in access-point
  mode, ``ipv4.method shared`` at the fixed address 10.42.0.1/24 (NetworkManager runs the DHCP
  server), 2.4 GHz, never started by NetworkManager itself (``autoconnect no``: ``companion network
  auto`` decides at boot). Open without a password; WPA2 (RSN, CCMP, no PMF) with one. It is made
  anew (delete, add, up) each time it opens, so that its settings are exactly these.
* Joining a venue's Wi-Fi makes a profile named after the network (``autoconnect yes``,
  ``autoconnect-priority 10``: it starts by itself from then on; WPA2/WPA3 personal as the scan
  shows it) and starts it; a profile that did not connect is deleted again.
* A password never goes on nmcli's command line (any local user may read that in
  ``/proc/*/cmdline``): the profile is made without it and started with ``passwd-file``, a file
  only its owner may read (0600, in a folder of its own, 0700), removed as soon as nmcli is done.
  NetworkManager keeps the secret in its profile, as it would have from the command line.

As root (the boot-time unit) nmcli may do all of this; the ``companion`` service user may because
of the polkit rule scripts/install.sh writes (systemd/companion-network.rules).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .model import (
    HOTSPOT_ADDRESS,
    HOTSPOT_PREFIX,
    HOTSPOT_PROFILE,
    MDNS_NAME,
    NetworkError,
    NetworkStatus,
    WifiNetwork,
)

log = logging.getLogger(__name__)

# (argv without "nmcli", timeout seconds) -> (exit status, stdout, stderr)
Runner = Callable[[Sequence[str], float], tuple[int, str, str]]

NM_NOT_RUNNING = 8  # nmcli's exit status when NetworkManager does not answer
NOT_FOUND = 10  # connection, device or access point does not exist
JOIN_PRIORITY = 10  # autoconnect-priority of the venue networks the host joined
HOTSPOT_WAIT = 30  # seconds nmcli waits for the box's network to come up
JOIN_WAIT = 45  # ... for a venue's Wi-Fi to connect
AVAHI_SOCKET = Path("/run/avahi-daemon/socket")
PSK = "802-11-wireless-security.psk"  # the secret a WPA2/WPA3 personal network asks for
SECRET_DIRS = (Path("/dev/shm"),)  # where a secret file is made first (memory, not a disk)


def run_nmcli(args: Sequence[str], timeout: float) -> tuple[int, str, str]:
    """Run the real nmcli (from PATH) in the C locale."""
    exe = shutil.which("nmcli")
    if exe is None:
        raise NetworkError(
            "NetworkManager's nmcli is not installed on this machine.", "network.unavailable"
        )
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    try:
        done = subprocess.run(
            [exe, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        raise NetworkError(
            "NetworkManager did not answer in time.", "network.timeout", {"seconds": timeout}
        ) from None
    except OSError as exc:
        raise NetworkError(f"nmcli cannot be run: {exc}", "network.unavailable") from None
    return done.returncode, done.stdout, done.stderr


def split_terse(line: str) -> list[str]:
    """The fields of one line of nmcli's terse tabular output (``:`` separates them; ``\\:`` and
    ``\\\\`` inside a value stand for ``:`` and ``\\``)."""
    fields: list[str] = []
    cur: list[str] = []
    it = iter(line)
    for c in it:
        if c == "\\":
            nxt = next(it, "")
            cur.append(nxt)
        elif c == ":":
            fields.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    fields.append("".join(cur))
    return fields


def multiline_values(text: str) -> dict[str, list[str]]:
    """nmcli's terse multiline output without escapes (``-e no``): ``NAME:value`` or
    ``NAME[1]:value`` lines, as {NAME: [values]}."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if not sep:
            continue
        out.setdefault(name.split("[", 1)[0], []).append(value)
    return out


def refusal_reason(text: str) -> str:
    """The line of nmcli's answer that says why it refused: its last ``Error:`` line (after it
    nmcli 1.42 may add a ``Hint:`` to run journalctl; before it, a ``Warning:``), else its last
    line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error: ")]
    return (errors or lines or [text])[-1].removeprefix("Error: ")


def passwd_line(key: str, secret: str) -> str:
    """One line of nmcli's ``passwd-file``: ``setting.property:secret``. nmcli strips spaces
    around the secret and reads backslash escapes in it, so a backslash and every space are
    written escaped (``\\\\``, ``\\040``)."""
    value = secret.replace("\\", "\\\\").replace(" ", "\\040")
    return f"{key}:{value}\n"


@contextmanager
def secret_file(secrets: Mapping[str, str]) -> Iterator[str]:
    """A ``passwd-file`` for nmcli holding ``secrets`` ({setting.property: secret}), readable
    by its owner only (0600, in a new folder, 0700), removed when the block ends."""
    base = next((str(d) for d in SECRET_DIRS if d.is_dir() and os.access(d, os.W_OK)), None)
    folder = tempfile.mkdtemp(prefix="companion-nmcli-", dir=base)
    try:
        path = os.path.join(folder, "secrets")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write("".join(passwd_line(k, v) for k, v in secrets.items()))
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def wifi_security(text: str) -> str:
    """A scan's SECURITY column (``WPA2``, ``WPA1 WPA2``, ``WPA3``, ``--``) as open | wpa2 |
    wpa3 | other."""
    words = set(text.replace("--", " ").split())
    if not words:
        return "open"
    if "802.1X" in words or "WEP" in words:
        return "other"
    if "WPA2" in words or "WPA1" in words:
        return "wpa2"
    if "WPA3" in words:
        return "wpa3"
    return "other"


def avahi_name() -> str | None:
    """``companion.local`` when Avahi runs here and the host name is ``companion``."""
    try:
        name = socket.gethostname().split(".")[0].lower()
    except OSError:
        return None
    if name + ".local" == MDNS_NAME and AVAHI_SOCKET.exists():
        return MDNS_NAME
    return None


class NmcliNetwork:
    """:class:`companion.network.Network` through nmcli. ``interface``: the Wi-Fi device (the
    first one NetworkManager lists when None); ``ssid``: the box's network's name."""

    def __init__(
        self,
        ssid: str,
        interface: str | None = None,
        *,
        run: Runner = run_nmcli,
        mdns: Callable[[], str | None] = avahi_name,
    ) -> None:
        self.ssid = ssid
        self.interface = interface
        self._run = run
        self._mdns = mdns

    # --- talking to nmcli -------------------------------------------------------------------

    def nmcli(
        self,
        *args: str,
        timeout: float = 20.0,
        code: str = "network.failed",
        ok: Sequence[int] = (0,),
    ) -> str:
        status, out, err = self._run(list(args), timeout)
        if status == NM_NOT_RUNNING:
            raise NetworkError("NetworkManager is not running.", "network.unavailable")
        if status not in ok:
            reason = refusal_reason(err.strip() or out.strip() or f"exit status {status}")
            log.warning("nmcli %s: %s", " ".join(args), reason)
            raise NetworkError(
                f"NetworkManager refused: {reason}", code, {"reason": reason, "status": status}
            )
        return out

    def terse(self, fields: str, *args: str, **kw: Any) -> str:
        """nmcli's terse tabular answer (``-t -f FIELDS ...``): one line a row."""
        return self.nmcli("-t", "-f", fields, *args, **kw)

    def multiline(self, fields: str, *args: str) -> dict[str, list[str]]:
        """nmcli's terse multiline answer without escapes, as {NAME: [values]}."""
        return multiline_values(
            self.nmcli("-t", "-e", "no", "-m", "multiline", "-f", fields, *args)
        )

    def up(
        self,
        name: str,
        wait: int,
        *,
        code: str,
        secrets: Mapping[str, str] | None = None,
        ifname: str | None = None,
    ) -> None:
        """Start a profile; its ``secrets`` go through a private ``passwd-file``."""
        args = ["--wait", str(wait), "connection", "up", "id", name]
        if ifname is not None:
            args += ["ifname", ifname]
        if not secrets:
            self.nmcli(*args, timeout=wait + 15, code=code)
            return
        with secret_file(secrets) as path:
            self.nmcli(*args, "passwd-file", path, timeout=wait + 15, code=code)

    def devices(self) -> list[tuple[str, str, str, str]]:
        """(device, type, state, connection) of every device NetworkManager knows."""
        out = self.terse("DEVICE,TYPE,STATE,CONNECTION", "device", "status")
        rows = []
        for line in out.splitlines():
            fields = split_terse(line)
            if len(fields) >= 4:
                rows.append((fields[0], fields[1], fields[2], fields[3]))
        return rows

    def wifi_device(self, devices: list[tuple[str, str, str, str]] | None = None) -> str:
        rows = self.devices() if devices is None else devices
        wifi = [d for d, kind, _, _ in rows if kind == "wifi"]
        if self.interface is not None:
            if self.interface not in wifi:
                raise NetworkError(
                    f"NetworkManager has no Wi-Fi device {self.interface}.",
                    "network.no_wifi",
                    {"interface": self.interface},
                )
            return self.interface
        if not wifi:
            raise NetworkError("This machine has no Wi-Fi device.", "network.no_wifi")
        return wifi[0]

    def profile(self, name: str) -> dict[str, list[str]]:
        wifi = "802-11-wireless.ssid,802-11-wireless.mode"
        try:
            return self.multiline(
                f"{wifi},802-11-wireless-security.key-mgmt", "connection", "show", "id", name
            )
        except NetworkError:  # an open profile has no security setting at all
            return self.multiline(wifi, "connection", "show", "id", name)

    def addresses(self, device: str) -> tuple[str, ...]:
        values = self.multiline("IP4.ADDRESS,IP6.ADDRESS", "device", "show", device)
        found = []
        for key in ("IP4.ADDRESS", "IP6.ADDRESS"):
            for value in values.get(key, []):
                addr = value.strip().split("/", 1)[0]
                if addr and not addr.lower().startswith("fe80:"):
                    found.append(addr)
        return tuple(found)

    # --- the Network interface --------------------------------------------------------------

    def status(self) -> NetworkStatus:
        rows = self.devices()
        mdns = self._mdns()
        connected = [r for r in rows if r[2].startswith("connected") and r[3]]
        wifi = [r for r in connected if r[1] == "wifi"]
        if self.interface is not None:
            wifi = [r for r in wifi if r[0] == self.interface]
        for device, _, _, name in wifi:
            values = self.profile(name)
            mode = (values.get("802-11-wireless.mode") or [""])[0]
            ssid = (values.get("802-11-wireless.ssid") or [""])[0] or None
            key_mgmt = (values.get("802-11-wireless-security.key-mgmt") or [""])[0]
            security = "open" if key_mgmt in ("", "none", "owe") else "wpa2"
            return NetworkStatus(
                mode="hotspot" if mode == "ap" else "wifi",
                ssid=ssid,
                security=security,
                addresses=self.addresses(device),
                mdns=mdns,
                interface=device,
            )
        for device, kind, _, _ in connected:
            if kind == "ethernet":
                return NetworkStatus(
                    mode="wired", addresses=self.addresses(device), mdns=mdns, interface=device
                )
        return NetworkStatus(mode="none", mdns=mdns)

    def serving(self, device: str, rows: list[tuple[str, str, str, str]]) -> bool:
        """Whether the device serves the box's own network (then it cannot scan)."""
        return any(d == device and c == HOTSPOT_PROFILE for d, _, _, c in rows)

    def wifi_list(self, device: str, rescan: str) -> str:
        return self.terse(
            "IN-USE,SSID,SIGNAL,SECURITY",
            "device",
            "wifi",
            "list",
            "--rescan",
            rescan,
            "ifname",
            device,
            timeout=30.0,
        )

    def scan(self) -> list[WifiNetwork]:
        rows = self.devices()
        device = self.wifi_device(rows)
        if self.serving(device, rows):
            return []  # an access point does not scan: the caller keeps an older list
        out = self.wifi_list(device, "auto")
        best: dict[str, WifiNetwork] = {}
        for line in out.splitlines():
            fields = split_terse(line)
            if len(fields) < 4 or not fields[1]:
                continue  # a hidden network has no name to join
            try:
                signal = max(0, min(100, int(fields[2])))
            except ValueError:
                signal = 0
            net = WifiNetwork(fields[1], signal, wifi_security(fields[3]), fields[0] == "*")
            old = best.get(net.ssid)
            if old is None or net.signal > old.signal or net.in_use:
                best[net.ssid] = WifiNetwork(
                    net.ssid,
                    max(net.signal, old.signal if old else 0),
                    net.security,
                    net.in_use or bool(old and old.in_use),
                )
        return sorted(best.values(), key=lambda n: (-n.signal, n.ssid))

    def known_networks(self) -> list[str]:
        """The Wi-Fi profiles NetworkManager would connect to by itself (not the box's own)."""
        out = self.terse("NAME,TYPE,AUTOCONNECT", "connection", "show")
        names = []
        for line in out.splitlines():
            fields = split_terse(line)
            if len(fields) < 3 or fields[0] == HOTSPOT_PROFILE:
                continue
            if fields[1] == "802-11-wireless" and fields[2] == "yes":
                names.append(fields[0])
        return names

    def open_hotspot(self, password: str | None) -> NetworkStatus:
        device = self.wifi_device()
        radio = self.nmcli("radio", "wifi").strip()
        if radio != "enabled":
            self.nmcli("radio", "wifi", "on", code="network.hotspot_failed")
        self.nmcli("connection", "delete", "id", HOTSPOT_PROFILE, ok=(0, NOT_FOUND))
        args = [
            "connection", "add", "type", "wifi", "ifname", device, "con-name", HOTSPOT_PROFILE,
            "autoconnect", "no", "ssid", self.ssid,
            "802-11-wireless.mode", "ap", "802-11-wireless.band", "bg",
            "ipv4.method", "shared", "ipv4.addresses", f"{HOTSPOT_ADDRESS}/{HOTSPOT_PREFIX}",
            "ipv6.method", "ignore",
        ]  # fmt: skip
        if password:
            args += [
                "802-11-wireless-security.key-mgmt", "wpa-psk",
                "802-11-wireless-security.proto", "rsn",
                "802-11-wireless-security.pairwise", "ccmp",
                "802-11-wireless-security.group", "ccmp",
                # no protected management frames: some phones (iPads) and Wi-Fi drivers fail
                # to join an access point that offers them (WPA-PSK-SHA256)
                "802-11-wireless-security.pmf", "disable",
            ]  # fmt: skip
        self.nmcli(*args, code="network.hotspot_failed")
        secrets = {PSK: password} if password else None
        self.up(HOTSPOT_PROFILE, HOTSPOT_WAIT, code="network.hotspot_failed", secrets=secrets)
        return self.status()

    def security_of(self, device: str, ssid: str, rescan: str) -> str | None:
        """How the network ``ssid`` is secured as a scan shows it (None: not seen, or the scan
        was refused, say because one was already running)."""
        try:
            out = self.wifi_list(device, rescan)
        except NetworkError as exc:
            if exc.code == "network.unavailable":
                raise
            log.info("no fresh scan before joining: %s", exc.message)
            return None
        for line in out.splitlines():
            fields = split_terse(line)
            if len(fields) >= 4 and fields[1] == ssid:
                return wifi_security(fields[3])
        return None

    def join(self, ssid: str, password: str | None) -> NetworkStatus:
        rows = self.devices()
        device = self.wifi_device(rows)
        serving = self.serving(device, rows)
        if serving:
            # the radio leaves the box's network and looks around first: serving, it has not
            # scanned, and NetworkManager connects only to a network it has seen
            self.nmcli("connection", "down", "id", HOTSPOT_PROFILE, ok=(0, NOT_FOUND))
        security = self.security_of(device, ssid, "yes" if serving else "auto")
        # the network's profile is made anew, so that its settings are exactly these
        self.nmcli("connection", "delete", "id", ssid, ok=(0, NOT_FOUND))
        args = [
            "connection", "add", "type", "wifi", "ifname", device, "con-name", ssid,
            "autoconnect", "yes", "ssid", ssid,
            "connection.autoconnect-priority", str(JOIN_PRIORITY),
        ]  # fmt: skip
        if password:
            key_mgmt = "sae" if security == "wpa3" else "wpa-psk"
            args += ["802-11-wireless-security.key-mgmt", key_mgmt]
        self.nmcli(*args, code="network.join_failed")
        try:
            secrets = {PSK: password} if password else None
            self.up(ssid, JOIN_WAIT, code="network.join_failed", secrets=secrets, ifname=device)
        except NetworkError:
            # a profile that did not connect (a wrong password) is not kept to retry by itself
            try:
                self.nmcli("connection", "delete", "id", ssid, ok=(0, NOT_FOUND))
            except NetworkError as exc:
                log.warning("the profile of %s was not deleted: %s", ssid, exc.message)
            raise
        return self.status()


__all__ = [
    "NmcliNetwork",
    "multiline_values",
    "passwd_line",
    "refusal_reason",
    "run_nmcli",
    "secret_file",
    "split_terse",
    "wifi_security",
]
