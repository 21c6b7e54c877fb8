"""The reader's behaviour, without hardware: polls a chip, debounces, answers host commands.

Pure module: runs under MicroPython (driven by main.py) and under CPython with a fake chip
(tests/firmware/). The chip object provides:

- ``name``: ``"rc522"``, ``"pn532"`` or ``"sim"``;
- ``init()`` -> bool: (re)initialise, True when the chip answers;
- ``scan()`` -> list of UIDs (bytes) in the field now; raises OSError on chip trouble;
- ``read(uid, page)`` -> 16 bytes (4 pages from ``page``) or None on failure;
- ``write(uid, page, data)`` -> bool, writes 4 bytes to one page.

The ui object (optional) provides ``beep(ms)`` and ``led(colour)``; both must return at once.
``out`` is called with every complete line (str, ending in ``\\n``).
"""

import debounce
import ndef
import ttrproto

FW_VERSION = "1.0"
READ_ATTEMPTS = 3
REINIT_EVERY = 40  # polls between attempts to revive a silent chip (about 1 s)
TAP_BEEP_MS = 30


def read_text(chip, uid):
    """Read the first NDEF Text record of the tag ``uid``.

    Returns ``(True, text_or_None)`` when the tag could be read (None: no Text record) and
    ``(False, None)`` when reading failed.
    """
    block = chip.read(uid, 3)
    if block is None or len(block) < 16:
        return (False, None)
    cap = ndef.capacity(block[0:4])
    if not cap:
        return (True, None)
    area = bytearray(block[4:16])
    while True:
        status, value = ndef.find_message(area)
        if status == ndef.FOUND:
            return (True, ndef.first_text(value))
        if status == ndef.ABSENT or value > cap:
            return (True, None)
        block = chip.read(uid, 4 + len(area) // 4)
        if block is None or len(block) < 16:
            return (False, None)
        area.extend(block)


class ReaderLoop:
    def __init__(self, chip, out, ui=None, version=FW_VERSION, misses=debounce.MISSES_FOR_GONE):
        self.chip = chip
        self.out = out
        self.ui = ui
        self.version = version
        self.debouncer = debounce.Debouncer(misses)
        self.lines = ttrproto.LineBuffer()
        self.uid_bytes = {}
        self.chip_ok = False
        self.polls = 0
        self.dropped = {}  # reason -> count of host lines dropped
        self.tap_beep_ms = TAP_BEEP_MS

    # ---- lifecycle ----------------------------------------------------------------------

    def start(self):
        """Say HELLO and bring the chip up (reporting ``ERR chip no-answer`` if it is silent)."""
        self.out(ttrproto.hello(self.version, self.chip.name))
        self._init_chip()

    def _init_chip(self):
        try:
            ok = bool(self.chip.init())
        except OSError:
            ok = False
        if ok:
            self.chip_ok = True
            self._led("off")
        elif self.chip_ok or self.polls == 0:
            self.chip_ok = False
            self.out(ttrproto.err("chip", "no-answer"))
            self._led("red")
        return ok

    # ---- polling ------------------------------------------------------------------------

    def poll(self):
        """One poll of the field: TAG lines for arrivals, GONE lines for departures."""
        self.polls += 1
        if not self.chip_ok and (self.polls % REINIT_EVERY != 0 or not self._init_chip()):
            return
        try:
            found = self.chip.scan()
        except OSError:
            # Chip trouble is not evidence that tags left: do not count misses.
            self.chip_ok = False
            self.out(ttrproto.err("chip", "no-answer"))
            self._led("red")
            return
        seen = []
        for uid in found:
            text = ttrproto.uid_hex(uid)
            if not ttrproto.is_uid(text) or text in seen:
                continue
            self.uid_bytes[text] = bytes(uid)
            seen.append(text)
        arrived, gone = self.debouncer.update(seen)
        for uid in arrived:
            self.out(ttrproto.tag(uid, self._payload(uid)))
            if self.tap_beep_ms:
                self._beep(self.tap_beep_ms)
        for uid in gone:
            self.uid_bytes.pop(uid, None)
            self.out(ttrproto.gone(uid))

    def _payload(self, uid):
        for _ in range(READ_ATTEMPTS):
            ok, text = read_text(self.chip, self.uid_bytes[uid])
            if ok:
                if text is not None and ttrproto.payload_fits(uid, text):
                    return text
                return None
        return None

    # ---- host commands ------------------------------------------------------------------

    def feed(self, data):
        """Bytes from the host: run every complete command line."""
        before = self.lines.too_long
        for raw in self.lines.feed(data):
            self._command(raw)
        if self.lines.too_long != before:
            self._count(ttrproto.TOO_LONG, self.lines.too_long - before)

    def _count(self, reason, k=1):
        self.dropped[reason] = self.dropped.get(reason, 0) + k

    def _command(self, raw):
        try:
            cmd = ttrproto.parse_command(raw)
        except ttrproto.LineError as e:
            self._count(e.reason)
            if e.n:
                reason = "unknown-command" if e.reason == ttrproto.UNKNOWN else "bad-args"
                self.out(ttrproto.nak(e.n, reason))
            return
        verb = cmd[0]
        n = cmd[1]
        if verb == "PING":
            self.out(ttrproto.hello(self.version, self.chip.name))
            self.out(ttrproto.ack(n))
        elif verb == "BEEP":
            self._beep(cmd[2])
            self.out(ttrproto.ack(n))
        elif verb == "LED":
            self._led(cmd[2])
            self.out(ttrproto.ack(n))
        else:
            reason = self._write(cmd[2], cmd[3])
            self.out(ttrproto.ack(n) if reason is None else ttrproto.nak(n, reason))

    def _write(self, uid, payload):
        """Write ``payload`` as the tag's NDEF Text record. None on success, else a NAK reason."""
        if not self.debouncer.is_present(uid):
            return "uid-mismatch" if self.debouncer.uids() else "no-tag"
        if not self.chip_ok:
            return "chip-error"
        ub = self.uid_bytes[uid]
        block = self.chip.read(ub, 3)
        if block is None or len(block) < 16:
            return "write-failed"
        cc = bytes(block[0:4])
        if cc == b"\x00\x00\x00\x00":
            if not self.chip.write(ub, 3, ndef.NTAG213_CC):
                return "write-failed"
            cc = ndef.NTAG213_CC
        cap = ndef.capacity(cc)
        if not cap:
            return "not-ndef"
        if cc[3] != 0x00:
            return "read-only"
        area = ndef.text_area(payload)
        if len(area) > cap:
            return "too-long"
        # Empty message first, the new pages, the real header last: a torn write leaves an
        # empty tag or the whole new text, never a mix of old and new.
        if not self.chip.write(ub, 4, b"\x03\x00\xfe\x00"):
            return "write-failed"
        for i in range(4, len(area), 4):
            if not self.chip.write(ub, 4 + i // 4, area[i : i + 4]):
                return "write-failed"
        if not self.chip.write(ub, 4, area[0:4]):
            return "write-failed"
        ok, text = read_text(self.chip, ub)
        if not ok or text != payload:
            return "verify-failed"
        return None

    # ---- ui -----------------------------------------------------------------------------

    def _beep(self, ms):
        if self.ui is not None and ms:
            self.ui.beep(ms)

    def _led(self, colour):
        if self.ui is not None:
            self.ui.led(colour)
