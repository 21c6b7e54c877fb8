"""Card reader wire protocol, version 1 (shared/spec/reader-protocol.md), both directions.

Pure: no I/O, no threads. The device side (encode messages, parse commands) is here too, for
the simulated reader. The firmware has its own implementation (firmware/ttrproto.py); both are
held to tests/vectors/reader_protocol.json.

Every line is ``BODY*HH\\n``: HH is the XOR of the bytes of BODY in two uppercase hex digits; a
``\\r`` before the ``\\n`` is ignored. A line over 200 bytes (line ending not counted), not
ASCII, or with a missing or wrong checksum is refused with a :class:`LineError` whose
``reason`` is one of :data:`REASONS`; :class:`Decoder` counts them and never raises.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Final

MAX_LINE: Final = 200
FW_NAME: Final = "ttr-reader"
CHIPS: Final = ("rc522", "pn532", "sim")
LED_COLOURS: Final = ("off", "green", "red", "amber", "blue")
MAX_BEEP_MS: Final = 10000

TOO_LONG: Final = "too-long"
NOT_ASCII: Final = "not-ascii"
NO_CHECKSUM: Final = "no-checksum"
BAD_CHECKSUM: Final = "bad-checksum"
MALFORMED: Final = "malformed"
UNKNOWN: Final = "unknown"
PARTIAL: Final = "partial"  # a line cut off by the reader vanishing (Decoder.reset)
REASONS: Final = (TOO_LONG, NOT_ASCII, NO_CHECKSUM, BAD_CHECKSUM, MALFORMED, UNKNOWN, PARTIAL)


class LineError(ValueError):
    """A line to drop. ``n`` is the command number when a command had a usable one."""

    def __init__(self, reason: str, detail: str = "", n: int = 0) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.n = n


# ---- messages (device -> host) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    fw_version: str
    chip: str


@dataclass(frozen=True, slots=True)
class Tag:
    uid: str
    payload: str | None  # None for "-"


@dataclass(frozen=True, slots=True)
class Gone:
    uid: str


@dataclass(frozen=True, slots=True)
class Ack:
    n: int


@dataclass(frozen=True, slots=True)
class Nak:
    n: int
    reason: str


@dataclass(frozen=True, slots=True)
class Err:
    code: str
    detail: str


Message = Hello | Tag | Gone | Ack | Nak | Err


# ---- commands (host -> device) -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ping:
    n: int


@dataclass(frozen=True, slots=True)
class Beep:
    n: int
    ms: int


@dataclass(frozen=True, slots=True)
class Led:
    n: int
    colour: str


@dataclass(frozen=True, slots=True)
class Write:
    n: int
    uid: str
    payload: str


Command = Ping | Beep | Led | Write


# ---- framing --------------------------------------------------------------------------------

_HEXDIGITS = b"0123456789ABCDEF"
_FIELD = rb"[\x21-\x7e]+"
_UID = rb"(?:[0-9A-F]{8}|[0-9A-F]{14})"
_NUM = rb"[1-9][0-9]{0,4}"
_HELLO = re.compile(rb"HELLO ttr-reader (" + _FIELD + rb") (rc522|pn532|sim)")
_TAG = re.compile(rb"TAG (" + _UID + rb") (" + _FIELD + rb")")
_GONE = re.compile(rb"GONE (" + _UID + rb")")
_ACK = re.compile(rb"ACK (" + _NUM + rb")")
_NAK = re.compile(rb"NAK (" + _NUM + rb") (" + _FIELD + rb")")
_ERR = re.compile(rb"ERR (" + _FIELD + rb") (" + _FIELD + rb")")
_KIND = re.compile(_FIELD)
_COMMAND = re.compile(rb"(" + _NUM + rb") (" + _FIELD + rb")((?: " + _FIELD + rb")*)")
_UID_STR = re.compile(r"[0-9A-F]{8}|[0-9A-F]{14}")
_FIELD_STR = re.compile(r"[\x21-\x7e]+")


def xor(data: bytes) -> int:
    """XOR of every byte of ``data``."""
    x = int.from_bytes(data, "little")
    n = len(data)
    while n > 1:
        half = (n + 1) // 2
        x = (x & ((1 << (8 * half)) - 1)) ^ (x >> (8 * half))
        n = half
    return x


def checksum(body: bytes | str) -> str:
    """The two uppercase hex digits of the XOR of ``body``."""
    data = body.encode("ascii") if isinstance(body, str) else body
    return f"{xor(data):02X}"


def frame(body: str) -> bytes:
    """``body`` as a full line: ``BODY*HH\\n`` (ASCII)."""
    data = body.encode("ascii")
    return b"%s*%02X\n" % (data, xor(data))


def unframe(raw: bytes) -> bytes:
    """Check one line (with or without its line ending) and return its body.

    Raises LineError (too-long, not-ascii, no-checksum, bad-checksum).
    """
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if len(raw) > MAX_LINE:
        raise LineError(TOO_LONG, f"{len(raw)} bytes")
    if not raw.isascii():
        raise LineError(NOT_ASCII)
    if len(raw) < 3 or raw[-3] != 0x2A:  # '*'
        raise LineError(NO_CHECKSUM)
    hi, lo = raw[-2], raw[-1]
    if hi not in _HEXDIGITS or lo not in _HEXDIGITS:
        raise LineError(NO_CHECKSUM)
    body = raw[:-3]
    if xor(body) != int(raw[-2:], 16):
        raise LineError(BAD_CHECKSUM)
    return body


def _number(text: bytes) -> int:
    n = int(text)
    if n > 65535:
        raise LineError(MALFORMED, "number out of range")
    return n


def parse_message(raw: bytes) -> Message:
    """Parse one device line. Raises LineError with the reason when it must be dropped."""
    body = unframe(raw)
    kind = body.split(b" ", 1)[0]
    m: re.Match[bytes] | None
    if kind == b"TAG":
        m = _TAG.fullmatch(body)
        if m:
            payload = m.group(2).decode("ascii")
            return Tag(m.group(1).decode("ascii"), None if payload == "-" else payload)
    elif kind == b"GONE":
        m = _GONE.fullmatch(body)
        if m:
            return Gone(m.group(1).decode("ascii"))
    elif kind == b"HELLO":
        m = _HELLO.fullmatch(body)
        if m:
            return Hello(m.group(1).decode("ascii"), m.group(2).decode("ascii"))
    elif kind == b"ACK":
        m = _ACK.fullmatch(body)
        if m:
            return Ack(_number(m.group(1)))
    elif kind == b"NAK":
        m = _NAK.fullmatch(body)
        if m:
            return Nak(_number(m.group(1)), m.group(2).decode("ascii"))
    elif kind == b"ERR":
        m = _ERR.fullmatch(body)
        if m:
            return Err(m.group(1).decode("ascii"), m.group(2).decode("ascii"))
    elif _KIND.fullmatch(kind):
        raise LineError(UNKNOWN, kind.decode("ascii"))
    raise LineError(MALFORMED, body[:40].decode("ascii", "replace"))


def _check_field(text: str, what: str) -> None:
    if not _FIELD_STR.fullmatch(text):
        raise ValueError(f"{what} must be printable ASCII without spaces, got {text!r}")


def _check_uid(uid: str) -> None:
    if not _UID_STR.fullmatch(uid):
        raise ValueError(f"a UID is 8 or 14 uppercase hex digits, got {uid!r}")


def _check_n(n: int) -> None:
    if not 1 <= n <= 65535:
        raise ValueError(f"command numbers run from 1 to 65535, got {n}")


def encode_message(msg: Message) -> bytes:
    """The device's line for ``msg``. Raises ValueError for a message that cannot be sent."""
    if isinstance(msg, Tag):
        _check_uid(msg.uid)
        payload = "-" if msg.payload is None else msg.payload
        _check_field(payload, "a payload")
        line = frame(f"TAG {msg.uid} {payload}")
    elif isinstance(msg, Gone):
        _check_uid(msg.uid)
        line = frame(f"GONE {msg.uid}")
    elif isinstance(msg, Hello):
        _check_field(msg.fw_version, "the firmware version")
        if msg.chip not in CHIPS:
            raise ValueError(f"chip must be one of {', '.join(CHIPS)}, got {msg.chip!r}")
        line = frame(f"HELLO {FW_NAME} {msg.fw_version} {msg.chip}")
    elif isinstance(msg, Ack):
        _check_n(msg.n)
        line = frame(f"ACK {msg.n}")
    elif isinstance(msg, Nak):
        _check_n(msg.n)
        _check_field(msg.reason, "a NAK reason")
        line = frame(f"NAK {msg.n} {msg.reason}")
    else:
        _check_field(msg.code, "an ERR code")
        _check_field(msg.detail, "an ERR detail")
        line = frame(f"ERR {msg.code} {msg.detail}")
    if len(line) - 1 > MAX_LINE:
        raise ValueError(f"the line would be {len(line) - 1} bytes, over {MAX_LINE}")
    return line


def encode_command(cmd: Command) -> bytes:
    """The host's line for ``cmd``. Raises ValueError for a command that cannot be sent."""
    _check_n(cmd.n)
    if isinstance(cmd, Ping):
        body = f"{cmd.n} PING"
    elif isinstance(cmd, Beep):
        if not 0 <= cmd.ms <= MAX_BEEP_MS:
            raise ValueError(f"a beep lasts 0 to {MAX_BEEP_MS} ms, got {cmd.ms}")
        body = f"{cmd.n} BEEP {cmd.ms}"
    elif isinstance(cmd, Led):
        if cmd.colour not in LED_COLOURS:
            raise ValueError(f"LED colour must be one of {', '.join(LED_COLOURS)}")
        body = f"{cmd.n} LED {cmd.colour}"
    else:
        _check_uid(cmd.uid)
        _check_field(cmd.payload, "a payload")
        body = f"{cmd.n} WRITE {cmd.uid} {cmd.payload}"
    line = frame(body)
    if len(line) - 1 > MAX_LINE:
        raise ValueError(f"the line would be {len(line) - 1} bytes, over {MAX_LINE}")
    return line


def parse_command(raw: bytes) -> Command:
    """Parse one host command line (what the device does). Raises LineError; ``n`` is set when
    the number was usable, so the device can answer ``NAK n ...``."""
    body = unframe(raw)
    m = _COMMAND.fullmatch(body)
    if not m:
        raise LineError(MALFORMED, body[:40].decode("ascii", "replace"))
    number = int(m.group(1))
    if number > 65535:
        raise LineError(MALFORMED, "number out of range")
    verb = m.group(2)
    args = m.group(3).split()
    if verb == b"PING":
        if not args:
            return Ping(number)
    elif verb == b"BEEP":
        if len(args) == 1 and args[0].isdigit() and len(args[0]) <= 5:
            ms = int(args[0])
            if ms <= MAX_BEEP_MS:
                return Beep(number, ms)
    elif verb == b"LED":
        if len(args) == 1 and args[0].decode("ascii") in LED_COLOURS:
            return Led(number, args[0].decode("ascii"))
    elif verb == b"WRITE":
        if len(args) == 2 and _UID_STR.fullmatch(args[0].decode("ascii")):
            return Write(number, args[0].decode("ascii"), args[1].decode("ascii"))
    else:
        raise LineError(UNKNOWN, verb.decode("ascii"), n=number)
    raise LineError(MALFORMED, body[:40].decode("ascii", "replace"), n=number)


# ---- a stream of bytes -> messages ----------------------------------------------------------


class Decoder:
    """Turns bytes from the reader into messages. Never raises, never holds more than
    MAX_LINE + 2 bytes of an unfinished line, counts every dropped line by reason.

    ``feed(data)`` returns the messages completed by ``data``. ``reset()`` forgets an unfinished
    line (the reader vanished mid-line), counting it as ``partial``.
    """

    def __init__(self) -> None:
        self._buf = b""
        self._skipping = False  # inside a line already counted as too long
        self.dropped: Counter[str] = Counter()
        self.accepted = 0
        self.last_error: tuple[str, bytes] | None = None

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line held now."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[Message]:
        out: list[Message] = []
        if not data:
            return out
        pieces = (self._buf + data).split(b"\n")
        self._buf = pieces.pop()
        for line in pieces:
            if self._skipping:
                self._skipping = False
                continue
            try:
                out.append(parse_message(line))
            except LineError as e:
                self._drop(e.reason, line)
        if len(self._buf) > MAX_LINE + 1:
            if not self._skipping:
                self._drop(TOO_LONG, self._buf)
                self._skipping = True
            self._buf = b""
        self.accepted += len(out)
        return out

    def _drop(self, reason: str, line: bytes) -> None:
        self.dropped[reason] += 1
        self.last_error = (reason, line[:60])

    def reset(self) -> bool:
        had = bool(self._buf)
        if had:
            self._drop(PARTIAL, self._buf)
        self._buf = b""
        self._skipping = False
        return had


class CommandDecoder:
    """The device side of :class:`Decoder`: bytes from the host -> commands or refusals."""

    def __init__(self) -> None:
        self._buf = b""
        self._skipping = False
        self.dropped: Counter[str] = Counter()

    def feed(self, data: bytes) -> list[Command | LineError]:
        out: list[Command | LineError] = []
        pieces = (self._buf + data).split(b"\n")
        self._buf = pieces.pop()
        for line in pieces:
            if self._skipping:
                self._skipping = False
                continue
            try:
                out.append(parse_command(line))
            except LineError as e:
                self.dropped[e.reason] += 1
                out.append(e)
        if len(self._buf) > MAX_LINE + 1:
            if not self._skipping:
                self.dropped[TOO_LONG] += 1
                self._skipping = True
            self._buf = b""
        return out
