"""The same float operations in the same order as a plain numpy expression, laid out so that
numpy runs a few long loops instead of many short ones (an operation broadcast across a last
axis of two or three elements runs one short loop per row). Each gives the very numbers of the
expression it stands for (``tests/vision/test_fast_equal.py``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def pair_sq_dist(z: FloatArray) -> FloatArray:
    """``((z[:, None, :] - z[None, :, :]) ** 2).sum(axis=2)`` for points ``z`` (n, k): the
    squared distance of every pair, its k terms added left to right (as numpy's sum over a
    last axis of fewer than eight does)."""
    if not 0 < z.shape[1] < 8:  # numpy sums eight or more in blocks: the expression itself
        return np.asarray(((z[:, None, :] - z[None, :, :]) ** 2).sum(axis=2), dtype=np.float64)
    d = np.square(z[:, None, 0] - z[None, :, 0])
    for c in range(1, z.shape[1]):
        d += np.square(z[:, None, c] - z[None, :, c])
    return np.asarray(d, dtype=np.float64)
