"""Event streams: the public-state snapshot, its server-sent-event subscribers and the
in-process listeners (the buttons' LED and buzzer), and the SSE wire format."""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from companion.service.errors import sentence

log = logging.getLogger(__name__)

Message = tuple[str | None, int | None, str]


class Subscription:
    """One server-sent-events client: a bounded queue of (event, id, data). ``host``: the
    host's own screen (it alone receives the notices meant for the host)."""

    def __init__(self, streams: Streams, maxsize: int = 256, *, host: bool = False) -> None:
        self._streams = streams
        self.host = host
        self.queue: queue.Queue[Message | None] = queue.Queue(maxsize)
        self.closed = False

    def put(self, item: Message | None) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(item)
        except queue.Full:
            # A client that does not read: drop it; it reconnects with Last-Event-ID.
            self.closed = True

    def get(self, timeout: float) -> Message | None:
        """The next message; raises queue.Empty on timeout, None when closed."""
        if self.closed and self.queue.empty():
            return None
        return self.queue.get(timeout=timeout)

    def close(self) -> None:
        self.closed = True
        self._streams.unsubscribe(self)


class Streams:
    """The latest public state (as a dict and as JSON), the recent states for reconnecting
    clients, the subscribers and the listeners. Thread-safe."""

    def __init__(self, history: int = 256) -> None:
        self._lock = threading.Lock()
        self._subs: set[Subscription] = set()
        self._recent: deque[tuple[int, str]] = deque(maxlen=history)
        self._snapshot: dict[str, Any] = {}
        self._snapshot_json = ""
        self._closing = False
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []

    @property
    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return self._snapshot

    @property
    def snapshot_json(self) -> str:
        with self._lock:
            return self._snapshot_json

    def publish(
        self, snap: dict[str, Any], *, publish: bool, pending_only: bool, rebuild: bool = False
    ) -> None:
        """Keep ``snap`` as the state; send it (or only its ``pending``) to every subscriber.

        ``rebuild``: the log's effective history changed (an undo or a redo): the states kept
        for reconnecting clients describe a game that no longer is (a finished game's, with
        every player's tickets, before its finish was undone), so they go, and a client that
        comes back from before this state is sent this state alone."""
        text = json.dumps(snap, separators=(",", ":"))
        with self._lock:
            self._snapshot = snap
            self._snapshot_json = text
            seq = int(snap["seq"])
            if rebuild:
                self._recent.clear()
            if not pending_only and (not self._recent or self._recent[-1][0] != seq):
                self._recent.append((seq, text))
            elif self._recent and self._recent[-1][0] == seq:
                self._recent[-1] = (seq, text)
            if publish:
                if pending_only:
                    msg: Message = (
                        "pending",
                        None,
                        json.dumps(snap["pending"], separators=(",", ":")),
                    )
                else:
                    msg = (None, seq, text)
                for s in list(self._subs):
                    s.put(msg)
        self.tell("pending" if pending_only else "state", snap)

    def notice(
        self,
        text: str,
        level: str = "info",
        color: str | None = None,
        *,
        code: str = "message",
        params: Mapping[str, Any] | None = None,
        audience: str | None = None,
    ) -> None:
        """Tell every screen. ``code`` + ``params``: the same message for the dashboard to
        translate (codes in API.md; ``message``: only the English ``text``). ``audience``
        "host": a notice for the host's screen only: it goes to the host's streams (and the
        in-process listeners), never to a player's phone or the table view."""
        payload: dict[str, Any] = {
            "level": level,
            "text": sentence(text),
            "color": color,
            "code": code,
            "params": dict(params or {}),
        }
        if audience is not None:
            payload["audience"] = audience
        data = json.dumps(payload, separators=(",", ":"))
        log.info("notice: %s", text)
        with self._lock:
            for s in list(self._subs):
                if audience is None or s.host:
                    s.put(("notice", None, data))
        self.tell("notice", payload)

    def tell(self, kind: str, data: dict[str, Any]) -> None:
        """Call the in-process listeners (e.g. the buttons' LED and buzzer).

        ``kind``: "state", "pending", "notice", "refused" (a 409: ``{"error", "rule"}``) or
        "vetoed" (a camera sighting that cannot be: ``{"text", "color"}``, and for a claim or
        station ``"kind"`` "claim"/"station", ``"key"`` its route/city, ``"owner"`` its owner if
        any) or "rejected" (a camera question answered no: ``{"kind", "key", "color"}``; the
        camera's watcher forgets that sighting). Listeners run on
        the loop thread (or the caller's for a refusal outside it): they must only queue.
        """
        for fn in list(self.listeners):
            try:
                fn(kind, data)
            except Exception:
                log.exception("a state listener failed")

    def subscribe(self, last_event_id: int | None = None, *, host: bool = False) -> Subscription:
        """A new subscriber with its backlog queued (no gap, no duplicate). ``host``: the
        host's stream (it also receives the notices meant for the host)."""
        sub = Subscription(self, host=host)
        with self._lock:
            if self._closing:
                sub.closed = True  # shutting down: the stream ends at once
                return sub
            current = (self._snapshot["seq"], self._snapshot_json)
            if last_event_id is None or last_event_id > current[0]:
                backlog = [current]
            elif last_event_id == current[0]:
                backlog = []
            else:
                seqs = [s for s, _ in self._recent]
                if last_event_id in seqs:
                    backlog = [(s, j) for s, j in self._recent if s > last_event_id]
                else:
                    backlog = [current]
            for seq, text in backlog:
                sub.put((None, seq, text))
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._subs)

    def open(self) -> None:
        """Accept streams (again)."""
        self._closing = False

    def close(self) -> None:
        """End every stream now and refuse new ones."""
        with self._lock:
            self._closing = True
            subs = list(self._subs)
        for s in subs:
            s.put(None)


def iter_sse(sub: Subscription, keepalive: float, lifetime: float | None = None) -> Iterator[str]:
    """Server-sent-event lines for one subscriber (ends when closed or after ``lifetime``)."""
    start = time.monotonic()
    try:
        yield "retry: 2000\n\n"
        while True:
            if lifetime is not None and time.monotonic() - start > lifetime:
                return
            try:
                item = sub.get(timeout=keepalive)
            except queue.Empty:
                yield ": keep-alive\n\n"
                continue
            if item is None:
                return
            event, seq, data = item
            lines = []
            if event is not None:
                lines.append(f"event: {event}")
            if seq is not None:
                lines.append(f"id: {seq}")
            lines.append(f"data: {data}")
            yield "\n".join(lines) + "\n\n"
    finally:
        sub.close()
