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
    lo, hi = slopes
    k = len(q)
    # All three channels at once (rows: 0, the k tones, 255; one column per channel).
    xs = np.concatenate([np.zeros((1, 3)), q, np.full((1, 3), 255.0)])
    ys = np.concatenate([np.zeros((1, 3)), reference, np.full((1, 3), 255.0)])
    xs = np.maximum.accumulate(xs + 1e-3 * np.arange(k + 2)[:, None], axis=0)  # increasing
    dx = np.diff(xs, axis=0)
    slope = np.clip(np.diff(ys, axis=0) / dx, lo, hi)
    top = k  # the brightest reference tone: the anchor
    knots = np.empty_like(ys)
    knots[top] = ys[top]
    knots[top + 1] = ys[top] + slope[top] * dx[top]
    for j in range(top - 1, -1, -1):
        knots[j] = knots[j + 1] - slope[j] * dx[j]
    x = np.arange(256, dtype=np.float64)
    curves = np.stack([np.interp(x, xs[:, c], knots[:, c]) for c in range(3)], axis=1)
    return np.clip(curves + 0.5, 0, 255).astype(np.uint8).reshape(1, 256, 3)
