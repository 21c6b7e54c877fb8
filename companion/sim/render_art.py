"""The drawing behind ``render.BoardRenderer``: the printed board and the plastic pieces.

Nothing here is the publisher's art. The board is drawn from the route geometry
(``europe_board.json``) and the map facts (``europe.json``); what makes it look like a printed
board to the pixel reader are STATISTICS measured on photos of a real one (``tools/
render_stats.py``; numbers only, in ``data/render.json``):

* paper: sea and land tints, a mottled wash, fine print grain over a few scales and thin
  wandering dark lines (country borders);
* printed spaces: a dark outline, a paler inner rim, a grained fill in the route's colour and a
  small symbol in the middle; grey spaces carry a printed wagon (dark body, pale windows);
  tunnels a thick dashed black border, ferries a locomotive mark;
* plastic trains: 3-D boxes seen from above, a lit side and a shaded side, a groove panel on
  the top face, a specular streak along the lit edge, a soft cast shadow, slight offsets and
  turns, a plastic grain;
* stations: small houses, the roof's two faces lit differently, with a shadow.

Texture scales are given in "texture pixels": a board 700 pixels wide (about what the reader
samples), so the same board drawn at any size has the same statistics once reduced to it.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.vision.geometry.board import CityInfo, RouteInfo, Space

Color = tuple[int, int, int]

TEXTURE_WIDTH = 700.0  # board width (pixels) the texture scales refer to

_SHIFT = 4  # sub-pixel precision of cv2 drawing calls
_ONE = 1 << _SHIFT


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def stable_seed(*parts: object) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode("utf-8"))


def col(c: Sequence[float]) -> Color:
    return (int(c[0]), int(c[1]), int(c[2]))


def scaled(c: Sequence[float], k: float) -> Color:
    return (
        int(min(255, max(0, c[0] * k))),
        int(min(255, max(0, c[1] * k))),
        int(min(255, max(0, c[2] * k))),
    )


def lighter(c: Sequence[float], k: float) -> Color:
    return (
        int(min(255, c[0] + (255 - c[0]) * k)),
        int(min(255, c[1] + (255 - c[1]) * k)),
        int(min(255, c[2] + (255 - c[2]) * k)),
    )


def fix(pts: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(pts) * _ONE).astype(np.int32).reshape(-1, 1, 2)


def box(cx: float, cy: float, length: float, width: float, angle_deg: float) -> np.ndarray:
    """Corners of a rotated box: (start, -side), (end, -side), (end, +side), (start, +side)."""
    a = math.radians(angle_deg)
    ux, uy = math.cos(a), math.sin(a)
    vx, vy = -uy, ux
    hl, hw = length / 2, width / 2
    return np.array(
        [
            [cx - ux * hl - vx * hw, cy - uy * hl - vy * hw],
            [cx + ux * hl - vx * hw, cy + uy * hl - vy * hw],
            [cx + ux * hl + vx * hw, cy + uy * hl + vy * hw],
            [cx - ux * hl + vx * hw, cy - uy * hl + vy * hw],
        ]
    )


def smooth_field(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Smooth random values in 0..1 over ``shape`` (rows, cols) from a coarse grid of ``cells``."""
    h, w = shape
    gw = max(2, cells)
    gh = max(2, round(cells * h / max(w, 1)))
    coarse = rng.random((gh, gw)).astype(np.float32)
    f = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    f -= f.min()
    m = float(f.max())
    return f / m if m > 0 else f


def grain(
    rng: np.random.Generator,
    shape: tuple[int, int],
    octaves: Sequence[Sequence[float]],
    unit: float,
) -> np.ndarray:
    """Zero-mean noise (float32, ``shape``) summed over ``octaves`` of (cell size in texture
    pixels, standard deviation); ``unit``: image pixels per texture pixel."""
    h, w = shape
    out = np.zeros((h, w), np.float32)
    for cell_tex, amp in octaves:
        cell = max(1.0, float(cell_tex) * unit)
        gh, gw = max(2, math.ceil(h / cell) + 1), max(2, math.ceil(w / cell) + 1)
        coarse = rng.standard_normal((gh, gw)).astype(np.float32)
        if gh >= h and gw >= w:
            f = coarse[:h, :w]
        else:
            f = np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
        s = float(f.std())
        out += f * np.float32(float(amp) / max(s, 1e-6))
    return out


def _poly(img: np.ndarray, pts: np.ndarray, color: Any) -> None:
    cv2.fillPoly(img, [fix(pts)], color, cv2.LINE_AA, _SHIFT)


def _line(img: np.ndarray, pts: np.ndarray, color: Any, width: int, closed: bool = False) -> None:
    cv2.polylines(img, [fix(pts)], closed, color, max(1, int(width)), cv2.LINE_AA, _SHIFT)


def _inset(pts: np.ndarray, d_len: float, d_wid: float) -> np.ndarray:
    """A box (from ``box``) shrunk by ``d_len`` at each end and ``d_wid`` at each side."""
    p0, p1, _p2, p3 = pts
    u = p1 - p0
    u /= max(float(np.hypot(*u)), 1e-9)
    v = p3 - p0
    v /= max(float(np.hypot(*v)), 1e-9)
    sign_u = np.array([1, -1, -1, 1])[:, None]
    sign_v = np.array([1, 1, -1, -1])[:, None]
    out: np.ndarray = pts + sign_u * u * d_len + sign_v * v * d_wid
    return out


# --------------------------------------------------------------------------------------------
# The printed board
# --------------------------------------------------------------------------------------------


def _country_lines(
    img: np.ndarray, rng: np.random.Generator, cfg: Mapping[str, Any], unit: float
) -> None:
    """Thin wandering dark lines over the paper (country borders and coasts)."""
    H, W = img.shape[:2]
    color = col(cfg["color"])
    width = max(1, round(float(cfg["width"]) * unit))
    step = max(2.0, float(cfg["step"]) * unit)
    for _ in range(int(cfg["count"])):
        x, y = rng.uniform(0.04, 0.96) * W, rng.uniform(0.05, 0.95) * H
        heading = rng.uniform(0, 2 * math.pi)
        n = int(rng.uniform(0.5, 1.0) * float(cfg["length"]) * W / step)
        pts = []
        for _ in range(max(2, n)):
            pts.append((x + rng.normal(0, 0.35 * step), y + rng.normal(0, 0.35 * step)))
            heading += rng.normal(0, 0.45)
            x += math.cos(heading) * step
            y += math.sin(heading) * step
        _line(img, np.array(pts), color, width)


def _perimeter_point(d: float, W: int, H: int, b: int, edge: int) -> tuple[float, float]:
    m = (b + edge / 2) / 2
    top = W - 2 * m
    side = H - 2 * m
    if d < top:
        return m + d, m
    d -= top
    if d < side:
        return W - m, m + d
    d -= side
    if d < top:
        return W - m - d, H - m
    d -= top
    return m, H - m - min(d, side)


def _symbol(
    img: np.ndarray, kind: str, cx: float, cy: float, r: float, ang: float, c: Color
) -> None:
    """A small printed mark in the middle of a space (star, cross, plus, ring, dot, heart)."""
    a = math.radians(ang)
    mid = np.array([cx, cy])
    lw = max(1, round(r * 0.35))
    if kind == "star":
        pts = []
        for k in range(8):
            rad = r if k % 2 == 0 else 0.35 * r
            t = a + k * math.pi / 4
            pts.append((cx + rad * math.cos(t), cy + rad * math.sin(t)))
        _poly(img, np.array(pts), c)
    elif kind in ("cross", "plus"):
        off = math.pi / 4 if kind == "cross" else 0.0
        for t in (a + off, a + off + math.pi / 2):
            d = np.array([math.cos(t), math.sin(t)]) * r
            _line(img, np.array([mid - d, mid + d]), c, lw)
    elif kind == "ring":
        ctr = fix(np.array([[cx, cy]]))[0, 0]
        cv2.circle(img, (int(ctr[0]), int(ctr[1])), round(r * _ONE), c, lw, cv2.LINE_AA, _SHIFT)
    elif kind == "heart":
        for s in (-1, 1):
            p = np.array([cx, cy]) + s * 0.45 * r * np.array([-math.sin(a), math.cos(a)])
            q = fix(p[None])[0, 0]
            cv2.circle(
                img, (int(q[0]), int(q[1])), round(0.5 * r * _ONE), c, -1, cv2.LINE_AA, _SHIFT
            )
        tip = np.array([cx, cy]) + r * np.array([math.cos(a), math.sin(a)])
        side = 0.85 * r * np.array([-math.sin(a), math.cos(a)])
        _poly(img, np.array([mid + side, tip, mid - side]), c)
    else:  # dot
        ctr = fix(np.array([[cx, cy]]))[0, 0]
        cv2.circle(
            img, (int(ctr[0]), int(ctr[1])), round(0.6 * r * _ONE), c, -1, cv2.LINE_AA, _SHIFT
        )


def _wagon(img: np.ndarray, s: Space, W: int, H: int, cfg: Mapping[str, Any], rng: Any) -> None:
    """A printed wagon on a grey space: a dark body outline, pale windows, dark wheels."""
    L, Wd = s.w * W, s.h * H
    cx, cy = s.x * W, s.y * H
    dark = col(cfg["dark"])
    pale = col(cfg["pale"])
    body = box(cx, cy, 0.72 * L, 0.5 * Wd, s.angle)
    lw = max(1, round(0.07 * Wd))
    _poly(img, body, col(cfg["body"]))
    _line(img, body, dark, lw, closed=True)
    a = math.radians(s.angle)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-math.sin(a), math.cos(a)])
    n_win = int(rng.integers(2, 4))
    for k in range(n_win):
        t = (k + 0.5) / n_win - 0.5
        c = np.array([cx, cy]) + u * t * 0.6 * L - v * 0.04 * Wd
        _poly(img, box(float(c[0]), float(c[1]), 0.12 * L, 0.18 * Wd, s.angle), pale)
    for t in (-0.25, 0.25):
        c = np.array([cx, cy]) + u * t * L + v * 0.3 * Wd
        q = fix(c[None])[0, 0]
        cv2.circle(
            img, (int(q[0]), int(q[1])), round(0.09 * Wd * _ONE), dark, -1, cv2.LINE_AA, _SHIFT
        )


def _dashed(img: np.ndarray, pts: np.ndarray, color: Color, width: int, dash: float) -> None:
    """The closed outline ``pts`` in dashes of about ``dash`` pixels."""
    n = len(pts)
    for i in range(n):
        p, q = pts[i], pts[(i + 1) % n]
        length = float(np.hypot(*(q - p)))
        k = max(1, round(length / dash))
        for j in range(0, 2 * k, 2):
            a = p + (q - p) * (j / (2 * k))
            b = p + (q - p) * min(1.0, (j + 1.3) / (2 * k))
            _line(img, np.array([a, b]), color, width)


def _locomotive(img: np.ndarray, s: Space, W: int, H: int, color: Color) -> None:
    cx, cy = s.x * W, s.y * H
    r = 0.28 * s.h * H
    _poly(img, box(cx, cy, 1.6 * r, 1.0 * r, s.angle), color)
    a = math.radians(s.angle)
    fx, fy = cx + math.cos(a) * 0.9 * r, cy + math.sin(a) * 0.9 * r
    f = fix(np.array([[fx, fy]]))[0, 0]
    cv2.circle(
        img,
        (int(f[0]), int(f[1])),
        round(0.45 * r * _ONE),
        (235, 235, 235),
        -1,
        cv2.LINE_AA,
        _SHIFT,
    )


def draw_board(
    routes: Sequence[RouteInfo],
    cities: Sequence[CityInfo],
    cfg: Mapping[str, Any],
    width: int,
    height: int,
    seed: int,
) -> np.ndarray:
    """The empty printed board (BGR uint8, ``height`` x ``width``)."""
    W, H = int(width), int(height)
    unit = W / TEXTURE_WIDTH
    rng = np.random.default_rng(stable_seed("art", seed))
    board = cfg["board"]
    paper = board["paper"]
    land = np.array(paper["land"], dtype=np.float32)
    sea = np.array(paper["sea"], dtype=np.float32)
    # sea and land: a smooth field, the lowest share of it is sea, with a soft coast
    f = smooth_field(rng, (H, W), 7)
    thr = float(np.quantile(f[:: max(1, H // 64), :: max(1, W // 64)], paper["sea_share"]))
    sea_w = np.clip((thr - f) * 25.0 + 0.5, 0.0, 1.0)[..., None]
    img = land * (1.0 - sea_w) + sea * sea_w
    mottle = (smooth_field(rng, (H, W), 30) - 0.5) * float(paper["mottle"])
    img += mottle[..., None]
    out = np.clip(img, 0, 255).astype(np.uint8)
    _country_lines(out, rng, paper["lines"], unit)

    # border with a score track of circles
    bwid = max(3, round(float(board["border_width"]) * W))
    border = col(board["border"])
    cv2.rectangle(out, (0, 0), (W - 1, bwid), border, -1)
    cv2.rectangle(out, (0, H - 1 - bwid), (W - 1, H - 1), border, -1)
    cv2.rectangle(out, (0, 0), (bwid, H - 1), border, -1)
    cv2.rectangle(out, (W - 1 - bwid, 0), (W - 1, H - 1), border, -1)
    # a plain frame at the very edge, the track's circles inside it
    edge = round(float(board["frame"]) * bwid)
    if edge > 0:
        cv2.rectangle(out, (0, 0), (W - 1, H - 1), col(board["frame_color"]), edge)
    n = int(board["track_count"])
    perim = 2 * (W + H - 2 * bwid)
    r = bwid * 0.34
    for i in range(n):
        x, y = _perimeter_point(perim * (i + 0.5) / n, W, H, bwid, edge)
        c = fix(np.array([[x, y]]))[0, 0]
        centre = (int(c[0]), int(c[1]))
        cv2.circle(out, centre, round(r * _ONE), col(board["track_ring"]), -1, cv2.LINE_AA, _SHIFT)
        cv2.circle(
            out, centre, round(r * 0.75 * _ONE), col(board["track_circle"]), -1, cv2.LINE_AA, _SHIFT
        )

    # the halo around every city, under the spaces
    cc = board["city"]
    for c in cities:
        rad = float(cc["radius"]) * min(c.w * W, c.h * H)
        ctr = fix(np.array([[c.x * W, c.y * H]]))[0, 0]
        centre = (int(ctr[0]), int(ctr[1]))
        cv2.circle(out, centre, round(rad * 1.6 * _ONE), col(cc["halo"]), -1, cv2.LINE_AA, _SHIFT)

    # the printed spaces
    sp = cfg["spaces"]
    printed = cfg["printed"]
    outline = col(sp["outline"])
    tunnel = col(sp["tunnel"]["color"])
    amp_mask = np.zeros((H, W), np.uint8)  # print grain amplitude per pixel (x 8)
    grain_of = {str(k): float(v) for k, v in sp["grain"].items()}
    symbols = sp["symbols"]
    for info in routes:
        pc = printed.get(info.color, printed["grey"])
        fill = col(pc["fill"])
        rim = col(pc["rim"])
        mark = col(pc["mark"])
        level = round(min(255.0, grain_of.get(info.color, grain_of["default"]) * 8))
        for i, s in enumerate(info.spaces):
            L, Wd = s.w * W, s.h * H
            # printed a little off the measured geometry (print and measuring tolerance)
            ja, jc, jt = (float(v) for v in sp["jitter"])
            t = math.radians(s.angle)
            da, dc = rng.normal(0.0, ja) * L, rng.normal(0.0, jc) * Wd
            cx = s.x * W + da * math.cos(t) - dc * math.sin(t)
            cy = s.y * H + da * math.sin(t) + dc * math.cos(t)
            ang = s.angle + rng.normal(0.0, jt)
            placed = Space(cx / W, cy / H, s.w, s.h, ang)  # where it is printed, a little off
            ow = float(sp["outline_width"]) * Wd
            outer = box(cx, cy, L, Wd, ang)
            _poly(out, outer, outline)
            inner = _inset(outer, ow, ow)
            _poly(out, inner, rim)
            rw = float(sp["rim_width"]) * Wd
            _poly(out, _inset(inner, rw, rw), fill)
            cv2.fillPoly(amp_mask, [fix(outer)], level, cv2.LINE_8, _SHIFT)
            if info.tunnel:
                tw = max(1, round(float(sp["tunnel"]["width"]) * Wd))
                _dashed(out, inner, tunnel, tw, float(sp["tunnel"]["dash"]) * Wd)
            if i < info.locomotives:
                _locomotive(out, placed, W, H, col(sp["locomotive"]))
            elif info.color == "grey":
                _wagon(out, placed, W, H, sp["wagon"], rng)
            else:
                kind = str(symbols.get(info.color, "dot"))
                _symbol(out, kind, cx, cy, float(sp["symbol_size"]) * Wd, ang, mark)

    # print and paper grain, stronger on the spaces
    fine = grain(rng, (H, W), paper["grain"], unit)
    sgrain = grain(rng, (H, W), sp["grain_octaves"], unit)
    delta = fine + sgrain * (amp_mask.astype(np.float32) / 8.0)
    out = np.clip(out.astype(np.float32) + delta[..., None], 0, 255).astype(np.uint8)

    for c in cities:
        cx, cy = c.x * W, c.y * H
        rad = float(cc["radius"]) * min(c.w * W, c.h * H)
        ctr = fix(np.array([[cx, cy]]))[0, 0]
        centre = (int(ctr[0]), int(ctr[1]))
        cv2.circle(out, centre, round(rad * _ONE), col(cc["ring"]), -1, cv2.LINE_AA, _SHIFT)
        cv2.circle(out, centre, round(rad * 0.72 * _ONE), col(cc["fill"]), -1, cv2.LINE_AA, _SHIFT)
        hi = fix(np.array([[cx - 0.25 * rad, cy - 0.25 * rad]]))[0, 0]
        cv2.circle(
            out,
            (int(hi[0]), int(hi[1])),
            round(rad * 0.22 * _ONE),
            lighter(cc["fill"], 0.6),
            -1,
            cv2.LINE_AA,
            _SHIFT,
        )
    result: np.ndarray = out
    return result


# --------------------------------------------------------------------------------------------
# Plastic pieces
# --------------------------------------------------------------------------------------------


def _house(cx: float, cy: float, size: float, angle: float) -> np.ndarray:
    """A station's outline from above: a square body with a pointed gable, upright."""
    s = size / 2
    pts = np.array([[-s, s], [s, s], [s, -0.1 * s], [0.0, -s * 1.0], [-s, -0.1 * s]])
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    out: np.ndarray = pts @ rot.T + np.array([cx, cy])
    return out


def shade(c: Sequence[float], k: float) -> Color:
    """``c`` darkened (k < 1: times k) or lightened (k > 1: k - 1 of the way to white)."""
    return scaled(c, k) if k <= 1.0 else lighter(c, k - 1.0)


@dataclass(frozen=True)
class _Piece:
    """One piece to draw: its footprint, its top face, colour and owner."""

    kind: str
    foot: np.ndarray
    top: np.ndarray
    color: Color
    owner: str


def draw_pieces(
    img: np.ndarray,
    trains: Sequence[tuple[str, Space, str]],
    stations: Sequence[tuple[str, CityInfo, str]],
    cfg: Mapping[str, Any],
    seed: int,
    avoid: np.ndarray | None = None,
    cache: dict[tuple[int, int], np.ndarray] | None = None,
) -> None:
    """Draw plastic trains (route id, space, colour) and stations (city id, spot, colour) on
    the board ``img`` in place. ``avoid``: (n, 2) board points (the train spaces' centres) a
    station is set away from, as players set it beside the city, off the tracks. ``cache``
    keeps the plastic grain field of each board size (it does not depend on the pieces)."""
    H, W = img.shape[:2]
    unit = W / TEXTURE_WIDTH
    tcfg = cfg["train"]
    players = cfg["players"]
    light = math.radians(float(tcfg["light_angle"]))
    lx, ly = math.cos(light), math.sin(light)  # where the light comes from (image direction)
    view = np.array(tcfg["view_shift"], dtype=np.float64)  # top face offset per unit height
    cast = -np.array([lx, ly]) * float(tcfg["shadow_length"])  # shadow offset per unit height
    shadow = np.zeros((H, W), np.uint8)
    pieces: list[_Piece] = []
    placed: dict[str, int] = {}
    for rid, s, owner in trains:
        base = players.get(owner)
        if base is None:
            raise ValueError(f"unknown player colour {owner!r} on {rid}")
        # seeded by the route and the space's place on it: a train keeps its place on the board
        # whatever else is put down (a real piece does not move when another route is claimed)
        k = placed.get(rid, 0)
        placed[rid] = k + 1
        rng = np.random.default_rng(stable_seed("train", seed, rid, k))
        L = s.w * W * float(tcfg["length"])
        Wd = s.h * H * float(tcfg["width"])
        ang = s.angle + rng.normal(0.0, float(tcfg["jitter_angle"]) / 2)
        shift = rng.normal(0.0, float(tcfg["jitter_shift"]) / 2, size=2) * s.h * H
        cx, cy = s.x * W + shift[0], s.y * H + shift[1]
        foot = box(cx, cy, L, Wd, ang)
        lift = float(tcfg["height"]) * Wd
        top = foot + view * lift
        _poly(shadow, foot + cast * lift, 255)
        pieces.append(_Piece("train", foot, top, col(base), owner))
    for city, c, owner in stations:
        base = players.get(owner)
        if base is None:
            raise ValueError(f"unknown player colour {owner!r} at {city}")
        rng = np.random.default_rng(stable_seed("station", seed, city))
        size = float(cfg["station"]["size"]) * W
        off = rng.normal(0.0, 0.12, size=2) * size
        cx, cy = c.x * W + off[0], c.y * H + off[1]
        dist = float(cfg["station"]["beside"]) * c.w * W
        if avoid is not None and len(avoid) and dist > 0:
            pts = avoid * np.array([W, H])
            best, best_d = (0.0, -1.0), -1.0
            for k in range(8):
                t = k * math.pi / 4 + rng.normal(0.0, 0.15)
                q = np.array([cx + dist * math.cos(t), cy + dist * math.sin(t)])
                d = float(np.min(np.hypot(*(pts - q).T)))
                if d > best_d:
                    best, best_d = (float(q[0]), float(q[1])), d
            cx, cy = best
        foot = _house(cx, cy, size, rng.normal(0.0, 8.0))
        lift = float(cfg["station"]["height"]) * size
        top = foot + view * lift
        _poly(shadow, foot + cast * lift, 255)
        pieces.append(_Piece("station", foot, top, col(base), owner))
    if not pieces:
        return
    sigma = max(1.0, float(tcfg["shadow_blur"]) * unit)
    ys, xs = np.nonzero(shadow)
    pad = int(4 * sigma) + 2
    y0, y1 = max(0, int(ys.min()) - pad), min(H, int(ys.max()) + pad + 1)
    x0, x1 = max(0, int(xs.min()) - pad), min(W, int(xs.max()) + pad + 1)
    soft = cv2.GaussianBlur(shadow[y0:y1, x0:x1], (0, 0), sigma)
    factor = 1.0 - np.asarray(soft, np.float32) * (float(tcfg["shadow"]) / 255.0)
    roi = img[y0:y1, x0:x1]
    roi[:] = np.clip(roi * factor[..., None], 0, 255).astype(np.uint8)
    mask = np.zeros((H, W), np.uint8)  # plastic grain amplitude (x 8)
    grain_of = {str(k): float(v) for k, v in tcfg["grain"].items()}
    for p in pieces:
        level = round(min(255.0, grain_of.get(p.owner, grain_of["default"]) * 8))
        if p.kind == "train":
            relief = float(tcfg["relief"].get(p.owner, tcfg["relief"]["default"]))
            _draw_train(img, p, tcfg, (lx, ly), unit, relief)
        else:
            _draw_station(img, p, tcfg, cfg["station"], (lx, ly), unit)
        hull = cv2.convexHull(np.vstack([p.foot, p.top]).astype(np.float32)).reshape(-1, 2)
        cv2.fillPoly(mask, [fix(hull)], level, cv2.LINE_8, _SHIFT)
    field = cache.get((H, W)) if cache is not None else None
    if field is None:
        rng = np.random.default_rng(stable_seed("plastic", W))
        field = grain(rng, (H, W), tcfg["grain_octaves"], unit)
        if cache is not None:
            cache[(H, W)] = field
    ys, xs = np.nonzero(mask)
    if len(ys) == 0:
        return
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    g = field[y0:y1, x0:x1]
    roi = img[y0:y1, x0:x1]
    amp = mask[y0:y1, x0:x1].astype(np.float32) / 8.0
    roi[:] = np.clip(roi.astype(np.float32) + (g * amp)[..., None], 0, 255).astype(np.uint8)


def _lit_sides(top: np.ndarray, light: tuple[float, float]) -> list[tuple[int, float]]:
    """Edges of a convex top face and how much each faces the light (-1..1)."""
    c = top.mean(axis=0)
    out = []
    n = len(top)
    for i in range(n):
        p, q = top[i], top[(i + 1) % n]
        mid = (p + q) / 2 - c
        nrm = mid / max(float(np.hypot(*mid)), 1e-9)
        out.append((i, float(nrm[0] * light[0] + nrm[1] * light[1])))
    return out


def _draw_train(
    img: np.ndarray,
    p: _Piece,
    cfg: Mapping[str, Any],
    light: tuple[float, float],
    unit: float,
    relief: float,
) -> None:
    """A train from above; ``relief`` scales how strongly its moulding shows (grooves, lips,
    specular streak, dark rim)."""

    def deeper(k: float) -> float:  # a darkening factor k, scaled by the relief
        return 1.0 - (1.0 - k) * relief

    color = p.color
    foot, top = p.foot, p.top
    hull = cv2.convexHull(np.vstack([foot, top]).astype(np.float32)).reshape(-1, 2)
    _poly(img, hull, scaled(color, float(cfg["side_shade"])))
    # the side facing the light is lit: paint the part of the hull on that side lighter
    sides = _lit_sides(top, light)
    for i, facing in sides:
        if facing > 0.2:
            a, b = top[i], top[(i + 1) % len(top)]
            fa, fb = foot[i], foot[(i + 1) % len(foot)]
            _poly(img, np.array([a, b, fb, fa]), shade(color, float(cfg["lit_side"])))
    # the top face: lit towards one long side, shaded towards the other, in strips
    lit_first = sides[0][1] > sides[2][1]  # edge 0 (top[0]-top[1]) faces the light more
    g = float(cfg["top_gradient"])
    n_strips = 4
    for k in range(n_strips):
        t0, t1 = k / n_strips, (k + 1) / n_strips
        a0, a1 = top[0] + (top[3] - top[0]) * t0, top[0] + (top[3] - top[0]) * t1
        b0, b1 = top[1] + (top[2] - top[1]) * t0, top[1] + (top[2] - top[1]) * t1
        t = (t0 + t1) / 2 if lit_first else 1 - (t0 + t1) / 2
        _poly(img, np.array([a0, b0, b1, a1]), shade(color, 1.0 + g * (1.0 - 2.0 * t)))
    length = float(np.hypot(*(top[1] - top[0])))
    width = float(np.hypot(*(top[3] - top[0])))
    lw = max(1, round(float(cfg["line_width"]) * unit))
    # the raised panel: a groove around it and a lit lip on the light's side
    panel = _inset(top, float(cfg["panel_inset"][0]) * length, float(cfg["panel_inset"][1]) * width)
    groove = scaled(color, deeper(float(cfg["groove"])))
    _line(img, panel, groove, lw, closed=True)
    for i, facing in _lit_sides(panel, light):
        if facing < -0.3:  # the groove's far wall catches the light
            a, b = panel[i], panel[(i + 1) % 4]
            d = (top.mean(axis=0) - (a + b) / 2) * 0.12
            _line(img, np.array([a + d, b + d]), lighter(color, float(cfg["lip"]) * relief), lw)
    # ribs across the panel
    u = top[1] - top[0]
    v = top[3] - top[0]
    for t in cfg["ribs"]:
        a = top[0] + u * float(t) + v * float(cfg["panel_inset"][1])
        b = top[0] + u * float(t) + v * (1 - float(cfg["panel_inset"][1]))
        _line(img, np.array([a, b]), groove, lw)
    # a specular streak along the edge facing the light, a dark rim on the other
    best = max(sides, key=lambda s: s[1])[0]
    worst = min(sides, key=lambda s: s[1])[0]
    a, b = top[best], top[(best + 1) % 4]
    inward = (top.mean(axis=0) - (a + b) / 2) * 0.18
    sw = max(1, round(float(cfg["specular_width"]) * width))
    spec = lighter(color, float(cfg["specular"]) * relief)
    _line(img, np.array([a + inward, b + inward]), spec, sw)
    a, b = top[worst], top[(worst + 1) % 4]
    _line(img, np.array([a, b]), scaled(color, deeper(float(cfg["rim"]))), lw)


def _draw_station(
    img: np.ndarray,
    p: _Piece,
    cfg: Mapping[str, Any],
    scfg: Mapping[str, Any],
    light: tuple[float, float],
    unit: float,
) -> None:
    color = p.color
    hull = cv2.convexHull(np.vstack([p.foot, p.top]).astype(np.float32)).reshape(-1, 2)
    _poly(img, hull, scaled(color, float(cfg["side_shade"])))
    top = p.top
    _poly(img, top, color)
    # the roof: two faces either side of the ridge (the gable's point to the middle of the base)
    ridge_a = top[3]
    ridge_b = (top[0] + top[1]) / 2
    left = np.array([top[0], ridge_b, ridge_a, top[4]])
    right = np.array([ridge_b, top[1], top[2], ridge_a])
    c = top.mean(axis=0)
    for face in (left, right):
        m = face.mean(axis=0) - c
        facing = (m[0] * light[0] + m[1] * light[1]) / max(float(np.hypot(*m)), 1e-9)
        k = float(scfg["roof_lit"]) if facing > 0 else float(scfg["roof_shade"])
        _poly(img, face, shade(color, k))
    lw = max(1, round(float(cfg["line_width"]) * unit))
    _line(img, np.array([ridge_a, ridge_b]), lighter(color, float(cfg["specular"])), lw)
    _line(img, top, scaled(color, float(cfg["rim"])), lw, closed=True)
