"""Find the Europe board in a picture: a homography from board points to image pixels.

Works for a photo already cropped to the board, a raw photo at an angle with the table around
it, or a fixed overhead camera. Candidate outlines (the whole frame, and four-sided outlines found
in the picture) are tried in all four turns; each is checked against the FACTS of the board: the
~300 train spaces must sit where the geometry says, each looking like its printed colour or like a
plastic train (a quick look at every 8th space first: a turn that explains too few of those is
not looked at in full). The best candidate is refined by nudging its corners. A picture where no
candidate explains enough spaces (another map, a table, a face) raises ``NoBoardError``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.vision.decide.classify import FIT_FEATURES, FitModel, fit_distances, fit_features
from companion.vision.decide.context import (
    ReadContext,
    balance_samples,
    default_context,
    spread_subset,
    take_samples,
)
from companion.vision.features.sample import (
    RawSamples,
    SampleGrids,
    U8Array,
    decimate,
    make_maps,
    patch_px,
    prefilter_step,
    subset_grids,
)
from companion.vision.geometry.geometry import FloatArray, corners_homography, homography_corners
from companion.vision.locate.register import LocalOffsets, local_offsets, refine_registration
from companion.vision.types import NoBoardError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BoardLocation:
    """Where the board is: ``homography`` maps board points (u, v in 0..1) to image pixels."""

    homography: FloatArray
    quality: float  # 0..1: share of the board's spaces that look as a Europe board's should
    image_size: tuple[int, int]  # (width, height) of the image located in
    method: str = "auto"  # auto | full-frame | outline | manual | calibration
    details: dict[str, float] = field(default_factory=dict)
    # what the homography cannot follow (lens, a board not flat): per space and city shifts
    offsets: LocalOffsets | None = None

    @property
    def corners(self) -> FloatArray:
        """The board's corners in the image: TL TR BR BL (board orientation)."""
        return homography_corners(self.homography)

    @staticmethod
    def from_corners(
        corners: Any, image_size: tuple[int, int], method: str = "manual", quality: float = 1.0
    ) -> BoardLocation:
        c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
        return BoardLocation(corners_homography(c), quality, image_size, method)

    def scaled(self, image_size: tuple[int, int]) -> BoardLocation:
        """The same board location for the same view at another resolution."""
        sx = image_size[0] / self.image_size[0]
        sy = image_size[1] / self.image_size[1]
        h = np.diag([sx, sy, 1.0]) @ self.homography
        return BoardLocation(
            h, self.quality, image_size, self.method, dict(self.details), self.offsets
        )


def _work_image(
    image: U8Array, max_side: int, store: dict[int, U8Array] | None = None
) -> tuple[U8Array, int]:
    """The picture decimated by the integer step that brings its longer side closest to
    ``max_side`` (at most 1.5 times it), and that step."""
    k = max(1, round(max(image.shape[:2]) / max_side))
    return decimate(image, k, store), k


@dataclass(frozen=True)
class _FitSet:
    """Spaces ``board_fit`` looks at: their grids, printed colours and the print's median
    gradient features (``_sharpness_evened``)."""

    grids: SampleGrids
    printed: list[str]
    ref: FloatArray


_FIT_SETS: dict[int, tuple[ReadContext, dict[str, _FitSet]]] = {}
QUICK_EVERY = 8  # the quick look at a candidate turn: every 8th space (about 37)
QUICK_BELOW = 0.15  # a turn whose quick look explains less is not looked at in full


def _fit_sets(ctx: ReadContext) -> dict[str, _FitSet]:
    """The spaces looked at by ``board_fit`` (``all``, ``subset``) and by the quick look at a
    candidate turn (``quick``), built once per context."""
    got = _FIT_SETS.get(id(ctx))
    if got is not None and got[0] is ctx:
        return got[1]

    def fit_set(grids: SampleGrids, printed: list[str]) -> _FitSet:
        means = np.stack([ctx.fit_model.printed[c][_GRADIENTS] for c in printed])
        return _FitSet(grids, printed, np.asarray(np.median(means, axis=0), dtype=np.float64))

    quick = spread_subset(ctx.geometry, QUICK_EVERY)
    sets = {
        "all": fit_set(ctx.fit_grids, ctx.printed_colors),
        "subset": fit_set(ctx.fit_sub_grids, [ctx.printed_colors[int(i)] for i in ctx.fit_subset]),
        "quick": fit_set(
            subset_grids(ctx.fit_grids, quick), [ctx.printed_colors[int(i)] for i in quick]
        ),
    }
    if len(_FIT_SETS) >= 8:  # contexts are few (one per configuration); never grow unbounded
        _FIT_SETS.clear()
    _FIT_SETS[id(ctx)] = (ctx, sets)
    return sets


def board_fit(
    image: U8Array, h: FloatArray, ctx: ReadContext, *, subset: bool = False
) -> tuple[float, float]:
    """How well the board's facts explain ``image`` under ``h``.

    Returns (share of spaces explained by their printed colour or a plastic train, mean capped
    distance; lower is better). Cheap enough to be called many times on a small image;
    ``subset`` looks at a spread half of the spaces only (comparing candidates, refining).
    """
    return _fit(image, h, ctx, _fit_sets(ctx)["subset" if subset else "all"])


def _fit(image: U8Array, h: FloatArray, ctx: ReadContext, fs: _FitSet) -> tuple[float, float]:
    """``board_fit`` on the spaces of ``fs``."""
    samples = take_samples(image, h, ctx, fs.grids, lab=False)
    return _fit_scores(fit_features(samples.spaces), ctx, fs)


def _fits(
    image: U8Array, hs: list[FloatArray], ctx: ReadContext, fs: _FitSet
) -> list[tuple[float, float]]:
    """``_fit`` under several homographies at once (one remap, one pass of the features: the
    same numbers, with less overhead); one at a time when a picture must be decimated first."""
    grids = fs.grids
    if len(hs) < 2 or any(prefilter_step(patch_px(h, grids)) != 1 for h in hs):
        return [_fit(image, h, ctx, fs) for h in hs]
    maps = np.concatenate([make_maps(h, grids).xy for h in hs])
    out = cv2.remap(  # type: ignore[call-overload]  # as sample.sample_all, all at once
        image, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    flat = np.asarray(out, dtype=np.uint8).reshape(len(hs), -1, 3)
    n_wb, n_sp, n_ci = grids.counts
    sp, ci = grids.spaces.shape[:3], grids.cities.shape[:3]
    spaces = [
        balance_samples(
            RawSamples(f[:n_wb], f[n_wb : n_wb + n_sp + n_ci], (sp[0], sp[1], sp[2]), ci),
            ctx,
            lab=False,
        ).spaces
        for f in flat
    ]
    feats = fit_features(np.concatenate(spaces))
    n = sp[0]
    return [_fit_scores(feats[i * n : (i + 1) * n], ctx, fs) for i in range(len(hs))]


def _fit_scores(feats: FloatArray, ctx: ReadContext, fs: _FitSet) -> tuple[float, float]:
    """(explained, mean capped distance) of the fit features of the spaces of ``fs``."""
    cfg = ctx.cfg["locate"]
    best = fit_distances(feats, fs.printed, ctx.fit_model).min(axis=1)
    explained = float(np.mean(best < float(cfg["explained_dist"])))
    evened = _sharpness_evened(feats, fs.printed, ctx.fit_model, fs.ref)
    if evened is not feats:  # a softer picture: judged as sharp too, the better of the two
        best_e = fit_distances(evened, fs.printed, ctx.fit_model).min(axis=1)
        explained_e = float(np.mean(best_e < float(cfg["explained_dist"])))
        if explained_e > explained:
            best, explained = best_e, explained_e
    smooth = float(np.mean(np.minimum(best, float(cfg["smooth_cap"]))))
    return explained, smooth


_GRADIENTS = [FIT_FEATURES.index("grad_along"), FIT_FEATURES.index("grad_across")]


def _sharpness_evened(
    feats: FloatArray, printed: list[str], model: FitModel, ref: FloatArray | None = None
) -> FloatArray:
    """The fit features with the two gradient features brought up to the photos' sharpness.

    A small or soft frame (a 960x540 camera, a little blur) has weaker pixel gradients on
    every space alike than the photos the class means come from: on an empty board that
    alone left spaces unexplained (the demo's first frame: the board seen, 0.58 explained,
    refused). The gradients are divided by how much weaker their median over the spaces is
    than the print's means would have it (never made weaker: 1/3 to 1). Trains are smoother
    than print, so a full board looks softer too: ``board_fit`` keeps whichever of the two
    explains more. ``ref``: the print's medians for ``printed`` when already known."""
    if ref is None:
        ref = np.median(np.stack([model.printed[c][_GRADIENTS] for c in printed]), axis=0)
    got = np.median(feats[:, _GRADIENTS], axis=0)
    ratio = float(np.exp(np.mean(np.log(np.maximum(got, 1e-6) / np.maximum(ref, 1e-6)))))
    ratio = min(max(ratio, 1.0 / 3.0), 1.0)
    if ratio >= 1.0:
        return feats
    out = feats.copy()
    out[:, _GRADIENTS] /= ratio
    return out


def _order_quad(pts: FloatArray) -> FloatArray:
    """Order 4 points clockwise (image coordinates) starting with the one nearest the top-left."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    p = pts[np.argsort(ang)]
    start = int(np.argmin(p[:, 0] + p[:, 1]))
    return np.roll(p, -start, axis=0)


def _outline_candidates(work: U8Array, cfg: dict[str, Any]) -> list[FloatArray]:
    """Four-sided outlines of large regions (the board against its surroundings)."""
    h, w = work.shape[:2]
    area_min = float(cfg["outline_min_area"]) * h * w
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    hsv = cv2.cvtColor(work, cv2.COLOR_BGR2HSV)
    masks: list[Any] = []
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
    # Regions enclosed by edges, and bright/dark/saturated splits of the picture.
    masks.append(free)
    for chan in (gray, hsv[..., 1]):
        _, m = cv2.threshold(cv2.GaussianBlur(chan, (9, 9), 0), 0, 255, cv2.THRESH_OTSU)
        masks.append(m)
        masks.append(cv2.bitwise_not(m))
    quads: list[FloatArray] = []
    kernel = np.ones((7, 7), np.uint8)
    groups: list[Any] = [first]
    for m in masks:
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
        contours, _ = cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        groups.append(contours)
    for contours in groups:
        for cnt in contours:
            if cv2.contourArea(cnt) < area_min:
                continue
            hull = cv2.convexHull(cnt)
            peri = cv2.arcLength(hull, True)
            for eps in (0.02, 0.04):
                approx = cv2.approxPolyDP(hull, eps * peri, True)
                if len(approx) == 4:
                    quads.append(_order_quad(approx.reshape(4, 2).astype(np.float64)))
                    break
            else:
                box = cv2.boxPoints(cv2.minAreaRect(hull))
                quads.append(_order_quad(np.asarray(box, dtype=np.float64)))
    # Drop near-duplicates and the full frame (tried separately).
    out: list[FloatArray] = []
    diag = float(np.hypot(h, w))
    for q in quads:
        if all(np.abs(q - o).max() > 0.01 * diag for o in out):
            out.append(q)
    return out[: int(cfg["max_outlines"]) + len(first)]


Line = tuple[FloatArray, FloatArray]  # a point on the line and its unit direction


def _side_edges(
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
    pts = (
        base[:, None, None, :]
        + np.array([-spread, 0.0, spread])[None, :, None, None] * u
        + offs[None, None, :, None] * nrm
    )  # (n, 3, m, 2)
    xy = np.ascontiguousarray(pts.reshape(n * 3, m, 2), dtype=np.float32)
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


def _corners_from_lines(lines: list[Line]) -> FloatArray | None:
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


def _side_line(corners: FloatArray, i: int) -> Line:
    p, q = corners[i], corners[(i + 1) % 4]
    d = q - p
    return p.copy(), d / max(float(np.hypot(*d)), 1e-9)


def _same_quad(a: FloatArray, b: FloatArray) -> bool:
    """The same four points in any turn (within a pixel)."""
    return any(np.abs(np.roll(a, -t, axis=0) - b).max() < 1.0 for t in range(4))


def _snap_strongest(work: U8Array, corners: FloatArray, radius: float, n: int) -> FloatArray | None:
    """Each side of the quad moved to the strongest straight edge within ``radius``."""
    lines: list[Line] = []
    for i in range(4):
        found = _side_edges(work, corners[i], corners[(i + 1) % 4], radius, n, 1.0, 1)
        lines.append(found[0] if found else _side_line(corners, i))
    c = _corners_from_lines(lines)
    if c is None or np.abs(c - corners).max() > 2 * radius:
        return None
    return c


def _snap(
    image: U8Array,
    work: U8Array,
    k: int,
    corners: FloatArray,
    ctx: ReadContext,
    radius_share: float | None = None,
) -> tuple[FloatArray, float, float] | None:
    """The outline's corners (work pixels) snapped to the board's own edges.

    Each side gets a few candidate edges on the work image, the strongest first; when those do
    not fit, the board's facts choose among them (two opposite sides at a time, keeping a
    change only when the board fits better: the printed border's inner edge runs parallel to
    the board's). The chosen edges are then placed again on the
    full picture, a few pixels around. Returns (corners, explained, cost) or None.
    ``radius_share``: how far to look (share of the work image's diagonal; default
    ``snap.work_radius``)."""
    cfg = ctx.cfg["locate"]["snap"]
    diag = float(np.hypot(*work.shape[:2]))
    n = int(cfg["points"])
    share = float(cfg["work_radius"]) if radius_share is None else radius_share
    radius = share * diag
    weak = float(cfg["weakest_edge"])
    options: list[list[Line]] = []
    for i in range(4):
        found = _side_edges(
            work, corners[i], corners[(i + 1) % 4], radius, n, 1.0, int(cfg["edges"]), weak
        )
        options.append([*found, _side_line(corners, i)])  # the outline's own side last
    choice = [0] * 4
    lines = [options[i][0] for i in range(4)]
    c = _corners_from_lines(lines)
    if c is None or np.abs(c - corners).max() > 2 * radius:
        return None
    explained, cost = board_fit(work, corners_homography(c), ctx)
    if explained < float(ctx.cfg["locate"]["accept_full_frame"]):
        # Opposite sides are chosen together (an edge taken one side off moves the board
        # across, which only its opposite side can follow), on half the spaces.
        _, sub_cost = board_fit(work, corners_homography(c), ctx, subset=True)
        changed = True
        for _ in range(int(cfg["passes"])):
            if not changed:
                break
            changed = False
            for i, j in ((0, 2), (1, 3)):
                for oi in range(len(options[i])):
                    for oj in range(len(options[j])):
                        if (oi, oj) == (choice[i], choice[j]):
                            continue
                        trial = list(lines)
                        trial[i], trial[j] = options[i][oi], options[j][oj]
                        tc = _corners_from_lines(trial)
                        if tc is None or np.abs(tc - corners).max() > 2 * radius:
                            continue
                        _, c2 = board_fit(work, corners_homography(tc), ctx, subset=True)
                        if c2 < sub_cost:
                            lines, c, sub_cost = trial, tc, c2
                            choice[i], choice[j] = oi, oj
                            changed = True
        explained, cost = board_fit(work, corners_homography(c), ctx)
    if k > 1:  # again on the full picture, around the chosen edges
        full = c * k + (k - 1) / 2.0
        fine: list[Line] = []
        for i in range(4):
            if choice[i] == len(options[i]) - 1:  # no edge seen on this side: keep it
                fine.append(_side_line(full, i))
                continue
            found = _side_edges(
                image, full[i], full[(i + 1) % 4], float(cfg["fine_radius"]) * k, n, k / 2.0, 1
            )
            fine.append(found[0] if found else _side_line(full, i))
        fc = _corners_from_lines(fine)
        if fc is not None and np.abs(fc - full).max() <= 2.0 * float(cfg["fine_radius"]) * k:
            c = (fc - (k - 1) / 2.0) / k
            explained, cost = board_fit(work, corners_homography(c), ctx)
    return c, explained, cost


def _refine(
    work: U8Array, corners: FloatArray, ctx: ReadContext, cfg: dict[str, Any]
) -> tuple[FloatArray, float]:
    """Nudge the four corners to minimise the board-fit distance (coordinate descent)."""
    best = corners.copy()
    _, best_cost = board_fit(work, corners_homography(best), ctx, subset=True)
    size = float(np.hypot(*(best[2] - best[0])))
    for step_frac in cfg["refine_steps"]:
        step = float(step_frac) * size
        improved = True
        rounds = 0
        while improved and rounds < int(cfg["refine_rounds"]):
            improved = False
            rounds += 1
            for k in range(8):
                for sign in (-1.0, 1.0):
                    trial = best.copy()
                    trial.reshape(-1)[k] += sign * step
                    _, cost = board_fit(work, corners_homography(trial), ctx, subset=True)
                    if cost < best_cost - 1e-6:
                        best, best_cost = trial, cost
                        improved = True
    return best, best_cost


def locate_board(
    image_bgr: U8Array,
    *,
    context: ReadContext | None = None,
    store: dict[int, U8Array] | None = None,
) -> BoardLocation:
    """Locate the Europe board in ``image_bgr`` or raise ``NoBoardError``.

    ``store``: decimated copies of the picture to share with the reader (see
    ``sample.decimate``)."""
    if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise NoBoardError("the picture is not a colour image")
    ctx = context if context is not None else default_context()
    cfg = ctx.cfg["locate"]
    work, k = _work_image(image_bgr, int(cfg["work_size"]), store)
    hw, ww = work.shape[:2]
    if min(hw, ww) < int(cfg["min_side"]):
        raise NoBoardError("the picture is too small to hold a readable board")
    frame = np.array([[0, 0], [ww, 0], [ww, hw], [0, hw]], dtype=np.float64)
    scored: list[tuple[float, float, str, FloatArray]] = []
    accept = float(cfg["accept_full_frame"])
    sets = _fit_sets(ctx)
    quick_only: list[int] = []  # the entries of ``scored`` that stand on their quick look

    def try_quad(method: str, quad: FloatArray, turns: tuple[int, ...] = (0, 1, 2, 3)) -> bool:
        """Score the quad in its turns (on the spaces subset; all four by default: a board
        seen from low down can look higher than wide); True when one is good enough to stop
        looking."""
        cs = [np.roll(quad, -turn, axis=0) for turn in turns]
        hs = [corners_homography(c) for c in cs]
        # A quick look first (a few spaces): most turns of most outlines are not the board,
        # and then that look stands for them.
        quick = _fits(work, hs, ctx, sets["quick"])
        for c, hc, (explained, cost) in zip(cs, hs, quick, strict=True):
            if explained >= QUICK_BELOW:
                explained, cost = board_fit(work, hc, ctx, subset=True)
            else:
                quick_only.append(len(scored))
            scored.append((explained, cost, method, c))
        return bool(scored) and max(s[0] for s in scored) >= accept

    n_candidates = 1
    if not try_quad("full-frame", frame):
        outlines = _outline_candidates(work, cfg)
        done = False
        for q in outlines:
            n_candidates += 1
            if try_quad("outline", q):
                done = True
                break
        if not done and max(s[0] for s in scored) < float(cfg["snap"]["rescue_below"]):
            # No outline fits well: a strong perspective bends a contour's corners away. Snap
            # the best few outlines to the straight edges around them, and try them again.
            rescue = cfg["snap"]
            radius = float(rescue["rescue_radius"]) * float(np.hypot(hw, ww))
            tried = sorted((s for s in scored if s[2] == "outline"), key=lambda t: (-t[0], t[1]))
            seen: list[FloatArray] = []
            for s in tried:
                if len(seen) >= int(rescue["rescue_outlines"]):
                    break
                if any(_same_quad(s[3], o) for o in seen):
                    continue
                seen.append(s[3])
                rescued = _snap_strongest(work, s[3], radius, int(rescue["rescue_points"]))
                if rescued is not None:  # in the turn it had: snapping keeps it
                    n_candidates += 1
                    if try_quad("outline", rescued, (0,)):
                        break
    if scored and max(s[0] for s in scored) < float(cfg["candidate_min_explained"]):
        # Nothing fits, but an outline may be close (a rounded contour a few pixels off the
        # board's corners, snapping caught by the map's inner edge): nudge the nearest few.
        # (looked at in full first, every outline: near ones may have had a poor quick look)
        for i in quick_only:
            if scored[i][2] == "outline":
                c = scored[i][3]
                e, cost = board_fit(work, corners_homography(c), ctx, subset=True)
                scored[i] = (e, cost, "outline", c)
        quick_only.clear()
        near = sorted(
            (s for s in scored if s[2] == "outline" and s[0] >= float(cfg["nudge_floor"])),
            key=lambda t: (-t[0], t[1]),
        )
        for s in near[: int(cfg["nudge_outlines"])]:
            nudged, _ = _refine(work, s[3], ctx, cfg)
            n_candidates += 1
            if try_quad("outline", nudged, (0,)):
                break
    if not scored:
        raise NoBoardError("no Ticket to Ride: Europe board found in the picture")
    scored.sort(key=lambda t: (-t[0], t[1]))
    explained, cost, method, corners = scored[0]
    log.debug("best candidate %s explains %.3f (cost %.2f)", method, explained, cost)
    if explained < float(cfg["candidate_min_explained"]):
        raise NoBoardError("no Ticket to Ride: Europe board found in the picture")
    explained, cost = board_fit(work, corners_homography(corners), ctx)
    if method == "outline":  # the board's own edges, when they are clear, are more precise
        for share in (None, float(cfg["snap"]["rescue_radius"])):
            snapped = _snap(image_bgr, work, k, corners, ctx, share)
            if snapped is not None:
                c2, e2, cost2 = snapped
                log.debug("edges snapped: explains %.3f (cost %.2f) vs %.3f", e2, cost2, explained)
                if cost2 <= cost:
                    corners, explained, cost = c2, e2, cost2
            if explained >= accept:  # further edges only when the near ones do not fit
                break
    # The fine registration on the printed spaces themselves (a fraction of a space), on the
    # full picture; the old corner nudging only when it cannot be done. Back to the picture: a
    # work pixel averages k x k picture pixels; outlines are in pixel centres, the frame in
    # pixel edges.
    off = (k - 1) / 2.0 if method == "outline" else 0.0
    to_full = np.array([[k, 0.0, off], [0.0, k, off], [0.0, 0.0, 1.0]])
    reg = refine_registration(image_bgr, to_full @ corners_homography(corners), ctx, store)
    h_full = to_full @ corners_homography(corners)
    registered = False
    if reg.inliers >= int(ctx.cfg["register"]["min_spaces"]):
        e2, cost2 = board_fit(work, np.linalg.inv(to_full) @ reg.homography, ctx)
        log.debug("registered on %d spaces: explains %.3f (cost %.2f)", reg.inliers, e2, cost2)
        if cost2 <= cost:  # the facts must agree (a bent board can fool the outlines)
            h_full, explained, cost, registered = reg.homography, e2, cost2, True
    if not registered and explained < float(cfg["refine_below"]):
        corners, cost = _refine(work, corners, ctx, cfg)
        explained, cost = board_fit(work, corners_homography(corners), ctx)
        h_full = to_full @ corners_homography(corners)
    if explained < float(cfg["min_explained"]):
        raise NoBoardError("no Ticket to Ride: Europe board found in the picture")
    h_img, w_img = image_bgr.shape[:2]
    offsets = local_offsets(image_bgr, h_full, ctx, store) if registered else None
    return BoardLocation(
        h_full,
        quality=explained,
        image_size=(w_img, h_img),
        method=method,
        details={
            "cost": cost,
            "candidates": float(n_candidates),
            "registered_spaces": float(reg.inliers if registered else 0),
            "registration_moved_px": reg.moved,
        },
        offsets=offsets,
    )
