"""Where the box does not manage its network (no NetworkManager), the host page still shows
phones the page's QR code: ``GET /api/network/page`` (issue 21's QA)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.service import Service
from companion.webapp import create_app

from .conftest import BEARER, TOKEN


def client(service: Service, tmp_path: Path, public_url: str = "") -> Any:
    cfg = {
        "HOST_TOKEN": TOKEN,
        "NETWORK": None,
        "NETWORK_STATE_DIR": tmp_path,
        "PUBLIC_URL": public_url,
    }
    return create_app(service, cfg).test_client()


def test_the_page_and_its_code_without_network_manager(service: Service, tmp_path: Path) -> None:
    c = client(service, tmp_path)
    assert c.get("/api/network", headers=BEARER).status_code == 503  # not managed
    r = c.get("/api/network/page", headers=BEARER, base_url="http://192.168.1.20:8080")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["page_url"] == "http://192.168.1.20:8080/"
    assert body["qr_svg"].startswith("data:image/svg+xml")


def test_the_public_url_comes_first(service: Service, tmp_path: Path) -> None:
    c = client(service, tmp_path, "http://companion.local:8080")
    body = c.get("/api/network/page", headers=BEARER, base_url="http://127.0.0.1:8080").get_json()
    assert body["page_url"] == "http://companion.local:8080/"


def test_host_only(service: Service, tmp_path: Path) -> None:
    assert client(service, tmp_path).get("/api/network/page").status_code == 401
