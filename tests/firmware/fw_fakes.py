"""A fake RC522 for ReaderLoop tests: scripted polls over NTAG213 memories.

Runs under MicroPython too (tests/firmware/test_fw_micropython.py): no ``__future__`` import,
and the annotations' names need only exist under CPython (MicroPython does not evaluate them).
"""

try:  # noqa: SIM105  (MicroPython has no contextlib)
    from collections.abc import Iterable
except ImportError:  # MicroPython
    pass

NTAG213_PAGES = 45
BLANK_CC = bytes([0xE1, 0x10, 0x12, 0x00])


def ntag213(uid: bytes, area: bytes = b"\x03\x00\xfe", cc: bytes = BLANK_CC) -> bytearray:
    """The 180 bytes of an NTAG213 with ``area`` at page 4."""
    mem = bytearray(NTAG213_PAGES * 4)
    mem[0 : len(uid)] = uid
    mem[12:16] = cc
    mem[16 : 16 + len(area)] = area
    return mem


class FakeChip:
    name = "rc522"

    def __init__(self, polls: Iterable[list[bytes]] = ()) -> None:
        self.tags: dict[bytes, bytearray] = {}
        self.script: list[list[bytes]] = list(polls)
        self.alive = True
        self.inits = 0
        self.read_failures = 0  # the next N reads fail
        self.fail_write_page: int | None = None
        self.reads = 0
        self.writes: list[tuple[bytes, int, bytes]] = []
        self.in_field: list[bytes] = []

    def add(self, uid: bytes, area: bytes = b"\x03\x00\xfe", cc: bytes = BLANK_CC) -> None:
        self.tags[uid] = ntag213(uid, area, cc)

    def init(self) -> bool:
        self.inits += 1
        return self.alive

    def scan(self) -> list[bytes]:
        if not self.alive:
            raise OSError("no-answer")
        self.in_field = self.script.pop(0) if self.script else []
        return list(self.in_field)

    def read(self, uid: bytes, page: int) -> bytes | None:
        self.reads += 1
        if self.read_failures:
            self.read_failures -= 1
            return None
        if uid not in self.in_field or uid not in self.tags:
            return None
        mem = self.tags[uid]
        return bytes(mem[((page + i) % NTAG213_PAGES) * 4 + j] for i in range(4) for j in range(4))

    def write(self, uid: bytes, page: int, data: bytes) -> bool:
        if uid not in self.in_field or uid not in self.tags:
            return False
        if self.fail_write_page == page:
            return False
        mem = self.tags[uid]
        if page == 3:  # capability container: one-time programmable, bits can only be set
            for i in range(4):
                mem[12 + i] |= data[i]
        else:
            mem[page * 4 : page * 4 + 4] = data[0:4]
        self.writes.append((uid, page, bytes(data[0:4])))
        return True


class FakeUi:
    def __init__(self) -> None:
        self.beeps: list[int] = []
        self.leds: list[str] = []

    def beep(self, ms: int) -> None:
        self.beeps.append(ms)

    def led(self, colour: str) -> None:
        self.leds.append(colour)
