"""Server-sent-event streams as the web app serves them: a bounded number of slots, taken only
by a stream that is really served and given back when it ends, however it ends.

* ``HEAD /api/events`` answers the headers and takes nothing.
* The subscription to the service is made when the body is first iterated: a request the
  server never gets to send (the client went away first) subscribes to nothing.
* A slot is given back when the server closes the response (waitress always does, after the
  last byte, a failed write or a client that went away), and a vanished client is noticed within
  ``POLL`` seconds when the server can tell (waitress's ``waitress.client_disconnected``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from companion.service import iter_sse

POLL = 1.0  # seconds between looks at a silent stream's client


class Slots:
    """At most ``size`` streams at a time."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._used = 0

    @property
    def used(self) -> int:
        with self._lock:
            return self._used

    def take(self) -> Callable[[], None] | None:
        """A slot's release function (idempotent), or None when all are taken."""
        with self._lock:
            if self._used >= self.size:
                return None
            self._used += 1
        done = threading.Event()

        def give_back() -> None:
            if done.is_set():
                return
            done.set()
            with self._lock:
                self._used -= 1

        return give_back


def stream(
    service: Any,
    last_event_id: int | None,
    keepalive: float,
    lifetime: float,
    disconnected: Callable[[], bool] | None = None,
    *,
    host: bool = False,
) -> Iterator[str]:
    """The event lines for one client; subscribes on the first iteration only. Keep-alive
    comments go out every ``keepalive`` seconds; in between the client is looked at every
    :data:`POLL` seconds and the stream ends when it has gone. ``host``: the host's stream
    (only it gets the notices meant for the host)."""
    poll = min(POLL, keepalive) if disconnected is not None else keepalive
    inner = iter_sse(service.subscribe(last_event_id, host=host), poll, lifetime)
    quiet_since = time.monotonic()
    try:
        for chunk in inner:
            if chunk.startswith(":"):  # a keep-alive: the stream has been silent for a poll
                if disconnected is not None and disconnected():
                    return
                if time.monotonic() - quiet_since < keepalive:
                    continue
            quiet_since = time.monotonic()
            yield chunk
    finally:
        close = getattr(inner, "close", None)
        if close is not None:
            close()  # the subscription ends with the stream


__all__ = ["POLL", "Slots", "stream"]
