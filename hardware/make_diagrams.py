"""Draw the wiring diagrams as SVG: the controls on the Pi's header, the RC522 on the Pico.

    .venv/bin/python hardware/make_diagrams.py [--out hardware]

The pins are not typed in here: the Pi's come from companion.config.DEFAULT_PINS (what the
software uses unless the config file says otherwise) and the Pico's from the constants in
firmware/main.py, so a diagram cannot disagree with the code. Writes wiring-pi.svg and
wiring-pico.svg, and prints the wiring tables as Markdown (they are in hardware/README.md).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from companion.config import DEFAULT_PINS  # noqa: E402

# The 40-pin header of every Pi since the B+: physical pin -> function.
PI_HEADER: dict[int, str] = {
    1: "3V3", 2: "5V", 3: "GPIO2", 4: "5V", 5: "GPIO3", 6: "GND", 7: "GPIO4", 8: "GPIO14",
    9: "GND", 10: "GPIO15", 11: "GPIO17", 12: "GPIO18", 13: "GPIO27", 14: "GND", 15: "GPIO22",
    16: "GPIO23", 17: "3V3", 18: "GPIO24", 19: "GPIO10", 20: "GND", 21: "GPIO9", 22: "GPIO25",
    23: "GPIO11", 24: "GPIO8", 25: "GND", 26: "GPIO7", 27: "GPIO0", 28: "GPIO1", 29: "GPIO5",
    30: "GND", 31: "GPIO6", 32: "GPIO12", 33: "GPIO13", 34: "GND", 35: "GPIO19", 36: "GPIO16",
    37: "GPIO26", 38: "GPIO20", 39: "GND", 40: "GPIO21",
}  # fmt: skip

# The Pico's 40 pins: physical pin -> function (GPn = RP2040 GPIO n).
PICO_PINS: dict[int, str] = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND", 9: "GP6",
    10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11", 16: "GP12", 17: "GP13",
    18: "GND", 19: "GP14", 20: "GP15", 21: "GP16", 22: "GP17", 23: "GND", 24: "GP18",
    25: "GP19", 26: "GP20", 27: "GP21", 28: "GND", 29: "GP22", 30: "RUN", 31: "GP26",
    32: "GP27", 33: "GND", 34: "GP28", 35: "ADC_VREF", 36: "3V3(OUT)", 37: "3V3_EN",
    38: "GND", 39: "VSYS", 40: "VBUS",
}  # fmt: skip


@dataclass(frozen=True)
class Wire:
    part: str  # the component
    terminal: str  # its pin
    pin: int  # physical header pin
    signal: str  # header function
    via: str = ""  # what sits in between
    color: str = "#444444"


def pi_physical(bcm: int) -> int:
    for physical, name in PI_HEADER.items():
        if name == f"GPIO{bcm}":
            return physical
    raise ValueError(f"GPIO{bcm} is not on the header")


def pico_physical(gp: int) -> int:
    for physical, name in PICO_PINS.items():
        if name == f"GP{gp}":
            return physical
    raise ValueError(f"GP{gp} is not a Pico pin")


def rgb_led(
    wire: Callable[[str, str, str, str, str], Wire], part: str, keys: tuple[str, str, str], gnd: int
) -> list[Wire]:
    """A common-cathode RGB LED: the red, green and blue anodes each through 220 Ω from the pin
    ``wire`` makes of its key, the cathode to the GND pin ``gnd``."""
    anodes = zip(("red", "green", "blue"), keys, ("#c53030", "#38a169", "#3182ce"), strict=True)
    return [
        *(wire(part, f"{name} anode", key, "220 Ω", color) for name, key, color in anodes),
        Wire(part, "common cathode", gnd, "GND", "", "#000000"),
    ]


def pi_wires(pins: dict[str, int] | None = None) -> list[Wire]:
    p = dict(DEFAULT_PINS if pins is None else pins)

    def gpio(part: str, terminal: str, key: str, via: str, color: str) -> Wire:
        return Wire(part, terminal, pi_physical(p[key]), f"GPIO{p[key]}", via, color)

    return [
        gpio("End turn button", "leg 1", "end_turn", "", "#2b6cb0"),
        Wire("End turn button", "leg 2", 9, "GND", "", "#000000"),
        gpio("Confirm button", "leg 1", "confirm", "", "#2f855a"),
        Wire("Confirm button", "leg 2", 14, "GND", "", "#000000"),
        gpio("Undo button", "leg 1", "undo", "", "#b7791f"),
        Wire("Undo button", "leg 2", 20, "GND", "", "#000000"),
        *rgb_led(gpio, "RGB LED", ("led_red", "led_green", "led_blue"), 34),
        gpio("Buzzer driver", "NPN base", "buzzer", "1 kΩ", "#6b46c1"),
        Wire("Buzzer driver", "NPN emitter", 39, "GND", "", "#000000"),
        Wire("Buzzer driver", "NPN collector", 0, "—", "to buzzer −", "#a0aec0"),
        Wire("Buzzer", "+", 2, "5V", "", "#e53e3e"),
        Wire("Buzzer", "−", 0, "—", "to NPN collector", "#a0aec0"),
    ]


def pico_constants(main_py: Path) -> dict[str, int]:
    """PIN_* constants of firmware/main.py (read as text: it imports MicroPython's machine)."""
    text = main_py.read_text(encoding="utf-8")
    found: dict[str, int] = {}
    for names, values in re.findall(r"^((?:PIN_\w+,\s*)*PIN_\w+)\s*=\s*([\d,\s]+)$", text, re.M):
        keys = [n.strip() for n in names.split(",")]
        nums = [int(v) for v in values.split(",") if v.strip()]
        if len(keys) != len(nums):
            raise ValueError(f"cannot read {names} = {values} in {main_py}")
        found.update(zip(keys, nums, strict=True))
    return found


def pico_wires(main_py: Path = REPO / "firmware" / "main.py") -> list[Wire]:
    c = pico_constants(main_py)

    def gp(part: str, terminal: str, key: str, via: str, color: str) -> Wire:
        return Wire(part, terminal, pico_physical(c[key]), f"GP{c[key]}", via, color)

    return [
        gp("RC522", "SDA (CS)", "PIN_CS", "", "#dd6b20"),
        gp("RC522", "SCK", "PIN_SCK", "", "#d69e2e"),
        gp("RC522", "MOSI", "PIN_MOSI", "", "#38a169"),
        gp("RC522", "MISO", "PIN_MISO", "", "#3182ce"),
        Wire("RC522", "IRQ", 0, "—", "not connected", "#a0aec0"),
        Wire("RC522", "GND", 23, "GND", "", "#000000"),
        gp("RC522", "RST", "PIN_RST", "", "#805ad5"),
        Wire("RC522", "3.3V", 36, "3V3(OUT)", "never 5 V", "#e53e3e"),
        *rgb_led(gp, "Reader LED", ("PIN_LED_R", "PIN_LED_G", "PIN_LED_B"), 18),
        gp("Reader buzzer", "+ (3.3 V active)", "PIN_BUZZER", "", "#6b46c1"),
        Wire("Reader buzzer", "−", 13, "GND", "", "#000000"),
    ]


def markdown_table(wires: list[Wire], header_name: str) -> str:
    rows = [
        f"| part | terminal | {header_name} pin | signal | in between |",
        "|---|---|---|---|---|",
    ]
    for w in wires:
        pin = str(w.pin) if w.pin else "—"
        rows.append(f"| {w.part} | {w.terminal} | {pin} | {w.signal} | {w.via} |")
    return "\n".join(rows)


def pi_layout(n: int) -> tuple[int, int]:
    """(column, row) of a Pi header pin: odd pins left, even right, two per row."""
    return (n - 1) % 2, (n - 1) // 2


def pico_layout(n: int) -> tuple[int, int]:
    """(column, row) of a Pico pin seen from above, USB at the top: 1-20 down the left side,
    21-40 up the right side (40 opposite 1)."""
    return (0, n - 1) if n <= 20 else (1, 40 - n)


def header_svg(
    title: str,
    header: dict[int, str],
    wires: list[Wire],
    board: str,
    note: str,
    layout: Callable[[int], tuple[int, int]] = pi_layout,
) -> str:
    """Two columns of header pins (odd left, even right), parts on the right, one line per wire.

    Wires from the left column run down the channel between the columns (upper pins further
    right, so they never cross), under the header and up a lane of their own to their part.
    """
    row_h, top, left = 22, 90, 40
    col_x = (left + 190, left + 250)  # pin centres of the two columns
    bottom = top + (len(header) // 2) * row_h - 10
    parts = list(dict.fromkeys(w.part for w in wires))
    part_x = 640
    terminals: dict[tuple[str, str], float] = {}
    y = top
    part_boxes = []
    for part in parts:
        terms = [w.terminal for w in wires if w.part == part]
        h = 20 + 18 * len(terms)
        part_boxes.append((part, y, h, terms))
        for i, t in enumerate(terms):
            terminals[(part, t)] = y + 24 + 18 * i
        y += h + 14
    drawn = [w for w in wires if w.pin]
    height = int(max(bottom + 30 + 6 * len(drawn), y + 20))
    width = 960
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
        'font-size="12">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="28" font-size="18" font-weight="bold">{escape(title)}</text>',
        f'<text x="{left}" y="48" fill="#555555">{escape(note)}</text>',
        f'<rect x="{col_x[0] - 28}" y="{top - 16}" width="{col_x[1] - col_x[0] + 56}" '
        f'height="{bottom - top + 22}" rx="6" fill="#1a202c"/>',
        f'<text x="{(col_x[0] + col_x[1]) / 2}" y="{top - 24}" text-anchor="middle" '
        f'fill="#555555">{escape(board)}</text>',
    ]
    used = {w.pin for w in drawn}
    pin_xy: dict[int, tuple[float, float]] = {}
    for n, name in header.items():
        col, row = layout(n)
        cx = col_x[col]
        cy = top + row * row_h
        pin_xy[n] = (cx, cy)
        fill = "#f6e05e" if n in used else "#718096"
        out.append(f'<circle cx="{cx}" cy="{cy}" r="6" fill="{fill}"/>')
        weight = ' font-weight="bold"' if n in used else ""
        if col == 0:
            out.append(
                f'<text x="{cx - 12}" y="{cy + 3}" text-anchor="end" font-size="9" '
                f'fill="#cbd5e0">{n}</text>'
            )
            out.append(
                f'<text x="{cx - 34}" y="{cy + 4}" text-anchor="end"{weight}>{escape(name)}</text>'
            )
        else:
            out.append(f'<text x="{cx + 12}" y="{cy + 3}" font-size="9" fill="#cbd5e0">{n}</text>')
            label_y = cy - 4 if n in used else cy + 4  # sits on top of its wire
            out.append(f'<text x="{cx + 34}" y="{label_y}"{weight}>{escape(name)}</text>')
    for part, y0, h, terms in part_boxes:
        out.append(
            f'<rect x="{part_x}" y="{y0}" width="290" height="{h}" rx="6" fill="#edf2f7" '
            'stroke="#4a5568"/>'
        )
        out.append(
            f'<text x="{part_x + 10}" y="{y0 + 15}" font-weight="bold">{escape(part)}</text>'
        )
        for t in terms:
            ty = terminals[(part, t)]
            out.append(f'<circle cx="{part_x}" cy="{ty}" r="4" fill="#4a5568"/>')
            out.append(f'<text x="{part_x + 12}" y="{ty + 4}">{escape(t)}</text>')
    odd = sorted((w for w in drawn if layout(w.pin)[0] == 0), key=lambda w: layout(w.pin)[1])
    channel = {id(w): len(odd) - 1 - k for k, w in enumerate(odd)}  # upper pins further right
    for i, w in enumerate(drawn):
        px, py = pin_xy[w.pin]
        tx, ty = part_x, terminals[(w.part, w.terminal)]
        lane = col_x[1] + 120 + i * 12  # one vertical lane per wire keeps them apart
        if layout(w.pin)[0] == 1:
            route = f"M{px + 6},{py} H{lane} V{ty} H{tx}"
        else:
            k = channel[id(w)]
            x = px + 12 + k * 5
            under = bottom + 16 + k * 6
            route = f"M{px + 6},{py} H{x} V{under} H{lane} V{ty} H{tx}"
        out.append(
            f'<path d="{route}" fill="none" stroke="{w.color}" stroke-width="2.2" '
            'stroke-linejoin="round"/>'
        )
        if w.via:
            out.append(
                f'<text x="{lane + 5}" y="{ty - 5}" font-size="10" fill="#2d3748">'
                f"{escape(w.via)}</text>"
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_all(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    pi = header_svg(
        "Controls on the Raspberry Pi header (BCM numbers from companion.config)",
        PI_HEADER,
        pi_wires(),
        "Pi 4 / Pi 5 header",
        "Buttons to GND (internal pull-ups); LED common cathode; buzzer: 5 V active buzzer "
        "switched by an NPN (BC337/2N2222), 1N4148 across it.",
    )
    pico = header_svg(
        "Card reader: RC522 on the Raspberry Pi Pico (pins from firmware/main.py)",
        PICO_PINS,
        pico_wires(),
        "Pico from above (USB at the top)",
        "SPI0 at 4 MHz; the RC522 runs on 3.3 V only; the Pico plugs into the Pi by USB.",
        layout=pico_layout,
    )
    paths = []
    for name, text in (("wiring-pi.svg", pi), ("wiring-pico.svg", pico)):
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description="draw the wiring diagrams (SVG)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    for path in write_all(args.out):
        print(f"wrote {path}")
    print()
    print("Controls -> Pi header\n")
    print(markdown_table(pi_wires(), "Pi header"))
    print("\nRC522 -> Pico\n")
    print(markdown_table(pico_wires(), "Pico"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
