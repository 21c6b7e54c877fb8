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


class Slot:
    """One stream's place: :meth:`give_back` (idempotent) when the stream ends; ``evicted`` is
    set when a newer stream took the place, and ``wake`` (set by the stream) is called then so
    that the stream ends at once instead of at its next look."""

    def __init__(self, owner: Slots, key: str, host: bool) -> None:
        self._owner = owner
        self.key = key
        self.host = host
        self.evicted = threading.Event()
        self.held = True
        self.wake: Callable[[], None] | None = None

    def give_back(self) -> None:
        self._owner.release(self)


class Slots:
    """The event streams being served, capped three ways: ``size`` streams of players and
    guests in all, ``per_address`` of them from one client address, and ``host`` streams of
    the host's own (apart: the host is always served).

    A stream that would go over a cap takes the place of an older one instead, so that the
    newest screen is served and nobody can crowd out the others:

    * a host's stream over ``host``: the host's oldest stream ends;
    * a stream over ``per_address``: the oldest stream from that address ends (a phone that
      reconnects after its Wi-Fi dropped is served at once, however many of its old streams
      the server has not seen go yet);
    * the first stream of an address when all ``size`` are taken: the oldest stream of the
      address that holds the most ends, if that address holds more than one. Only when every
      stream belongs to a different address is the newcomer refused (:meth:`take` is None).
    """

    def __init__(self, size: int, per_address: int = 3, host: int = 4) -> None:
        self.size = max(1, size)
        self.per_address = max(1, per_address)
        self.host_size = max(1, host)
        self._lock = threading.Lock()
        self._hosts: list[Slot] = []
        self._guests: dict[str, list[Slot]] = {}
        self._count = 0

    @property
    def used(self) -> int:
        with self._lock:
            return self._count + len(self._hosts)

    def by_address(self) -> dict[str, int]:
        """address -> streams of players and guests from it (the host's not counted)."""
        with self._lock:
            return {k: len(v) for k, v in self._guests.items()}

    def take(self, key: str = "", *, host: bool = False) -> Slot | None:
        """A new stream's slot (None: every slot is held by a different address). ``key``:
        the client's address (see :func:`companion.webapp.limits.address_key`)."""
        with self._lock:
            slot = Slot(self, key, host)
            if host:
                if len(self._hosts) >= self.host_size:
                    self._evict(self._hosts[0])
                self._hosts.append(slot)
                return slot
            mine = self._guests.get(key, [])
            if len(mine) >= self.per_address:
                self._evict(mine[0])
            elif self._count >= self.size:
                busiest = max(self._guests.values(), key=len, default=[])
                if len(busiest) < 2 or (mine and len(busiest) <= len(mine)):
                    return None
                self._evict(busiest[0])
            self._guests.setdefault(key, []).append(slot)
            self._count += 1
            return slot

    def _evict(self, slot: Slot) -> None:
        self._drop(slot)
        slot.evicted.set()
        if slot.wake is not None:
            slot.wake()  # (only queues: never blocks under the lock)

    def _drop(self, slot: Slot) -> None:
        if not slot.held:
            return
        slot.held = False
        if slot.host:
            self._hosts.remove(slot)
            return
        mine = self._guests[slot.key]
        mine.remove(slot)
        if not mine:
            del self._guests[slot.key]
        self._count -= 1

    def release(self, slot: Slot) -> None:
        with self._lock:
            self._drop(slot)


def stream(
    service: Any,
    last_event_id: int | None,
    keepalive: float,
    lifetime: float,
    disconnected: Callable[[], bool] | None = None,
    *,
    host: bool = False,
    slot: Slot | None = None,
) -> Iterator[str]:
    """The event lines for one client; subscribes on the first iteration only. Keep-alive
    comments go out every ``keepalive`` seconds; in between the client is looked at every
    :data:`POLL` seconds and the stream ends when it has gone. ``host``: the host's stream
    (only it gets the notices meant for the host). ``slot``: the stream ends when a newer
    stream takes its place (:class:`Slots`)."""
    poll = min(POLL, keepalive) if disconnected is not None else keepalive
    sub = service.subscribe(last_event_id, host=host)
    if slot is not None:
        slot.wake = lambda: sub.put(None)
    evicted = slot.evicted if slot is not None else None
    inner = iter_sse(sub, poll, lifetime)
    quiet_since = time.monotonic()
    try:
        for chunk in inner:
            if evicted is not None and evicted.is_set():
                return
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


__all__ = ["POLL", "Slot", "Slots", "stream"]
