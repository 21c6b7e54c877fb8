"""The board's outline in a picture: four-sided outlines of large regions (candidates), and the
straight edges along an outline's sides (to place its corners to a fraction of a pixel). Pure
picture geometry: which outline is the board is for the board's facts to say (``fit.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np

from companion.vision.features.sample import U8Array
from companion.vision.geometry.geometry import FloatArray


def order_quad(pts: FloatArray) -> FloatArray:
    """Order 4 points clockwise (image coordinates) starting with the one nearest the top-left."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    p = pts[np.argsort(ang)]
    start = int(np.argmin(p[:, 0] + p[:, 1]))
    return np.roll(p, -start, axis=0)


def outline_candidates(work: U8Array, cfg: dict[str, Any]) -> Iterator[FloatArray]:
    """Four-sided outlines of large regions (the board against its surroundings), most likely
    first, each found only when the ones before it were not the board (a picture's splits are
    made one at a time: the first outline is the board in most pictures)."""
    h, w = work.shape[:2]
    area_min = float(cfg["outline_min_area"]) * h * w
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    edges = cv2.Canny(blur, 40, 120)
    edges = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    # Everything the surroundings do not reach: the parts of the picture free of edges that
    # touch the picture's border are the table (whatever its colour); what they enclose is
    # the board, behind its own dark edge and shadow (a board whose border band is the
    # table's colour still has a closed edge all round). Its largest region only, tried first.
    free = cv2.bitwise_not(edges)
    first: list[Any] = []
    if free[0].any() or free[-1].any() or free[:, 0].any() or free[:, -1].any():
        # The free parts reaching the border (4-connected): one flood from a free frame
        # drawn around the picture.
        framed = cv2.copyMakeBorder(free, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=255)
        flood = np.zeros((framed.shape[0] + 2, framed.shape[1] + 2), np.uint8)
        cv2.floodFill(framed, flood, (0, 0), 128, flags=4)
        keep = cv2.compare(framed[1:-1, 1:-1], 128, cv2.CMP_NE)  # type: ignore[call-overload]
        keep = cv2.morphologyEx(keep, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
        contours, _ = cv2.findContours(keep, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if contours:
            first.append(max(contours, key=cv2.contourArea))
    kernel = np.ones((7, 7), np.uint8)

    def splits() -> Iterator[Any]:
        """Regions enclosed by edges, and bright/dark/saturated splits of the picture."""
        yield free
        for chan in (gray, None):
            if chan is None:  # saturation: only made when the grey splits were not enough
                chan = cv2.cvtColor(work, cv2.COLOR_BGR2HSV)[..., 1]
            _, m = cv2.threshold(cv2.GaussianBlur(chan, (9, 9), 0), 0, 255, cv2.THRESH_OTSU)
            yield m
            yield cv2.bitwise_not(m)

    def groups() -> Iterator[Any]:
        yield first
        for m in splits():
            m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
            contours, _ = cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
            yield contours

    # Near-duplicates dropped (the first of them kept).
    out: list[FloatArray] = []
    diag = float(np.hypot(h, w))
    most = int(cfg["max_outlines"]) + len(first)
    for contours in groups():
        for cnt in contours:
            if cv2.contourArea(cnt) < area_min:
                continue
            q = _quad_of(cnt)
            if all(np.abs(q - o).max() > 0.01 * diag for o in out):
                out.append(q)
                yield q
                if len(out) >= most:
                    return


def _quad_of(contour: Any) -> FloatArray:
    """A four-sided outline of a contour's hull (its smallest rotated box when none is close)."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return order_quad(approx.reshape(4, 2).astype(np.float64))
    box = cv2.boxPoints(cv2.minAreaRect(hull))
    return order_quad(np.asarray(box, dtype=np.float64))


Line = tuple[FloatArray, FloatArray]  # a point on the line and its unit direction


def side_edges(
    image: U8Array,
    p: FloatArray,
    q: FloatArray,
    radius: float,
    n: int,
    spread: float,
    most: int,
    weakest: float = 0.35,
    step: float = 1.0,
) -> list[Line]:
    """Straight colour edges running along the side p -> q of an outline (image pixels) within
    ``radius`` pixels of it, strongest first (at most ``most``, each clearly apart, none weaker
    than ``weakest`` times the strongest).

    The side is looked at through ``n`` profiles across it, each the mean of three parallel
    ones ``spread`` pixels apart, sampled every ``step`` pixels across. A straight edge (an
    offset at each end of the side) is scored by how well the signed colour step adds up along
    it: a long straight edge keeps one polarity, the pictures printed on the board and the
    table's grain do not. Each edge is then placed to a fraction of a pixel on every profile
    near it and a line fitted through them."""
    import cv2

    r = int(np.ceil(radius / step))
    offs = np.arange(-r, r + 1, dtype=np.float64) * step
    m = len(offs)
    t = np.linspace(0.06, 0.94, n)
    d = q - p
    length = float(np.hypot(*d))
    if length < 4 * radius or m < 5:
        return []
    u = d / length
    nrm = np.array([-u[1], u[0]])
    base = p + t[:, None] * d  # (n, 2)
    # (n, 3, m, 2): base + spread * u + offset * nrm, one coordinate at a time (the same
    # sums; a broadcast over a last axis of two runs one short loop per point)
    pts = np.empty((n, 3, m, 2), dtype=np.float32)
    along = np.array([-spread, 0.0, spread])
    for c in range(2):
        pts[..., c] = (base[:, None, None, c] + (along * u[c])[None, :, None]) + offs * nrm[c]
    xy = pts.reshape(n * 3, m, 2)
    px = cv2.remap(  # type: ignore[call-overload]
        image, xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    prof = np.asarray(px, dtype=np.float32).reshape(n, 3, m, 3).mean(axis=1)  # (n, m, 3)
    g = np.zeros((n, m, 3), dtype=np.float32)
    g[:, 1:-1] = prof[:, 2:] - prof[:, :-2]  # signed colour step at each offset
    rows = np.arange(n)
    # Per channel, the steps of all profiles one after the other (a line's points are taken
    # by one flat index each). The steps are float32 differences of means of three bytes
    # (multiples of 2^-25 below 256): their sums in float64 are exact in any order.
    flat = g.transpose(2, 0, 1).reshape(3, n * m).astype(np.float64)
    first = rows * m

    def line_steps(aa: Any, bb: Any) -> tuple[Any, Any]:
        """Mean colour step (..., 3) and its size along the lines from offset index aa
        (t = 0) to bb (t = 1)."""
        pos = aa[..., None] + (bb - aa)[..., None] * t
        idx = np.clip(np.rint(pos).astype(np.int64), 0, m - 1) + first
        steps = np.stack([np.take(flat[c], idx).sum(axis=-1) for c in range(3)], axis=-1) / n
        return steps, np.sqrt((steps**2).sum(axis=-1))

    # Coarse grid of lines (every other offset at each end), each pick refined by one offset.
    coarse = np.arange(1, m - 1, 2)
    a_idx, b_idx = np.meshgrid(coarse, coarse, indexing="ij")
    _, score = line_steps(a_idx, b_idx)
    mid = (a_idx + b_idx) / 2.0
    out: list[Line] = []
    best = float(score.max())
    live = score.copy()
    near3 = np.array([-1, 0, 1])
    while len(out) < most:
        ia, ib = np.unravel_index(int(np.argmax(live)), live.shape)
        if float(live[ia, ib]) < 8.0 or float(live[ia, ib]) < weakest * best:
            break
        live[np.abs(mid - mid[ia, ib]) * step < 3.0] = -1.0  # the next edge lies clearly apart
        la, lb = np.meshgrid(
            np.clip(a_idx[ia, ib] + near3, 1, m - 2),
            np.clip(b_idx[ia, ib] + near3, 1, m - 2),
            indexing="ij",
        )
        steps, sc = line_steps(la, lb)
        ja, jb = np.unravel_index(int(np.argmax(sc)), sc.shape)
        top = float(sc[ja, jb])
        along = la[ja, jb] + (lb[ja, jb] - la[ja, jb]) * t  # (n,) float index
        w = (steps[ja, jb] / top).astype(np.float32)
        s = np.asarray(g @ w, dtype=np.float64)  # (n, m) step along this edge's colour change
        centre = np.clip(np.rint(along).astype(np.int64), 2, m - 3)
        near = np.stack([s[rows, centre + k] for k in (-1, 0, 1)], axis=1)
        c0 = centre + np.argmax(near, axis=1) - 1
        left, peak, right = s[rows, c0 - 1], s[rows, c0], s[rows, c0 + 1]
        den = left - 2 * peak + right
        safe = np.where(den < -1e-9, den, -1.0)
        frac = np.where(den < -1e-9, 0.5 * (left - right) / safe, 0.0)
        off = offs[c0] + np.clip(frac, -0.5, 0.5) * step
        keep = peak > 0.3 * top
        if keep.sum() < n // 3:
            continue
        edge = (base + off[:, None] * nrm)[keep].astype(np.float32)
        line = np.asarray(cv2.fitLine(edge, cv2.DIST_HUBER, 0, 0.01, 0.01), np.float64)
        line = line.reshape(-1)
        out.append((line[2:4].copy(), line[:2].copy()))
    return out


def corners_from_lines(lines: list[Line]) -> FloatArray | None:
    """Corner i where side i - 1 (ending at it) meets side i (starting at it)."""
    out = np.empty((4, 2))
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        mat = np.array([d1, -d2]).T
        if abs(float(np.linalg.det(mat))) < 1e-3:
            return None
        sol = np.linalg.solve(mat, p2 - p1)
        out[i] = p1 + sol[0] * d1
    return out


def side_line(corners: FloatArray, i: int) -> Line:
    p, q = corners[i], corners[(i + 1) % 4]
    d = q - p
    return p.copy(), d / max(float(np.hypot(*d)), 1e-9)


def same_quad(a: FloatArray, b: FloatArray) -> bool:
    """The same four points in any turn (within a pixel)."""
    return any(np.abs(np.roll(a, -t, axis=0) - b).max() < 1.0 for t in range(4))


def snap_strongest(work: U8Array, corners: FloatArray, radius: float, n: int) -> FloatArray | None:
    """Each side of the quad moved to the strongest straight edge within ``radius``."""
    lines: list[Line] = []
    for i in range(4):
        found = side_edges(work, corners[i], corners[(i + 1) % 4], radius, n, 1.0, 1)
        lines.append(found[0] if found else side_line(corners, i))
    c = corners_from_lines(lines)
    if c is None or np.abs(c - corners).max() > 2 * radius:
        return None
    return c
