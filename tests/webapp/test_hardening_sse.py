"""Event-stream slots on the real server: HEAD and aborted requests take none, a client that
goes away gives its slot back, a reconnect resumes after its Last-Event-ID."""

from __future__ import annotations

import re
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.waiting import wait_for

from .conftest import BEARER
from .live import LiveServer, open_events, read_response
from .live import read_until as live_read_until

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}
SLOTS = 4  # SSE_MAX of the live server


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path / "state")
    yield s
    s.close()


def open_stream(live: LiveServer, last: int | None = None) -> tuple[int, socket.socket, bytes]:
    extra = "" if last is None else f"Last-Event-ID: {last}\r\n"
    return open_events(live, extra, timeout=3.0)


def read_until(s: socket.socket, pattern: bytes, got: bytes = b"", timeout: float = 3.0) -> bytes:
    return live_read_until(s, pattern, got, timeout)


def hard_close(s: socket.socket) -> None:
    """Close with a reset, as a phone that walks out of the Wi-Fi's reach (no FIN exchange)."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def streams(live: LiveServer) -> tuple[int, int]:
    """(slots taken, subscriptions to the service)."""
    slots = live.app.extensions.get("companion.sse_slots")
    return (slots.used if slots else 0), live.service.subscriber_count


def idle(live: LiveServer) -> bool:
    """No request queued or running in the server's threads."""
    tasks = live.server.task_dispatcher
    return not tasks.queue and tasks.active_count == 0


def settled(live: LiveServer, quiet: float = 1.0, timeout: float = 10.0) -> bool:
    """No request running or queued and no stream open, for ``quiet`` seconds on end."""
    deadline = time.monotonic() + timeout
    since = time.monotonic()
    while time.monotonic() < deadline:
        if not (idle(live) and streams(live) == (0, 0)):
            since = time.monotonic()
        elif time.monotonic() - since >= quiet:
            return True
        time.sleep(0.05)
    return False


def all_slots_serve(live: LiveServer) -> list[socket.socket]:
    """Open every slot (each gets its first event), check the next is refused; the sockets."""
    socks = []
    for _ in range(SLOTS):
        status, s, body = open_stream(live)
        assert status == 200
        assert b"data: " in read_until(s, rb"data: ", body)
        socks.append(s)
    status, extra, _ = open_stream(live)
    extra.close()
    assert status == 503
    return socks


def test_head_requests_hold_no_stream_slot(live: LiveServer) -> None:
    for _ in range(20):
        with live.connect() as s:
            s.sendall(b"HEAD /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status, _ = read_response(s)
            assert status == 200
    assert streams(live) == (0, 0)
    for s in all_slots_serve(live):
        s.close()


def test_requests_aborted_before_their_stream_starts_hold_no_slot(live: LiveServer) -> None:
    for _ in range(20):
        s = live.connect()
        s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        hard_close(s)
    # (the server may still be accepting or reading them: wait until it has been quiet a while;
    # a leaked slot would stay taken for good)
    assert settled(live)
    for s in all_slots_serve(live):
        s.close()


def test_a_client_that_goes_away_gives_its_slot_back(live: LiveServer) -> None:
    for round_ in range(3):
        socks = all_slots_serve(live)
        assert live.service.subscriber_count == SLOTS
        for s in socks:
            (hard_close if round_ % 2 else socket.socket.close)(s)
        # noticed within a poll or two, without waiting for the next keep-alive write
        assert wait_for(lambda: streams(live) == (0, 0), timeout=3.0), round_


def test_a_reconnect_resumes_after_its_last_event_id(live: LiveServer) -> None:
    # (turns ended by end_turn: four logged events below)
    start = {"type": "new_game", "players": PLAYERS, "auto_end": False}
    live.request("POST", "/api/actions", start, BEARER)
    for color, ids in TICKETS.items():
        keep = {"type": "keep_tickets", "player": color, "tickets": ids}
        assert live.request("POST", "/api/actions", keep, BEARER)[0] == 200
    status, s, body = open_stream(live)
    got = read_until(s, rb"id: \d+", body)
    first = int(re.findall(rb"id: (\d+)", got)[-1])
    s.close()
    for color in ("red", "blue"):
        move = {"type": "drew_cards", "player": color, "count": 2}
        assert live.request("POST", "/api/actions", move, BEARER)[0] == 200
        end = {"type": "end_turn", "player": color}
        assert live.request("POST", "/api/actions", end, BEARER)[0] == 200
    status, s, body = open_stream(live, last=first)
    assert status == 200
    seen = read_until(s, rb"id: %d\n" % (first + 4), body)
    s.close()
    ids = [int(x) for x in re.findall(rb"id: (\d+)", seen)]
    assert ids == [first + 1, first + 2, first + 3, first + 4]  # no gap, no repeat
