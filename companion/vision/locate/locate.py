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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from companion.vision.decide.context import ReadContext, default_context
from companion.vision.features.sample import U8Array, decimate
from companion.vision.geometry.geometry import FloatArray, corners_homography, homography_corners
from companion.vision.locate.edges import (
    Line,
    corners_from_lines,
    outline_candidates,
    same_quad,
    side_edges,
    side_line,
    snap_strongest,
)
from companion.vision.locate.fit import OTHER_INKS, QUICK_BELOW, board_fit, fit_sets, fits_many
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


def _snap(
    image: U8Array,
    work: U8Array,
    k: int,
    corners: FloatArray,
    ctx: ReadContext,
    radius_share: float | None = None,
    choose: bool = True,
) -> tuple[FloatArray, float, float] | None:
    """The outline's corners (work pixels) snapped to the board's own edges.

    Each side gets a few candidate edges on the work image, the strongest first; when those do
    not fit, the board's facts choose among them (two opposite sides at a time, keeping a
    change only when the board fits better: the printed border's inner edge runs parallel to
    the board's). The chosen edges are then placed again on the
    full picture, a few pixels around. Returns (corners, explained, cost) or None.
    ``radius_share``: how far to look (share of the work image's diagonal; default
    ``snap.work_radius``); ``choose``: False gives None instead of choosing among the edges
    when the strongest do not fit."""
    cfg = ctx.cfg["locate"]["snap"]
    diag = float(np.hypot(*work.shape[:2]))
    n = int(cfg["points"])
    share = float(cfg["work_radius"]) if radius_share is None else radius_share
    radius = share * diag
    weak = float(cfg["weakest_edge"])
    options: list[list[Line]] = []
    for i in range(4):
        found = side_edges(
            work, corners[i], corners[(i + 1) % 4], radius, n, 1.0, int(cfg["edges"]), weak
        )
        options.append([*found, side_line(corners, i)])  # the outline's own side last
    choice = [0] * 4
    lines = [options[i][0] for i in range(4)]
    c = corners_from_lines(lines)
    if c is None or np.abs(c - corners).max() > 2 * radius:
        return None
    explained, cost = board_fit(work, corners_homography(c), ctx)
    if explained < float(ctx.cfg["locate"]["accept_full_frame"]):
        if not choose:
            return None
        # Opposite sides are chosen together (an edge taken one side off moves the board
        # across, which only its opposite side can follow), on half the spaces.
        _, sub_cost = board_fit(work, corners_homography(c), ctx, subset=True)
        subset = fit_sets(ctx)["subset"]
        changed = True
        for _ in range(int(cfg["passes"])):
            if not changed:
                break
            changed = False
            for i, j in ((0, 2), (1, 3)):
                # Every other pair of edges for these two sides, looked at all at once (the
                # others' edges stay): the cheapest one that fits better than now is taken.
                trials: list[tuple[int, int, list[Line], FloatArray]] = []
                for oi in range(len(options[i])):
                    for oj in range(len(options[j])):
                        if (oi, oj) == (choice[i], choice[j]):
                            continue
                        trial = list(lines)
                        trial[i], trial[j] = options[i][oi], options[j][oj]
                        tc = corners_from_lines(trial)
                        if tc is None or np.abs(tc - corners).max() > 2 * radius:
                            continue
                        trials.append((oi, oj, trial, tc))
                hs = [corners_homography(t[3]) for t in trials]
                for (oi, oj, trial, tc), (_, c2) in zip(
                    trials, fits_many(work, hs, ctx, subset), strict=True
                ):
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
                fine.append(side_line(full, i))
                continue
            found = side_edges(
                image, full[i], full[(i + 1) % 4], float(cfg["fine_radius"]) * k, n, k / 2.0, 1
            )
            fine.append(found[0] if found else side_line(full, i))
        fc = corners_from_lines(fine)
        if fc is not None and np.abs(fc - full).max() <= 2.0 * float(cfg["fine_radius"]) * k:
            c = (fc - (k - 1) / 2.0) / k
            explained, cost = board_fit(work, corners_homography(c), ctx)
    return c, explained, cost


def _edge_snapped(
    image: U8Array, work: U8Array, k: int, corners: FloatArray, ctx: ReadContext
) -> tuple[FloatArray, float, float]:
    """An outline (work pixels) moved onto the board's own edges when the board's facts fit
    it at least as well there (near edges first; further ones only when those do not fit):
    its corners, the share of all spaces explained and their cost."""
    cfg = ctx.cfg["locate"]
    explained, cost = board_fit(work, corners_homography(corners), ctx)
    for share in (None, float(cfg["snap"]["rescue_radius"])):
        snapped = _snap(image, work, k, corners, ctx, share)
        if snapped is not None:
            c2, e2, cost2 = snapped
            log.debug("edges snapped: explains %.3f (cost %.2f) vs %.3f", e2, cost2, explained)
            if cost2 <= cost:
                corners, explained, cost = c2, e2, cost2
        if explained >= float(cfg["accept_full_frame"]):  # further edges only when needed
            break
    return corners, explained, cost


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
    ``sample.decimate``). When the fitted print finds no board, the picture is looked at once
    more allowing another copy's inks (paler, darker, warmer, more saturated: the print's
    lightness and colour estimated from the picture, ``fit.print_evened``)."""
    if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise NoBoardError("the picture is not a colour image")
    ctx = context if context is not None else default_context()
    try:
        return _locate(image_bgr, ctx, store)
    except NoBoardError as err:
        if err.args == (_TOO_SMALL,) or OTHER_INKS.get():
            raise
    token = OTHER_INKS.set(True)
    try:
        found = _locate(image_bgr, ctx, store)
    finally:
        OTHER_INKS.reset(token)
    return replace(found, details={**found.details, "other_inks": 1.0})


_TOO_SMALL = "the picture is too small to hold a readable board"


def _locate(
    image_bgr: U8Array, ctx: ReadContext, store: dict[int, U8Array] | None
) -> BoardLocation:
    """``locate_board`` with the inks ``fit.OTHER_INKS`` allows."""
    cfg = ctx.cfg["locate"]
    work, k = _work_image(image_bgr, int(cfg["work_size"]), store)
    hw, ww = work.shape[:2]
    if min(hw, ww) < int(cfg["min_side"]):
        raise NoBoardError(_TOO_SMALL)
    frame = np.array([[0, 0], [ww, 0], [ww, hw], [0, hw]], dtype=np.float64)
    scored: list[tuple[float, float, str, FloatArray]] = []
    accept = float(cfg["accept_full_frame"])
    sets = fit_sets(ctx)
    quick_only: list[int] = []  # the entries of ``scored`` that stand on their quick look

    def try_quad(method: str, quad: FloatArray, turns: tuple[int, ...] = (0, 1, 2, 3)) -> bool:
        """Score the quad in its turns (on the spaces subset; all four by default: a board
        seen from low down can look higher than wide); True when one is good enough to stop
        looking."""
        cs = [np.roll(quad, -turn, axis=0) for turn in turns]
        hs = [corners_homography(c) for c in cs]
        # A quick look first (a few spaces): most turns of most outlines are not the board,
        # and then that look stands for them.
        quick = fits_many(work, hs, ctx, sets["quick"])
        for c, hc, (explained, cost) in zip(cs, hs, quick, strict=True):
            if explained >= QUICK_BELOW:
                explained, cost = board_fit(work, hc, ctx, subset=True)
            else:
                quick_only.append(len(scored))
            scored.append((explained, cost, method, c))
        return bool(scored) and max(s[0] for s in scored) >= accept

    n_candidates = 1
    snapped: tuple[FloatArray, float, float] | None = None  # an outline on the board's edges
    eager = float(cfg["snap"]["eager_above"])
    on_edges: dict[bytes, tuple[FloatArray, float, float]] = {}  # snapped outlines, by corners

    def edge_snapped(c: FloatArray) -> tuple[FloatArray, float, float]:
        key = c.tobytes()
        if key not in on_edges:
            on_edges[key] = _edge_snapped(image_bgr, work, k, c, ctx)
        return on_edges[key]

    if not try_quad("full-frame", frame):
        done = False
        for q in outline_candidates(work, cfg):
            n_candidates += 1
            first = len(scored)
            if try_quad("outline", q):
                done = True
                break
            # An outline a little off the board (its contour's corners rounded, bent away by
            # the perspective) is snapped to the board's edges at once, as the best outline
            # would be at the end: when that fits, no further outline need be looked for.
            e, _, _, c = max(scored[first:], key=lambda t: (t[0], -t[1]))
            if e >= eager:
                # (on the strongest edges only: when those fit, as ``_edge_snapped`` would)
                snapped = _snap(image_bgr, work, k, c, ctx, choose=False)
                if snapped is not None and snapped[1] >= accept:
                    done = True
                    break
                snapped = None
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
                if any(same_quad(s[3], o) for o in seen):
                    continue
                seen.append(s[3])
                rescued = snap_strongest(work, s[3], radius, int(rescue["rescue_points"]))
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
    if snapped is not None:
        method = "outline"
        corners, explained, cost = snapped
    else:
        if not scored:
            raise NoBoardError("no Ticket to Ride: Europe board found in the picture")
        scored.sort(key=lambda t: (-t[0], t[1]))
        explained, cost, method, corners = scored[0]
        log.debug("best candidate %s explains %.3f (cost %.2f)", method, explained, cost)
        if explained < float(cfg["candidate_min_explained"]):
            raise NoBoardError("no Ticket to Ride: Europe board found in the picture")
        if method == "outline":  # the board's own edges, when they are clear, are more precise
            corners, explained, cost = edge_snapped(corners)
        else:
            explained, cost = board_fit(work, corners_homography(corners), ctx)
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
