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


def _warmer(lab: Lab) -> Lab:
    out = lab.copy()
    out[1] += 6.0
    out[2] += 12.0
    return out


def _saturated(lab: Lab) -> Lab:
    out = lab.copy()
    out[1:] *= 1.3
    out[0] = out[0] - 0.08 * (out[0] - 50.0)
    return out


def _darker(lab: Lab) -> Lab:
    out = lab.copy()
    out[0] *= 0.85
    return out


def _much_saturated(lab: Lab) -> Lab:
    out = lab.copy()
    out[1:] *= 1.6
    return out


def _much_warmer(lab: Lab) -> Lab:
    out = lab.copy()
    out[1] += 10.0
    out[2] += 22.0
    return out


COPIES: dict[str, Callable[[Lab], Lab]] = {
    "much warmer": _much_warmer,
    "much more saturated": _much_saturated,
    "paler": _paler,
    "warmer": _warmer,
    "more saturated": _saturated,
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
