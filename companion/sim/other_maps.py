"""Procedural Ticket to Ride maps that are NOT the Europe board, for testing refusals.

The locator must refuse photos of the other maps (USA, Nordic Countries, Switzerland, Germany,
India, ...): they are printed in the same style (coloured train spaces, grey routes, tunnels,
ferries, city circles, a score track round the edge) but put their cities and routes elsewhere.
We have no photos of them, so this module makes render geometries for such maps, to be drawn
by the same :class:`companion.sim.render.BoardRenderer` that draws our Europe board:

* :func:`random_map`: an invented map. 30-60 cities spread by dart throwing (a Poisson-disc
  pattern: no two closer than a minimum distance), routes of 1-6 spaces between near
  neighbours (chords that do not cross, spaces that do not overlap: a planar-looking network),
  gently curved like printed routes, in the eight card colours and grey, with some double
  routes, tunnels and ferries. Aspect ratios: ``landscape`` 1.5 (like USA or Europe),
  ``portrait`` about 0.7 (like the Nordic Countries) and ``square`` about 1.2.
* :func:`warped_europe`: the Europe board with its cities (and the routes between them) moved
  by a smooth random warp of 5-10 % of the board, with no affine part (a board that is merely
  stretched or sheared is still the Europe board seen at an angle). Models a map that looks
  like Europe from afar but whose places are not Europe's.
* :func:`shuffled_europe`: the Europe layout with the printed colours shuffled among the
  routes. Not a real map; the hardest case for a locator that checks printed colours at
  Europe's places.

Every generator takes a ``numpy.random.Generator``: the same seed gives the same map.
:func:`other_map` names the kinds (:data:`KINDS`); :func:`angled_view` is a camera at an angle
over the table (the renderer's :func:`~companion.sim.render.random_view` is overhead) and
:func:`render_case` draws one seeded camera frame of a geometry with trains on it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from companion.sim.render import BoardRenderer, Rendered, View, random_scene, random_view
from companion.sim.render_art import stable_seed
from companion.vision.geometry.board import CityInfo, DrawnBoard, RouteInfo, Space, load_geometry

log = logging.getLogger(__name__)

KINDS: tuple[str, ...] = ("landscape", "portrait", "square", "warped", "shuffled")
"""The kinds of other maps :func:`other_map` makes."""

CARD_COLORS: tuple[str, ...] = (
    "red",
    "orange",
    "yellow",
    "green",
    "blue",
    "pink",
    "white",
    "black",
)

Point = tuple[float, float]


@dataclass(frozen=True)
class MapStyle:
    """Sizes of an invented map, in fractions of the board's LONGER side (Europe's values in
    brackets: a space 0.035 long and 0.4 times as wide, spaced 1.06 lengths apart, city spots
    0.028 across, a score-track border 0.035 of the width)."""

    space_length: tuple[float, float] = (0.031, 0.039)
    space_width: float = 0.4  # times the length
    pitch: float = 1.06  # centre to centre of two spaces of one route, times the length
    city_size: float = 0.028
    border: float = 0.035  # of the board's width, as the renderer draws it
    max_spaces: int = 6
    grey_share: float = 0.35
    double_share: float = 0.15
    tunnel_share: float = 0.15
    ferry_share: float = 0.08


# --------------------------------------------------------------------------------------------
# Cities
# --------------------------------------------------------------------------------------------


def poisson_points(
    rng: np.random.Generator,
    n: int,
    box: tuple[float, float, float, float],
    min_dist: float,
    attempts: int = 60,
) -> list[Point]:
    """``n`` points in ``box`` (x0, y0, x1, y1), no two closer than ``min_dist`` (dart
    throwing: each point is the first of ``attempts`` random darts far enough from the others;
    when none is, the distance is lowered by 10 % for the points still to place)."""
    x0, y0, x1, y1 = box
    pts: list[Point] = []
    arr = np.empty((0, 2))
    dist = float(min_dist)
    while len(pts) < n:
        darts = np.column_stack([rng.uniform(x0, x1, attempts), rng.uniform(y0, y1, attempts)])
        if len(arr):
            d = np.sqrt(((darts[:, None, :] - arr[None, :, :]) ** 2).sum(axis=2)).min(axis=1)
            ok = np.nonzero(d >= dist)[0]
            if len(ok) == 0:
                dist *= 0.9
                continue
            dart = darts[int(ok[0])]
        else:
            dart = darts[0]
        pts.append((float(dart[0]), float(dart[1])))
        arr = np.array(pts)
    return pts


# --------------------------------------------------------------------------------------------
# Routes
# --------------------------------------------------------------------------------------------


def _bezier(p: np.ndarray, q: np.ndarray, bend: float, m: int = 48) -> np.ndarray:
    """A quadratic Bezier from p to q whose control point sits ``bend`` chord lengths off the
    chord's middle (to its left for bend > 0): (m, 2) points."""
    d = q - p
    nrm = np.array([-d[1], d[0]])
    ctrl = (p + q) / 2 + bend * nrm
    t = np.linspace(0.0, 1.0, m)[:, None]
    out: np.ndarray = (1 - t) ** 2 * p + 2 * (1 - t) * t * ctrl + t**2 * q
    return out


def _length(path: np.ndarray) -> float:
    return float(np.sqrt((np.diff(path, axis=0) ** 2).sum(axis=1)).sum())


def _bend_for(p: np.ndarray, q: np.ndarray, target: float, sign: float) -> float | None:
    """The bend whose curve from p to q is ``target`` long (None when even a strong bend is
    too short)."""
    lo, hi = 0.0, 0.6
    if _length(_bezier(p, q, sign * hi)) < target:
        return None
    for _ in range(30):
        mid = (lo + hi) / 2
        if _length(_bezier(p, q, sign * mid)) < target:
            lo = mid
        else:
            hi = mid
    return sign * hi


def _along(path: np.ndarray, at: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Points and unit tangents of the polyline ``path`` at arc lengths ``at``."""
    seg = np.diff(path, axis=0)
    seg_len = np.sqrt((seg**2).sum(axis=1))
    cum = np.concatenate([[0.0], np.cumsum(seg_len)])
    pts, tans = [], []
    for s in at:
        i = int(np.clip(np.searchsorted(cum, s) - 1, 0, len(seg) - 1))
        f = (s - cum[i]) / max(seg_len[i], 1e-12)
        pts.append(path[i] + f * seg[i])
        tans.append(seg[i] / max(seg_len[i], 1e-12))
    return np.array(pts), np.array(tans)


def _segments_cross(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> bool:
    """Do the segments a-b and c-d cross (a shared end does not count)?"""

    def orient(p: np.ndarray, q: np.ndarray, r: np.ndarray) -> float:
        return float((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    o1, o2 = orient(a, b, c), orient(a, b, d)
    o3, o4 = orient(c, d, a), orient(c, d, b)
    return o1 * o2 < 0 and o3 * o4 < 0


def _point_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    t = float(np.clip(np.dot(p - a, d) / max(float(np.dot(d, d)), 1e-12), 0.0, 1.0))
    return float(np.hypot(*(p - (a + t * d))))


def _corners(c: np.ndarray, ang: np.ndarray, length: float, width: float) -> np.ndarray:
    """Corners (n, 4, 2) of boxes centred at ``c`` (n, 2) turned by ``ang`` (n,) degrees."""
    t = np.radians(ang)
    u = np.column_stack([np.cos(t), np.sin(t)]) * (length / 2)
    v = np.column_stack([-np.sin(t), np.cos(t)]) * (width / 2)
    out: np.ndarray = np.stack([c - u - v, c + u - v, c + u + v, c - u + v], axis=1)
    return out


def _overlaps(
    c1: np.ndarray, a1: np.ndarray, c2: np.ndarray, a2: np.ndarray, length: float, width: float
) -> bool:
    """Does any box of the first set overlap (by more than a sliver) any of the second?
    Boxes are ``length`` x ``width``, shrunk by 10 % for the test (separating axes)."""
    d = np.sqrt(((c1[:, None, :] - c2[None, :, :]) ** 2).sum(axis=2))
    ii, jj = np.nonzero(d < 1.05 * math.hypot(length, width))
    if len(ii) == 0:
        return False
    k1 = _corners(c1[ii], a1[ii], 0.9 * length, 0.9 * width)
    k2 = _corners(c2[jj], a2[jj], 0.9 * length, 0.9 * width)
    separated = np.zeros(len(ii), bool)
    for box in (k1, k2):
        for e in (0, 1):
            axis = box[:, e + 1] - box[:, e]  # (m, 2)
            p1 = (k1 * axis[:, None, :]).sum(axis=2)
            p2 = (k2 * axis[:, None, :]).sum(axis=2)
            separated |= (p1.max(axis=1) < p2.min(axis=1)) | (p2.max(axis=1) < p1.min(axis=1))
    return not bool(separated.all())


@dataclass
class _Lane:
    centres: np.ndarray  # (n, 2) physical units (board height = 1)
    angles: np.ndarray  # (n,) degrees


def _lanes(
    rng: np.random.Generator,
    p: np.ndarray,
    q: np.ndarray,
    length: float,
    pitch: float,
    gap: float,
    width: float,
    max_spaces: int,
    double: bool,
) -> list[_Lane] | None:
    """The space centres of a route from p to q (one lane, or two side by side for a double
    route): a gently curved path, as many spaces as fit, the path bent more when the spaces
    need it. None when the cities are too close or too far apart."""
    chord = float(np.hypot(*(q - p)))
    sign = 1.0 if rng.random() < 0.5 else -1.0
    bend = sign * float(rng.uniform(0.0, 0.18))
    path_len = _length(_bezier(p, q, bend))
    n = int((path_len - 2 * gap) // pitch)
    if n > max_spaces or chord < 0.6 * length + 2 * gap:
        return None
    extra = rng.random()
    n += 2 if extra < 0.15 else 1 if extra < 0.5 else 0  # more spaces: a more curved route
    n = max(1, min(n, max_spaces))
    need = n * pitch + 2 * gap
    if path_len < need:
        found = _bend_for(p, q, need, sign)
        if found is None:
            return None
        bend = found
    path = _bezier(p, q, bend, 96)
    path_len = _length(path)
    start = (path_len - n * pitch) / 2
    at = [start + pitch * (i + 0.5) for i in range(n)]
    centres, tangents = _along(path, at)
    angles = np.degrees(np.arctan2(tangents[:, 1], tangents[:, 0]))
    if not double:
        return [_Lane(centres, angles)]
    normals = np.column_stack([-tangents[:, 1], tangents[:, 0]])
    off = 0.45 * width
    return [_Lane(centres + off * normals, angles), _Lane(centres - off * normals, angles)]


def _route_color(rng: np.random.Generator, style: MapStyle) -> str:
    if rng.random() < style.grey_share:
        return "grey"
    return CARD_COLORS[int(rng.integers(0, len(CARD_COLORS)))]


def random_map(
    rng: np.random.Generator,
    aspect: float = 1.5,
    *,
    n_cities: int | None = None,
    style: MapStyle | None = None,
) -> DrawnBoard:
    """An invented Ticket to Ride map of ``aspect`` (width / height) drawn in Europe's style.

    Cities (``n_cities``, default 30-60) by dart throwing inside the score-track border; routes
    greedily between near neighbours, shortest first, each kept only when its chord crosses no
    route taken before, passes no other city and its spaces overlap no other route's; a city
    takes at most 3-7 routes and some near pairs are skipped, so that the network is about as
    dense as Europe's (about two routes per city)."""
    st = style or MapStyle()
    a = float(aspect)
    long_side = max(a, 1.0)
    n_target = int(n_cities if n_cities is not None else rng.integers(30, 61))
    length = float(rng.uniform(*st.space_length)) * long_side
    width = st.space_width * length
    pitch = st.pitch * length
    city = st.city_size * long_side
    city_r = 0.42 * city  # the spot's radius as the renderer draws it
    margin = st.border * a + 1.2 * city
    box = (margin, margin, a - margin, 1.0 - margin)
    area = (box[2] - box[0]) * (box[3] - box[1])
    min_dist = max(float(rng.uniform(0.72, 0.95)) * math.sqrt(area / n_target), 1.6 * length)
    pts = poisson_points(rng, n_target, box, min_dist)
    names = [f"city{i:02d}" for i in range(len(pts))]
    xy = np.array(pts)
    gap = float(rng.uniform(0.3, 0.8)) * city_r
    reach = st.max_spaces * pitch + 2 * gap
    max_degree = [int(rng.integers(4, 9)) for _ in pts]
    degree = [0] * len(pts)

    pairs: list[tuple[float, int, int]] = []
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            d = float(np.hypot(*(xy[i] - xy[j])))
            if d <= reach:
                pairs.append((d, i, j))
    pairs.sort()
    chords: list[tuple[int, int]] = []
    taken: list[np.ndarray] = []  # space centres of the routes so far
    taken_angles: list[np.ndarray] = []
    routes: dict[str, RouteInfo] = {}

    def _fits(lanes: list[_Lane], others: list[int]) -> bool:
        """The lanes' spaces inside the border, off the other cities and off every route."""
        new = np.concatenate([lane.centres for lane in lanes])
        inside = (new[:, 0] > margin - city) & (new[:, 0] < a - margin + city)
        inside &= (new[:, 1] > margin - city) & (new[:, 1] < 1 - margin + city)
        if not inside.all():
            return False
        if len(lanes[0].centres) < 2 and len(lanes) == 2:
            return False  # a double route of one space is not printed
        near_city = np.sqrt(((new[:, None, :] - xy[others][None, :, :]) ** 2).sum(axis=2))
        if near_city.size and near_city.min() < city_r + 0.6 * width:
            return False
        if not taken:
            return True
        angles = np.concatenate([lane.angles for lane in lanes])
        old_c, old_a = np.concatenate(taken), np.concatenate(taken_angles)
        return not _overlaps(new, angles, old_c, old_a, length, width)

    for _, i, j in pairs:
        if rng.random() < 0.08 or degree[i] >= max_degree[i] or degree[j] >= max_degree[j]:
            continue
        p, q = xy[i], xy[j]
        if any(_segments_cross(p, q, xy[c], xy[e]) for c, e in chords if len({i, j, c, e}) == 4):
            continue
        others = [k for k in range(len(pts)) if k not in (i, j)]
        if any(_point_segment(xy[k], p, q) < city_r + 1.2 * width for k in others):
            continue
        ferry = rng.random() < st.ferry_share
        tunnel = not ferry and rng.random() < st.tunnel_share
        double = not ferry and rng.random() < st.double_share
        lanes = None
        for attempt in range(4):  # another bend when the first one runs into a route
            two = double and attempt < 2
            lanes = _lanes(rng, p, q, length, pitch, gap, width, st.max_spaces, two)
            if lanes is not None and _fits(lanes, others):
                double = two
                break
            lanes = None
        if lanes is None:
            continue
        new = np.concatenate([lane.centres for lane in lanes])
        new_angles = np.concatenate([lane.angles for lane in lanes])
        taken.append(new)
        taken_angles.append(new_angles)
        chords.append((i, j))
        degree[i] += 1
        degree[j] += 1
        n = len(lanes[0].centres)
        colors = [_route_color(rng, st) for _ in lanes]
        if ferry:
            colors = ["grey"]
        if double and colors[0] == colors[1] != "grey":
            colors[1] = CARD_COLORS[(CARD_COLORS.index(colors[1]) + 3) % len(CARD_COLORS)]
        locos = int(rng.integers(1, min(n, 2) + 1)) if ferry else 0
        base = f"{names[i]}-{names[j]}"
        ids = [base] if len(lanes) == 1 else [f"{base}-1", f"{base}-2"]
        for k, lane in enumerate(lanes):
            spaces = tuple(
                Space(float(c[0]) / a, float(c[1]), length / a, width, float(ang))
                for c, ang in zip(lane.centres, lane.angles, strict=True)
            )
            routes[ids[k]] = RouteInfo(
                id=ids[k],
                a=names[i],
                b=names[j],
                length=n,
                color=colors[k],
                tunnel=tunnel,
                locomotives=locos,
                twin=ids[1 - k] if len(ids) == 2 else None,
                spaces=spaces,
            )
    cities = {
        name: CityInfo(name, float(x) / a, float(y), city / a, city)
        for name, (x, y) in zip(names, pts, strict=True)
    }
    log.debug("random map: aspect %.2f, %d cities, %d routes", a, len(cities), len(routes))
    return DrawnBoard(aspect=a, routes=routes, cities=cities)


# --------------------------------------------------------------------------------------------
# Europe, changed
# --------------------------------------------------------------------------------------------


class SmoothWarp:
    """A smooth random displacement of the board (positions as fractions, 0..1 each way).

    A sum of ``waves`` plane waves of 0.6-1.6 cycles per board in random directions, with its
    best affine fit (over a grid) taken away, scaled so that the largest displacement at
    ``points`` (default: a grid over the whole board) is ``amplitude`` (a fraction of the
    board's width across, of its height down)."""

    def __init__(
        self,
        rng: np.random.Generator,
        amplitude: float,
        waves: int = 4,
        points: np.ndarray | None = None,
    ) -> None:
        self.k = rng.uniform(0.6, 1.6, waves) * 2 * math.pi
        theta = rng.uniform(0, 2 * math.pi, waves)
        self.dirs = np.column_stack([np.cos(theta), np.sin(theta)])
        self.phase = rng.uniform(0, 2 * math.pi, (waves, 2))
        self.weights = rng.normal(0, 1, (waves, 2))
        self.affine = np.zeros((3, 2))
        self.scale = 1.0
        g = np.linspace(0.0, 1.0, 25)
        grid = np.array([(x, y) for y in g for x in g])
        design = np.column_stack([grid, np.ones(len(grid))])
        self.affine = np.linalg.lstsq(design, self._raw(grid), rcond=None)[0]
        at = grid if points is None else np.asarray(points, dtype=np.float64).reshape(-1, 2)
        peak = float(np.sqrt((self.displacement(at) ** 2).sum(axis=1)).max())
        self.scale = amplitude / max(peak, 1e-9)

    def _raw(self, pts: np.ndarray) -> np.ndarray:
        t = pts @ self.dirs.T  # (n, waves)
        out = np.zeros((len(pts), 2))
        for c in range(2):
            out[:, c] = (self.weights[:, c] * np.sin(t * self.k + self.phase[:, c])).sum(axis=1)
        return out

    def displacement(self, pts: np.ndarray) -> np.ndarray:
        """Displacements (n, 2) at board points (n, 2)."""
        design = np.column_stack([pts, np.ones(len(pts))])
        out: np.ndarray = (self._raw(pts) - design @ self.affine) * self.scale
        return out

    def __call__(self, pts: np.ndarray) -> np.ndarray:
        moved: np.ndarray = np.clip(pts + self.displacement(pts), 0.04, 0.96)
        return moved


def warped_europe(
    rng: np.random.Generator,
    base: DrawnBoard | None = None,
    *,
    amplitude: float | None = None,
) -> DrawnBoard:
    """The Europe board with its cities and routes moved by a :class:`SmoothWarp`: the city
    that moves most moves by ``amplitude`` (default 0.05-0.10 of the board). Each space moves
    with the board under it: its centre is warped, its angle follows the warped track and its
    length stretches with it (within 0.6-1.5 times), so that routes still join their (moved)
    cities."""
    g = base or load_geometry()
    amp = float(amplitude if amplitude is not None else rng.uniform(0.05, 0.10))
    spots = np.array([[c.x, c.y] for c in g.cities.values()])
    warp = SmoothWarp(rng, amp, points=spots)
    a = g.aspect
    routes: dict[str, RouteInfo] = {}
    for rid, info in g.routes.items():
        spaces: list[Space] = []
        for s in info.spaces:
            t = math.radians(s.angle)
            half = np.array([math.cos(t) * s.w / 2, math.sin(t) * s.w * a / 2])
            c = np.array([s.x, s.y])
            ends = warp(np.array([c - half, c + half, c]))
            d = (ends[1] - ends[0]) * np.array([a, 1.0])
            stretch = float(np.hypot(*d)) / (s.w * a)
            spaces.append(
                Space(
                    float(ends[2, 0]),
                    float(ends[2, 1]),
                    s.w * float(np.clip(stretch, 0.6, 1.5)),
                    s.h,
                    math.degrees(math.atan2(float(d[1]), float(d[0]))),
                )
            )
        routes[rid] = replace(info, spaces=tuple(spaces))
    cities: dict[str, CityInfo] = {}
    for cid, spot in g.cities.items():
        moved = warp(np.array([[spot.x, spot.y]]))[0]
        cities[cid] = replace(spot, x=float(moved[0]), y=float(moved[1]))
    return DrawnBoard(aspect=a, routes=routes, cities=cities)


def shuffled_europe(rng: np.random.Generator, base: DrawnBoard | None = None) -> DrawnBoard:
    """The Europe layout (same spaces, cities, tunnels and ferries) with the routes' printed
    colours shuffled among the routes; the two lanes of a double route keep different colours
    (unless both are grey), as on a printed board."""
    g = base or load_geometry()
    ids = list(g.routes)
    colors = [g.routes[r].color for r in ids]
    order = rng.permutation(len(ids))
    new = {r: colors[int(k)] for r, k in zip(ids, order, strict=True)}
    for _ in range(20 * len(ids)):
        clash = [
            r
            for r in ids
            if (tw := g.routes[r].twin) is not None and new[r] == new[tw] and new[r] != "grey"
        ]
        if not clash:
            break
        r = clash[0]
        other = ids[int(rng.integers(0, len(ids)))]
        new[r], new[other] = new[other], new[r]
    routes = {r: replace(info, color=new[r]) for r, info in g.routes.items()}
    return DrawnBoard(aspect=g.aspect, routes=routes, cities=dict(g.cities))


def other_map(kind: str, seed: int, base: DrawnBoard | None = None) -> DrawnBoard:
    """The map of ``kind`` (one of :data:`KINDS`) for ``seed``. ``base`` is the Europe
    geometry the ``warped`` and ``shuffled`` kinds start from (loaded when not given)."""
    rng = np.random.default_rng(stable_seed("other-map", kind, seed))
    if kind == "landscape":
        return random_map(rng, float(rng.uniform(1.42, 1.55)))
    if kind == "portrait":
        return random_map(rng, float(rng.uniform(0.66, 0.75)))
    if kind == "square":
        return random_map(rng, float(rng.uniform(1.1, 1.3)))
    if kind == "warped":
        return warped_europe(rng, base)
    if kind == "shuffled":
        return shuffled_europe(rng, base)
    raise ValueError(f"unknown map kind {kind!r}; expected one of {', '.join(KINDS)}")


# --------------------------------------------------------------------------------------------
# Camera frames
# --------------------------------------------------------------------------------------------


def angled_view(
    rng: np.random.Generator, size: tuple[int, int] = (1920, 1080), aspect: float = 1.5
) -> View:
    """A photo of the table taken from a seat: the board's longer side across the frame, seen
    from either side (turned by 0° or 180°, plus up to 15°), its far side (the frame's top)
    8-20 % shorter than its near side, the board filling 75-90 % of the frame with the table
    around it; light, glare, noise and blur as ``random_view``."""
    base = random_view(rng, size, aspect=aspect)
    fw, fh = size
    w, h = aspect, 1.0
    rect = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    turn = 90.0 if aspect < 1.0 else 0.0
    turn += 180.0 * int(rng.integers(0, 2)) + float(rng.uniform(-15.0, 15.0))
    t = math.radians(turn)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    pts = rect @ rot.T
    # perspective: the part of the board farther from the camera (the frame's top) shrinks
    shrink = float(rng.uniform(0.08, 0.20))
    y0, y1 = pts[:, 1].min(), pts[:, 1].max()
    far = (y1 - pts[:, 1]) / (y1 - y0)  # 1 at the frame's top, 0 at its bottom
    pts[:, 0] *= 1.0 - shrink * far
    pts[:, 1] *= 1.0 - 0.5 * shrink
    fill = float(rng.uniform(0.75, 0.9))
    span = pts.max(axis=0) - pts.min(axis=0)
    pts = pts * (fill * min(fw / span[0], fh / span[1]))
    room = np.array([fw, fh]) - (pts.max(axis=0) - pts.min(axis=0))
    pts = pts - pts.min(axis=0) + room * rng.uniform(0.2, 0.8, 2)
    corners = tuple((float(x), float(y)) for x, y in pts)
    return replace(base, corners=corners)


def render_case(
    renderer: BoardRenderer,
    seed: int,
    *,
    angled: bool,
    size: tuple[int, int] = (1920, 1080),
) -> Rendered:
    """One camera frame of ``renderer``'s geometry for ``seed``: 20-50 % of the routes taken by
    the five player colours, up to 9 stations, overhead (``random_view``) or at an angle
    (:func:`angled_view`)."""
    g = renderer.geometry
    rng = np.random.default_rng(stable_seed("other-map-frame", seed, angled))
    scene = random_scene(
        rng, g, claimed=float(rng.uniform(0.2, 0.5)), stations=int(rng.integers(0, 10))
    )
    view = angled_view(rng, size, g.aspect) if angled else random_view(rng, size, aspect=g.aspect)
    return renderer.render_frame(scene, view, rng)
