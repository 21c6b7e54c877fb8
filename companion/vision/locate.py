"""Find the Europe board in a picture: a homography from board points to image pixels.

Works for a photo already cropped to the board, a raw photo at an angle with the table around
it, or a fixed overhead camera. Candidate outlines (the whole frame, and four-sided outlines found
in the picture) are tried in all four turns; each is checked against the FACTS of the board: the
~300 train spaces must sit where the geometry says, each looking like its printed colour or like a
plastic train. The best candidate is refined by nudging its corners. A picture where no candidate
explains enough spaces (another map, a table, a face) raises ``NoBoardError``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.vision.classify import fit_distances, fit_features
from companion.vision.geometry import FloatArray, corners_homography, homography_corners
from companion.vision.read import ReadContext, default_context, take_samples
from companion.vision.sample import U8Array
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
        return BoardLocation(h, self.quality, image_size, self.method, dict(self.details))


def _work_image(image: U8Array, max_side: int) -> tuple[U8Array, float]:
    h, w = image.shape[:2]
    f = min(1.0, max_side / max(h, w))
    if f >= 1.0:
        return image, 1.0
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return np.asarray(small, dtype=np.uint8), f


def board_fit(image: U8Array, h: FloatArray, ctx: ReadContext) -> tuple[float, float]:
    """How well the board's facts explain ``image`` under ``h``.

    Returns (share of spaces explained by their printed colour or a plastic train, mean capped
    distance; lower is better). Cheap enough to be called many times on a small image.
    """
    cfg = ctx.cfg["locate"]
    samples = take_samples(image, h, ctx, ctx.fit_grids, lab=False)
    feats = fit_features(samples.spaces)
    dist = fit_distances(feats, ctx.printed_colors, ctx.fit_model)
    best = dist.min(axis=1)
    explained = float(np.mean(best < float(cfg["explained_dist"])))
    smooth = float(np.mean(np.minimum(best, float(cfg["smooth_cap"]))))
    return explained, smooth


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
    # Regions enclosed by edges, and bright/dark/saturated splits of the picture.
    masks.append(cv2.bitwise_not(edges))
    for chan in (gray, hsv[..., 1]):
        _, m = cv2.threshold(cv2.GaussianBlur(chan, (9, 9), 0), 0, 255, cv2.THRESH_OTSU)
        masks.append(m)
        masks.append(cv2.bitwise_not(m))
    quads: list[FloatArray] = []
    kernel = np.ones((7, 7), np.uint8)
    for m in masks:
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
        contours, _ = cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
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
    return out[: int(cfg["max_outlines"])]


def _refine(
    work: U8Array, corners: FloatArray, ctx: ReadContext, cfg: dict[str, Any]
) -> tuple[FloatArray, float]:
    """Nudge the four corners to minimise the board-fit distance (coordinate descent)."""
    best = corners.copy()
    _, best_cost = board_fit(work, corners_homography(best), ctx)
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
                    _, cost = board_fit(work, corners_homography(trial), ctx)
                    if cost < best_cost - 1e-6:
                        best, best_cost = trial, cost
                        improved = True
    return best, best_cost


def locate_board(image_bgr: U8Array, *, context: ReadContext | None = None) -> BoardLocation:
    """Locate the Europe board in ``image_bgr`` or raise ``NoBoardError``."""
    if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise NoBoardError("the picture is not a colour image")
    ctx = context if context is not None else default_context()
    cfg = ctx.cfg["locate"]
    work, f = _work_image(image_bgr, int(cfg["work_size"]))
    hw, ww = work.shape[:2]
    if min(hw, ww) < int(cfg["min_side"]):
        raise NoBoardError("the picture is too small to hold a readable board")
    frame = np.array([[0, 0], [ww, 0], [ww, hw], [0, hw]], dtype=np.float64)
    scored: list[tuple[float, float, str, FloatArray]] = []

    def try_quad(method: str, quad: FloatArray) -> None:
        for turn in range(4):
            c = np.roll(quad, -turn, axis=0)
            explained, cost = board_fit(work, corners_homography(c), ctx)
            scored.append((explained, cost, method, c))

    try_quad("full-frame", frame)
    n_candidates = 1
    if max(s[0] for s in scored) < float(cfg["accept_full_frame"]):
        for q in _outline_candidates(work, cfg):
            try_quad("outline", q)
            n_candidates += 1
    scored.sort(key=lambda t: (-t[0], t[1]))
    explained, cost, method, corners = scored[0]
    log.debug("best candidate %s explains %.3f (cost %.2f)", method, explained, cost)
    if explained < float(cfg["candidate_min_explained"]):
        raise NoBoardError("no Ticket to Ride: Europe board found in the picture")
    if explained < float(cfg["refine_below"]):
        corners, cost = _refine(work, corners, ctx, cfg)
        explained, cost = board_fit(work, corners_homography(corners), ctx)
    if explained < float(cfg["min_explained"]):
        raise NoBoardError("no Ticket to Ride: Europe board found in the picture")
    full = corners / f
    h_img, w_img = image_bgr.shape[:2]
    return BoardLocation(
        corners_homography(full),
        quality=explained,
        image_size=(w_img, h_img),
        method=method,
        details={"cost": cost, "candidates": float(n_candidates)},
    )
