"""An MFRC522 emulated at the SPI register level, with ISO 14443-3 A / NTAG21x tags in its
field, so the driver (firmware/mfrc522.py) runs under CPython.

Only what the driver uses is emulated: register reads/writes, the FIFO, SoftReset, Transceive
(triggered by StartSend), TxLastBits/RxAlign bit framing, collisions (CollErr, CollPos counted
from the start of the UID CLn, ValuesAfterColl = 0), the timer IRQ when nobody answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mfrc522 as m

IDLE, READY, ACTIVE, HALT = "idle", "ready", "active", "halt"


def crc_a(data: bytes) -> bytes:
    return bytes(m.crc_a(data))


@dataclass
class EmuTag:
    uid: bytes
    memory: bytearray
    state: str = IDLE
    level: int = 0  # cascade level being resolved
    halted_before: bool = False

    def cl(self, level: int) -> bytes:
        blocks = m.cascade_levels(self.uid)
        block = blocks[level]
        return bytes(block) + bytes([m.bcc(block)])

    @property
    def levels(self) -> int:
        return 1 if len(self.uid) == 4 else 2

    def sleep(self) -> None:
        self.state = HALT if self.halted_before else IDLE


def bits_of(data: bytes, nbits: int) -> list[int]:
    out = [(data[i // 8] >> (i % 8)) & 1 for i in range(len(data) * 8)]
    return out[:nbits]


def pack(bits: list[int], align: int) -> tuple[bytes, int]:
    total = align + len(bits)
    buf = bytearray((total + 7) // 8)
    for j, bit in enumerate(bits):
        pos = align + j
        buf[pos // 8] |= bit << (pos % 8)
    return bytes(buf), total % 8


@dataclass
class EmulatedRC522:
    version: int = 0x92
    dead: bool = False
    tags: list[EmuTag] = field(default_factory=list)
    in_field: list[EmuTag] = field(default_factory=list)
    regs: bytearray = field(default_factory=lambda: bytearray(64))
    fifo: list[int] = field(default_factory=list)
    exchanges: int = 0

    # ---- SPI side ---------------------------------------------------------------------------

    def write(self, buf: bytes) -> None:
        if self.dead:
            return
        reg = (buf[0] >> 1) & 0x3F
        for value in buf[1:]:
            self._write_reg(reg, value)

    def write_readinto(self, tx: bytes, rx: bytearray) -> None:
        if self.dead:
            for i in range(len(rx)):
                rx[i] = 0xFF
            return
        rx[0] = 0
        for i in range(len(tx) - 1):
            rx[i + 1] = self._read_reg((tx[i] >> 1) & 0x3F)

    # ---- registers --------------------------------------------------------------------------

    def _read_reg(self, reg: int) -> int:
        if reg == m.VERSION:
            return self.version
        if reg == m.FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if reg == m.FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[reg]

    def _write_reg(self, reg: int, value: int) -> None:
        if reg == m.FIFO_DATA:
            self.fifo.append(value)
        elif reg == m.FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
        elif reg == m.COM_IRQ:
            if value & 0x80:
                self.regs[reg] |= value & 0x7F
            else:
                self.regs[reg] &= ~value & 0xFF
        elif reg == m.COMMAND:
            if value & 0x0F == m.CMD_SOFT_RESET:
                self.regs = bytearray(64)
                self.fifo.clear()
            else:
                self.regs[reg] = value
        elif reg == m.BIT_FRAMING:
            self.regs[reg] = value
            if value & 0x80 and self.regs[m.COMMAND] & 0x0F == m.CMD_TRANSCEIVE:
                self._transceive()
        else:
            self.regs[reg] = value

    # ---- the radio side ---------------------------------------------------------------------

    def _transceive(self) -> None:
        self.exchanges += 1
        framing = self.regs[m.BIT_FRAMING]
        tx_last, align = framing & 7, (framing >> 4) & 7
        data = bytes(self.fifo)
        self.fifo.clear()
        nbits = len(data) * 8 - ((8 - tx_last) % 8)
        self.regs[m.ERROR] = 0
        self.regs[m.COLL] &= 0x80
        reply = self._radio(data, nbits, align)
        if reply is None:
            self.regs[m.COM_IRQ] |= m.IRQ_TIMER
            return
        payload, last_bits, collision = reply
        self.fifo.extend(payload)
        self.regs[m.CONTROL] = (self.regs[m.CONTROL] & ~7) | last_bits
        if collision:
            self.regs[m.ERROR] |= m.ERR_COLL
            self.regs[m.COLL] = (self.regs[m.COLL] & 0x80) | (collision & 0x1F)
        self.regs[m.COM_IRQ] |= m.IRQ_RX | m.IRQ_IDLE

    def _radio(self, data: bytes, nbits: int, align: int) -> tuple[bytes, int, int] | None:
        for t in self.tags:
            if t not in self.in_field:  # out of the field: no power, back to IDLE
                t.state, t.level, t.halted_before = IDLE, 0, False
        tags = list(self.in_field)
        if nbits == 7:
            cmd = data[0] & 0x7F
            woken = [t for t in tags if t.state == IDLE or (cmd == m.WUPA and t.state == HALT)]
            for t in tags:
                if t.state in (READY, ACTIVE):
                    t.sleep()
            for t in woken:
                t.halted_before = t.state == HALT
                t.state, t.level = READY, 0
            return (b"\x44\x00", 0, 0) if woken else None
        if data[0] in m.SEL_CL and len(data) >= 2 and data[1] != 0x70:
            level = m.SEL_CL.index(data[0])
            nvb = data[1]
            known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
            sent = bits_of(data, nbits)[16 : 16 + known]
            answering = []
            for t in tags:
                if t.state == READY and t.level == level:
                    cl_bits = bits_of(t.cl(level), 40)
                    if cl_bits[:known] == sent:
                        answering.append(cl_bits[known:])
            if not answering:
                return None
            bits: list[int] = []
            collision = 0
            for j in range(40 - known):
                column = {a[j] for a in answering}
                if len(column) > 1:
                    collision = known + j + 1
                    bits += [0] * (40 - known - j)
                    break
                bits.append(column.pop())
            payload, last = pack(bits, align)
            return payload, last, collision
        if len(data) < 3 or crc_a(data[:-2]) != data[-2:]:
            return None
        frame = data[:-2]
        if frame[0] in m.SEL_CL and frame[1] == 0x70:
            level = m.SEL_CL.index(frame[0])
            chosen = []  # every tag whose UID CLn matches answers (identical SAKs)
            for t in tags:
                if t.state == READY and t.level == level:
                    if t.cl(level) == frame[2:7]:
                        chosen.append(t)
                    else:
                        t.sleep()
            if not chosen:
                return None
            saks = set()
            for t in chosen:
                if level + 1 < t.levels:
                    t.level = level + 1
                    saks.add(0x04)
                else:
                    t.state = ACTIVE
                    saks.add(0x00)
            assert len(saks) == 1, "tags with the same UID CLn and different lengths"
            sak = saks.pop()
            return bytes([sak]) + crc_a(bytes([sak])), 0, 0
        active = [t for t in tags if t.state == ACTIVE]
        if not active:
            return None
        tag = active[0]
        if frame == bytes([m.HLTA, 0]):
            tag.state = HALT
            return None
        if frame[0] == m.NTAG_READ and len(frame) == 2:
            pages = len(tag.memory) // 4
            out = bytes(
                tag.memory[((frame[1] + i) % pages) * 4 + j] for i in range(4) for j in range(4)
            )
            return out + crc_a(out), 0, 0
        if frame[0] == m.NTAG_WRITE and len(frame) == 6:
            page = frame[1]
            if page < 2 or page * 4 >= len(tag.memory):
                return bytes([0x00]), 4, 0
            if page == 3:
                for i in range(4):
                    tag.memory[12 + i] |= frame[2 + i]
            else:
                tag.memory[page * 4 : page * 4 + 4] = frame[2:6]
            return bytes([m.ACK_NIBBLE]), 4, 0
        tag.sleep()
        return None


class FakePin:
    def __init__(self) -> None:
        self.levels: list[int] = []

    def value(self, v: int) -> None:
        self.levels.append(v)
