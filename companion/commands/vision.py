"""`companion vision read|calibrate|watch`. Handlers import their stage lazily."""

from __future__ import annotations

from typing import Any

from companion.cli import command_group, handler


def register(sub: Any) -> None:
    vsub = command_group(sub, "vision", "read the board from a photo or a camera")

    read = vsub.add_parser("read", help="read a photo or frame of a Europe board")
    read.add_argument("image", help="image file (JPEG/PNG)")
    read.add_argument("--json", action="store_true", help="print the JSON of the CLI contract")
    read.add_argument(
        "--calibration", help="saved calibration to use instead of locating the board"
    )
    read.set_defaults(func=handler("companion.commands.vision_photo", "read_main"))

    cal = vsub.add_parser("calibrate", help="locate the board in a camera frame and save it")
    cal.add_argument("--source", default="auto", help="camera source (see `vision watch`)")
    cal.add_argument("--image", help="calibrate from an image file instead of a camera")
    cal.add_argument("--corners", help="manual override: x1,y1,x2,y2,x3,y3,x4,y4 (TL TR BR BL)")
    cal.add_argument("--output", help="where to save the calibration (default: state dir)")
    cal.add_argument("--overlay", help="where to write the overlay picture (PNG)")
    cal.set_defaults(func=handler("companion.commands.vision_photo", "calibrate_main"))

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
    watch.add_argument(
        "--colours",
        help="the colours that play, e.g. red,blue (the same-colour guess is made only for "
        "them; default: every colour, or the simulated game's)",
    )
    watch.set_defaults(func=handler("companion.commands.vision_watch", "watch_main"))
