"""The box's network as the rest of the companion sees it: value types, the `Network` interface
(NetworkManager behind :mod:`companion.network.nmcli`, the fake twin in
:mod:`companion.network.fake`) and the pure helpers around them (the box's SSID, the Wi-Fi QR
payload, what a password or an SSID may be). Nothing here does I/O."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any, Protocol

HOTSPOT_ADDRESS = "10.42.0.1"  # NetworkManager's shared mode: the box on its own network
HOTSPOT_PREFIX = 24
MDNS_NAME = "companion.local"  # Avahi publishes the host name "companion" (scripts/install.sh)
HOTSPOT_PROFILE = "companion-hotspot"  # the NetworkManager connection profile of the box's network
SSID_PREFIX = "companion-"
PASSWORD_MIN = 8  # WPA2 passphrase: 8-63 printable ASCII characters
PASSWORD_MAX = 63
SSID_MAX_BYTES = 32
MODES = ("hotspot", "wifi", "wired", "none")


class NetworkError(Exception):
    """A network request that cannot be done: one plain sentence, a stable ``code``
    (``network.*``: its words are ``notice.network.*`` in the catalogues) and its params."""

    def __init__(self, message: str, code: str, params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.params: dict[str, Any] = dict(params or {})


@dataclass(frozen=True)
class NetworkStatus:
    """How phones reach the box now. ``mode``: hotspot (the box's own network), wifi (a venue's
    Wi-Fi), wired, none; ``security``: open | wpa2 for a Wi-Fi network, else None."""

    mode: str
    ssid: str | None = None
    security: str | None = None
    addresses: tuple[str, ...] = ()
    mdns: str | None = None
    interface: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["addresses"] = list(self.addresses)
        return out


@dataclass(frozen=True)
class WifiNetwork:
    """One network of a scan: its name, signal (0-100) and security (open | wpa2 | wpa3 |
    other: only open and WPA2/WPA3 personal networks can be joined with a password)."""

    ssid: str
    signal: int
    security: str
    in_use: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Network(Protocol):
    """The box's network: NetworkManager on the Pi, :class:`FakeNetwork` elsewhere. ``ssid``:
    the name of the box's own network."""

    ssid: str

    def status(self) -> NetworkStatus: ...

    def scan(self) -> list[WifiNetwork]: ...

    def known_networks(self) -> list[str]: ...

    def open_hotspot(self, password: str | None) -> NetworkStatus: ...

    def join(self, ssid: str, password: str | None) -> NetworkStatus: ...


def box_ssid(machine_id: str) -> str:
    """``companion-XXXX``: four hex digits derived from the machine id (a hash of it: the id
    itself is meant to stay private), the same on every boot of one box."""
    digest = hashlib.sha256(b"companion-ssid:" + machine_id.strip().encode()).hexdigest()
    return SSID_PREFIX + digest[:4].upper()


def password_problem(password: object) -> str | None:
    """Why this cannot be a WPA2 password (None: it can)."""
    if not isinstance(password, str):
        return "The password must be text."
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        return f"The password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters long."
    if any(not 32 <= ord(c) <= 126 for c in password):
        return "The password may use only printable ASCII characters (letters, digits, signs)."
    return None


def join_password_problem(password: object) -> str | None:
    """Why this cannot be the password of a network to join (None: it can): a WPA passphrase,
    or the 64 hex digits of a raw key."""
    if isinstance(password, str) and len(password) == 64:
        if all(c in "0123456789abcdefABCDEF" for c in password):
            return None
        return "A 64-character Wi-Fi key must be hex digits."
    return password_problem(password)


def ssid_problem(ssid: object) -> str | None:
    """Why this cannot be a network name (None: it can)."""
    if not isinstance(ssid, str) or not ssid:
        return "The network name must not be empty."
    if len(ssid.encode("utf-8")) > SSID_MAX_BYTES:
        return f"The network name is longer than {SSID_MAX_BYTES} bytes."
    if any(ord(c) < 32 or ord(c) == 127 for c in ssid):
        return "The network name has control characters."
    return None


def escape_wifi(text: str) -> str:
    """A value of the WIFI: QR format: backslash before ``\\ ; , : "``."""
    return "".join("\\" + c if c in '\\;,:"' else c for c in text)


def wifi_qr_payload(ssid: str, password: str | None) -> str:
    """The text of a Wi-Fi QR code phones join by scanning: ``WIFI:T:WPA;S:…;P:…;;`` or
    ``WIFI:T:nopass;S:…;;``."""
    if password:
        return f"WIFI:T:WPA;S:{escape_wifi(ssid)};P:{escape_wifi(password)};;"
    return f"WIFI:T:nopass;S:{escape_wifi(ssid)};;"


def page_url(host: str, port: int) -> str:
    """The dashboard's address on ``host`` (a name or an address)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


__all__ = [
    "HOTSPOT_ADDRESS",
    "HOTSPOT_PROFILE",
    "MDNS_NAME",
    "Network",
    "NetworkError",
    "NetworkStatus",
    "WifiNetwork",
    "box_ssid",
    "escape_wifi",
    "join_password_problem",
    "page_url",
    "password_problem",
    "ssid_problem",
    "wifi_qr_payload",
]
