"""A real waitress server on 127.0.0.1 (the one `companion serve` builds), in this process."""

from __future__ import annotations

import http.client
import json
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any

from companion.service import Service
from companion.store import EventStore
from companion.webapp import create_app
from companion.webapp.server import make_server
from tests.serving import InThread, exchange

from .conftest import TOKEN

LOOPBACK = "127.0.0.1"
# a two-player table and the first tickets each keeps, for the tests on the real server
PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}


class LiveServer:
    def __init__(
        self,
        state_dir: Path,
        *,
        threads: int = 8,
        app_config: dict[str, Any] | None = None,
        **server_args: Any,
    ) -> None:
        self.store = EventStore(state_dir)
        self.service = Service(self.store).start()
        # (4 streams in all; no cap per address unless a test sets one: the tests of the total
        # open them all from 127.0.0.1)
        config = {"SSE_KEEPALIVE": 0.2, "SSE_LIFETIME": 30.0, "SSE_MAX": 4, "SSE_PER_ADDRESS": 5}
        self.app = create_app(self.service, {**config, **(app_config or {}), "HOST_TOKEN": TOKEN})
        self.switch = sys.getswitchinterval()  # (make_server sets it for the process)
        # (the gate checks the host's credential as the app does: its host access)
        server_args.setdefault("host_token", self.app.extensions["companion.hosts"])
        self.server: Any = make_server(self.app, LOOPBACK, 0, threads=threads, **server_args)
        self.port = int(self.server.effective_port)
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.serving = InThread(self.server, "live-waitress")

    def connect(self, timeout: float = 5.0, source: str | None = None) -> socket.socket:
        """A connection from 127.0.0.1, or from ``source`` (another loopback address)."""
        return socket.create_connection(
            (LOOPBACK, self.port), timeout=timeout, source_address=(source, 0) if source else None
        )

    def request_raw(
        self, method: str, path: str, body: bytes, headers: dict[str, str], timeout: float = 10.0
    ) -> tuple[int, Any]:
        """Send ``body`` as it is; the JSON answer (or the raw bytes)."""
        conn = http.client.HTTPConnection(LOOPBACK, self.port, timeout=timeout)
        return exchange(conn, method, path, body, headers)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        timeout: float = 5.0,
        source: str | None = None,
    ) -> tuple[int, Any]:
        """``source``: the client's address (another of 127.0.0.0/8: several clients)."""
        bind = None if source is None else (source, 0)
        conn = http.client.HTTPConnection(LOOPBACK, self.port, timeout=timeout, source_address=bind)
        data = None if body is None else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        return exchange(conn, method, path, data, hdrs)

    def close(self) -> None:
        self.serving.close(self.service.stop)
        self.store.close()
        sys.setswitchinterval(self.switch)


def read_head(sock: socket.socket, timeout: float) -> tuple[int, bytes, bytes]:
    """Read an HTTP response's head from a raw socket: (status, head, what came after it)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, head, rest


def read_response(sock: socket.socket, timeout: float = 2.0) -> tuple[int, bytes]:
    """Read one HTTP response head (and what came with it) from a raw socket."""
    status, head, rest = read_head(sock, timeout)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, rest


def read_until(s: socket.socket, pattern: bytes, got: bytes = b"", timeout: float = 5.0) -> bytes:
    """Read from ``s`` until ``pattern`` is in what came (or ``timeout`` seconds pass)."""
    deadline = time.monotonic() + timeout
    while not re.search(pattern, got) and time.monotonic() < deadline:
        s.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except TimeoutError:
            break
        if not chunk:
            break
        got += chunk
    return got


def open_events(
    live: LiveServer, extra: str = "", source: str | None = None, timeout: float = 5.0
) -> tuple[int, socket.socket, bytes]:
    """GET /api/events (``extra``: more header lines) from ``source``: (status, socket, what
    came after the headers)."""
    s = live.connect(source=source)
    s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
    status, _, rest = read_head(s, timeout)
    return status, s, rest
