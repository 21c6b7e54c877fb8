"""Printable aids as true-size SVG (print at 100 %, "actual size", no fit-to-page).

    .venv/bin/python hardware/make_printables.py [--out hardware] [--card 56x87] [--sticker 25]

- sticker-guide.svg: an A4 sheet of card outlines with the NFC sticker's circle, to cut into a
  jig: lay the card in the window, stick the NTAG213 in the circle. The same spot on every card
  keeps the sticker over the reader's antenna and under the card's sleeve.
- reader-target.svg: the card outline to glue on the reader's lid, centred on the RC522 antenna.
- corner-markers.svg: four ArUco markers (4x4_50, ids 0-3), optional. The vision code finds the
  board by its own outline and does not need them; they are here for tables where the board edge
  is hard to see (dark board on a dark table). Needs cv2.aruco (in opencv-python-headless >= 4.7).

Every sheet carries a 50 mm check bar: measure it after printing.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape

A4 = (210.0, 297.0)
CARD = (56.0, 87.0)  # Ticket to Ride: Europe train and ticket cards, mm (measure yours)
STICKER = 25.0  # NTAG213 round sticker diameter, mm
RC522_ANTENNA = (40.0, 45.0)  # the printed antenna loop of the common blue RC522 module, mm


def _svg_open(size: tuple[float, float], title: str) -> list[str]:
    w, h = size
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
        f'viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{w}" height="{h}" fill="#ffffff"/>',
    ]


def _lines(x: float, y: float, text: str, size: float = 3.6, width: int = 95) -> list[str]:
    """A paragraph as SVG text lines (SVG does not wrap)."""
    return [
        f'<text x="{x}" y="{y + i * size * 1.35:.2f}" font-size="{size}">{escape(line)}</text>'
        for i, line in enumerate(textwrap.wrap(text, width))
    ]


def _check_bar(x: float, y: float) -> list[str]:
    return [
        f'<rect x="{x}" y="{y}" width="50" height="3" fill="#000000"/>',
        f'<text x="{x}" y="{y + 7.5}" font-size="3.5">this bar must measure 50 mm</text>',
    ]


def _crop_marks(x: float, y: float, w: float, h: float, arm: float = 4.0) -> list[str]:
    out = []
    for cx, cy, dx, dy in (
        (x, y, -1, -1),
        (x + w, y, 1, -1),
        (x, y + h, -1, 1),
        (x + w, y + h, 1, 1),
    ):
        out.append(
            f'<path d="M{cx + dx * 1},{cy} h{dx * arm} M{cx},{cy + dy * 1} v{dy * arm}" '
            'stroke="#000000" stroke-width="0.2" fill="none"/>'
        )
    return out


def sticker_guide(card: tuple[float, float] = CARD, sticker: float = STICKER) -> str:
    cw, ch = card
    cols, rows = 3, 2
    gap = 6.0
    left = (A4[0] - cols * cw - (cols - 1) * gap) / 2
    top = 46.0
    out = _svg_open(A4, "NFC sticker placement guide")
    out.append(
        '<text x="15" y="14" font-size="6" font-weight="bold">NFC sticker placement guide</text>'
    )
    out += _lines(
        15,
        21,
        f"Card {cw:g} x {ch:g} mm, sticker Ø {sticker:g} mm on the card's back, centred. Print on "
        "card stock, cut one window out along the outline, lay a card in it face down and stick "
        "the sticker in the circle. Every card the same way: the sticker then sits over the "
        "reader's antenna, and a sleeve covers it.",
    )
    for r in range(rows):
        for c in range(cols):
            x = left + c * (cw + gap)
            y = top + r * (ch + gap)
            out.append(
                f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" rx="3" fill="none" '
                'stroke="#000000" stroke-width="0.3"/>'
            )
            out += _crop_marks(x, y, cw, ch)
            cx, cy = x + cw / 2, y + ch / 2
            out.append(
                f'<circle cx="{cx}" cy="{cy}" r="{sticker / 2}" fill="none" stroke="#c53030" '
                'stroke-width="0.35" stroke-dasharray="1.5 1"/>'
            )
            out.append(
                f'<path d="M{cx - 3},{cy} h6 M{cx},{cy - 3} v6" stroke="#c53030" '
                'stroke-width="0.25"/>'
            )
            out.append(
                f'<text x="{cx}" y="{y + ch - 4}" font-size="3" text-anchor="middle">'
                "back of the card</text>"
            )
    out += _check_bar(15, A4[1] - 18)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def reader_target(
    card: tuple[float, float] = CARD, antenna: tuple[float, float] = RC522_ANTENNA
) -> str:
    cw, ch = card
    size = (cw + 40, ch + 60)
    x, y = 20.0, 30.0
    out = _svg_open(size, "Card reader tap target")
    out += _lines(6, 16, "Glue on the reader lid, the dashed box over the RC522's antenna.", 3, 40)
    out += [
        '<text x="6" y="10" font-size="5" font-weight="bold">Tap cards here</text>',
        f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" rx="3" fill="#f7fafc" '
        'stroke="#000000" stroke-width="0.4"/>',
        f'<rect x="{x + (cw - antenna[0]) / 2}" y="{y + (ch - antenna[1]) / 2}" '
        f'width="{antenna[0]}" height="{antenna[1]}" fill="none" stroke="#3182ce" '
        'stroke-width="0.3" stroke-dasharray="2 1"/>',
        f'<circle cx="{x + cw / 2}" cy="{y + ch / 2}" r="{STICKER / 2}" fill="none" '
        'stroke="#c53030" stroke-width="0.3"/>',
    ]
    out += _crop_marks(x, y, cw, ch)
    out += _check_bar(6, size[1] - 14)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def aruco_bits(marker_id: int) -> list[list[int]]:
    """The 6x6 cell pattern (border included, 1 = black) of a 4x4_50 ArUco marker."""
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    image = cv2.aruco.generateImageMarker(dictionary, marker_id, 60)  # 10 px per cell
    return [[1 if image[r * 10 + 5, c * 10 + 5] < 128 else 0 for c in range(6)] for r in range(6)]


def corner_markers(side: float = 30.0) -> str:
    out = _svg_open(A4, "Board corner markers (optional)")
    out.append(
        '<text x="15" y="14" font-size="6" font-weight="bold">Board corner markers '
        "(optional)</text>"
    )
    out += _lines(
        15,
        21,
        f"ArUco 4x4_50, {side:g} mm. Cut out with the white margin; put id 0 at the board's "
        "top-left corner, then 1 top-right, 2 bottom-right, 3 bottom-left, just outside the "
        "board. The vision code does not need them: it finds the board by its outline.",
    )
    cell = side / 6
    slots = [(30.0, 40.0), (120.0, 40.0), (120.0, 130.0), (30.0, 130.0)]
    for marker_id, (x, y) in enumerate(slots):
        bits = aruco_bits(marker_id)
        out.append(
            f'<rect x="{x - cell}" y="{y - cell}" width="{side + 2 * cell}" '
            f'height="{side + 2 * cell}" fill="none" stroke="#a0aec0" stroke-width="0.2"/>'
        )
        for r, row in enumerate(bits):
            for c, black in enumerate(row):
                if black:
                    out.append(
                        f'<rect x="{x + c * cell:.3f}" y="{y + r * cell:.3f}" '
                        f'width="{cell + 0.02:.3f}" height="{cell + 0.02:.3f}" fill="#000000"/>'
                    )
        out.append(
            f'<text x="{x + side / 2}" y="{y + side + cell + 5}" font-size="4" '
            f'text-anchor="middle">id {marker_id}</text>'
        )
    out += _check_bar(15, A4[1] - 18)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def parse_size(text: str) -> tuple[float, float]:
    parts = text.lower().split("x")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in mm, got {text!r}")
    try:
        w, h = float(parts[0]), float(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in mm, got {text!r}") from None
    if not (20 <= w <= 120 and 20 <= h <= 150):
        raise argparse.ArgumentTypeError(f"a card of {w:g} x {h:g} mm is not plausible")
    return (w, h)


def write_all(
    out_dir: Path, card: tuple[float, float] = CARD, sticker: float = STICKER
) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    sheets = {
        "sticker-guide.svg": sticker_guide(card, sticker),
        "reader-target.svg": reader_target(card),
    }
    try:
        sheets["corner-markers.svg"] = corner_markers()
    except (ImportError, AttributeError):
        print("cv2.aruco is not available: corner-markers.svg not written", file=sys.stderr)
    paths = []
    for name, text in sheets.items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description="write the printable aids (true-size SVG)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--card", type=parse_size, default=CARD, help="card size, e.g. 56x87")
    parser.add_argument("--sticker", type=float, default=STICKER, help="sticker diameter, mm")
    args = parser.parse_args()
    if not 10 <= args.sticker <= min(args.card):
        parser.error(f"a {args.sticker:g} mm sticker does not fit a {args.card[0]:g} mm card")
    for path in write_all(args.out, args.card, args.sticker):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
