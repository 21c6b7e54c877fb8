"""Pico (RP2040) card reader: RC522 over SPI0, protocol on the USB serial port.

Thin on purpose: the behaviour lives in readerloop.py (tested on the host with a fake chip),
the protocol in ttrproto.py, NDEF in ndef.py, debouncing in debounce.py, the chip in mfrc522.py.
Wiring: see README.md in this folder.
"""

import select
import sys
from time import sleep_ms, ticks_add, ticks_diff, ticks_ms

import mfrc522
import readerloop
from machine import SPI, Pin

POLL_MS = 20
SPI_HZ = 4_000_000
PIN_SCK, PIN_MOSI, PIN_MISO, PIN_CS, PIN_RST = 18, 19, 16, 17, 20
PIN_LED_R, PIN_LED_G, PIN_LED_B, PIN_BUZZER = 13, 14, 15, 12
COLOURS = {
    "off": (0, 0, 0),
    "green": (0, 1, 0),
    "red": (1, 0, 0),
    "amber": (1, 1, 0),
    "blue": (0, 0, 1),
}


class Ui:
    """RGB LED (common cathode) and an active buzzer; beep() never blocks."""

    def __init__(self):
        self.rgb = [Pin(p, Pin.OUT, value=0) for p in (PIN_LED_R, PIN_LED_G, PIN_LED_B)]
        self.buzzer = Pin(PIN_BUZZER, Pin.OUT, value=0)
        self.beep_until = None

    def led(self, colour):
        levels = COLOURS.get(colour, (0, 0, 0))
        for i in range(3):
            self.rgb[i].value(levels[i])

    def beep(self, ms):
        self.buzzer.value(1)
        self.beep_until = ticks_add(ticks_ms(), ms)

    def tick(self, now):
        if self.beep_until is not None and ticks_diff(now, self.beep_until) >= 0:
            self.buzzer.value(0)
            self.beep_until = None


def out(line):
    sys.stdout.write(line)


def main():
    spi = SPI(
        0,
        baudrate=SPI_HZ,
        polarity=0,
        phase=0,
        sck=Pin(PIN_SCK),
        mosi=Pin(PIN_MOSI),
        miso=Pin(PIN_MISO),
    )
    chip = mfrc522.MFRC522(spi, Pin(PIN_CS, Pin.OUT, value=1), Pin(PIN_RST, Pin.OUT, value=1))
    ui = Ui()
    loop = readerloop.ReaderLoop(chip, out, ui)
    loop.start()
    stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    waiter = select.poll()
    waiter.register(sys.stdin, select.POLLIN)
    next_poll = ticks_ms()
    while True:
        while waiter.poll(0):
            data = stdin.read(1)
            if not data:
                break
            loop.feed(data.encode() if isinstance(data, str) else data)
        now = ticks_ms()
        ui.tick(now)
        if ticks_diff(now, next_poll) >= 0:
            loop.poll()
            next_poll = ticks_add(now, POLL_MS)
        sleep_ms(1)


main()
