"""Notices meant for the host (``"audience": "host"``) go to the host's event streams only:
a player's phone and the table view never receive them (a privacy matter: a ticket clash names
the two players who kept the same ticket)."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.webapp.security import HOST_COOKIE, PLAYER_COOKIE

from .conftest import BEARER
from .live import LiveServer, read_until

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
RED_TICKETS = ["paris-wien", "brest-marseille"]
HOST_CODE = b"tickets.clash"
MARK = "Everyone sees this notice."


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path / "state")
    yield s
    s.close()


def open_stream(live: LiveServer, headers: dict[str, str]) -> tuple[socket.socket, bytes]:
    s = live.connect()
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
    got = read_until(s, rb"\r\n\r\n[\s\S]*data: ")
    assert got.startswith(b"HTTP/1.1 200"), got[:80]
    return s, got


def notices(raw: bytes) -> list[bytes]:
    return re.findall(rb"event: notice\r?\ndata: ([^\r\n]*)", raw)


def test_a_host_notice_reaches_the_host_streams_and_no_phone_or_table(live: LiveServer) -> None:
    assert (
        live.request("POST", "/api/actions", {"type": "new_game", "players": PLAYERS}, BEARER)[0]
        == 200
    )
    keep = {"type": "keep_tickets", "player": "red", "tickets": RED_TICKETS}
    assert live.request("POST", "/api/actions", keep, BEARER)[0] == 200
    status, out = live.request("POST", "/api/players/blue/pair", None, BEARER)
    assert status == 200
    blue_token = out["url"].rsplit("/", 1)[1]
    blue = {"Authorization": f"Bearer {blue_token}"}
    # the host by bearer and by its page's cookie; blue's phone by cookie; the table (no one)
    host_bearer, hb = open_stream(live, BEARER)
    session = live.app.extensions["companion.hosts"].new_session("link")  # (the page's cookie)
    host_cookie, hc = open_stream(live, {"Cookie": f"{HOST_COOKIE}={session}"})
    phone, ph = open_stream(live, {"Cookie": f"{PLAYER_COOKIE}={blue_token}"})
    table, tb = open_stream(live, {})
    try:
        # blue's phone keeps one of red's tickets: kept as any keep; the host is told
        probe = {
            "type": "keep_tickets",
            "player": "blue",
            "tickets": [RED_TICKETS[0], "kyiv-sochi"],
        }
        status, body = live.request("POST", "/api/actions", probe, blue)
        assert status == 200 and body["players"][1]["tickets_held"] == 2
        # then a notice for everyone: a stream that has it has had every notice before it
        live.service.notice(MARK)
        seen = {
            "host (bearer)": read_until(host_bearer, MARK.encode(), hb),
            "host (cookie)": read_until(host_cookie, MARK.encode(), hc),
            "blue's phone": read_until(phone, MARK.encode(), ph),
            "table": read_until(table, MARK.encode(), tb),
        }
    finally:
        for s in (host_bearer, host_cookie, phone, table):
            s.close()
    for who, raw in seen.items():
        assert MARK.encode() in raw, who
    for who in ("host (bearer)", "host (cookie)"):
        (told,) = [n for n in notices(seen[who]) if HOST_CODE in n]
        assert b'"audience":"host"' in told and b'"keeper":"Ben"' in told, who
        assert b'"holders":"Aki"' in told and b'"ticket":"paris-wien"' in told, who
    for who in ("blue's phone", "table"):
        assert [n for n in notices(seen[who]) if MARK.encode() in n], who
        assert HOST_CODE not in seen[who], who
        assert b'"audience"' not in seen[who], who
