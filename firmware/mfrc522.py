"""MFRC522 (RC522 board) driver over SPI for ISO/IEC 14443 A tags, written from the NXP
MFRC522 datasheet's register map and the ISO/IEC 14443-3 / NTAG21x command set.

Only what the reader needs: REQA/WUPA, anticollision and select over cascade levels 1 and 2
(4- and 7-byte UIDs, resolving collisions bit by bit so several tags are all found), HLTA,
READ (16 bytes) and WRITE (one 4-byte page). CRC_A is computed in software.

The SPI and pin objects are passed in (machine.SPI / machine.Pin on the Pico); the driver itself
imports nothing from ``machine`` so its pure parts (CRC, frame building) run under CPython too.
"""

try:
    from time import sleep_ms, ticks_diff, ticks_ms
except ImportError:  # CPython (host tests)
    import time as _time

    def sleep_ms(ms):
        _time.sleep(ms / 1000)

    def ticks_ms():
        return int(_time.monotonic() * 1000)

    def ticks_diff(a, b):
        return a - b


# ---- registers (datasheet section 9) -------------------------------------------------------
COMMAND = 0x01
COM_IEN = 0x02
DIV_IEN = 0x03
COM_IRQ = 0x04
DIV_IRQ = 0x05
ERROR = 0x06
STATUS2 = 0x08
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_MODE = 0x12
RX_MODE = 0x13
TX_CONTROL = 0x14
TX_ASK = 0x15
RF_CFG = 0x26
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

# ---- chip commands (datasheet section 10.3) ------------------------------------------------
CMD_IDLE = 0x00
CMD_TRANSCEIVE = 0x0C
CMD_SOFT_RESET = 0x0F
POWER_DOWN = 0x10  # CommandReg bit

# ComIrqReg bits
IRQ_TX = 0x40
IRQ_RX = 0x20
IRQ_IDLE = 0x10
IRQ_ERR = 0x02
IRQ_TIMER = 0x01

# ErrorReg bits
ERR_BUFFER_OVFL = 0x10
ERR_COLL = 0x08
ERR_CRC = 0x04
ERR_PARITY = 0x02
ERR_PROTOCOL = 0x01

# CollReg bits
COLL_VALUES_AFTER = 0x80
COLL_POS_NOT_VALID = 0x20

# ---- ISO/IEC 14443-3 A and NTAG21x commands -----------------------------------------------
REQA = 0x26
WUPA = 0x52
SEL_CL = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88
HLTA = 0x50
NTAG_READ = 0x30
NTAG_WRITE = 0xA2
ACK_NIBBLE = 0x0A

# The timer runs at 13.56 MHz / (2 * 0xA9 + 1) = 40 kHz: 40 ticks per millisecond.
TICKS_PER_MS = 40
RX_GAIN_38DB = 0x60  # RFCfgReg RxGain[2:0] = 100b
VERSIONS = (0x88, 0x90, 0x91, 0x92, 0xB2, 0x12, 0x18)
MAX_TAGS = 4


def crc_a(data):
    """ISO/IEC 14443-3 CRC_A of ``data``: two bytes, low byte first."""
    crc = 0x6363
    for b in data:
        b ^= crc & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return bytes([crc & 0xFF, (crc >> 8) & 0xFF])


def with_crc(data):
    data = bytes(data)
    return data + crc_a(data)


def crc_ok(frame):
    return len(frame) >= 3 and crc_a(frame[:-2]) == bytes(frame[-2:])


def bcc(four):
    return four[0] ^ four[1] ^ four[2] ^ four[3]


def merge_bits(cl, known, data):
    """Put an anticollision answer into ``cl``: with RxAlign = known % 8 the first received byte
    completes the partial byte that was sent, and the bytes after it follow."""
    nbytes = known // 8
    keep = (1 << (known % 8)) - 1
    for i in range(len(data)):
        j = nbytes + i
        if j >= len(cl):
            break
        if i == 0:
            cl[j] = (cl[j] & keep) | (data[0] & ~keep & 0xFF)
        else:
            cl[j] = data[i]
    # bits after a collision are received as 0 (ValuesAfterColl = 0)


def set_bit(cl, index):
    cl[index // 8] |= 1 << (index % 8)


def cascade_levels(uid):
    """The 4-byte UID CLn blocks for selecting ``uid`` (4 or 7 bytes)."""
    if len(uid) == 4:
        return [bytes(uid)]
    if len(uid) == 7:
        return [bytes([CASCADE_TAG, uid[0], uid[1], uid[2]]), bytes(uid[3:7])]
    raise ValueError("UIDs of 4 or 7 bytes only")


class MFRC522:
    name = "rc522"

    def __init__(self, spi, cs, rst=None):
        self.spi = spi
        self.cs = cs
        self.rst = rst
        self.cs.value(1)
        self._selected = None  # UID of the tag selected now
        self._active = False  # a tag may be in the ACTIVE state: HLTA it before scanning
        self._one = bytearray(2)

    # ---- register access (datasheet 8.1.2: address byte 1aaaaaa0 read, 0aaaaaa0 write) ------

    def _write(self, reg, value):
        self.cs.value(0)
        self.spi.write(bytes([(reg << 1) & 0x7E, value]))
        self.cs.value(1)

    def _read(self, reg):
        buf = self._one
        self.cs.value(0)
        self.spi.write_readinto(bytes([0x80 | ((reg << 1) & 0x7E), 0]), buf)
        self.cs.value(1)
        return buf[1]

    def _set(self, reg, mask):
        self._write(reg, self._read(reg) | mask)

    def _clear(self, reg, mask):
        self._write(reg, self._read(reg) & ~mask & 0xFF)

    def _write_fifo(self, data):
        self.cs.value(0)
        self.spi.write(bytes([(FIFO_DATA << 1) & 0x7E]) + bytes(data))
        self.cs.value(1)

    def _read_fifo(self, n):
        if n <= 0:
            return b""
        addr = 0x80 | ((FIFO_DATA << 1) & 0x7E)
        tx = bytes([addr] * n + [0])
        rx = bytearray(n + 1)
        self.cs.value(0)
        self.spi.write_readinto(tx, rx)
        self.cs.value(1)
        return bytes(rx[1:])

    # ---- chip setup ---------------------------------------------------------------------

    def version(self):
        return self._read(VERSION)

    def alive(self):
        v = self._read(VERSION)
        return v not in (0x00, 0xFF)

    def init(self):
        """Reset and configure the chip; True when it answers."""
        if self.rst is not None:
            self.rst.value(0)
            sleep_ms(1)
            self.rst.value(1)
            sleep_ms(40)
        self._write(COMMAND, CMD_SOFT_RESET)
        start = ticks_ms()
        while self._read(COMMAND) & POWER_DOWN:
            if ticks_diff(ticks_ms(), start) > 100:
                return False
            sleep_ms(1)
        if not self.alive():
            return False
        self._write(TX_MODE, 0x00)  # 106 kBd, no TX CRC (we add CRC_A ourselves)
        self._write(RX_MODE, 0x00)
        self._write(T_MODE, 0x80)  # TAuto: the timer starts when a transmission ends
        self._write(T_PRESCALER, 0xA9)
        self._timeout(25)
        self._write(TX_ASK, 0x40)  # Force100ASK
        self._write(MODE, 0x3D)  # CRC preset 6363h (ISO 14443-3 A)
        self._write(RF_CFG, RX_GAIN_38DB)
        self._set(TX_CONTROL, 0x03)  # antenna on: Tx1RFEn, Tx2RFEn
        self._selected = None
        self._active = False
        return True

    def _timeout(self, ms):
        ticks = min(0xFFFF, ms * TICKS_PER_MS)
        self._write(T_RELOAD_H, ticks >> 8)
        self._write(T_RELOAD_L, ticks & 0xFF)

    # ---- one exchange with the tag ------------------------------------------------------

    def transceive(self, data, tx_last_bits=0, rx_align=0, timeout_ms=3):
        """Send ``data``; return ``(received, valid_bits_in_last_byte, collision)``, or None when
        nothing came back in time. ``collision`` is 0, or the 1-based position of the first
        colliding bit (-1 when the chip could not place it). Raises OSError (chip trouble)."""
        self._write(COMMAND, CMD_IDLE)
        self._write(COM_IRQ, 0x7F)  # clear every interrupt request bit
        self._write(FIFO_LEVEL, 0x80)  # flush the FIFO
        self._write_fifo(data)
        self._timeout(timeout_ms)
        self._write(BIT_FRAMING, ((rx_align & 7) << 4) | (tx_last_bits & 7))
        self._write(COMMAND, CMD_TRANSCEIVE)
        self._set(BIT_FRAMING, 0x80)  # StartSend
        start = ticks_ms()
        while True:
            irq = self._read(COM_IRQ)
            if irq == 0xFF:
                raise OSError("no-answer")
            if irq & (IRQ_RX | IRQ_IDLE):
                break
            if irq & IRQ_TIMER:
                self._clear(BIT_FRAMING, 0x80)
                return None
            if ticks_diff(ticks_ms(), start) > timeout_ms + 30:
                raise OSError("no-answer")
        self._clear(BIT_FRAMING, 0x80)
        error = self._read(ERROR)
        collision = 0
        if error & ERR_COLL:
            coll = self._read(COLL)
            collision = -1 if coll & COLL_POS_NOT_VALID else (coll & 0x1F) or 32
        elif error & (ERR_BUFFER_OVFL | ERR_PARITY | ERR_PROTOCOL):
            return None
        n = self._read(FIFO_LEVEL) & 0x7F
        last_bits = self._read(CONTROL) & 0x07
        return (self._read_fifo(n), last_bits, collision)

    # ---- ISO 14443-3 A ------------------------------------------------------------------

    def request(self, wake=False):
        """REQA (or WUPA): the ATQA (2 bytes) or None when no tag answers."""
        self._clear(COLL, COLL_VALUES_AFTER)
        got = self.transceive(bytes([WUPA if wake else REQA]), tx_last_bits=7, timeout_ms=2)
        if got is None:
            return None
        if got[2]:
            return b"\x44\x00"  # several tags answered: there is someone to select
        if len(got[0]) != 2:
            return None
        return got[0]

    def halt(self):
        self.transceive(with_crc(bytes([HLTA, 0])), timeout_ms=1)
        self._selected = None
        self._active = False

    def _select_level(self, sel, block):
        """SELECT one cascade level with a known UID CLn block; returns SAK or None."""
        frame = bytes([sel, 0x70]) + bytes(block) + bytes([bcc(block)])
        got = self.transceive(with_crc(frame), timeout_ms=2)
        if got is None or got[2] or len(got[0]) != 3 or not crc_ok(got[0]):
            return None
        return got[0][0]

    def _anticollision_level(self, sel):
        """Resolve one cascade level among the tags answering; returns the 5 bytes (UID CLn
        and BCC) of one tag, or None."""
        cl = bytearray(5)
        known = 0  # bits of ``cl`` already known
        for _ in range(33):
            nbytes = known // 8
            nbits = known % 8
            sent = nbytes + (1 if nbits else 0)
            frame = bytes([sel, ((2 + nbytes) << 4) | nbits]) + bytes(cl[:sent])
            got = self.transceive(frame, tx_last_bits=nbits, rx_align=nbits, timeout_ms=2)
            if got is None or not got[0]:
                return None
            merge_bits(cl, known, got[0])
            collision = got[2]
            if collision:
                # Bits before the collision are good; take the branch where the colliding
                # bit is 1 and ask again with one more known bit.
                if collision <= known or collision > 32:
                    return None
                set_bit(cl, collision - 1)
                known = collision
                continue
            if nbytes + len(got[0]) < 5 or bcc(cl) != cl[4]:
                return None
            return bytes(cl)
        return None

    def select_any(self):
        """Anticollision and select over the cascade levels; the selected tag's UID or None."""
        uid = b""
        for sel in SEL_CL:
            cl = self._anticollision_level(sel)
            if cl is None:
                return None
            sak = self._select_level(sel, cl[:4])
            if sak is None:
                return None
            if sak & 0x04:  # UID not complete: next cascade level
                if cl[0] != CASCADE_TAG:
                    return None
                uid += cl[1:4]
                continue
            uid += cl[0:4]
            self._selected = uid
            self._active = True
            return uid
        return None

    def select(self, uid):
        """Wake every tag and select the one with ``uid``; True on success."""
        uid = bytes(uid)
        if self._selected == uid:
            return True
        if self._active:
            self.halt()
        self._selected = None
        if self.request(wake=True) is None:
            return False
        levels = cascade_levels(uid)
        for i, block in enumerate(levels):
            sak = self._select_level(SEL_CL[i], block)
            if sak is None:
                return False
            last = i == len(levels) - 1
            if bool(sak & 0x04) == last:
                return False
        self._selected = uid
        self._active = True
        return True

    # ---- what the reader loop uses ------------------------------------------------------

    def scan(self):
        """Every tag in the field (at most MAX_TAGS), each left halted. Raises OSError when
        the chip does not answer."""
        if not self.alive():
            raise OSError("no-answer")
        if self._active:
            self.halt()
        found = []
        wake = True
        for _ in range(MAX_TAGS):
            if self.request(wake) is None:
                break
            uid = self.select_any()
            wake = False
            if uid is None:
                break
            if uid not in found:
                found.append(uid)
            self.halt()
        return found

    def read(self, uid, page):
        """16 bytes from ``page`` on, or None."""
        if not self.select(uid):
            return None
        got = self.transceive(with_crc(bytes([NTAG_READ, page & 0xFF])), timeout_ms=5)
        if got is None or got[2] or len(got[0]) != 18 or not crc_ok(got[0]):
            self._selected = None
            return None
        return got[0][:16]

    def write(self, uid, page, data):
        """Write 4 bytes to ``page``; True when the tag acknowledged."""
        if not self.select(uid):
            return False
        frame = with_crc(bytes([NTAG_WRITE, page & 0xFF]) + bytes(data[0:4]))
        got = self.transceive(frame, timeout_ms=10)
        if got is None or got[2] or len(got[0]) != 1 or (got[0][0] & 0x0F) != ACK_NIBBLE:
            self._selected = None
            return False
        return True
