"""The tone map: a picture's board paper sent onto reference tones (white balance, exposure,
contrast and the camera's tone curve corrected together, on the board's own paper)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
U8Array = npt.NDArray[np.uint8]


def white_balance_gains(board_samples: U8Array, target: float, percentile: float) -> FloatArray:
    """Per-channel gains that bring the board's bright paper to ``target`` (used by the tuning
    tool to put the reference photos on one footing before measuring the tone reference)."""
    px = board_samples.reshape(-1, 3).astype(np.float64)
    white = np.percentile(px, percentile, axis=0)
    return np.asarray(target / np.maximum(white, 1.0), dtype=np.float64)


def tone_table(
    paper: U8Array,
    percentiles: list[float],
    reference: FloatArray,
    slopes: tuple[float, float] = (0.4, 2.5),
) -> npt.NDArray[np.uint8]:
    """(1, 256, 3) lookup table that maps this picture's board paper onto the reference tones.

    ``paper`` (m, 3) BGR: points of the board off every track and city (pale paper, sea,
    land: the same printed picture on every board, whatever is played on it). Per channel, the
    paper's ``percentiles`` are sent to ``reference`` (len(percentiles), 3), piecewise linearly
    between them and towards 0 and 255 beyond: white balance, exposure, contrast and the
    camera's tone curve corrected together, on the board's own paper. Every piece's slope is
    kept within ``slopes`` (a paper that does not spread like the board's, a picture burnt
    out, must not be stretched into nonsense); the curve is anchored at the brightest
    reference tone (the paper's white) and built outwards from it."""
    px = paper.reshape(-1, 3).astype(np.float64)
    q = np.percentile(px, percentiles, axis=0)  # (k, 3)
    x = np.arange(256, dtype=np.float64)
    lut = np.empty((1, 256, 3), dtype=np.uint8)
    lo, hi = slopes
    for c in range(3):
        xs = np.r_[0.0, q[:, c], 255.0]
        ys = np.r_[0.0, reference[:, c], 255.0]
        xs = np.maximum.accumulate(xs + 1e-3 * np.arange(len(xs)))  # strictly increasing
        dx = np.diff(xs)
        slope = np.clip(np.diff(ys) / dx, lo, hi)
        top = len(xs) - 2  # the brightest reference tone: the anchor
        knots = np.empty_like(ys)
        knots[top] = ys[top]
        knots[top + 1] = ys[top] + slope[top] * dx[top]
        for k in range(top - 1, -1, -1):
            knots[k] = knots[k + 1] - slope[k] * dx[k]
        lut[0, :, c] = np.clip(np.interp(x, xs, knots) + 0.5, 0, 255).astype(np.uint8)
    return lut
