"""The network endpoints (API.md, "Network (host)") through create_app with the fake twin."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.network import Around, FakeNetwork
from companion.service import Service
from companion.webapp import create_app

from .conftest import BEARER, TOKEN

BASE = "http://localhost:8080"


def make_net() -> FakeNetwork:
    return FakeNetwork(
        "companion-TEST",
        [
            Around("Cafe", 70, "wpa2", "espresso-42", "192.168.7.31"),
            Around("Library", 30, "open", None, "172.16.3.9"),
        ],
    )


@pytest.fixture
def net() -> FakeNetwork:
    return make_net()


def client_for(service: Service, net: FakeNetwork | None, state: Path, delay: float = 0) -> Any:
    cfg = {"HOST_TOKEN": TOKEN, "NETWORK": net, "NETWORK_STATE_DIR": state, "NETWORK_DELAY": delay}
    return create_app(service, cfg).test_client()


@pytest.fixture
def client(service: Service, net: FakeNetwork, tmp_path: Path) -> Iterator[FlaskClient]:
    yield client_for(service, net, tmp_path / "netstate")


def get(client: FlaskClient, path: str = "/api/network") -> Any:
    resp = client.get(path, headers=BEARER, base_url=BASE)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def post(client: FlaskClient, path: str, body: Any) -> Any:
    return client.post(path, json=body, headers=BEARER, base_url=BASE)


def test_host_only(client: FlaskClient) -> None:
    assert client.get("/api/network").status_code == 401
    wrong = {"Authorization": "Bearer " + "x" * 30}
    assert client.get("/api/network", headers=wrong).status_code == 403
    assert client.post("/api/network/hotspot", json={}, headers=wrong).status_code == 403
    assert client.get("/api/network/scan").status_code == 401


def test_open_then_wpa2_with_qr_payloads(client: FlaskClient, tmp_path: Path) -> None:
    data = get(client)
    assert (data["mode"], data["wifi_qr"], data["qr_svg"]["wifi"]) == ("none", None, None)
    assert data["page_urls"] == ["http://companion.local:8080/"]
    resp = post(client, "/api/network/hotspot", {})
    assert resp.status_code == 202
    assert resp.get_json()["change"] == {"kind": "hotspot", "state": "done"}
    assert resp.get_json()["next"]["wifi_qr"] == "WIFI:T:nopass;S:companion-TEST;;"
    data = get(client)
    assert {k: data[k] for k in ("mode", "ssid", "security", "addresses", "interface")} == {
        "mode": "hotspot",
        "ssid": "companion-TEST",
        "security": "open",
        "addresses": ["10.42.0.1"],
        "interface": "wlan0",
    }
    assert data["wifi_qr"] == "WIFI:T:nopass;S:companion-TEST;;"
    assert data["page_url"] == "http://10.42.0.1:8080/"
    assert data["page_urls"] == ["http://10.42.0.1:8080/", "http://companion.local:8080/"]
    assert data["qr_svg"]["page"].startswith("data:image/svg+xml")
    assert (data["password"], data["password_set"]) == (None, False)

    secret = 'se;cr:et,"1\\'
    resp = post(client, "/api/network/hotspot", {"password": secret})
    assert resp.status_code == 202
    expected = 'WIFI:T:WPA;S:companion-TEST;P:se\\;cr\\:et\\,\\"1\\\\;;'
    assert resp.get_json()["next"]["wifi_qr"] == expected  # shown before the network restarts
    data = get(client)
    assert (data["security"], data["wifi_qr"], data["password"]) == ("wpa2", expected, secret)
    path = tmp_path / "netstate" / "network-password"
    assert path.read_text() == secret + "\n" and path.stat().st_mode & 0o777 == 0o600
    # opening it again (from a venue's Wi-Fi) keeps the password
    post(client, "/api/network/join", {"ssid": "Library"})
    assert get(client)["mode"] == "wifi"
    assert post(client, "/api/network/hotspot", {}).get_json()["next"]["security"] == "wpa2"
    assert get(client)["security"] == "wpa2"


@pytest.mark.parametrize("password", ["short", "x" * 64, "tab\there-ok", 12345678, ["a"]])
def test_bad_password_is_400_and_changes_nothing(
    client: FlaskClient, net: FakeNetwork, tmp_path: Path, password: Any
) -> None:
    resp = post(client, "/api/network/hotspot", {"password": password})
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["code"] == "network.password_invalid" and body["params"] == {"min": 8, "max": 63}
    assert net.calls == [] and not (tmp_path / "netstate" / "network-password").exists()


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"ssid": ""}, "network.ssid_invalid"),
        ({"ssid": 7}, "network.ssid_invalid"),
        ({"ssid": "x" * 40}, "network.ssid_invalid"),
        ({"ssid": "Cafe", "password": "short"}, "network.password_invalid"),
        ({"ssid": "Cafe", "password": "z" * 64}, "network.password_invalid"),
        ({"ssid": "Cafe", "password": 12345678}, "network.password_invalid"),
        ([1, 2], "request.invalid"),
    ],
)
def test_bad_join_is_400(client: FlaskClient, net: FakeNetwork, body: Any, code: str) -> None:
    resp = post(client, "/api/network/join", body)
    assert (resp.status_code, resp.get_json()["code"]) == (400, code)
    assert net.calls == []


def test_join_from_the_scan_list_and_fall_back(client: FlaskClient) -> None:
    scan = get(client, "/api/network/scan")
    assert [n["ssid"] for n in scan["networks"]] == ["Cafe", "Library"] and scan["saved"] is None
    post(client, "/api/network/hotspot", {"password": "own-secret"})
    # serving its own network the radio cannot scan: the list seen before
    scan = get(client, "/api/network/scan")
    assert [n["ssid"] for n in scan["networks"]] == ["Cafe", "Library"]
    assert abs(scan["saved"] - time.time()) < 60
    resp = post(client, "/api/network/join", {"ssid": "Cafe", "password": "wrong-pass"})
    assert resp.status_code == 202
    assert resp.get_json()["next"]["page_urls"] == ["http://companion.local:8080/"]
    data = get(client)
    assert (data["mode"], data["security"]) == ("hotspot", "wpa2")  # the fallback
    assert data["change"] == {
        "kind": "join",
        "ssid": "Cafe",
        "state": "failed",
        "code": "network.join_failed",
        "params": {"ssid": "Cafe"},
    }
    post(client, "/api/network/join", {"ssid": "Cafe", "password": "espresso-42"})
    data = get(client)
    assert (data["mode"], data["ssid"], data["change"]["state"]) == ("wifi", "Cafe", "done")
    assert data["wifi_qr"] is None  # a venue's password is not the box's to show
    assert data["page_urls"] == ["http://192.168.7.31:8080/", "http://companion.local:8080/"]


def test_a_change_waits_and_one_at_a_time(
    service: Service, net: FakeNetwork, tmp_path: Path
) -> None:
    c = client_for(service, net, tmp_path, delay=1.5)
    resp = post(c, "/api/network/hotspot", {})
    assert resp.status_code == 202 and resp.get_json()["change"]["state"] == "pending"
    assert net.calls == []  # the answer goes out before the network changes
    busy = post(c, "/api/network/join", {"ssid": "Cafe", "password": "espresso-42"})
    assert (busy.status_code, busy.get_json()["code"]) == (409, "network.busy")
    deadline = time.monotonic() + 10
    while get(c)["change"]["state"] == "pending" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert get(c)["mode"] == "hotspot"


def test_no_network_manager(service: Service, net: FakeNetwork, tmp_path: Path) -> None:
    c = client_for(service, None, tmp_path)
    for resp in (
        c.get("/api/network", headers=BEARER),
        c.get("/api/network/scan", headers=BEARER),
        c.post("/api/network/hotspot", json={}, headers=BEARER),
    ):
        assert (resp.status_code, resp.get_json()["code"]) == (503, "network.unavailable")
    net.broken = "network.unavailable"
    resp = client_for(service, net, tmp_path).get("/api/network", headers=BEARER)
    assert (resp.status_code, resp.get_json()["code"]) == (503, "network.unavailable")
