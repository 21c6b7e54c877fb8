"""Issue 22's identity rows on a real waitress on 127.0.0.1, each phone at its own address of
127.0.0.0/8: the host cookie is a session derived from the token and the host can rotate it
(every host session ends); a pairing link opens once (a second device gets "ask the host");
a pairing carries into the next game only where the same name sits at the same colour."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.hosts import HostAccess
from companion.webapp.security import HOST_COOKIE, PLAYER_COOKIE

from .conftest import BEARER, TOKEN
from .live import LiveServer

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    (tmp_path / "state").mkdir()
    access = HostAccess(TOKEN, tmp_path / "state")
    server = LiveServer(tmp_path, app_config={"HOST_ACCESS": access})
    yield server
    server.close()


def get(live: LiveServer, path: str, source: str, cookie: str = "") -> tuple[int, Any, str]:
    """(status, body, the Set-Cookie value) of a GET from ``source``."""
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=5, source_address=(source, 0))
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        resp = conn.getresponse()
        return resp.status, resp.read(), resp.getheader("Set-Cookie") or ""
    finally:
        conn.close()


def cookie(set_cookie: str) -> str:
    return set_cookie.split(";", 1)[0]


def test_the_host_cookie_is_a_session_and_rotation_ends_them_all(live: LiveServer) -> None:
    status, _, set_cookie = get(live, f"/host/login?token={TOKEN}", "127.0.0.2")
    assert status == 303 and set_cookie.startswith(f"{HOST_COOKIE}=h1.")
    assert TOKEN not in set_cookie
    host = cookie(set_cookie)
    status, _, second = get(live, f"/host/login?token={TOKEN}", "127.0.0.3")
    assert cookie(second) != host  # one session per device
    status, body = live.request("GET", "/api/session", headers={"Cookie": host}, source="127.0.0.2")
    assert body["role"] == "host"
    csrf = body["csrf_token"]
    status, body = live.request(
        "POST", "/api/host/rotate", {}, {"Cookie": host, "X-CSRF-Token": csrf}, source="127.0.0.2"
    )
    assert status == 200 and body["ended"] == 2
    for c, src in ((host, "127.0.0.2"), (cookie(second), "127.0.0.3")):
        status, body = live.request("GET", "/api/host/sessions", headers={"Cookie": c}, source=src)
        assert status == 403 and body["code"] == "host.signed_out"
    assert live.request("GET", "/api/host/sessions", headers=BEARER)[0] == 403
    assert get(live, f"/host/login?token={TOKEN}", "127.0.0.4")[0] == 403


def test_a_pairing_link_opens_once_and_carries_on_by_name_and_colour(live: LiveServer) -> None:
    assert (
        live.request("POST", "/api/actions", {"type": "new_game", "players": PLAYERS}, BEARER)[0]
        == 200
    )
    links = {}
    for color in ("red", "blue"):
        status, out = live.request("POST", f"/api/players/{color}/pair", {}, BEARER)
        links[color] = out["url"].rsplit("/", 1)[1]
    status, _, red_set = get(live, f"/pair/{links['red']}", "127.0.0.2")
    assert status == 303 and red_set.startswith(PLAYER_COOKIE)
    status, page, set_cookie = get(live, f"/pair/{links['red']}", "127.0.0.3")
    assert status == 403 and not set_cookie and b"pair.used_title" in page
    # the host shows it again: it opens once more
    live.request("POST", "/api/players/red/pair", {}, BEARER)
    assert get(live, f"/pair/{links['red']}", "127.0.0.3")[0] == 303
    status, _, blue_set = get(live, f"/pair/{links['blue']}", "127.0.0.4")
    assert status == 303
    assert live.request("POST", "/api/actions", {"type": "finish"}, BEARER)[0] == 200
    nxt = [{"name": "Aki", "color": "red"}, {"name": "Cho", "color": "blue"}]
    status, st = live.request("POST", "/api/actions", {"type": "new_game", "players": nxt}, BEARER)
    assert [p["paired"] for p in st["players"]] == [True, False]
    status, body = live.request(
        "GET", "/api/players/red/tickets", headers={"Cookie": cookie(red_set)}, source="127.0.0.2"
    )
    assert status == 200
    status, body = live.request(
        "GET", "/api/players/blue/tickets", headers={"Cookie": cookie(blue_set)}, source="127.0.0.4"
    )
    assert status == 403 and body["code"] == "auth.stale_pairing"
