"""`companion serve` wires NetworkManager (here the fake nmcli) into the host page's endpoints,
and its pairing links follow the address a request came to (the box's own network, a venue's
Wi-Fi, companion.local) unless --public-url names one."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from companion.network import default_ssid

from .conftest import FakeNmcli


def request(port: int, method: str, path: str, token: str, body: Any = None, host: str = "") -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Host": host or f"127.0.0.1:{port}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    out = json.loads(resp.read() or b"null")
    conn.close()
    return resp.status, out


def test_serve_wires_networkmanager_and_pairs_on_the_address_asked(
    nmcli: FakeNmcli, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--state-dir", str(state), "--host",
         "127.0.0.1", "--port", "0", "--no-qr", "--no-devices", "--no-controls"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=nmcli.env(),
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        port = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not port:
            m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())
            port = int(m.group(1)) if m else 0
        assert port, "the server did not start"
        token = (state / "host-token").read_text().strip()
        status, data = request(port, "GET", "/api/network", token)
        assert status == 200 and data["mode"] == "none"
        status, data = request(port, "POST", "/api/network/hotspot", token, {})
        assert status == 202 and data["next"]["ssid"] == default_ssid()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            status, data = request(port, "GET", "/api/network", token)
            if data["change"]["state"] != "pending":
                break
            time.sleep(0.2)
        assert (data["mode"], data["ssid"], data["change"]["state"]) == (
            "hotspot", default_ssid(), "done",
        )  # fmt: skip
        assert data["page_url"] == f"http://10.42.0.1:{port}/"
        assert ["--wait", "30", "connection", "up", "id", "companion-hotspot"] in nmcli.calls()
        game = {"type": "new_game", "players": [{"name": "Aki", "color": "red"},
                                                {"name": "Ben", "color": "blue"}]}  # fmt: skip
        assert request(port, "POST", "/api/actions", token, game)[0] == 200
        status, data = request(port, "POST", "/api/players/red/pair", token, {}, "10.42.0.1:80")
        assert status == 200 and data["url"].startswith("http://10.42.0.1/pair/")
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
