"""The camera arithmetic: how high above the 80 x 53 cm board, and how many pixels a space gets.

    .venv/bin/python hardware/camera_geometry.py [--margin 50] [--lamp-height 1500]

Lens data: Raspberry Pi Camera Module 3 (IMX708, 4608 x 2592): standard lens 66 x 41 degrees
(horizontal x vertical), wide lens 102 x 67 degrees. The train space size comes from the
project's board geometry (companion/data/europe_board.json), scaled to the 800 x 530 mm board.
A rectilinear lens is assumed; the wide lens bends the edges, so spaces at the edge of the frame
get somewhat fewer pixels than computed here.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BOARD_MM = (800.0, 530.0)  # Ticket to Ride: Europe board (80 x 53 cm), long x short side
MIN_PX_ACROSS = 10  # pixels across a space's width the reader wants at least


@dataclass(frozen=True)
class Lens:
    name: str
    hfov: float  # degrees
    vfov: float


LENSES = (Lens("Camera Module 3 (standard)", 66.0, 41.0), Lens("Camera Module 3 Wide", 102.0, 67.0))
RESOLUTIONS = ((1920, 1080), (2304, 1296), (4608, 2592))


def space_size_mm() -> tuple[float, float]:
    """Median train space (length, width) in mm from the board geometry."""
    board = json.loads((REPO / "companion/data/europe_board.json").read_text(encoding="utf-8"))
    lengths = [s["w"] * BOARD_MM[0] for spaces in board["routes"].values() for s in spaces]
    widths = [s["h"] * BOARD_MM[1] for spaces in board["routes"].values() for s in spaces]
    return statistics.median(lengths), statistics.median(widths)


def height_for(lens: Lens, margin: float) -> float:
    """Lens-to-board distance (mm) at which the board plus margin just fits the frame."""
    need_w = BOARD_MM[0] + 2 * margin
    need_h = BOARD_MM[1] + 2 * margin
    return max(
        need_w / 2 / math.tan(math.radians(lens.hfov / 2)),
        need_h / 2 / math.tan(math.radians(lens.vfov / 2)),
    )


def footprint(lens: Lens, height: float) -> tuple[float, float]:
    return (
        2 * height * math.tan(math.radians(lens.hfov / 2)),
        2 * height * math.tan(math.radians(lens.vfov / 2)),
    )


def glare_radius(height: float, lamp_height: float) -> float:
    """Horizontal distance from the board centre within which a lamp shows as a mirror glint.

    The varnish mirrors the lamp: its glint is where the line from the lamp to the camera's
    mirror image (``height`` below the board) crosses the board. That point lies at
    x_lamp * height / (lamp_height + height) from the centre, so every lamp closer than
    half_diagonal * (lamp_height + height) / height can put a glint on the board.
    """
    half_diag = math.hypot(*BOARD_MM) / 2
    return half_diag * (lamp_height + height) / height


def report(margin: float, lamp_height: float) -> str:
    length, width = space_size_mm()
    lines = [
        f"board {BOARD_MM[0]:.0f} x {BOARD_MM[1]:.0f} mm, margin {margin:.0f} mm each side; "
        f"median train space {length:.1f} x {width:.1f} mm (from europe_board.json)",
        "",
        "| lens | height (lens to board) | view at that height | resolution | px/mm "
        "| px along a space | px across | ok? |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for lens in LENSES:
        h = height_for(lens, margin)
        fw, fh = footprint(lens, h)
        for rw, rh in RESOLUTIONS:
            ppmm = min(rw / fw, rh / fh)
            across = width * ppmm
            ok = "yes" if across >= MIN_PX_ACROSS else "no"
            lines.append(
                f"| {lens.name} | {h / 10:.0f} cm | {fw / 10:.0f} x {fh / 10:.0f} cm | "
                f"{rw}x{rh} | {ppmm:.2f} | {length * ppmm:.0f} | {across:.0f} | {ok} |"
            )
    wide = LENSES[1]
    h = height_for(wide, margin)
    lines += [
        "",
        f"glare: with the wide lens at {h / 10:.0f} cm, a lamp {lamp_height / 10:.0f} cm above the "
        f"board glints on the varnish if it is within {glare_radius(h, lamp_height) / 10:.0f} cm "
        "(horizontally) of the board centre.",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="camera height and pixels per train space")
    parser.add_argument("--margin", type=float, default=50.0, help="mm around the board")
    parser.add_argument("--lamp-height", type=float, default=1500.0, help="mm above the board")
    args = parser.parse_args()
    print(report(args.margin, args.lamp_height))
    return 0


if __name__ == "__main__":
    sys.exit(main())
