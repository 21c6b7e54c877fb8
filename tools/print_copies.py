"""Other printed copies of the Europe board, for the renderer (test material only).

A board from another print run or another printer shows the same map in other inks: paler,
warmer, more saturated. ``copy_config(name)`` gives the renderer's configuration
(``companion/data/render.json``) with its printed space colours (fill, rim, mark) moved in
CIE Lab as that copy would have them; the paper stays (the tone map sets the paper, not the
inks). The vision reader is never fitted on these: they are held out to measure it.

    from companion.sim.render import BoardRenderer
    BoardRenderer(config=copy_config("warmer")).render_board(scene, 2000)
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from companion.sim.render import load_render_config

Lab = np.ndarray


def _paler(lab: Lab) -> Lab:
    out = lab.copy()
    out[0] = out[0] + 0.35 * (100.0 - out[0])
    out[1:] *= 0.7
    return out


def _warmer(by_a: float, by_b: float) -> Callable[[Lab], Lab]:
    """Inks moved toward red (a*) and yellow (b*)."""

    def change(lab: Lab) -> Lab:
        out = lab.copy()
        out[1] += by_a
        out[2] += by_b
        return out

    return change


def _saturated(times: float, toward_mid: float = 0.0) -> Callable[[Lab], Lab]:
    """Chroma ``times`` as strong, the lightness moved ``toward_mid`` of its way to L* 50."""

    def change(lab: Lab) -> Lab:
        out = lab.copy()
        out[1:] *= times
        out[0] = out[0] - toward_mid * (out[0] - 50.0)
        return out

    return change


def _darker(lab: Lab) -> Lab:
    out = lab.copy()
    out[0] *= 0.85
    return out


COPIES: dict[str, Callable[[Lab], Lab]] = {
    "much warmer": _warmer(10.0, 22.0),
    "much more saturated": _saturated(1.6),
    "paler": _paler,
    "warmer": _warmer(6.0, 12.0),
    "more saturated": _saturated(1.3, toward_mid=0.08),
    "darker": _darker,
}


def _move(bgr: list[int], change: Callable[[Lab], Lab]) -> list[int]:
    px = np.array([[bgr]], np.uint8).astype(np.float32) / 255.0
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)
    moved = change(lab)
    moved[0] = np.clip(moved[0], 0.0, 100.0)
    back = cv2.cvtColor(np.array([[moved]], np.float32), cv2.COLOR_LAB2BGR)[0, 0]
    return [round(float(np.clip(v, 0.0, 1.0)) * 255) for v in back]


def copy_config(name: str, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The renderer's configuration for the copy ``name`` (one of ``COPIES``)."""
    cfg = copy.deepcopy(base if base is not None else load_render_config())
    change = COPIES[name]
    for inks in cfg["printed"].values():
        for part in ("fill", "rim", "mark"):
            inks[part] = _move(inks[part], change)
    return cfg
