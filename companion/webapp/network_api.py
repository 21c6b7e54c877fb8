"""The box's network on the host's page (see API.md, "Network (host)"): how phones reach the box
now, the Wi-Fi QR code of its own network and the page's QR code, a WPA2 password for the box's
network, joining a venue's Wi-Fi from a scan list, opening the box's network again. Host only.

A change of network cuts off the phone that asked for it when that phone is on the box's own
network: the answer (202, with the QR codes of the network to come) goes out first, and the change
is made ``NETWORK_DELAY`` seconds later on its own thread (0: at once, in the request, for tests).
Its outcome is the ``change`` of the next ``GET /api/network``.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from companion.network import (
    HOTSPOT_ADDRESS,
    Network,
    NetworkError,
    NetworkStatus,
    join_password_problem,
    page_url,
    password_problem,
    ssid_problem,
    wifi_qr_payload,
)
from companion.network.box import join_or_fall_back
from companion.network.saved import read_password, read_scan, save_password, save_scan
from companion.service import BadRequest, Conflict, Unavailable

from .api import json_body
from .security import require, split_host

log = logging.getLogger(__name__)

bp = Blueprint("network", __name__, url_prefix="/api/network")
KEY = "companion.network"


class NetworkDesk:
    """The app's hold on the box's network: the :class:`Network`, where its password is kept
    (None: in memory only) and the change being made."""

    def __init__(self, network: Network | None, state_dir: Path | None, delay: float) -> None:
        self.network = network
        self.state_dir = state_dir
        self.delay = delay
        self.change: dict[str, Any] | None = None
        self._password: str | None = None
        self._lock = threading.Lock()

    def password(self) -> str | None:
        if self.state_dir is None:
            return self._password
        return read_password(self.state_dir)

    def keep_password(self, password: str) -> None:
        if self.state_dir is None:
            self._password = password
            return
        try:
            save_password(self.state_dir, password)
        except OSError as exc:
            log.error("cannot keep the network's password in %s: %s", self.state_dir, exc)
            raise Unavailable(
                "The password cannot be kept on the box; nothing was changed.",
                code="network.unwritable",
            ) from None

    def start(self, change: dict[str, Any], work: Callable[[], NetworkStatus]) -> dict[str, Any]:
        """Make a change (after ``delay`` seconds); one at a time."""
        with self._lock:
            if self.change is not None and self.change["state"] == "pending":
                raise Conflict(
                    "The box is already changing its network; wait a moment.",
                    code="network.busy",
                )
            self.change = {**change, "state": "pending"}
            mine = self.change

        def run() -> None:
            try:
                work()
                outcome: dict[str, Any] = {"state": "done"}
            except NetworkError as exc:
                outcome = {"state": "failed", "code": exc.code, "params": exc.params}
            except Exception:  # never a dead thread without a word: the host sees it failed
                log.exception("the network change %s failed", change.get("kind"))
                outcome = {"state": "failed", "code": "network.failed", "params": {}}
            with self._lock:
                mine.update(outcome)

        if self.delay <= 0:
            run()
        else:
            timer = threading.Timer(self.delay, run)
            timer.daemon = True
            timer.name = "companion-network-change"
            timer.start()
        return dict(mine)


def register(app: Flask, config: dict[str, Any]) -> None:
    """Add the endpoints; config ``NETWORK`` (a Network, None: the box's network is not managed
    here), ``NETWORK_STATE_DIR`` (where its password is kept), ``NETWORK_DELAY`` (seconds, 1)."""
    state_dir = config.get("NETWORK_STATE_DIR")
    app.extensions[KEY] = NetworkDesk(
        config.get("NETWORK"),
        Path(state_dir) if state_dir else None,
        float(config.get("NETWORK_DELAY", 1.0)),
    )
    app.register_blueprint(bp)


def desk() -> NetworkDesk:
    d: NetworkDesk = current_app.extensions[KEY]
    return d


def network() -> Network:
    net = desk().network
    if net is None:
        raise Unavailable("This box does not manage its network.", code="network.unavailable")
    return net


def refused(exc: NetworkError) -> Unavailable:
    return Unavailable(exc.message, code=exc.code, params=exc.params)


def port() -> int:
    try:
        return int(request.environ.get("SERVER_PORT") or 80)
    except ValueError:
        return 80


def qr_svg(text: str) -> str:
    """A QR code as an SVG data URI (black on white, quiet zone of 4 modules; never Micro QR,
    which phones do not read)."""
    import segno

    code = segno.make_qr(text, error="m")
    uri: str = code.svg_data_uri(scale=4, border=4, dark="#000", light="#fff")
    return uri


def page_urls(st: NetworkStatus) -> list[str]:
    """Where phones find the dashboard, the best first: the fixed address on the box's own
    network, else its address on the network it is on; then the mDNS name."""
    p = port()
    urls = [page_url(a, p) for a in st.addresses if ":" not in a]
    if st.mode == "hotspot":
        urls = [page_url(HOTSPOT_ADDRESS, p)] + [u for u in urls if HOTSPOT_ADDRESS not in u]
    if st.mdns:
        urls.append(page_url(st.mdns, p))
    if not urls:  # no address known: the one this page was asked on
        urls.append(page_url(split_host(request.host), p))
    return urls


def wifi_of(st: NetworkStatus, password: str | None) -> str | None:
    """The Wi-Fi QR payload of the network phones should join, when it can be known."""
    if st.mode not in ("hotspot", "wifi") or not st.ssid:
        return None
    if st.security == "open":
        return wifi_qr_payload(st.ssid, None)
    if st.mode == "hotspot" and password:
        return wifi_qr_payload(st.ssid, password)
    return None  # a venue's WPA2 network: its password is not the box's to show


def answer(st: NetworkStatus, password: str | None) -> dict[str, Any]:
    urls = page_urls(st)
    wifi = wifi_of(st, password)
    return {
        **st.to_json(),
        "password": password if st.mode == "hotspot" and st.security == "wpa2" else None,
        "wifi_qr": wifi,
        "page_url": urls[0],
        "page_urls": urls,
        "qr_svg": {"wifi": qr_svg(wifi) if wifi else None, "page": qr_svg(urls[0])},
    }


@bp.get("")
@require("host")
def status() -> Response:
    d = desk()
    try:
        st = network().status()
    except NetworkError as exc:
        raise refused(exc) from None
    body = answer(st, d.password())
    body["password_set"] = d.password() is not None
    body["change"] = dict(d.change) if d.change else None
    return jsonify(body)


@bp.get("/page")
@require("host")
def page() -> Response:
    """The page's address and its QR code, known even where the box does not manage its network
    (no NetworkManager: ``GET /api/network`` is 503): the public URL, else the one asked on."""
    url = current_app.config.get("PUBLIC_URL") or request.host_url.rstrip("/")
    url = url.rstrip("/") + "/"
    return jsonify({"page_url": url, "qr_svg": qr_svg(url)})


@bp.get("/scan")
@require("host")
def scan() -> Response:
    d = desk()
    try:
        nets = network().scan()
    except NetworkError as exc:
        raise refused(exc) from None
    if nets:
        if d.state_dir is not None:
            try:
                save_scan(d.state_dir, nets)
            except OSError as exc:
                log.warning("cannot keep the scan: %s", exc)
        return jsonify({"networks": [n.to_json() for n in nets], "saved": None})
    kept, when = read_scan(d.state_dir) if d.state_dir is not None else ([], None)
    # serving its own network the radio cannot scan: the list seen before it opened
    return jsonify({"networks": [n.to_json() for n in kept], "saved": when})


def body_object() -> dict[str, Any]:
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    data = json_body()
    if not isinstance(data, dict):
        raise BadRequest("The body must be one JSON object.", code="request.invalid")
    return data


@bp.post("/hotspot")
@require("host")
def hotspot() -> tuple[Response, int]:
    d = desk()
    net = network()
    data = body_object()
    password = data.get("password")
    if password is not None:
        problem = password_problem(password)
        if problem is not None:
            raise BadRequest(problem, code="network.password_invalid", params={"min": 8, "max": 63})
        d.keep_password(password)
    else:
        password = d.password()
    coming = NetworkStatus(
        mode="hotspot",
        ssid=net.ssid,
        security="wpa2" if password else "open",
        addresses=(HOTSPOT_ADDRESS,),
    )
    change = d.start({"kind": "hotspot"}, lambda: net.open_hotspot(password))
    return jsonify({"change": change, "next": answer(coming, password)}), 202


@bp.post("/join")
@require("host")
def join() -> tuple[Response, int]:
    d = desk()
    net = network()
    data = body_object()
    ssid = data.get("ssid")
    problem = ssid_problem(ssid)
    if problem is not None or not isinstance(ssid, str):
        raise BadRequest(problem or "No network name.", code="network.ssid_invalid")
    password = data.get("password") or None
    problem = None if password is None else join_password_problem(password)
    if problem is not None:
        raise BadRequest(problem, code="network.password_invalid", params={"min": 8, "max": 63})
    own = d.password()
    try:  # where the phones find the box on the venue's Wi-Fi: its mDNS name
        name = net.status().mdns
    except NetworkError as exc:
        raise refused(exc) from None
    name = name or socket.gethostname().split(".")[0].lower() + ".local"
    change = d.start(
        {"kind": "join", "ssid": ssid},
        lambda: join_or_fall_back(net, ssid, password, own),
    )
    return jsonify(
        {"change": change, "next": {"ssid": ssid, "page_urls": [page_url(name, port())]}}
    ), 202


__all__ = ["NetworkDesk", "bp", "register"]
