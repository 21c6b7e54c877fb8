"""The serial link to the card reader: pyserial, exclusive open, a reading thread, reopen.

Thin on purpose: bytes go through :class:`companion.reader.protocol.Decoder`, messages come out
of :meth:`ReaderTransport.get`. When the reader vanishes (unplugged, pty closed) the thread
counts the cut-off line, closes the port and reopens it with backoff when it comes back.

PORT is a device path (``/dev/ttr-reader``, ``/dev/ttyACM0``) or any pyserial URL
(``loop://``, ``socket://host:port``, ``rfc2217://...``), opened with ``serial_for_url``.
"""

from __future__ import annotations

import contextlib
import errno
import grp
import logging
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import serial

from . import protocol
from .protocol import Ack, Command, Hello, Message, Nak

log = logging.getLogger(__name__)

BAUDRATE = 115200
SUMMARY_EVERY_S = 5.0
_ABSENT = {errno.ENOENT, errno.ENODEV, errno.ENXIO, errno.ENOTDIR, errno.ECONNREFUSED}
_BUSY = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY}
_DENIED = {errno.EACCES, errno.EPERM}


class ReaderOpenError(Exception):
    """The port could not be opened. ``kind``: bad-url, absent, busy, denied or error."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class ReaderUnavailable(Exception):
    """A command could not be sent: the reader is not connected."""


@dataclass(frozen=True, slots=True)
class Connected:
    port: str


@dataclass(frozen=True, slots=True)
class Disconnected:
    port: str
    reason: str


Status = Connected | Disconnected


def denied_why(port: str, code: int | None) -> str:
    """Why opening ``port`` was refused, as the cause the user can act on.

    EPERM comes from a device policy (companion.service's DevicePolicy=closed: the reader's
    device class was not allowed when the unit started, typically because its driver was loaded
    later); EACCES from the file's permissions, where the device's group is what is missing.
    """
    if code == errno.EPERM:
        return (
            "the service's device policy refused it: the reader's driver was loaded after "
            "companion.service started; run `sudo systemctl restart companion` (scripts/install.sh "
            "makes the driver load at boot)"
        )
    try:
        st = os.stat(port)
    except OSError:
        return "permission denied"
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    if st.st_gid in os.getgroups() or st.st_gid == os.getegid():
        return f"permission denied, although this user is in its group {group}"
    return (
        f"permission denied: it belongs to the group {group}, which this user is not in "
        f"(`sudo usermod -aG {group} USER`, then log in again)"
    )


def _errno_of(exc: BaseException) -> int | None:
    seen: BaseException | None = exc
    while seen is not None:
        code = getattr(seen, "errno", None)
        if isinstance(code, int):
            return code
        seen = seen.__cause__ or seen.__context__
    return None


def open_port(port: str, *, timeout: float = 0.05, exclusive: bool = True) -> serial.SerialBase:
    """Open PORT (path or pyserial URL) at 115200 8N1, exclusively where supported."""
    kwargs: dict[str, Any] = {
        "baudrate": BAUDRATE,
        "timeout": timeout,
        "write_timeout": 2.0,
        "do_not_open": True,
    }
    try:
        try:
            ser = serial.serial_for_url(port, exclusive=exclusive, **kwargs)
        except (TypeError, ValueError) as exc:
            if "exclusive" not in str(exc):
                raise
            ser = serial.serial_for_url(port, **kwargs)
    except ValueError as exc:
        raise ReaderOpenError("bad-url", f"{port} is not a port pyserial can open: {exc}") from None
    try:
        ser.open()
    except (serial.SerialException, OSError) as exc:
        code = _errno_of(exc)
        if code in _ABSENT:
            kind, why = "absent", "is not there"
        elif code in _BUSY:
            kind, why = "busy", "is in use by another program"
        elif code in _DENIED:
            kind, why = "denied", f"cannot be opened ({denied_why(port, code)})"
        else:
            kind, why = "error", f"cannot be opened ({exc})"
        raise ReaderOpenError(kind, f"the reader at {port} {why}") from None
    return ser


class ReaderTransport:
    """Owns the port and a daemon thread that reads it.

    ``get(timeout)`` returns ``(received_at, item)``, item a protocol message or a
    :data:`Status`, or None on timeout. ACK/NAK answering :meth:`request` go to the caller.
    """

    def __init__(
        self,
        port: str,
        *,
        exclusive: bool = True,
        read_timeout: float = 0.05,
        backoff: tuple[float, float] = (0.05, 2.0),
        queue_size: int = 100_000,
        ping_on_open: bool = True,
    ) -> None:
        self.port = port
        self.exclusive = exclusive
        self.read_timeout = read_timeout
        self.backoff = backoff
        self.ping_on_open = ping_on_open
        self.decoder = protocol.Decoder()
        self.hello: Hello | None = None
        self.connects = 0
        self.disconnects = 0
        self.queue_overflow = 0
        self._queue: queue.Queue[tuple[float, Message | Status]] = queue.Queue(queue_size)
        self._ser: serial.SerialBase | None = None
        self._io_lock = threading.Lock()
        self._n_lock = threading.Lock()
        self._next_n = 0
        self._pending: dict[int, tuple[threading.Event, list[Ack | Nak]]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._summary_at = time.monotonic()
        self._summary_counts: Counter[str] = Counter()
        self._open_error: str | None = None

    # ---- lifecycle ----------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._ser is not None

    @property
    def dropped(self) -> Counter[str]:
        return self.decoder.dropped

    def open_now(self) -> None:
        """Try to open the port once, now. Raises ReaderOpenError."""
        if self._ser is None:
            self._attach(open_port(self.port, timeout=self.read_timeout, exclusive=self.exclusive))

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="reader-transport", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._io_lock:
            if self._ser is not None:
                self._close_quietly(self._ser)
                self._ser = None
        self._log_summary(force=True)

    def __enter__(self) -> ReaderTransport:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- messages -----------------------------------------------------------------------

    def get(self, timeout: float | None = None) -> tuple[float, Message | Status] | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def send(self, make: Callable[[int], Command]) -> int:
        """Send ``make(n)`` with a fresh command number n; returns n."""
        n = self._new_n()
        self._write(protocol.encode_command(make(n)))
        return n

    def request(self, make: Callable[[int], Command], timeout: float = 2.0) -> Ack | Nak | None:
        """Send a command and wait for its ACK or NAK (None: no answer in time)."""
        n = self._new_n()
        line = protocol.encode_command(make(n))
        done = threading.Event()
        slot: list[Ack | Nak] = []
        self._pending[n] = (done, slot)
        try:
            self._write(line)
            done.wait(timeout)
        finally:
            self._pending.pop(n, None)
        return slot[0] if slot else None

    def _new_n(self) -> int:
        with self._n_lock:
            self._next_n = self._next_n % 65535 + 1
            return self._next_n

    def _write(self, line: bytes) -> None:
        with self._io_lock:
            ser = self._ser
            if ser is None:
                raise ReaderUnavailable(f"the reader at {self.port} is not connected")
            try:
                ser.write(line)
            except (serial.SerialException, OSError) as exc:
                message = f"cannot write to the reader at {self.port}: {exc}"
                raise ReaderUnavailable(message) from None

    # ---- the reading thread -------------------------------------------------------------

    def _attach(self, ser: serial.SerialBase) -> None:
        with self._io_lock:
            self._ser = ser
        self.decoder.reset()
        self.connects += 1
        self._open_error = None
        log.info("reader connected at %s", self.port)
        self._put(Connected(self.port))
        if self.ping_on_open:
            try:
                self.send(protocol.Ping)
            except ReaderUnavailable as exc:
                log.debug("PING after open failed: %s", exc)

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            ser = self._ser
            if ser is None:
                try:
                    self.open_now()
                except ReaderOpenError as exc:
                    if str(exc) != self._open_error:
                        log.warning("%s; trying again until it is", exc)
                        self._open_error = str(exc)
                    self._stop.wait(delay)
                    delay = min(delay * 2, self.backoff[1])
                    continue
                delay = self.backoff[0]
                continue
            try:
                waiting = ser.in_waiting
                data = ser.read(waiting or 1)
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                # TypeError/AttributeError: pyserial racing a port closed under it.
                self._lost(ser, str(exc))
                continue
            if data:
                before = self.decoder.dropped_total
                try:
                    for msg in self.decoder.feed(data):
                        self._deliver(msg)
                except Exception:  # a bug must not silence the reader: log it and go on
                    log.exception("reader data could not be handled; continuing")
                if self.decoder.dropped_total != before and log.isEnabledFor(logging.DEBUG):
                    log.debug("dropped reader line(s); the last: %r", self.decoder.last_error)
                self._log_summary()

    def _lost(self, ser: serial.SerialBase, reason: str) -> None:
        if self.decoder.reset():
            log.warning("reader vanished in the middle of a line (dropped)")
        self.disconnects += 1
        with self._io_lock:
            if self._ser is ser:
                self._ser = None
        self._close_quietly(ser)
        log.warning("reader at %s lost (%s); reopening when it comes back", self.port, reason)
        self._put(Disconnected(self.port, reason))

    @staticmethod
    def _close_quietly(ser: serial.SerialBase) -> None:
        with contextlib.suppress(serial.SerialException, OSError):
            ser.close()

    def _deliver(self, msg: Message) -> None:
        if isinstance(msg, Ack | Nak):
            pending = self._pending.get(msg.n)
            if pending is not None:
                pending[1].append(msg)
                pending[0].set()
                return
        if isinstance(msg, Hello):
            self.hello = msg
        self._put(msg)

    def _put(self, item: Message | Status) -> None:
        try:
            self._queue.put_nowait((time.time(), item))
        except queue.Full:
            self.queue_overflow += 1
            if self.queue_overflow == 1 or self.queue_overflow % 10000 == 0:
                log.error("reader events are not being consumed: %d dropped", self.queue_overflow)

    def _log_summary(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._summary_at < SUMMARY_EVERY_S:
            return
        self._summary_at = now
        new = self.decoder.dropped - self._summary_counts
        if not new:
            return
        self._summary_counts = Counter(self.decoder.dropped)
        detail = ", ".join(f"{reason} {count}" for reason, count in sorted(new.items()))
        log.warning("dropped %d damaged reader lines (%s)", sum(new.values()), detail)
