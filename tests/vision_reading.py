"""Reading a rendered board that fills its picture, as the vision tests do."""

from __future__ import annotations

import numpy as np

from companion.vision.decide.context import ReadContext, take_samples
from companion.vision.locate.locate import BoardLocation
from companion.vision.reading.read import read_samples
from companion.vision.types import BoardReading

# adapt.print_estimate's settings and feature scale as the print-estimate tests give them
PRINT_CFG: dict[str, float] = {
    "radius": 9.0,
    "copy_radius": 16.0,
    "min_share": 0.3,
    "min_spaces": 4.0,
    "high_share": 0.6,
    "prior_weight": 8.0,
}
PRINT_SCALE = np.array([6.0, 4.0, 5.0, 3.0])


def read_whole(image: np.ndarray, ctx: ReadContext) -> BoardReading:
    """Read a picture that is the board from edge to edge, sampled and read as a located photo
    is, without locating it."""
    h, w = image.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    loc = BoardLocation.from_corners(corners, (w, h))
    reading, _ = read_samples(take_samples(image, loc.homography, ctx), ctx)
    return reading
