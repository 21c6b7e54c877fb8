"""The one thread: every command runs on it, in arrival order (:meth:`Loop.call` waits for the
result, :meth:`Loop.post` does not). Before :meth:`Loop.start` (and after :meth:`Loop.stop`)
commands run at once on the caller's thread.

The loop keeps its own pulse for ``/api/health``: every command queued is timed from queueing to
its end (its turn-around); :meth:`Loop.health` queues a no-op (so a loop that is stuck or gone is
seen even when nobody acts) and says how long the oldest unfinished command has waited.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from companion.service.errors import Conflict, ServiceError, Unavailable

log = logging.getLogger(__name__)

T = TypeVar("T")


class Loop:
    """A queue of commands and the thread that runs them. ``on_conflict`` hears every refusal
    by the rules (a 409) before it goes back to the caller."""

    def __init__(
        self, on_conflict: Callable[[Conflict], None], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._on_conflict = on_conflict
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.clock = clock  # monotonic seconds (a test may set its own)
        self._lock = threading.Lock()
        self._unfinished: dict[int, float] = {}  # id(future) -> when queued, oldest first
        self._last_turnaround: float | None = None  # seconds, queued to done, of the last one

    stuck_after = 5.0  # seconds the oldest unfinished command may take before health says stuck

    def health(self) -> dict[str, Any]:
        """The loop's pulse: ``stuck`` (the oldest unfinished command has waited or run over
        :attr:`stuck_after` seconds), ``waiting`` (its age, 0 when none), ``last_turnaround``
        (seconds from queueing to the end of the last command finished; None before any)."""
        if self._thread is not None:
            self._queue_item(lambda: None, Future())  # a ping: a silent loop is seen too
        with self._lock:
            oldest = next(iter(self._unfinished.values()), None)
            last = self._last_turnaround
        waiting = 0.0 if oldest is None else max(0.0, self.clock() - oldest)
        return {
            "stuck": waiting > self.stuck_after,
            "waiting": round(waiting, 3),
            "last_turnaround": None if last is None else round(last, 3),
        }

    def _queue_item(self, fn: Callable[[], Any], fut: Future[Any]) -> None:
        with self._lock:
            self._unfinished[id(fut)] = self.clock()
        self._queue.put((fn, fut))

    def _turned(self, fut: Future[Any]) -> None:
        with self._lock:
            queued = self._unfinished.pop(id(fut), None)
            if queued is not None:
                self._last_turnaround = self.clock() - queued

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="companion-loop", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, fut = item
            if not fut.set_running_or_notify_cancel():
                self._turned(fut)
                continue
            try:
                result = self._run_one(fn)
            except BaseException as exc:
                if not isinstance(exc, ServiceError):
                    log.exception("the game loop failed on a command")
                self._turned(fut)
                fut.set_exception(exc)
            else:
                self._turned(fut)
                fut.set_result(result)

    def _run_one(self, fn: Callable[[], T]) -> T:
        """Run one command; a refusal by the rules (409) is told to ``on_conflict``."""
        try:
            return fn()
        except Conflict as exc:
            self._on_conflict(exc)
            raise

    timeout = 15.0  # seconds a caller waits for its command to start

    def call(self, fn: Callable[[], T], timeout: float | None = None) -> T:
        """Run ``fn`` on the loop thread and wait for its result (or its ServiceError).

        Unavailable (503) means *not applied*: a command still queued after ``timeout`` seconds
        is withdrawn; one that has started is waited for, whatever it takes, and its own answer
        returned (a client that retries after a 503 can never apply a command twice)."""
        if self._thread is None:
            return self._run_one(fn)
        if threading.current_thread() is self._thread:
            return fn()
        fut: Future[T] = Future()
        self._queue_item(fn, fut)
        try:
            return fut.result(self.timeout if timeout is None else timeout)
        except TimeoutError:
            if not fut.cancel():  # it has started: its answer, not a 503 that would be a lie
                return fut.result()
            raise Unavailable(
                "The game loop is busy; try again in a moment.", code="service.busy"
            ) from None

    def post(self, fn: Callable[[], Any]) -> Future[Any]:
        """Queue ``fn`` for the loop thread without waiting."""
        fut: Future[Any] = Future()
        if self._thread is None:
            try:
                fut.set_result(self._run_one(fn))
            except BaseException as exc:
                fut.set_exception(exc)
            return fut
        self._queue_item(fn, fut)
        return fut
