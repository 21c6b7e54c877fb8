"""The box's own network and phones joining it (issue 21).

``Network`` is the interface (status, scan, open the box's network, join a venue's Wi-Fi);
:class:`NmcliNetwork` drives NetworkManager, :class:`FakeNetwork` is its twin for the demo and
the tests. Nothing happens at import time.
"""

from __future__ import annotations

from .box import (
    auto,
    default_ssid,
    demo_network,
    join_or_fall_back,
    machine_id,
    system_network,
)
from .fake import Around, FakeNetwork
from .model import (
    HOTSPOT_ADDRESS,
    HOTSPOT_PROFILE,
    MDNS_NAME,
    Network,
    NetworkError,
    NetworkStatus,
    WifiNetwork,
    box_ssid,
    escape_wifi,
    join_password_problem,
    page_url,
    password_problem,
    ssid_problem,
    wifi_qr_payload,
)
from .nmcli import NmcliNetwork

__all__ = [
    "HOTSPOT_ADDRESS",
    "HOTSPOT_PROFILE",
    "MDNS_NAME",
    "Around",
    "FakeNetwork",
    "Network",
    "NetworkError",
    "NetworkStatus",
    "NmcliNetwork",
    "WifiNetwork",
    "auto",
    "box_ssid",
    "default_ssid",
    "demo_network",
    "escape_wifi",
    "join_or_fall_back",
    "join_password_problem",
    "machine_id",
    "page_url",
    "password_problem",
    "ssid_problem",
    "system_network",
    "wifi_qr_payload",
]
