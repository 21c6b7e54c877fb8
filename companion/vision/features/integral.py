"""Exact sums over rectangles of many small patches stacked one above the other, from the
integral image of the stack (``cv2.integral``): the reader's train windows and printed cores."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.intp]

_CORNERS: dict[tuple[int, int, int], tuple[Any, IndexArray]] = {}


def window_corners(n: int, ny: int, nx: int, windows: Any) -> IndexArray:
    """(4, n * n_windows) flat positions, in the integral image of ``n`` stacked ny x nx
    patches, of the corners of every window (a ``classify.WindowSet``: first rows ``y0``,
    first columns ``x0``, ``ww`` rows by ``wl`` columns) of every patch: bottom right, top
    right, bottom left, top left. Kept for the last windows of each patch shape."""
    key = (n, ny, nx)
    kept = _CORNERS.get(key)
    if kept is None or kept[0] is not windows:
        r0 = (np.arange(n) * ny)[:, None] + np.asarray(windows.y0)[None, :]  # (n, n_windows)
        r1 = r0 + int(windows.ww)
        c0 = np.asarray(windows.x0)[None, :]
        c1 = c0 + int(windows.wl)
        w = nx + 1
        corners = np.stack([r1 * w + c1, r0 * w + c1, r1 * w + c0, r0 * w + c0])
        kept = (windows, np.asarray(corners.reshape(4, -1), dtype=np.intp))
        if len(_CORNERS) > 16:
            _CORNERS.clear()
        _CORNERS[key] = kept
    return kept[1]


def window_sums(integral: npt.NDArray[Any], corners: IndexArray, n: int) -> FloatArray:
    """Sums (n, n_windows, ...) over every window of every patch, from the integral image of
    the stacked patches and the windows' ``corners`` (``window_corners``). Exact: integer
    sums, or integers held exactly in float64, so the order of the differences is free."""
    flat = integral.reshape(-1, *integral.shape[2:])
    t = np.take(flat, corners, axis=0)  # (4, n * n_windows, ...)
    out = t[0] - t[1]
    out -= t[2]
    out += t[3]
    return np.asarray(out.reshape(n, -1, *integral.shape[2:]), dtype=np.float64)


def window_stats(
    s_int: npt.NDArray[Any],
    sq_int: npt.NDArray[Any],
    corners: IndexArray,
    windows: Any,
    lab_l: float,
) -> FloatArray:
    """(n, n_windows, 4): every window's mean float Lab (L, a, b) and L standard deviation,
    from the integral images of the stacked 8-bit Lab patches (``s_int``) and of their
    squared L codes (``sq_int``) and the windows' ``corners`` (``window_corners``); ``lab_l``:
    float L per L code (``classify.LAB_L``). Every channel on its own (an operation across a
    last axis of two or three runs as many short loops)."""
    n = corners.shape[1] // len(windows.x0)
    area = float(windows.wl * windows.ww)
    mean8 = window_sums(s_int, corners, n)
    mean8 /= area
    sq = window_sums(sq_int, corners, n)
    sq /= area
    win = np.empty((*mean8.shape[:2], 4))
    std = win[..., 3]
    np.maximum(np.subtract(sq, np.square(mean8[..., 0], out=std), out=std), 0.0, out=std)
    np.multiply(np.sqrt(std, out=std), lab_l, out=std)
    np.multiply(mean8[..., 0], lab_l, out=win[..., 0])
    for c in (1, 2):
        np.subtract(mean8[..., c], 128.0, out=win[..., c])
    return win


def rect_sums(integral: npt.NDArray[Any], top: Any, y0: int, y1: int, x0: int, x1: int) -> Any:
    """Sums over the same rectangle [y0, y1) x [x0, x1) of every stacked patch (patch i
    starts at row ``top[i]``)."""
    r0, r1 = top + y0, top + y1
    out = integral[r1, x1] - integral[r0, x1] - integral[r1, x0] + integral[r0, x0]
    return np.asarray(out, dtype=np.float64)


def feature_major(values: FloatArray, scale: FloatArray) -> npt.NDArray[np.float32]:
    """``values`` (n, w, f) times ``scale`` (f,), feature-major as float32 (f, n, w): each
    feature multiplied in float64 and rounded to float32, as ``values * scale`` cast whole,
    a feature at a time (a broadcast over a last axis of four runs as many short loops)."""
    out = np.empty((values.shape[-1], *values.shape[:-1]), dtype=np.float32)
    for k in range(values.shape[-1]):
        np.multiply(values[..., k], scale[k], out=out[k], casting="same_kind")
    return out
