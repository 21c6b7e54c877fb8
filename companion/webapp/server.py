"""The HTTP server (waitress) set for a table on a shared Wi-Fi.

* A request is judged from its headers (:func:`companion.webapp.limits.admit`) before any of
  its body is read: a declared length over the limit is refused at once (413), a body without
  a credential too (401/403); a chunked body is cut at its limit.
* Slow and idle connections cost a socket, never a worker thread (waitress reads requests on
  its own loop); many of them are allowed (``CONNECTION_LIMIT``), an idle one is closed after
  ``IDLE_TIMEOUT`` seconds, and a request whose headers are not in after ``HEADER_TIMEOUT``
  seconds is dropped.
* One client address holds at most ``PER_ADDRESS`` of them: a connection over that is answered
  503 ``limit.too_many_connections`` and closed as soon as it is accepted, so that one client's
  sockets never fill the server's ``CONNECTION_LIMIT`` (waitress stops accepting anyone's at
  that limit) and every other address is still served.
"""

from __future__ import annotations

import json
import logging
import resource
import socket
import sys
import threading
import time
from collections import Counter
from typing import Any

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, ParsingError
from waitress.server import create_server
from waitress.utilities import Error, RequestEntityTooLarge

from .limits import MAX_UPLOAD, HostCheck, Refusal, address_key, admit, host_credential
from .ratelimit import RateLimiter

log = logging.getLogger(__name__)

CONNECTION_LIMIT = 1000  # open sockets waitress keeps (its default, 100, is easy to fill)
IDLE_TIMEOUT = 30  # seconds a connection may stay silent between requests
HEADER_TIMEOUT = 10.0  # seconds from a request's first byte to the end of its headers
PER_ADDRESS = 64  # open sockets from one client address (a browser opens 6 or so per site)
CLEANUP_INTERVAL = 2  # seconds between the checks of the two timeouts above
SWITCH_INTERVAL = 0.001  # seconds a Python thread runs before others may take over (5 ms)


class RefusedError(Error):  # type: ignore[misc]
    """A refusal as waitress sends it: JSON like the app's own errors, then the connection
    closes (the unread body is never read)."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.code = refusal.status
        self.reason = {
            401: "Unauthorized",
            403: "Forbidden",
            413: "Content Too Large",
            429: "Too Many Requests",
        }.get(refusal.status, "Bad Request")
        self.refusal = refusal

    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        body = json.dumps(self.refusal.to_json()).encode("utf-8")
        headers = [
            ("Content-Type", "application/json"),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
        ]
        if "retry_after" in self.refusal.params:
            headers.append(("Retry-After", str(self.refusal.params["retry_after"])))
        return f"{self.code} {self.reason}", headers, body


SIGN_IN_PATHS = ("/pair/", "/host/login", "/api/host/claim")
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def gated_parser(
    host_token: str | HostCheck, limiter: RateLimiter | None = None
) -> type[HTTPRequestParser]:
    """A waitress request parser that runs :func:`admit` when the headers are in, and answers
    429 at once to an address refused too often (``limiter``) for an unsafe method, a sign-in
    or a request with an ``Authorization`` header, unless it carries the host's credential (the
    app decides the rest: companion.webapp.security.check_rate)."""

    class GatedParser(HTTPRequestParser):  # type: ignore[misc]
        limit = MAX_UPLOAD
        started = 0.0
        client = ""  # the peer's address (set by the channel)

        def parse_header(self, header_plus: bytes) -> None:
            try:
                super().parse_header(header_plus)
            except ValueError as exc:  # e.g. a Content-Length of 5,000 digits
                if isinstance(exc, ParsingError):
                    raise
                raise ParsingError("a header value cannot be read") from None

        def received(self, data: bytes) -> int:
            if not self.started:
                self.started = time.monotonic()
            before = self.headers_finished
            n: int = super().received(data)
            if self.headers_finished and not before and not self.empty:
                # (waitress's own 413 for a length over its backstop: the gate says it in JSON)
                if self.error is None or isinstance(self.error, RequestEntityTooLarge):
                    self._gate()
            elif self.error is None and before and self.body_bytes_received > self.limit:
                self._refuse(Refusal(413, "The request body is too large.", "too-large"))
            return n

        def _gate(self) -> None:
            headers = {k.replace("_", "-"): v for k, v in self.headers.items()}
            if limiter is not None and self.client and self._limited(headers):
                return
            try:
                self.limit = admit(
                    self.command,
                    self.path,
                    None if self.chunked else self.content_length,
                    self.chunked,
                    headers,
                    host_token,
                )
            except Refusal as refusal:
                self._refuse(refusal)

        def _limited(self, headers: dict[str, str]) -> bool:
            lower = {k.lower(): v for k, v in headers.items()}
            signs_in = self.path.startswith(SIGN_IN_PATHS) or "authorization" in lower
            if self.command not in UNSAFE and not signs_in:
                return False
            assert limiter is not None
            wait = limiter.retry_after(self.client)
            if wait <= 0:
                return False
            if host_credential(lower, host_token):
                return False  # the host is never limited
            self._refuse(
                Refusal(
                    429,
                    f"Too many refused requests from this address; try again in {wait} s.",
                    "rate-limited",
                    {"retry_after": wait},
                )
            )
            return True

        def _refuse(self, refusal: Refusal) -> None:
            self.error = RefusedError(refusal)
            self.completed = True
            self.expect_continue = False  # no "100 Continue" for a body that is refused
            self.connection_close = True

    return GatedParser


class AddressCount:
    """Open connections per client address (see :func:`limit_per_address`)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()
        self.refused = 0  # connections refused in all
        self._told: dict[str, float] = {}  # address -> when its refusals were last logged

    def take(self, key: str) -> bool:
        with self._lock:
            if self._open[key] >= self.most:
                self.refused += 1
                return False
            self._open[key] += 1
            return True

    def give_back(self, key: str) -> None:
        with self._lock:
            self._open[key] -= 1
            if self._open[key] <= 0:
                del self._open[key]

    def of(self, key: str) -> int:
        with self._lock:
            return self._open.get(key, 0)

    def tell(self, key: str, now: float) -> bool:
        """Whether to log a refusal for ``key`` now (once a minute per address)."""
        with self._lock:
            if now - self._told.get(key, -1e9) < 60.0:
                return False
            self._told[key] = now
            if len(self._told) > 1024:
                self._told = {k: t for k, t in self._told.items() if now - t < 60.0}
            return True


TOO_MANY = {
    "error": "Too many connections from this address; close some and try again.",
    "code": "limit.too_many_connections",
    "params": {"most": PER_ADDRESS},
}


def refuse_connection(conn: socket.socket, most: int) -> None:
    """Tell a connection over its address's cap (503, if the socket takes it at once) and
    close it. Never blocks the server's loop."""
    body = json.dumps({**TOO_MANY, "params": {"most": most}}).encode("utf-8")
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nRetry-After: 5\r\nConnection: close\r\n\r\n"
    ).encode("ascii")
    try:
        conn.setblocking(False)
        conn.send(head + body)
    except OSError:
        pass
    finally:
        conn.close()


def limit_per_address(server: Any, counts: AddressCount) -> None:
    """Give ``server`` (a waitress server) an accept that counts its connections per client
    address and refuses one over ``counts.most`` at once (:func:`refuse_connection`)."""

    def handle_accept() -> None:
        try:
            accepted = server.accept()
            if accepted is None:
                return
            conn, addr = accepted
            server.set_socket_options(conn)
        except OSError:
            return  # (as waitress: a socket gone before it was accepted)
        host = addr[0] if isinstance(addr, tuple) and addr else addr
        key = address_key(host)
        if not counts.take(key):
            if counts.tell(key, time.monotonic()):
                log.warning(
                    "%s has %d connections open: refusing more (%d refused so far)",
                    key,
                    counts.most,
                    counts.refused,
                )
            refuse_connection(conn, counts.most)
            return
        try:
            channel = server.channel_class(
                server, conn, server.fix_addr(addr), server.adj, map=server._map
            )
        except BaseException:
            counts.give_back(key)
            conn.close()
            raise
        channel.count_as(counts, key)

    server.handle_accept = handle_accept
    server.address_counts = counts


class GatedChannel(HTTPChannel):  # type: ignore[misc]
    """A channel whose partial request is timed (see :func:`overdue`) and that is counted
    against its client address until it closes (see :func:`limit_per_address`)."""

    _counted: tuple[AddressCount, str] | None = None

    def count_as(self, counts: AddressCount, key: str) -> None:
        self._counted = (counts, key)
        if self._fileno is None:  # (closed already while it was being set up)
            self._uncount()

    def _uncount(self) -> None:
        counted, self._counted = self._counted, None
        if counted is not None:
            counted[0].give_back(counted[1])

    def del_channel(self, map: Any = None) -> None:
        super().del_channel(map)
        self._uncount()

    def partial_since(self) -> float | None:
        """When the request being received began (None: none, or its headers are in)."""
        req = self.request
        if req is None or req.completed or req.headers_finished:
            return None
        started = float(getattr(req, "started", 0.0))
        return started or None


def overdue(server: Any, now: float, header_timeout: float = HEADER_TIMEOUT) -> int:
    """Close the connections whose request headers have been arriving for too long."""
    n = 0
    for channel in list(server.active_channels.values()):
        since = channel.partial_since() if isinstance(channel, GatedChannel) else None
        if since is not None and now - since > header_timeout and not channel.requests:
            channel.will_close = True
            n += 1
    return n


def raise_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (within the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (OSError, ValueError) as exc:
            log.warning("cannot raise the open-file limit to %d: %s", target, exc)
    return int(soft)


def make_server(
    app: Any,
    host: str,
    port: int,
    *,
    host_token: str | HostCheck,
    threads: int = 24,
    connection_limit: int = CONNECTION_LIMIT,
    idle_timeout: int = IDLE_TIMEOUT,
    header_timeout: float = HEADER_TIMEOUT,
    rate_limiter: RateLimiter | None = None,
    per_address: int = PER_ADDRESS,
    **extra: Any,
) -> Any:
    """A waitress server for ``app`` with the gate, the limits and the timeouts above.
    ``rate_limiter``: the app's (companion.webapp.ratelimit), to answer its 429s in the gate;
    ``per_address``: most open connections from one client address."""
    # A thread that computes (a history replay, a photo) hands the interpreter over every
    # millisecond instead of every 5: the game loop and the host's request wait less behind it.
    sys.setswitchinterval(SWITCH_INTERVAL)
    files = raise_file_limit(connection_limit + 200)
    limit = max(50, min(connection_limit, files - 100))
    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="companion",
        connection_limit=limit,
        channel_timeout=idle_timeout,
        cleanup_interval=CLEANUP_INTERVAL,
        # reads on while a request runs: a client gone from an event stream is seen at once
        # (waitress.client_disconnected) and its slot given back
        channel_request_lookahead=1,
        max_request_body_size=4 * MAX_UPLOAD,  # a backstop: admit() sets the limits
        clear_untrusted_proxy_headers=True,
        # poll(), not select(): select() fails for good on a socket numbered 1024 or more,
        # which a thousand open connections reach
        asyncore_use_poll=True,
        **extra,
    )
    parser = gated_parser(host_token, rate_limiter)

    class Channel(GatedChannel):
        def parser_class(self, adj: Any) -> Any:  # (waitress calls self.parser_class(adj))
            request = parser(adj)
            request.client = str(self.addr[0]) if self.addr else ""
            return request

    server.channel_class = Channel
    limit_per_address(server, AddressCount(per_address))
    plain_maintenance = server.maintenance

    def maintenance(now: float) -> None:
        plain_maintenance(now)
        overdue(server, time.monotonic(), header_timeout)

    server.maintenance = maintenance
    return server


__all__ = ["CONNECTION_LIMIT", "HEADER_TIMEOUT", "IDLE_TIMEOUT", "PER_ADDRESS", "make_server"]
