"""Hands, arms and shadows over the board in a rendered camera frame: an arm's shape drawn on
a small canvas and composited, upscaled, into the frame (``render.BoardRenderer`` places them)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.sim.render_art import fix

Color = tuple[int, int, int]
SHIFT = 4  # sub-pixel precision of cv2 drawing calls (as render_art's)
ONE = 1 << SHIFT


@dataclass(frozen=True)
class Hand:
    """A hand and forearm reaching over the board.

    ``target`` is where the fingertips point, in board fractions (x, y). ``edge`` is the side of the
    picture the arm comes from; ``reach`` 0 keeps the hand just out of view and 1 puts the
    fingertips on the target. ``skin`` and ``sleeve`` index the palettes of render.json
    (sleeve None: bare forearm). ``spread`` shifts the arm's entry point along its edge
    (a fraction of the frame).
    """

    target: tuple[float, float]
    edge: str = "bottom"
    reach: float = 1.0
    skin: int = 0
    sleeve: int | None = 0
    spread: float = 0.0
    shadow: float = 1.0


def composite(
    frame: np.ndarray,
    scale: int,
    shadow: np.ndarray,
    layers: list[tuple[np.ndarray, Color]],
    unit: float,
) -> None:
    """Darken ``frame`` under the small-canvas ``shadow`` then paint the ``layers``
    (alpha, colour) over it, all upscaled by ``scale``, within their bounding box only."""
    fh, fw = frame.shape[:2]
    occupied = shadow > 0.01
    for a, _ in layers:
        occupied |= a > 0.004
    if not occupied.any():
        return
    sh, sw = shadow.shape
    ys, xs = np.nonzero(occupied)
    x0, x1 = max(0, int(xs.min()) - 2), min(sw, int(xs.max()) + 3)
    y0, y1 = max(0, int(ys.min()) - 2), min(sh, int(ys.max()) + 3)
    X0, X1 = x0 * scale, min(fw, x1 * scale)
    Y0, Y1 = y0 * scale, min(fh, y1 * scale)
    size = (X1 - X0, Y1 - Y0)

    def up(a: np.ndarray) -> np.ndarray:
        out: np.ndarray = cv2.resize(a[y0:y1, x0:x1], size, interpolation=cv2.INTER_LINEAR)
        return out

    roi = frame[Y0:Y1, X0:X1]
    s = np.clip(up(shadow), 0.0, 0.9)
    black = np.zeros_like(roi)
    roi[:] = cv2.blendLinear(roi, black, 1.0 - s, s)
    if not layers:
        return
    body = layers[0][0].copy()
    for a, _ in layers[1:]:
        body += a
    # rounder look: brighter along the middle of the arm, darker at its sides
    thick = cv2.GaussianBlur(body[y0:y1, x0:x1], (0, 0), max(0.5, 0.03 * unit))
    shade = cv2.resize(0.55 + 0.6 * np.clip(thick, 0, 1), size, interpolation=cv2.INTER_LINEAR)
    for a_small, colour in layers:
        a = np.clip(up(a_small), 0.0, 1.0)
        if not (a > 0.004).any():
            continue
        paint = cv2.merge([np.clip(shade * float(c), 0, 255).astype(np.uint8) for c in colour])
        roi[:] = cv2.blendLinear(roi, paint, 1.0 - a, a)


def hand_shape(
    skin_m: np.ndarray,
    sleeve_m: np.ndarray,
    hand: Hand,
    target: tuple[float, float],
    unit: float,
    size: tuple[int, int],
    cfg: Mapping[str, Any],
) -> None:
    """Draw a forearm (sleeve), wrist, palm, four fingers and a thumb, anti-aliased."""
    sw, sh = size
    tx, ty = target
    if hand.edge == "bottom":
        ex, ey = tx + hand.spread * sw, float(sh)
    elif hand.edge == "top":
        ex, ey = tx + hand.spread * sw, 0.0
    elif hand.edge == "left":
        ex, ey = 0.0, ty + hand.spread * sh
    else:
        ex, ey = float(sw), ty + hand.spread * sh
    dx, dy = tx - ex, ty - ey
    dist = math.hypot(dx, dy)
    if dist < 1e-6:
        dx, dy, dist = 0.0, -1.0, 1.0
    ux, uy = dx / dist, dy / dist
    vx, vy = -uy, ux
    finger = float(cfg["finger_length"]) * unit
    palm = float(cfg["palm_length"]) * unit
    hand_len = finger + palm
    reach = min(1.0, max(0.0, hand.reach))
    travel = reach * (dist + hand_len) - hand_len
    px, py = ex + ux * travel, ey + uy * travel  # fingertips
    wx, wy = px - ux * hand_len, py - uy * hand_len  # wrist
    arm_w = float(cfg["arm_width"]) * unit
    far = 2.0 * (sw + sh)
    sleeve_at = float(cfg["sleeve_start"]) * unit
    sx, sy = wx - ux * sleeve_at, wy - uy * sleeve_at
    aa = cv2.LINE_AA

    def pt(x: float, y: float) -> tuple[int, int]:
        return (round(x * ONE), round(y * ONE))

    def poly(canvas: np.ndarray, pts: list[tuple[float, float]]) -> None:
        cv2.fillPoly(canvas, [fix(np.array(pts))], 255, aa, SHIFT)

    # forearm: a slightly widening band from the wrist back out of the picture
    hw0, hw1 = 0.45 * arm_w, 0.62 * arm_w
    fx, fy = wx - ux * far, wy - uy * far
    poly(
        sleeve_m,
        [
            (sx + vx * hw0 * 1.12, sy + vy * hw0 * 1.12),
            (fx + vx * hw1 * 1.12, fy + vy * hw1 * 1.12),
            (fx - vx * hw1 * 1.12, fy - vy * hw1 * 1.12),
            (sx - vx * hw0 * 1.12, sy - vy * hw0 * 1.12),
        ],
    )
    poly(
        skin_m,
        [
            (wx + vx * hw0 * 0.9, wy + vy * hw0 * 0.9),
            (sx + vx * hw0, sy + vy * hw0),
            (sx - vx * hw0, sy - vy * hw0),
            (wx - vx * hw0 * 0.9, wy - vy * hw0 * 0.9),
        ],
    )
    cx, cy = wx + ux * palm * 0.5, wy + uy * palm * 0.5
    ang = math.degrees(math.atan2(uy, ux))
    axes = (round(palm * 0.58 * ONE), round(arm_w * 0.6 * ONE))
    cv2.ellipse(skin_m, pt(cx, cy), axes, ang, 0, 360, 255, -1, aa, SHIFT)
    fw_ = max(1, round(arm_w * 0.2))
    for k, off in enumerate((-0.36, -0.12, 0.12, 0.36)):
        bx = wx + ux * palm * 0.85 + vx * off * arm_w
        by = wy + uy * palm * 0.85 + vy * off * arm_w
        ln = finger * (0.8 if k in (0, 3) else 1.0)
        turn = off * 0.35
        fdx = ux * math.cos(turn) - uy * math.sin(turn)
        fdy = ux * math.sin(turn) + uy * math.cos(turn)
        cv2.line(skin_m, pt(bx, by), pt(bx + fdx * ln, by + fdy * ln), 255, fw_, aa, SHIFT)
    # the thumb, off to one side
    tbx = wx + ux * palm * 0.3 + vx * 0.45 * arm_w
    tby = wy + uy * palm * 0.3 + vy * 0.45 * arm_w
    th = 0.8
    tdx = ux * math.cos(th) - uy * math.sin(th)
    tdy = ux * math.sin(th) + uy * math.cos(th)
    tl = finger * 0.8
    cv2.line(
        skin_m,
        pt(tbx, tby),
        pt(tbx + tdx * tl, tby + tdy * tl),
        255,
        max(1, round(fw_ * 1.25)),
        aa,
        SHIFT,
    )
