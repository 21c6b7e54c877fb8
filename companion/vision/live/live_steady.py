"""Is the board still, and is anything over it? The live watcher's two questions per frame,
asked of its small work pictures (see ``live_board.WorkBoard``)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.live.live_events import LiveConfig

_SKIN_LO = np.array([0, 138, 80], np.uint8)  # YCrCb
_SKIN_HI = np.array([255, 180, 130], np.uint8)


def motion(gray: np.ndarray, prev: np.ndarray | None, config: LiveConfig) -> float:
    """Share of the work picture that changed since the previous frame (1.0 with none)."""
    if prev is None:
        return 1.0
    gain = float(np.median(gray[::4, ::4])) / max(1.0, float(np.median(prev[::4, ::4])))
    gain = min(2.0, max(0.5, gain))
    diff = np.abs(gray - prev * gain)
    return float(np.count_nonzero(diff > config.motion_threshold)) / diff.size


def occlusion(
    small: np.ndarray,
    gray: np.ndarray,
    small_u8: np.ndarray,
    ref: np.ndarray,
    ref_gray: np.ndarray,
    zone: np.ndarray,
    cfg: LiveConfig,
) -> tuple[bool, float, str]:
    """Is something over the board, compared with the last clean picture (``ref``)? ``zone``:
    where pieces can appear. Returns (occluded, changed share, reason)."""
    gain = float(np.median(gray[::4, ::4])) / max(1.0, float(np.median(ref_gray[::4, ::4])))
    gain = min(2.0, max(0.5, gain))
    diff = np.abs(small - ref * gain).max(axis=2)
    mask = (diff > cfg.diff_threshold).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    wh, ww = mask.shape
    total = float(ww * wh)
    area = float(np.count_nonzero(mask)) / total
    if area > 0.0:
        # pieces only go down on route spaces and city spots: change elsewhere is foreign
        foreign = (mask > 0) & ~zone
        nf = int(np.count_nonzero(foreign))
        if nf:
            f8 = foreign.astype(np.uint8)
            n, _, stats, _ = cv2.connectedComponentsWithStats(f8, connectivity=8)
            m = cfg.edge_margin
            mx, my = m * ww, m * wh
            for i in range(1, n):
                x, y, w, h, a = (int(v) for v in stats[i])
                if a / total > cfg.edge_blob_area and (
                    x <= mx or y <= my or x + w >= ww - mx or y + h >= wh - my
                ):
                    return True, area, "arm at the edge"
        if nf / total > cfg.foreign_area:
            return True, area, "something over the board"
        if nf / total > cfg.foreign_skin_area:
            skin = new_skin(small, ref, small_u8, cfg)
            if np.count_nonzero(skin & foreign) / nf > cfg.skin_share:
                return True, area, "hand"
        if area > cfg.max_change_area:
            return True, area, "large change"
    # shadows: a broad darkening
    soft = cv2.GaussianBlur(gray, (0, 0), 3.0)
    soft_ref = cv2.GaussianBlur(ref_gray, (0, 0), 3.0) * gain
    dark = soft < soft_ref * cfg.shadow_ratio
    if float(np.count_nonzero(dark)) / total > cfg.shadow_area:
        return True, area, "shadow"
    return False, area, ""


def new_skin(
    small: np.ndarray, ref: np.ndarray, small_u8: np.ndarray, cfg: LiveConfig
) -> np.ndarray:
    """Skin-coloured pixels whose chromaticity changed since the reference.

    The tan parchment of the board is skin-coloured too, and darkening it (a piece's shadow)
    keeps its chromaticity: only a change of hue marks a hand."""
    ycc = cv2.cvtColor(small_u8, cv2.COLOR_BGR2YCrCb)
    skin = cv2.inRange(ycc, _SKIN_LO, _SKIN_HI) > 0
    now = small / (small.sum(axis=2, keepdims=True) + 1.0)
    before = ref / (ref.sum(axis=2, keepdims=True) + 1.0)
    shift = np.abs(now - before).max(axis=2)
    out: np.ndarray = skin & (shift > cfg.skin_chroma_shift)
    return out
