"""Card reader wire protocol, version 1: framing, checksums and the host commands.

Pure module: runs under MicroPython on the Pico and under CPython in the host test suite
(tests/firmware/). No imports beyond the language itself.

A line is ``BODY*HH`` + ``\\n`` where HH is the XOR of every byte of BODY as two uppercase hex
digits. A ``\\r`` before the ``\\n`` is ignored. Lines over 200 bytes (not counting the line
ending), lines that are not ASCII and lines with a missing or wrong checksum are dropped.
"""

MAX_LINE = 200
FW_NAME = "ttr-reader"
CHIPS = ("rc522", "pn532", "sim")
LED_COLOURS = ("off", "green", "red", "amber", "blue")
MAX_BEEP_MS = 10000

# Reasons a line is refused. The host uses the same words (companion/reader/protocol.py).
TOO_LONG = "too-long"
NOT_ASCII = "not-ascii"
NO_CHECKSUM = "no-checksum"
BAD_CHECKSUM = "bad-checksum"
MALFORMED = "malformed"
UNKNOWN = "unknown"

_HEX = "0123456789ABCDEF"


class LineError(Exception):
    """A line that must be dropped. ``reason`` is one of the reason words above."""

    def __init__(self, reason, n=0):
        super().__init__(reason)
        self.reason = reason
        # For a command with a valid number but bad arguments: the number to NAK.
        self.n = n


def checksum(body):
    """XOR of every byte of ``body`` (str or bytes) as two uppercase hex digits."""
    x = 0
    if isinstance(body, str):
        for ch in body:
            x ^= ord(ch)
    else:
        for b in body:
            x ^= b
    return _HEX[x >> 4] + _HEX[x & 15]


def frame(body):
    """The full line (str, with ``\\n``) for ``body``."""
    return body + "*" + checksum(body) + "\n"


def is_uid(text):
    """True for 8 or 14 uppercase hex digits (a 4- or 7-byte UID)."""
    if len(text) != 8 and len(text) != 14:
        return False
    return all(_HEX.find(ch) >= 0 for ch in text)


def uid_hex(uid_bytes):
    """Uppercase hex of a UID's bytes."""
    out = ""
    for b in uid_bytes:
        out += _HEX[b >> 4] + _HEX[b & 15]
    return out


def is_field(text):
    """A field: non-empty printable ASCII without spaces."""
    if not text:
        return False
    for ch in text:
        o = ord(ch)
        if o <= 32 or o > 126:
            return False
    return True


def parse_number(text):
    """A command number 1..65535 written without leading zeros, else 0."""
    if not text or len(text) > 5 or text[0] == "0":
        return 0
    for ch in text:
        if ch < "0" or ch > "9":
            return 0
    n = int(text)
    if n > 65535:
        return 0
    return n


def unframe(raw):
    """Check one line (bytes, without or with its line ending); return its body as str.

    Raises LineError with the reason when the line must be dropped.
    """
    if raw and raw[-1] == 10:
        raw = raw[:-1]
    if raw and raw[-1] == 13:
        raw = raw[:-1]
    if len(raw) > MAX_LINE:
        raise LineError(TOO_LONG)
    for b in raw:
        if b > 127:
            raise LineError(NOT_ASCII)
    text = raw.decode()
    star = text.rfind("*")
    if star < 0 or len(text) - star != 3:
        raise LineError(NO_CHECKSUM)
    given = text[star + 1 :]
    body = text[:star]
    if given[0] not in _HEX or given[1] not in _HEX:
        raise LineError(NO_CHECKSUM)
    if checksum(body) != given:
        raise LineError(BAD_CHECKSUM)
    return body


def fields(body):
    """Split a body on single spaces; every field must be printable ASCII."""
    parts = body.split(" ")
    for p in parts:
        if not is_field(p):
            raise LineError(MALFORMED)
    return parts


# ---- device -> host -------------------------------------------------------------------------


def hello(fw_version, chip):
    return frame("HELLO " + FW_NAME + " " + fw_version + " " + chip)


def tag(uid, payload):
    """TAG line; ``payload`` None or empty means no NDEF Text record (``-``)."""
    return frame("TAG " + uid + " " + (payload if payload else "-"))


def gone(uid):
    return frame("GONE " + uid)


def ack(n):
    return frame("ACK " + str(n))


def nak(n, reason):
    return frame("NAK " + str(n) + " " + reason)


def err(code, detail):
    return frame("ERR " + code + " " + detail)


def payload_fits(uid, payload):
    """True when ``payload`` can travel in a TAG line: one field, line within MAX_LINE."""
    if not is_field(payload):
        return False
    return len("TAG ") + len(uid) + 1 + len(payload) + 3 <= MAX_LINE


# ---- host -> device -------------------------------------------------------------------------


def parse_command(raw):
    """Parse a host command line (bytes). Returns a tuple:

    ``("PING", n)``, ``("BEEP", n, ms)``, ``("LED", n, colour)``, ``("WRITE", n, uid, payload)``.

    Raises LineError: framing reasons, MALFORMED without a usable number, and MALFORMED or
    UNKNOWN with ``n`` set when the number is valid (the device answers ``NAK n ...``).
    """
    parts = fields(unframe(raw))
    if len(parts) < 2:
        raise LineError(MALFORMED)
    n = parse_number(parts[0])
    if not n:
        raise LineError(MALFORMED)
    verb = parts[1]
    args = parts[2:]
    if verb == "PING":
        if args:
            raise LineError(MALFORMED, n)
        return ("PING", n)
    if verb == "BEEP":
        if len(args) != 1 or not _is_digits(args[0]) or len(args[0]) > 5:
            raise LineError(MALFORMED, n)
        ms = int(args[0])
        if ms > MAX_BEEP_MS:
            raise LineError(MALFORMED, n)
        return ("BEEP", n, ms)
    if verb == "LED":
        if len(args) != 1 or args[0] not in LED_COLOURS:
            raise LineError(MALFORMED, n)
        return ("LED", n, args[0])
    if verb == "WRITE":
        if len(args) != 2 or not is_uid(args[0]):
            raise LineError(MALFORMED, n)
        return ("WRITE", n, args[0], args[1])
    raise LineError(UNKNOWN, n)


def _is_digits(text):
    if not text:
        return False
    return all("0" <= ch <= "9" for ch in text)


class LineBuffer:
    """Collects bytes into lines; never holds more than MAX_LINE + 2 bytes.

    ``feed(data)`` returns the complete lines (bytes, without ``\\n``). A line that grows past
    the limit is dropped up to its ``\\n`` and counted in ``too_long``.
    """

    def __init__(self):
        self.buf = bytearray()
        self.overflow = False
        self.too_long = 0

    def feed(self, data):
        lines = []
        for b in data:
            if b == 10:
                if self.overflow:
                    self.overflow = False
                else:
                    lines.append(bytes(self.buf))
                self.buf = bytearray()
            elif self.overflow:
                continue
            elif len(self.buf) > MAX_LINE:
                # Room for MAX_LINE bytes and a '\r'; one more byte means the line is too long.
                self.overflow = True
                self.too_long += 1
                self.buf = bytearray()
            else:
                self.buf.append(b)
        return lines

    def reset(self):
        """Forget a partial line; True when there was one."""
        had = bool(self.buf) or self.overflow
        self.buf = bytearray()
        self.overflow = False
        return had
