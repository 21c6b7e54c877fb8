"""Printable aids as true-size SVG (print at 100 %, "actual size", no fit-to-page).

    .venv/bin/python hardware/make_printables.py [--out hardware] [--card 56x87] [--sticker 25]
    .venv/bin/python hardware/make_printables.py --table-card [--ssid S]
                     [--password | --password-stdin] [--url U]

- sticker-guide.svg: an A4 sheet of card outlines with the NFC sticker's circle, to cut into a
  jig: lay the card in the window, stick the NTAG213 in the circle. The same spot on every card
  keeps the sticker over the reader's antenna and under the card's sleeve.
- reader-target.svg: the card outline to glue on the reader's lid, centred on the RC522 antenna.
- table-card-example.svg: the table card of an example box (``--table-card`` writes this box's):
  the Wi-Fi QR code of the box's own network and the QR code of the page's address, so that
  players join by scanning it. A6, cut along the marks. Its password is never needed on the
  command line, where every user of the machine can read it (``ps``): ``--password`` alone asks
  for it on the terminal without echo (twice), ``--password-stdin`` reads the first line of
  standard input, as ``companion network hotspot`` does; ``--password P`` still works, with a
  warning on stderr.
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


TABLE_CARD = (148.0, 105.0)  # A6 landscape, mm
QR_SIDE = 46.0  # each code with its quiet zone, mm
EXAMPLE_SSID = "companion-AB12"
DEFAULT_URL = "http://10.42.0.1:8080/"  # the box on its own network (NetworkManager's shared mode)
CARD_FONT = "Noto Sans CJK JP, Hiragino Sans, DejaVu Sans, Arial, sans-serif"


def qr_group(text: str, x: float, y: float, side: float, group_id: str) -> list[str]:
    """A QR code (error correction M, never Micro QR, quiet zone of 4 modules) as SVG rectangles,
    one per run of dark modules in a row, ``side`` mm wide with its quiet zone."""
    import segno

    rows = [list(r) for r in segno.make_qr(text, error="m").matrix]
    n = len(rows)
    cell = side / (n + 8)
    out = [
        f'<g id="{group_id}" shape-rendering="crispEdges">',
        f'<rect x="{x:.3f}" y="{y:.3f}" width="{side:.3f}" height="{side:.3f}" fill="#ffffff"/>',
    ]
    for r, row in enumerate(rows):
        c = 0
        while c < n:
            if not row[c]:
                c += 1
                continue
            start = c
            while c < n and row[c]:
                c += 1
            out.append(
                f'<rect x="{x + (start + 4) * cell:.3f}" y="{y + (r + 4) * cell:.3f}" '
                f'width="{(c - start) * cell + 0.01:.3f}" height="{cell + 0.01:.3f}" '
                'fill="#000000"/>'
            )
    out.append("</g>")
    return out


def table_card(ssid: str, password: str | None, url: str) -> str:
    """The table card: join the box's Wi-Fi (its QR code), then open the page (its QR code)."""
    from companion.network import wifi_qr_payload

    cw, ch = TABLE_CARD
    x0, y0 = (A4[0] - cw) / 2, 30.0
    out = _svg_open(A4, "Table card: join the Wi-Fi, open the page")
    out.append(f'<g font-family="{CARD_FONT}">')
    out.append(
        f'<rect x="{x0}" y="{y0}" width="{cw}" height="{ch}" rx="4" fill="#ffffff" '
        'stroke="#a0aec0" stroke-width="0.3"/>'
    )
    out.append(
        f'<text x="{A4[0] / 2}" y="{y0 + 11}" font-size="6" font-weight="bold" '
        'text-anchor="middle">スマホで読み取る · Scan with your phone</text>'
    )
    secret = f"パスワード · Password: {password}" if password else "パスワードなし · No password"
    columns = [
        (
            x0 + 16,
            "wifi-qr",
            wifi_qr_payload(ssid, password),
            ["1. Wi-Fi に接続", "Join the Wi-Fi"],
            [f"Wi-Fi: {ssid}", secret],
        ),
        (x0 + cw - 16 - QR_SIDE, "page-qr", url, ["2. ページを開く", "Open the page"], [url]),
    ]
    for x, gid, text, titles, lines in columns:
        mid = x + QR_SIDE / 2
        for i, title in enumerate(titles):
            out.append(
                f'<text x="{mid:.3f}" y="{y0 + 21 + i * 5}" font-size="4.2" font-weight="bold" '
                f'text-anchor="middle">{escape(title)}</text>'
            )
        out += qr_group(text, x, y0 + 29, QR_SIDE, gid)
        for i, line in enumerate(lines):
            out.append(
                f'<text x="{mid:.3f}" y="{y0 + 29 + QR_SIDE + 6 + i * 5}" font-size="3.6" '
                f'text-anchor="middle">{escape(line)}</text>'
            )
    out.append("</g>")
    out += _crop_marks(x0, y0, cw, ch)
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
        "table-card-example.svg": table_card(EXAMPLE_SSID, None, DEFAULT_URL),
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


def table_card_password(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """The table card's password as ``companion network hotspot`` takes it (asked without echo,
    read from standard input, or ``--password P`` with a warning); a usage error when none
    comes or it is not a WPA2 password."""
    from companion.cli import CommandError
    from companion.commands.network import HOTSPOT_PROMPT, password_of
    from companion.network import password_problem

    try:
        password = password_of(args, HOTSPOT_PROMPT, confirm=True)
    except CommandError as exc:
        parser.error(str(exc))
    problem = None if password is None else password_problem(password)
    if problem:
        parser.error(problem)
    return password


def main(argv: list[str] | None = None) -> int:
    from companion.commands.network import password_options

    parser = argparse.ArgumentParser(description="write the printable aids (true-size SVG)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--card", type=parse_size, default=CARD, help="card size, e.g. 56x87")
    parser.add_argument("--sticker", type=float, default=STICKER, help="sticker diameter, mm")
    parser.add_argument(
        "--table-card", action="store_true", help="write only table-card.svg for this box"
    )
    parser.add_argument("--ssid", help="the box's network (default: this machine's companion-XXXX)")
    password_options(parser, "its WPA2 password (left out: none, an open network)")
    parser.add_argument("--url", default=DEFAULT_URL, help=f"the page (default {DEFAULT_URL})")
    args = parser.parse_args(argv)
    if args.table_card:
        from companion.network import default_ssid, ssid_problem

        ssid = args.ssid if args.ssid is not None else default_ssid()
        problem = ssid_problem(ssid)
        if problem:
            parser.error(problem)
        if not args.url.startswith(("http://", "https://")):
            parser.error("--url must begin with http:// or https://")
        password = table_card_password(parser, args)
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "table-card.svg"
        from companion.durable import write_atomic

        # the card shows the password in words: only its owner reads the file
        body = table_card(ssid, password, args.url).encode("utf-8")
        write_atomic(path, body, mode=0o600 if password else 0o644)
        print(f"wrote {path}")
        return 0
    if not 10 <= args.sticker <= min(args.card):
        parser.error(f"a {args.sticker:g} mm sticker does not fit a {args.card[0]:g} mm card")
    for path in write_all(args.out, args.card, args.sticker):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
