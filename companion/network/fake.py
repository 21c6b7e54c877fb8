"""The fake twin of the box's network: what NetworkManager would do, in memory. Used by the demo,
the tests and any machine whose network the companion must not touch.

It keeps the networks around it (a scan list, each with its password), the networks it knows
(joined once: they come back by themselves), whether a cable is plugged in, and the box's own
network (off, open or WPA2). Like a real radio, it serves its own network or is a client of one
other, never both; and it cannot scan while it serves its own.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from .model import (
    HOTSPOT_ADDRESS,
    MDNS_NAME,
    NetworkError,
    NetworkStatus,
    WifiNetwork,
    password_problem,
)


@dataclass
class Around:
    """A network in range: its name, signal, security and (for WPA2) password."""

    ssid: str
    signal: int = 60
    security: str = "wpa2"
    password: str | None = None
    address: str = "192.168.1.20"  # what its DHCP server gives the box


class FakeNetwork:
    """A stateful :class:`companion.network.Network` without a radio."""

    def __init__(
        self,
        ssid: str = "companion-TEST",
        around: list[Around] | None = None,
        *,
        wired: str | None = None,
        mdns: str | None = MDNS_NAME,
        interface: str = "wlan0",
        has_wifi: bool = True,
    ) -> None:
        self.ssid = ssid
        self.around = {a.ssid: a for a in around or []}
        self.known: dict[str, str | None] = {}  # ssid -> password, joined before
        self.wired = wired  # the address a cable gives, or None
        self.mdns = mdns
        self.interface = interface
        self.has_wifi = has_wifi
        self.hotspot: str | None = None  # None off, "" open, else the WPA2 password
        self.joined: str | None = None  # the venue network the radio is a client of
        self.calls: list[str] = []  # what was asked, in order (for tests)
        self.broken: str | None = None  # a code: every request fails with it (NM gone)
        self._lock = threading.Lock()

    # --- what a test sets up --------------------------------------------------------------

    def add_known(self, ssid: str, password: str | None = None) -> None:
        self.known[ssid] = password

    def connect_known(self) -> bool:
        """What NetworkManager does by itself at boot: join a known network in range."""
        with self._lock:
            for ssid, password in self.known.items():
                near = self.around.get(ssid)
                if near is not None and (near.password or None) == (password or None):
                    self.joined = ssid
                    self.hotspot = None
                    return True
        return False

    # --- the Network interface --------------------------------------------------------------

    def _check(self, call: str) -> None:
        self.calls.append(call)
        if self.broken:
            raise NetworkError("NetworkManager is not running.", self.broken)

    def _wifi(self) -> None:
        if not self.has_wifi:
            raise NetworkError("This machine has no Wi-Fi device.", "network.no_wifi")

    def status(self) -> NetworkStatus:
        with self._lock:
            self._check("status")
            if self.hotspot is not None:
                return NetworkStatus(
                    mode="hotspot",
                    ssid=self.ssid,
                    security="wpa2" if self.hotspot else "open",
                    addresses=(HOTSPOT_ADDRESS,),
                    mdns=self.mdns,
                    interface=self.interface,
                )
            if self.joined is not None:
                near = self.around[self.joined]
                return NetworkStatus(
                    mode="wifi",
                    ssid=near.ssid,
                    security="wpa2" if near.password else "open",
                    addresses=(near.address,),
                    mdns=self.mdns,
                    interface=self.interface,
                )
            if self.wired is not None:
                return NetworkStatus(
                    mode="wired", addresses=(self.wired,), mdns=self.mdns, interface="eth0"
                )
            return NetworkStatus(mode="none", mdns=self.mdns)

    def scan(self) -> list[WifiNetwork]:
        with self._lock:
            self._check("scan")
            self._wifi()
            if self.hotspot is not None:
                return []  # a radio serving its own network does not scan
            nets = [
                WifiNetwork(a.ssid, a.signal, a.security, a.ssid == self.joined)
                for a in self.around.values()
            ]
            return sorted(nets, key=lambda n: (-n.signal, n.ssid))

    def known_networks(self) -> list[str]:
        with self._lock:
            self._check("known")
            return list(self.known)

    def open_hotspot(self, password: str | None) -> NetworkStatus:
        with self._lock:
            self._check(f"hotspot {'wpa2' if password else 'open'}")
            self._wifi()
            if password is not None and password_problem(password):
                raise NetworkError("NetworkManager refused the password.", "network.hotspot_failed")
            self.joined = None
            self.hotspot = password or ""
        return self.status()

    def join(self, ssid: str, password: str | None) -> NetworkStatus:
        with self._lock:
            self._check(f"join {ssid}")
            self._wifi()
            near = self.around.get(ssid)
            if near is None:
                raise NetworkError(
                    f"No network named {ssid} is in range.", "network.join_failed", {"ssid": ssid}
                )
            if (near.password or None) != (password or None):
                self.hotspot = None  # the radio left the box's network to try
                raise NetworkError(
                    f"Could not join {ssid}: the password is wrong.",
                    "network.join_failed",
                    {"ssid": ssid},
                )
            self.hotspot = None
            self.joined = ssid
            self.known[ssid] = password
        return self.status()


__all__ = ["Around", "FakeNetwork"]
