"""Board geometry: where every train space and city spot sits on the printed Europe board.

The facts live in ``companion/data/europe_board.json`` (boxes as fractions of the board's width and
height) and ``companion/data/europe.json`` (each route's printed colour, length, ferry/tunnel).

Coordinates: a *board point* is ``(u, v)`` with ``u`` the fraction of the board's width from its
left edge and ``v`` the fraction of its height from the top edge (the board is 1.5 times wider than
high). A homography maps board points to image pixels. Space boxes are rotated rectangles in an
isotropic frame (``u * aspect, v``) so that their angles are true angles on the board.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SpaceBox:
    """One train space: centre (u, v), size (length along the track, width across), angle."""

    u: float
    v: float
    length: float  # fraction of board width
    width: float  # fraction of board height
    angle: float  # degrees, clockwise in image coordinates


@dataclass(frozen=True)
class CitySpot:
    u: float
    v: float
    w: float
    h: float


@dataclass(frozen=True)
class RouteInfo:
    id: str
    a: str
    b: str
    color: str  # printed colour: pink blue orange white green yellow black red grey
    length: int
    tunnel: bool
    locomotives: int


@dataclass(frozen=True)
class SamplingGeometry:
    """Every space box and city spot in the order the samplers lay their grids (routes sorted by
    id), in board points (u, v): what reading and locating sample through a homography. The
    live watcher and the simulator look at the board route by route instead (``board.DrawnBoard``).
    """

    aspect: float
    route_ids: tuple[str, ...]
    routes: dict[str, RouteInfo]
    spaces: dict[str, tuple[SpaceBox, ...]]
    city_ids: tuple[str, ...]
    cities: dict[str, CitySpot]

    @property
    def n_spaces(self) -> int:
        return sum(len(s) for s in self.spaces.values())

    def space_index(self) -> list[tuple[str, int]]:
        """(route id, space number) for every space, in the order the samplers use."""
        return [(rid, i) for rid in self.route_ids for i in range(len(self.spaces[rid]))]

    def space_printed_colors(self) -> list[str]:
        return [self.routes[rid].color for rid, _ in self.space_index()]

    def space_boxes(self) -> list[SpaceBox]:
        return [b for rid in self.route_ids for b in self.spaces[rid]]


def _load_json(name: str) -> Any:
    text = resources.files("companion.data").joinpath(name).read_text(encoding="utf-8")
    return json.loads(text)


@cache
def load_geometry() -> SamplingGeometry:
    """The Europe board's geometry (cached; the object is immutable)."""
    board = _load_json("europe_board.json")
    facts = _load_json("europe.json")
    aspect = float(board["frame"]["aspect"])
    routes: dict[str, RouteInfo] = {}
    for r in facts["routes"]:
        routes[r["id"]] = RouteInfo(
            id=r["id"],
            a=r["a"],
            b=r["b"],
            color=r["color"],
            length=int(r["length"]),
            tunnel=bool(r["tunnel"]),
            locomotives=int(r["locomotives"]),
        )
    spaces: dict[str, tuple[SpaceBox, ...]] = {}
    for rid, boxes in board["routes"].items():
        spaces[rid] = tuple(
            SpaceBox(
                u=float(b["x"]),
                v=float(b["y"]),
                length=float(b["w"]),
                width=float(b["h"]),
                angle=float(b["angle"]),
            )
            for b in boxes
        )
    missing = sorted(set(routes) - set(spaces))
    if missing:
        raise ValueError(f"europe_board.json has no spaces for {', '.join(missing)}")
    cities = {
        cid: CitySpot(u=float(c["x"]), v=float(c["y"]), w=float(c["w"]), h=float(c["h"]))
        for cid, c in board["cities"].items()
    }
    city_ids = tuple(c["id"] for c in facts["cities"])
    return SamplingGeometry(
        aspect=aspect,
        route_ids=tuple(sorted(routes)),
        routes=routes,
        spaces=spaces,
        city_ids=city_ids,
        cities=cities,
    )


def space_grid(
    geometry: SamplingGeometry, nx: int, ny: int, scale_len: float = 1.0, scale_wid: float = 1.0
) -> FloatArray:
    """Sample points inside every space box, in board points.

    Returns an array of shape (n_spaces, ny, nx, 2): ``nx`` points along the track and ``ny``
    across, covering the box scaled by ``scale_len`` / ``scale_wid`` about its centre.
    """
    boxes = geometry.space_boxes()
    a = geometry.aspect
    cu = np.array([b.u * a for b in boxes])
    cv = np.array([b.v for b in boxes])
    half_l = np.array([b.length * a for b in boxes]) * scale_len / 2
    half_w = np.array([b.width for b in boxes]) * scale_wid / 2
    th = np.radians([b.angle for b in boxes])
    ct, st = np.cos(th), np.sin(th)
    s = (np.arange(nx) + 0.5) / nx * 2 - 1  # -1..1 along
    t = (np.arange(ny) + 0.5) / ny * 2 - 1  # -1..1 across
    ss, tt = np.meshgrid(s, t)  # (ny, nx)
    dl = ss[None] * half_l[:, None, None]
    dw = tt[None] * half_w[:, None, None]
    x = cu[:, None, None] + dl * ct[:, None, None] - dw * st[:, None, None]
    y = cv[:, None, None] + dl * st[:, None, None] + dw * ct[:, None, None]
    return np.stack([x / a, y], axis=-1)


def city_grid(geometry: SamplingGeometry, n: int, scale: float = 1.0) -> FloatArray:
    """Sample points (n x n) over every city spot's box; shape (n_cities, n, n, 2)."""
    spots = [geometry.cities[c] for c in geometry.city_ids]
    cu = np.array([c.u for c in spots])
    cv = np.array([c.v for c in spots])
    hw = np.array([c.w for c in spots]) * scale / 2
    hh = np.array([c.h for c in spots]) * scale / 2
    s = (np.arange(n) + 0.5) / n * 2 - 1
    ss, tt = np.meshgrid(s, s)
    x = cu[:, None, None] + ss[None] * hw[:, None, None]
    y = cv[:, None, None] + tt[None] * hh[:, None, None]
    return np.stack([x, y], axis=-1)


def project(h: FloatArray, pts: FloatArray) -> FloatArray:
    """Apply a 3x3 homography to board points of any leading shape (..., 2)."""
    flat = np.ascontiguousarray(pts, dtype=np.float64).reshape(-1, 1, 2)
    out = cv2.perspectiveTransform(flat, np.asarray(h, dtype=np.float64))
    return np.asarray(out, dtype=np.float64).reshape(pts.shape)


def corners_homography(corners: FloatArray) -> FloatArray:
    """Homography from board points to the image, given the board's 4 image corners TL TR BR BL."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    dst = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)


def homography_corners(h: FloatArray) -> FloatArray:
    """The image corners (TL TR BR BL) of the board under homography ``h``."""
    return project(h, np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))


def board_pixels_per_unit(h: FloatArray) -> float:
    """Rough size of the board in the image: mean length of its top and left edges in pixels
    per board-height unit (useful to choose sampling resolution)."""
    c = homography_corners(h)
    top = float(np.hypot(*(c[1] - c[0])))
    left = float(np.hypot(*(c[3] - c[0])))
    return max(1.0, (top / 1.5 + left) / 2)


def rotate_corners(corners: FloatArray, quarter_turns: int) -> FloatArray:
    """Reorder a quad's corners so the board is taken as turned by ``quarter_turns`` * 90°."""
    k = quarter_turns % 4
    return np.roll(np.asarray(corners, dtype=np.float64).reshape(4, 2), -k, axis=0)


def angle_deg(h: FloatArray) -> float:
    """In-image rotation of the board's top edge (degrees)."""
    c = homography_corners(h)
    d = c[1] - c[0]
    return math.degrees(math.atan2(d[1], d[0]))
