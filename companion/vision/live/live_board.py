"""The live watcher's picture of the board: the board warped to a small work image, where its
routes' and cities' pixels lie in it, and the frame's corners aligned to a reference picture.

Built once per watcher from the drawn board's geometry; nothing here keeps state between frames.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from companion.vision.geometry.board import DrawnBoard
from companion.vision.live.live_events import LiveConfig

Key = tuple[str, str]  # ("route", route id) or ("station", city id)


class WorkBoard:
    """The work image's size and, per route and city, where its pieces show in it."""

    def __init__(self, geometry: DrawnBoard, config: LiveConfig) -> None:
        self.geometry = geometry
        self.config = config
        self.size = (int(config.work_width), round(config.work_width / geometry.aspect))
        self.key_idx, self.spaces = self._key_pixels()
        self.zone = self._piece_zone()
        self.near = self._neighbours()
        # a sparse grid of the paper where no piece can go: the board's brightness (``level``)
        self.paper = np.flatnonzero(~self.zone.reshape(-1))[::5]

    def _key_pixels(self) -> tuple[dict[Key, np.ndarray], dict[Key, np.ndarray]]:
        """Per route and city, its pixels (flat indices); per route, which of its spaces each
        of those pixels lies in (0, 1, ...)."""
        ww, wh = self.size
        out: dict[Key, np.ndarray] = {}
        spaces: dict[Key, np.ndarray] = {}
        for rid, info in self.geometry.routes.items():
            if not info.spaces:
                continue
            mask = np.zeros((wh, ww), np.int32)
            for n, s in enumerate(info.spaces, 1):
                box = cv2.boxPoints(
                    ((s.x * ww, s.y * wh), (s.w * ww * 0.85, s.h * wh * 0.8), s.angle)
                )
                cv2.fillPoly(mask, [np.round(box).astype(np.int32)], n)
            idx = np.flatnonzero(mask)
            if idx.size:
                out[("route", rid)] = idx
                spaces[("route", rid)] = mask.reshape(-1)[idx] - 1
        for cid, c in self.geometry.cities.items():
            mask = np.zeros((wh, ww), np.uint8)
            r = max(2, round(0.6 * max(c.w * ww, c.h * wh)))
            cv2.circle(mask, (round(c.x * ww), round(c.y * wh)), r, 1, -1)
            out[("station", cid)] = np.flatnonzero(mask)
        return out, spaces

    def spill_mask(self, key: Key) -> np.ndarray:
        """Where the pieces of ``key`` can change the board's pixels: a route's spaces with room
        for crooked trains and their shadows, or a city's spot with a station beside it."""
        ww, wh = self.size
        mask = np.zeros((wh, ww), np.uint8)
        kind, key_id = key
        if kind == "route":
            for s in self.geometry.routes[key_id].spaces:
                box = cv2.boxPoints(
                    ((s.x * ww, s.y * wh + 0.4), (s.w * ww * 1.35, s.h * wh * 2.0), s.angle)
                )
                cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 1)
        else:
            c = self.geometry.cities[key_id]
            r = max(2, round(1.1 * max(c.w * ww, c.h * wh)))
            cv2.circle(mask, (round(c.x * ww), round(c.y * wh)), r, 1, -1)
        return np.asarray(cv2.dilate(mask, np.ones((3, 3), np.uint8))) > 0

    def _neighbours(self) -> dict[Key, list[Key]]:
        """For every route and city, the other routes and cities whose pixels its pieces can
        change (a crooked train's end over a city spot, a station's shadow over a track)."""
        keys = list(self.key_idx)
        ww = self.size[0]
        rows = {k: (int(v.min()) // ww, int(v.max()) // ww) for k, v in self.key_idx.items()}
        out: dict[Key, list[Key]] = {}
        for key in keys:
            spill = self.spill_mask(key)
            ys = np.flatnonzero(spill.any(axis=1))
            if not ys.size:
                continue
            y0, y1 = int(ys[0]), int(ys[-1])
            flat = spill.reshape(-1)
            out[key] = [
                other
                for other in keys
                if other != key
                and rows[other][1] >= y0
                and rows[other][0] <= y1
                and bool(flat[self.key_idx[other]].any())
            ]
        return out

    def _piece_zone(self) -> np.ndarray:
        """Where pieces can appear: every route space (with room for crooked trains and their
        shadows) and every city spot."""
        ww, wh = self.size
        mask = np.zeros((wh, ww), np.uint8)
        for info in self.geometry.routes.values():
            for s in info.spaces:
                box = cv2.boxPoints(
                    ((s.x * ww, s.y * wh + 0.4), (s.w * ww * 1.35, s.h * wh * 2.0), s.angle)
                )
                cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 1)
        for c in self.geometry.cities.values():
            r = max(2, round(1.1 * max(c.w * ww, c.h * wh)))
            cv2.circle(mask, (round(c.x * ww), round(c.y * wh)), r, 1, -1)
        grown = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        out: np.ndarray = np.asarray(grown) > 0
        return out

    def level(self, gray: np.ndarray) -> float:
        """The board's brightness in a work picture (grey): the median of its paper away from
        the route spaces and city spots, which no piece ever changes (a light does)."""
        return float(np.median(gray.reshape(-1)[self.paper]))

    def warp(self, image: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """The board, downscaled and warped to the work size (float32 BGR, lightly blurred)."""
        ww, wh = self.size
        span = float(np.linalg.norm(corners[1] - corners[0]))
        f = max(1, int(span / (1.5 * ww)))
        img = image
        c = corners
        if f > 1:
            h, w = image.shape[:2]
            img = cv2.resize(image, (w // f, h // f), interpolation=cv2.INTER_AREA)
            c = corners / f
        dst = np.array([[0, 0], [ww, 0], [ww, wh], [0, wh]], np.float32)
        M = cv2.getPerspectiveTransform(c.astype(np.float32), dst)
        warped = cv2.warpPerspective(
            img, M, (ww, wh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        if self.config.work_blur > 0:
            warped = cv2.GaussianBlur(warped, (0, 0), self.config.work_blur)
        return np.asarray(warped)

    def _gray(self, image: np.ndarray, corners: np.ndarray) -> np.ndarray:
        small_u8 = np.clip(self.warp(image, corners), 0, 255).astype(np.uint8)
        return np.asarray(cv2.cvtColor(small_u8, cv2.COLOR_BGR2GRAY), np.float32)

    def register(
        self, image: np.ndarray, corners: np.ndarray, ref_gray: np.ndarray | None
    ) -> np.ndarray:
        """Corners found again (a few pixels off, as any locate is) moved so that the board
        lies where it lay in the reference: the shift between the two board pictures (phase
        correlation, sub-pixel) is taken back into the frame. Without it, the clean-board
        reference would differ from every new frame along every printed line."""
        if ref_gray is None:
            return corners
        ww, wh = self.size
        gray = self._gray(image, corners)
        (dx, dy), response = cv2.phaseCorrelate(ref_gray.astype(np.float32), gray)
        if response < self.config.register_response or max(abs(dx), abs(dy)) > 0.05 * ww:
            return corners
        dst = np.array([[0, 0], [ww, 0], [ww, wh], [0, wh]], np.float32)
        back = cv2.getPerspectiveTransform(dst, corners.astype(np.float32))
        moved = cv2.perspectiveTransform((dst + np.array([dx, dy], np.float32))[None], back)[0]
        moved = np.asarray(moved, np.float64)
        return self.refine(image, moved, ref_gray)

    def refine(self, image: np.ndarray, corners: np.ndarray, ref_gray: np.ndarray) -> np.ndarray:
        """Corners aligned to the reference beyond a shift: the homography between the two
        board pictures (ECC, started from identity) taken back into the frame. A locate is a
        pixel or two off in scale and turn too, and the reader reads the spaces' boxes at
        their nominal place: a printed box read a fifth of its width off looks like a piece
        (its outline on one side). Kept only when it converges to a small correction."""
        cfg = self.config
        ww, wh = self.size
        gray = self._gray(image, corners)
        warp: Any = np.eye(3, dtype=np.float32)
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, cfg.refine_iterations, 1e-4)
        try:
            _, warp = cv2.findTransformECC(
                ref_gray.astype(np.float32),
                gray,
                warp,
                cv2.MOTION_HOMOGRAPHY,
                criteria,
                np.full(gray.shape, 255, np.uint8),
                3,
            )
        except cv2.error:
            return corners
        dst = np.array([[0, 0], [ww, 0], [ww, wh], [0, wh]], np.float32)
        seen = cv2.perspectiveTransform(dst[None], np.asarray(warp, np.float64))[0]
        if not np.all(np.isfinite(seen)) or float(np.abs(seen - dst).max()) > cfg.refine_max:
            return corners
        back = cv2.getPerspectiveTransform(dst, corners.astype(np.float32))
        out = cv2.perspectiveTransform(seen[None].astype(np.float32), back)[0]
        return np.asarray(out, np.float64)


class Patches:
    """Per route and city, its pixels in the work picture when its state was last reported, and
    the board's brightness then (``level``: the work picture's median grey): what a later change
    is measured against (the evidence that pieces were put down), with the room's light taken
    out (a lamp switched off darkens every route; it puts no piece down)."""

    def __init__(
        self, key_idx: dict[Key, np.ndarray], spaces: dict[Key, np.ndarray] | None = None
    ) -> None:
        self.key_idx = key_idx
        self.spaces = spaces or {}  # per route, the space of each of its pixels
        self.seen: dict[Key, np.ndarray] = {}
        self.levels: dict[Key, float] = {}

    def adopt(self, flat: np.ndarray, level: float, *, first: bool) -> None:
        """Take ``flat`` (the work picture, (n, 3)) for every key (``first``) or the new ones."""
        for key, idx in self.key_idx.items():
            if first or key not in self.seen:
                self.seen[key] = flat[idx].copy()
                self.levels[key] = level

    def take(self, key: Key, flat: np.ndarray, level: float) -> bool:
        """Take the present look of ``key`` as its reference (False: no pixels of its own)."""
        idx = self.key_idx.get(key)
        if idx is None:
            return False
        self.seen[key] = flat[idx].copy()
        self.levels[key] = level
        return True

    def evidence(self, key: Key, flat: np.ndarray, level: float, pixel: float) -> float:
        """Share of the route's spaces (or the city's spot) that changed (by more than
        ``pixel``) since its state was last reported, the board's brightness then scaled to
        ``level`` (now's): pieces put down change most of it, a neighbour's crooked train a
        bit, a change of the room's light nothing."""
        pair = self._now_and_before(key, flat)
        if pair is None:
            return 1.0
        now, before = pair
        gain = min(2.0, max(0.5, level / max(1.0, self.levels.get(key, level))))
        return _share_changed(now, before * gain, pixel)

    def residue(self, key: Key, flat: np.ndarray, pixel: float) -> float:
        """Share of ``key``'s pixels that changed (by more than ``pixel``) since its state was
        last reported even once each of its spaces' own brightness, per colour channel, is
        taken out: what a light leaves is explained by such a factor (a lamp, a gradient over
        the board, a warmer or colder light), trains put down on the print are not (their
        shape, their shading, the printed outline they hide)."""
        pair = self._now_and_before(key, flat)
        if pair is None:
            return 1.0
        now, before = pair
        space = self.spaces.get(key)
        if space is None:
            space = np.zeros(len(now), np.intp)
        n = int(space.max()) + 1
        gain = np.ones((n, 3), np.float64)
        for c in range(3):
            num = np.bincount(space, now[:, c] * before[:, c], n)
            den = np.bincount(space, before[:, c] * before[:, c], n)
            np.divide(num, den, out=gain[:, c], where=den > 1e-6)
        return _share_changed(now, before * gain[space], pixel)

    def _now_and_before(self, key: Key, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``key``'s pixels in ``flat`` and as last reported (None: no pixels or no report)."""
        idx = self.key_idx.get(key)
        before = self.seen.get(key)
        if idx is None or before is None:
            return None
        return flat[idx], before


def _share_changed(now: np.ndarray, expected: np.ndarray, pixel: float) -> float:
    """Share of the pixels (rows of ``now``) off ``expected`` by more than ``pixel`` in any
    channel."""
    diff = np.abs(now - expected).max(axis=1)
    return int(np.count_nonzero(diff > pixel)) / max(1, int(diff.size))
