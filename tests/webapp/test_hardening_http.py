"""Hostile or broken clients against the real server (waitress on 127.0.0.1): bodies refused
from their headers, images sized before decoding, odd numbers, slow and idle connections."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import BEARER, TOKEN
from .images import bomb, jpeg_header, png
from .live import LiveServer, read_response

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path / "state", header_timeout=1.5)
    yield s
    s.close()


def head(path: str, extra: str = "", method: str = "POST") -> bytes:
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n").encode()


AUTH = f"Authorization: Bearer {TOKEN}\r\n"


@pytest.mark.parametrize(
    ("path", "auth"),
    [("/api/actions", AUTH), ("/api/photo", AUTH), ("/api/actions", ""), ("/api/state", "")],
)
def test_a_declared_300_mb_body_gets_413_before_any_of_it_is_sent(
    live: LiveServer, path: str, auth: str
) -> None:
    with live.connect() as sock:
        sock.sendall(head(path, f"{auth}Content-Length: {300 * 1024 * 1024}\r\n"))
        t0 = time.monotonic()
        status, body = read_response(sock, timeout=2.0)
        assert status == 413 and time.monotonic() - t0 < 1.0
        assert json.loads(body)["rule"] == "too-large"
        assert sock.recv(10) == b""  # and the connection is closed: the body is never read


@pytest.mark.parametrize("path", ["/api/actions", "/api/photo", "/api/observations"])
def test_a_body_without_a_credential_is_refused_before_it_is_read(
    live: LiveServer, path: str
) -> None:
    with live.connect() as sock:
        sock.sendall(head(path, "Content-Type: application/json\r\nContent-Length: 5000\r\n"))
        status, body = read_response(sock)
        assert status == 401 and json.loads(body)["rule"] == "sign-in"
    # a player's cookie is not the host's: no photo body from it either
    with live.connect() as sock:
        sock.sendall(head("/api/photo", "Cookie: companion_player=abc\r\nContent-Length: 9\r\n"))
        assert read_response(sock)[0] == 403


def test_a_chunked_body_is_cut_at_the_limit(live: LiveServer) -> None:
    with live.connect() as sock:
        sock.sendall(head("/api/actions", f"{AUTH}Transfer-Encoding: chunked\r\n"))
        chunk = b"x" * 8192
        for _ in range(9):  # 72 kB of a 64 kB limit, and no last chunk: never complete
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        status, body = read_response(sock, timeout=2.0)
        assert status == 413 and json.loads(body)["rule"] == "too-large"
    # under the limit, a chunked action is read as usual
    with live.connect() as sock:
        data = json.dumps({"type": "new_game", "players": PLAYERS}).encode()
        sock.sendall(head("/api/actions", f"{AUTH}Transfer-Encoding: chunked\r\n"))
        sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data))
        assert read_response(sock)[0] == 200


def test_content_length_of_thousands_of_digits_is_a_400_and_the_server_goes_on(
    live: LiveServer,
) -> None:
    with live.connect() as sock:
        sock.sendall(head("/api/actions", f"{AUTH}Content-Length: {'9' * 5000}\r\n"))
        assert read_response(sock)[0] == 400
    assert live.request("GET", "/api/state")[0] == 200


def test_photo_sizes_are_read_from_the_header_before_decoding(live: LiveServer) -> None:
    hdr = {**BEARER, "Content-Type": "image/png"}
    the_bomb = bomb()
    assert len(the_bomb) < 200_000
    status, body = live.request_raw("POST", "/api/photo", the_bomb, hdr)
    assert status == 413 and body["rule"] == "too-many-pixels" and "20000" in body["error"]
    big_jpeg = jpeg_header(10_000, 8_000) + b"\x00" * 100
    status, body = live.request_raw("POST", "/api/photo", big_jpeg, hdr)
    assert status == 413 and body["rule"] == "too-many-pixels"
    for junk in (b"GIF89a" + b"\x00" * 50, b"<svg/>", b"\xff\xd8\xff\xda broken", b"%PDF-1.4"):
        status, body = live.request_raw("POST", "/api/photo", junk, hdr)
        assert status == 415 and body["rule"] == "not-an-image", junk
    # none of them became a photo job; a real image does
    assert live.service._photo_jobs == {}
    status, body = live.request_raw("POST", "/api/photo", png(64, 48), hdr)
    assert status == 202 and list(live.service._photo_jobs) == [body["job"]]


@pytest.mark.parametrize(
    "body",
    [
        b'{"type": ["claim"]}',
        b'{"type": {"claim": 1}}',
        b'{"type": "replace", "seq": 2, "action": {"type": ["claim"]}}',
        b'{"type": "claim", "player": "red", "route": "x", "cards": ' + b"9" * 5000 + b"}",
        b'{"type": "undo", "seq": ' + str(2**64).encode() + b"}",
        b'{"type": "finish", "x": NaN}',
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
def test_odd_json_is_a_400(live: LiveServer, body: bytes) -> None:
    live.request("POST", "/api/actions", {"type": "new_game", "players": PLAYERS}, BEARER)
    status, out = live.request_raw("POST", "/api/actions", body, BEARER)
    assert status in (400, 413), out
    assert "error" in out


@pytest.mark.parametrize("seq", [str(2**63), str(2**64), "9" * 5000, "-1", "1e3"])
def test_a_sequence_number_out_of_range_is_a_400(live: LiveServer, seq: str) -> None:
    live.request("POST", "/api/actions", {"type": "new_game", "players": PLAYERS}, BEARER)
    game = live.service.state()["game_id"]
    status, out = live.request("GET", f"/api/games/{game}/state?seq={seq}")
    assert status == 400 and "seq" in out["error"]
    status, _ = live.request("GET", f"/api/games/{game}/state?seq=1")
    assert status == 200


def test_150_slow_and_idle_connections_leave_the_state_answering(live: LiveServer) -> None:
    idle: list[socket.socket] = []
    slow: list[socket.socket] = []
    try:
        for i in range(150):
            s = live.connect(source=f"127.0.1.{1 + i % 3}")  # (one address may hold 64)
            if i % 2:
                s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                slow.append(s)
            else:
                idle.append(s)
        worst = 0.0
        for round_ in range(6):
            for s in slow:  # one more header line each: never the end of the headers
                s.sendall(b"X-Slow-%d: 1\r\n" % round_)
            t0 = time.monotonic()
            status, _ = live.request("GET", "/api/state", timeout=5.0)
            worst = max(worst, time.monotonic() - t0)
            assert status == 200
            time.sleep(0.2)
        assert worst < 1.0, f"/api/state took {worst:.2f} s with 150 slow connections"
        # headers that never end are dropped after the header timeout (1.5 s here)
        deadline = time.monotonic() + 8.0
        open_ = list(slow)
        while open_ and time.monotonic() < deadline:
            for s in list(open_):
                s.settimeout(0.05)
                try:
                    closed = s.recv(100) == b""
                except ConnectionResetError:
                    closed = True
                except TimeoutError:
                    closed = False
                if closed:
                    open_.remove(s)
        assert open_ == [], f"{len(open_)} slow connections are still open"
    finally:
        for s in idle + slow:
            s.close()
