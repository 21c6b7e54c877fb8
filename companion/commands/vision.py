"""`companion vision read|calibrate|watch`. Handlers import their stage lazily."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    vision = sub.add_parser("vision", help="read the board from a photo or a camera")
    vsub = vision.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    vision.set_defaults(func=lambda args: (vision.print_help(), 2)[1])

    read = vsub.add_parser("read", help="read a photo or frame of a Europe board")
    read.add_argument("image", help="image file (JPEG/PNG)")
    read.add_argument("--json", action="store_true", help="print the JSON of the CLI contract")
    read.add_argument(
        "--calibration", help="saved calibration to use instead of locating the board"
    )
    read.set_defaults(func=_read)

    cal = vsub.add_parser("calibrate", help="locate the board in a camera frame and save it")
    cal.add_argument("--source", default="auto", help="camera source (see `vision watch`)")
    cal.add_argument("--image", help="calibrate from an image file instead of a camera")
    cal.add_argument("--corners", help="manual override: x1,y1,x2,y2,x3,y3,x4,y4 (TL TR BR BL)")
    cal.add_argument("--output", help="where to save the calibration (default: state dir)")
    cal.add_argument("--overlay", help="where to write the overlay picture (PNG)")
    cal.set_defaults(func=_calibrate)

    watch = vsub.add_parser("watch", help="print claims seen by a camera or in a video")
    watch.add_argument(
        "--source",
        default="auto",
        help="picamera2 | v4l2:/dev/video0 | file:PATH (video or image glob) | sim[:SEED]",
    )
    watch.add_argument("--calibration", help="saved calibration file")
    watch.add_argument("--json", action="store_true", help="one JSON object per line")
    watch.add_argument("--frames", type=int, help="stop after N frames")
    watch.add_argument("--reader", default="auto", help="auto | vision | oracle (sim only)")
    watch.add_argument("--fps", type=float, help="frame rate of image sequences and sim")
    watch.set_defaults(func=_watch)


def _read(args: argparse.Namespace) -> int:
    from companion.commands import vision_photo as commands

    return commands.read_main(args)


def _calibrate(args: argparse.Namespace) -> int:
    from companion.commands import vision_photo as commands

    return commands.calibrate_main(args)


def _watch(args: argparse.Namespace) -> int:
    from companion.commands import vision_watch as watch

    return watch.watch_main(args)
