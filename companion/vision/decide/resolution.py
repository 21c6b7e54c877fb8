"""How much of the board a picture resolves, and what a reading cannot settle below that.

Two figures per picture: ``space_px``, the median length of a train space in picture pixels
(from the board's place in the picture), and ``blur``, the width of the picture's edges in
picture pixels (a Gaussian's sigma, measured on the sampled space patches themselves: squared
gradients along the track fall by a known factor when a known blur is added, and that factor
gives the blur already there). Both are in the pixels of the picture as read: a phone photo
decoded at half its size (``decode.py``) shows half the pixels per space and half the blur.
What blur takes from a reading is how much of a train space it smears, so it is judged as
``blur_share``, the edges' width as a share of a space's length: the same figure at any decode
scale. The ``effective`` figure (``space_px`` divided by how much more of a space the edges
smear than ``sharp_share``) is what the reader is given to work with.

Below ``min_space_px`` (``data/vision_resolution.json``) a reading says so (problem
``low-resolution`` with the figures) and lists every route whose colour the picture cannot
settle: the routes read in one of the colours that merge at that size (``merging``) and the
routes printed in a player's colour read free or as that colour (the plastic's relief, what
tells a train from its own print, is lost first).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import cv2
import numpy as np

from companion.data import load_json
from companion.vision.types import PLAYER_COLORS

_SIGMA = 1.0  # the blur added to measure the blur already there (patch pixels)


@cache
def resolution_config() -> dict[str, Any]:
    data: dict[str, Any] = load_json("vision_resolution.json")["resolution"]
    return data


@dataclass(frozen=True)
class Resolution:
    """What a picture resolves of the board."""

    space_px: float  # median length of a train space, picture pixels
    blur: float  # edge width (Gaussian sigma), picture pixels

    @property
    def blur_share(self) -> float:
        """The edges' width as a share of a train space's length (the same at any scale)."""
        return self.blur / max(self.space_px, 1e-9)

    @property
    def effective(self) -> float:
        """``space_px`` as a sharp picture would need to resolve as much."""
        sharp = float(resolution_config()["sharp_share"])
        return self.space_px / max(1.0, self.blur_share / sharp)

    def too_low(self) -> bool:
        return self.effective < float(resolution_config()["min_space_px"])


def patch_blur(spaces_l: Any) -> float:
    """Edge width (Gaussian sigma) of the space patches along the track, in patch pixels:
    ``spaces_l`` is (n, ny, nx) lightness. For an edge blurred by s, the mean squared gradient
    goes as 1/s; blurring by 1 more makes it 1/sqrt(s^2 + 1): their ratio gives s."""
    a = np.asarray(spaces_l, dtype=np.float32)
    flat = a.reshape(-1, a.shape[-1])
    k = cv2.getGaussianKernel(7, _SIGMA).astype(np.float32)
    one = np.ones((1, 1), np.float32)
    smooth = cv2.sepFilter2D(flat, cv2.CV_32F, k, one, borderType=cv2.BORDER_REFLECT)
    g0 = np.diff(flat[:, 2:-2], axis=1)
    g1 = np.diff(smooth[:, 2:-2], axis=1)
    e0, e1 = float(np.mean(g0 * g0)), float(np.mean(g1 * g1))
    ratio = e0 / max(e1, 1e-9)
    if ratio <= 1.0 + 1e-6:
        return float("inf")
    return float(np.sqrt(1.0 / (ratio * ratio - 1.0)))


def measure(space_px: float, spaces_l: Any, patch_along: int) -> Resolution:
    """The picture's resolution from its space length (picture pixels) and its space patches
    (``patch_along`` patch pixels cover 1.5 space lengths, as the reading grids lay them)."""
    picture_per_patch = space_px * 1.5 / max(1, patch_along - 1)
    # a patch pixel cannot show an edge narrower than itself: the blur seen in patch pixels
    # is at least the sampling's; in picture pixels that is what the picture resolves
    blur = patch_blur(spaces_l) * max(picture_per_patch, 1.0)
    return Resolution(space_px=float(space_px), blur=float(blur))


def unsettled(
    routes: dict[str, str | None], printed: dict[str, str], cfg: dict[str, Any] | None = None
) -> list[str]:
    """Routes whose colour a picture below the needed resolution cannot settle (in ``routes``
    order): read in a colour that merges with another at that size, or printed in a player's
    colour and read free or as that colour."""
    c = cfg if cfg is not None else resolution_config()
    merging = set(c["merging"])
    out = []
    for rid, got in routes.items():
        p = printed.get(rid)
        own = p in PLAYER_COLORS and got in (None, p)
        if got in merging or own:
            out.append(rid)
    return out


def low_resolution_problem(res: Resolution, ids: list[str]) -> dict[str, Any]:
    """The ``problems`` entry of a reading below the needed resolution."""
    need = float(resolution_config()["min_space_px"])
    eff = res.effective
    return {
        "ids": list(ids),
        "code": "low-resolution",
        "color": None,
        "count": round(eff),
        "space_px": round(res.space_px, 1),
        "blur": round(res.blur, 2),
        "blur_share": round(res.blur_share, 4),
        "needed": need,
        "text": (
            f"the picture shows a train space {eff:.0f} px long (needed: {need:.0f}); "
            "take the photo closer"
        ),
    }
