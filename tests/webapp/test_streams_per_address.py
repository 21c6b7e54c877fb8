"""Event streams and connections per client address on a real waitress on 127.0.0.1 (clients
bound to other addresses of 127.0.0.0/8): one address cannot hold the streams or the sockets of
everyone, the host and the table view are always served, a 30-phone table stays live, and a
guest replayed the backlog after a finish was undone learns no one's tickets."""

from __future__ import annotations

import json
import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.commands.serve import THREADS, stream_caps
from companion.webapp.server import PER_ADDRESS

from .conftest import BEARER, TOKEN
from .live import LiveServer, open_events, read_response, read_until

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(
        tmp_path / "state",
        threads=16,
        app_config={"SSE_MAX": 8, "SSE_PER_ADDRESS": 3, "SSE_HOST": 2},
    )
    yield s
    s.close()


def open_stream(
    live: LiveServer, source: str, *, host: bool = False, last: int | None = None
) -> tuple[int, socket.socket, bytes]:
    """GET /api/events from ``source``: (status, socket, what came after the headers)."""
    extra = f"Authorization: Bearer {TOKEN}\r\n" if host else ""
    if last is not None:
        extra += f"Last-Event-ID: {last}\r\n"
    return open_events(live, extra, source=source)


def ended(s: socket.socket, timeout: float = 5.0) -> bool:
    """Whether the server ends this stream within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except TimeoutError:
            return False
        except ConnectionResetError:
            return True
        if not chunk:
            return True
    return False


def by_address(live: LiveServer) -> dict[str, int]:
    return dict(live.app.extensions["companion.sse_slots"].by_address())


def test_one_address_holds_at_most_its_share_of_the_streams(live: LiveServer) -> None:
    socks = []
    try:
        for _ in range(10):  # one client asks for 10: each is served, the oldest ends
            status, s, body = open_stream(live, "127.0.0.2")
            assert status == 200
            assert b"data: " in read_until(s, rb"data: ", body)
            socks.append(s)
        assert by_address(live) == {"127.0.0.2": 3}
        assert all(ended(s, 1.0) for s in socks[:7]), "a stream over its address's share stays"
        assert not any(ended(s, 0.5) for s in socks[7:])
    finally:
        for s in socks:
            s.close()


def test_the_host_and_the_table_view_are_served_when_the_streams_are_full(
    live: LiveServer,
) -> None:
    socks = []
    try:
        # three addresses fill every stream of players and guests (3 + 3 + 2 of 8)
        for source, n in (("127.0.0.2", 3), ("127.0.0.3", 3), ("127.0.0.4", 2)):
            for _ in range(n):
                status, s, _ = open_stream(live, source)
                assert status == 200
                socks.append(s)
        assert sum(by_address(live).values()) == 8
        # the table view on its own address: served (a stream of the busiest address ends)
        status, table, body = open_stream(live, "127.0.0.20")
        socks.append(table)
        assert status == 200 and b"data: " in read_until(table, rb"data: ", body)
        assert by_address(live)["127.0.0.20"] == 1 and sum(by_address(live).values()) == 8
        # the host, from an address that holds streams already: served, and over and over
        for _ in range(4):
            status, host, body = open_stream(live, "127.0.0.2", host=True)
            socks.append(host)
            assert status == 200 and b"data: " in read_until(host, rb"data: ", body)
        assert live.app.extensions["companion.sse_slots"].used == 8 + 2
    finally:
        for s in socks:
            s.close()


def test_when_every_stream_is_another_address_the_next_is_refused(live: LiveServer) -> None:
    socks = []
    try:
        for i in range(8):
            status, s, _ = open_stream(live, f"127.0.0.{10 + i}")
            assert status == 200
            socks.append(s)
        status, s, body = open_stream(live, "127.0.0.30")
        socks.append(s)
        assert status == 503
        assert b"service.too_many_streams" in read_until(s, rb"too_many_streams", body)
        status, host, _ = open_stream(live, "127.0.0.30", host=True)  # the host still is
        socks.append(host)
        assert status == 200
    finally:
        for s in socks:
            s.close()


def test_a_table_of_30_phones_on_30_addresses_all_stay_live(tmp_path: Path) -> None:
    caps = stream_caps(THREADS)  # as `companion serve` sets them
    live = LiveServer(tmp_path / "state", threads=THREADS, app_config=caps)
    socks: list[socket.socket] = []
    try:
        status, _ = live.request(
            "POST", "/api/actions", {"type": "new_game", "players": PLAYERS}, BEARER
        )
        assert status == 200
        clients = [("127.0.0.9", True)] + [(f"127.0.0.{10 + i}", False) for i in range(31)]
        for source, host in clients:  # the host, 30 phones and the table view
            status, s, body = open_stream(live, source, host=host)
            assert status == 200, source
            assert b"data: " in read_until(s, rb"data: ", body)
            socks.append(s)
        act = {"type": "keep_tickets", "player": "red", "tickets": TICKETS["red"]}
        status, after = live.request("POST", "/api/actions", act, BEARER)
        assert status == 200
        seq = int(after["seq"])
        deadline = time.monotonic() + 5.0
        for s in socks:  # every one of the 32 is sent the new state
            got = read_until(s, rb"id: %d\n" % seq, timeout=max(0.1, deadline - time.monotonic()))
            assert b"id: %d\n" % seq in got
    finally:
        for s in socks:
            s.close()
        live.close()


def test_1100_idle_sockets_from_one_address_leave_the_others_served(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 4096:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
    live = LiveServer(tmp_path / "state")
    held: list[socket.socket] = []
    try:
        t0 = time.monotonic()
        for _ in range(1100):
            held.append(live.connect(source="127.0.0.2"))
        assert time.monotonic() - t0 < 30.0
        counts = live.server.address_counts
        deadline = time.monotonic() + 10.0
        while counts.refused < 1100 - PER_ADDRESS and time.monotonic() < deadline:
            time.sleep(0.05)
        assert counts.of("127.0.0.2") == PER_ADDRESS
        assert counts.refused == 1100 - PER_ADDRESS
        # another address: answered within a second
        for source in ("127.0.0.3", "127.0.0.1"):
            t0 = time.monotonic()
            with live.connect(source=source) as s:
                s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                status, _ = read_response(s)
            assert status == 200 and time.monotonic() - t0 < 1.0
        # one more from the crowded address is told why
        with live.connect(source="127.0.0.2") as s:
            status, body = read_response(s)
        assert status == 503
        answer = json.loads(body)
        assert answer["code"] == "limit.too_many_connections"
        assert answer["params"] == {"most": PER_ADDRESS}
    finally:
        for s in held:
            s.close()
        live.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_after_finish_and_undo_a_replayed_backlog_holds_no_tickets(live: LiveServer) -> None:
    def act(action: dict[str, object]) -> dict[str, object]:
        status, body = live.request("POST", "/api/actions", action, BEARER)
        assert status == 200, body
        return dict(body)

    act({"type": "new_game", "players": PLAYERS})
    for color, ids in TICKETS.items():
        act({"type": "keep_tickets", "player": color, "tickets": ids})
    before = int(str(live.service.state()["seq"]))
    finish = act({"type": "finish"})
    assert "paris-wien" in json.dumps(finish)  # (a finished game shows them to everyone)
    undone = int(str(act({"type": "undo", "seq": finish["seq"]})["seq"]))
    # the attack: a guest comes back from before the finish, from the finish, from further back
    for last in (before, before - 1, int(str(finish["seq"])), 1):
        status, s, body = open_stream(live, "127.0.0.5", last=last)
        try:
            assert status == 200
            got = read_until(s, rb"id: %d\n" % undone, body)
        finally:
            s.close()
        assert b"id: %d\n" % undone in got
        for ids in TICKETS.values():
            for t in ids:
                assert t.encode() not in got, (last, t)
        assert b'"phase":"finished"' not in got
