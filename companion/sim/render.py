"""A procedural, licence-clean picture of the Europe board, drawn from the board geometry.

Nothing here is the publisher's art: the board is a parchment-and-sea background, the route
spaces of ``europe_board.json`` as rotated boxes in their printed colours (tunnels with a dark
border, ferries with a locomotive mark) and city spots. Plastic trains and stations are drawn in
the five player colours as small 3-D boxes and houses; hands and arms with their shadows come in
from an edge of the picture; a camera view adds perspective, a lighting gradient, glare, noise
and blur.

Everything random is seeded: the same scene, view and generator seed give the same pixels.
The renderer feeds the tests, the simulated camera (``camera.SimulatedCamera``) and the demo.

Public entry points: :class:`BoardRenderer` (``render_board``, ``render_frame``), :class:`Scene`,
:class:`Hand`, :class:`Shadow`, :class:`View`, :func:`random_view` and :func:`load_geometry`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.data import load_json
from companion.sim.render_art import col, draw_board, draw_pieces, fix, stable_seed
from companion.sim.render_hands import Hand, composite, hand_shape
from companion.vision.geometry.board import CityInfo, DrawnBoard, Space, load_geometry
from companion.vision.types import PLAYER_COLORS

log = logging.getLogger(__name__)

EDGES: tuple[str, ...] = ("bottom", "top", "left", "right")

Color = tuple[int, int, int]


def load_render_config() -> dict[str, Any]:
    cfg: dict[str, Any] = load_json("render.json")
    return cfg


# --------------------------------------------------------------------------------------------
# Scene and view
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shadow:
    """A soft shadow with nobody in view (an arm or a head above the table)."""

    center: tuple[float, float]
    size: tuple[float, float] = (0.25, 0.15)
    angle: float = 0.0
    strength: float = 0.4


@dataclass(frozen=True)
class Scene:
    """What lies on and over the board.

    ``routes`` maps claimed route ids to the owner's colour, ``stations`` city ids to a station's
    colour. ``seed`` fixes how crooked each piece sits (a piece keeps its place from frame to
    frame).
    """

    routes: Mapping[str, str] = field(default_factory=dict)
    stations: Mapping[str, str] = field(default_factory=dict)
    hands: tuple[Hand, ...] = ()
    shadows: tuple[Shadow, ...] = ()
    seed: int = 0

    def pieces_key(self) -> tuple[Any, ...]:
        return (tuple(sorted(self.routes.items())), tuple(sorted(self.stations.items())), self.seed)


@dataclass(frozen=True)
class View:
    """A camera's view: the frame size and where the board's corners land (TL TR BR BL, pixels)."""

    size: tuple[int, int]
    corners: tuple[tuple[float, float], ...]
    table: int = 0
    light_angle: float = 30.0
    light_strength: float = 0.2
    glare: tuple[float, float, float] = (0.7, 0.3, 0.3)
    glare_radius: float = 0.18
    noise: float = 4.0
    blur: float = 0.8

    @staticmethod
    def top_down(width: int, aspect: float = 1.5, **kw: Any) -> View:
        """The board filling the picture exactly, seen from straight above."""
        w = int(width)
        h = round(w / aspect)
        corners = ((0.0, 0.0), (float(w), 0.0), (float(w), float(h)), (0.0, float(h)))
        kw.setdefault("light_strength", 0.0)
        kw.setdefault("glare", (0.5, 0.5, 0.0))
        kw.setdefault("noise", 0.0)
        kw.setdefault("blur", 0.0)
        return View(size=(w, h), corners=corners, **kw)

    def moved(self, dx: float, dy: float, angle: float = 0.0) -> View:
        """The same view, the board shifted by (dx, dy) pixels and turned by ``angle`` degrees."""
        pts = np.array(self.corners, dtype=np.float64)
        c = pts.mean(axis=0)
        a = math.radians(angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        moved = (pts - c) @ rot.T + c + np.array([dx, dy])
        corners = tuple((float(x), float(y)) for x, y in moved)
        return View(
            size=self.size,
            corners=corners,
            table=self.table,
            light_angle=self.light_angle,
            light_strength=self.light_strength,
            glare=self.glare,
            glare_radius=self.glare_radius,
            noise=self.noise,
            blur=self.blur,
        )


def random_view(
    rng: np.random.Generator,
    size: tuple[int, int] = (1920, 1080),
    *,
    aspect: float = 1.5,
    config: Mapping[str, Any] | None = None,
) -> View:
    """A plausible overhead camera: the board mostly filling the frame, a little tilted, turned."""
    cfg_all = config or load_render_config()
    cfg = cfg_all["view"]
    fw, fh = size
    bw = min(float(cfg["board_width"]) * fw, 0.9 * fh * aspect)
    bh = bw / aspect
    cx = fw / 2 + rng.uniform(-0.03, 0.03) * fw
    cy = fh / 2 + rng.uniform(-0.02, 0.02) * fh
    base = np.array([[-bw / 2, -bh / 2], [bw / 2, -bh / 2], [bw / 2, bh / 2], [-bw / 2, bh / 2]])
    a = math.radians(rng.uniform(-1.0, 1.0) * float(cfg["rotation"]))
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    pts = base @ rot.T + np.array([cx, cy])
    pts += rng.uniform(-1.0, 1.0, size=(4, 2)) * float(cfg["corner_jitter"]) * bw
    # keep the board inside the frame
    pts[:, 0] = np.clip(pts[:, 0], 2, fw - 3)
    pts[:, 1] = np.clip(pts[:, 1], 2, fh - 3)
    tables = len(cfg_all["table"]["colors"])
    return View(
        size=(int(fw), int(fh)),
        corners=tuple((float(x), float(y)) for x, y in pts),
        table=int(rng.integers(0, tables)),
        light_angle=float(rng.uniform(0, 360)),
        light_strength=float(cfg["light_strength"]) * float(rng.uniform(0.3, 1.0)),
        glare=(
            float(rng.uniform(0.2, 0.8)),
            float(rng.uniform(0.2, 0.8)),
            float(cfg["glare"]) * float(rng.uniform(0.0, 1.0)),
        ),
        glare_radius=float(cfg["glare_radius"]) * float(rng.uniform(0.6, 1.4)),
        noise=float(cfg["noise"]) * float(rng.uniform(0.5, 1.2)),
        blur=float(cfg["blur"]) * float(rng.uniform(0.5, 1.3)),
    )


@dataclass
class Rendered:
    """A rendered frame and its ground truth.

    ``corners``: the board's corners in the frame (TL TR BR BL). ``occlusion``: share of the board
    under a hand, an arm or a shadow. ``covered``: route ids with a space under one of them.
    """

    image: np.ndarray
    corners: np.ndarray
    occlusion: float
    covered: frozenset[str]
    covered_cities: frozenset[str]


# --------------------------------------------------------------------------------------------
# Drawing helpers
# --------------------------------------------------------------------------------------------


_stable_seed = stable_seed
_col = col
_fix = fix
_SHIFT = 4  # sub-pixel precision of cv2 drawing calls (as render_art's)
_ONE = 1 << _SHIFT


# --------------------------------------------------------------------------------------------
# The renderer
# --------------------------------------------------------------------------------------------


class BoardRenderer:
    """Draws boards and camera frames. Caches the static board art and the last pieces layer."""

    def __init__(
        self,
        geometry: DrawnBoard | None = None,
        *,
        art_seed: int = 0,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        self.geometry = geometry or load_geometry()
        self.config: Mapping[str, Any] = config or load_render_config()
        self.art_seed = int(art_seed)
        self._art: dict[int, np.ndarray] = {}
        self._pieces: tuple[tuple[Any, ...], int, np.ndarray] | None = None
        self._tables: dict[tuple[tuple[int, int], int], np.ndarray] = {}
        self._shadowed: dict[tuple[Any, ...], np.ndarray] = {}
        self._grain: dict[tuple[int, int], np.ndarray] = {}
        self._light: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray | None]] = {}
        self._noise: dict[tuple[tuple[int, int], float], tuple[np.ndarray, np.ndarray]] = {}
        self._quad: dict[tuple[Any, ...], tuple[np.ndarray, int, np.ndarray, np.ndarray]] = {}

    # -- sizes -------------------------------------------------------------------------------

    def board_size(self, width: int) -> tuple[int, int]:
        return int(width), round(width / self.geometry.aspect)

    # -- static art --------------------------------------------------------------------------

    def board_art(self, width: int) -> np.ndarray:
        """The empty board (no pieces) at ``width`` pixels, cached. Do not modify the result."""
        width = int(width)
        art = self._art.get(width)
        if art is None:
            art = self._draw_art(width)
            art.setflags(write=False)
            self._art[width] = art
        return art

    def _draw_art(self, width: int) -> np.ndarray:
        W, H = self.board_size(width)
        routes = [info for info in self.geometry.routes.values() if info.spaces]
        return draw_board(
            routes, list(self.geometry.cities.values()), self.config, W, H, self.art_seed
        )

    # -- pieces ------------------------------------------------------------------------------

    def render_board(self, scene: Scene, width: int = 1500) -> np.ndarray:
        """The board seen from straight above with the scene's trains and stations, no hands and
        no camera effects. The result is a fresh array."""
        return self._board_with_pieces(scene, width).copy()

    def _board_with_pieces(self, scene: Scene, width: int) -> np.ndarray:
        key = scene.pieces_key()
        if self._pieces is not None and self._pieces[0] == key and self._pieces[1] == width:
            return self._pieces[2]
        img = self.board_art(width).copy()
        self._draw_pieces(img, scene)
        img.setflags(write=False)
        self._pieces = (key, width, img)
        return img

    def _draw_pieces(self, img: np.ndarray, scene: Scene) -> None:
        trains: list[tuple[str, Space, str]] = []
        for route_id, owner in sorted(scene.routes.items()):
            info = self.geometry.routes.get(route_id)
            if info is None or not info.spaces:
                log.debug("no geometry for route %s: not drawn", route_id)
                continue
            if owner not in self.config["players"]:
                raise ValueError(f"unknown player colour {owner!r} on {route_id}")
            trains.extend((route_id, s, owner) for s in info.spaces)
        stations: list[tuple[str, CityInfo, str]] = []
        for city, owner in sorted(scene.stations.items()):
            c = self.geometry.cities.get(city)
            if c is None:
                raise ValueError(f"unknown city {city!r}")
            if owner not in self.config["players"]:
                raise ValueError(f"unknown player colour {owner!r} at {city}")
            stations.append((city, c, owner))
        centres = np.array(
            [(s.x, s.y) for info in self.geometry.routes.values() for s in info.spaces]
        ).reshape(-1, 2)
        draw_pieces(img, trains, stations, self.config, scene.seed, centres, self._grain)

    # -- frames ------------------------------------------------------------------------------

    def render_frame(
        self,
        scene: Scene,
        view: View,
        rng: np.random.Generator | None = None,
        *,
        board_width: int | None = None,
    ) -> Rendered:
        """A camera frame of the scene as seen through ``view`` (BGR uint8 of ``view.size``)."""
        if rng is None:
            rng = np.random.default_rng(_stable_seed("frame", scene.seed))
        fw, fh = view.size
        corners = np.array(view.corners, dtype=np.float32)
        if board_width is None:
            span = max(
                float(np.linalg.norm(corners[1] - corners[0])),
                float(np.linalg.norm(corners[2] - corners[3])),
            )
            board_width = int(min(2400, max(300, round(span / 50) * 50)))
        board = self._board_with_pieces(scene, board_width)
        bh, bw = board.shape[:2]
        src = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], dtype=np.float32)
        M = cv2.getPerspectiveTransform(src, corners)
        frame = self._table_under(view).copy()
        cv2.warpPerspective(
            board,
            M,
            (fw, fh),
            dst=frame,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_TRANSPARENT,
        )
        # the board's cardboard edge, dark all round
        span = float(np.linalg.norm(corners[1] - corners[0]))
        edge = max(1, round(float(self.config["board"]["edge_width"]) * span))
        c = corners.astype(np.float64)
        mid = c.mean(axis=0)
        out = (c - mid) * (1.0 + (edge / 2) / np.linalg.norm(c - mid, axis=1, keepdims=True))
        cv2.polylines(  # just outside the printed board
            frame,
            [_fix(out + mid)],
            True,
            _col(self.config["board"]["edge"]),
            edge,
            cv2.LINE_AA,
            _SHIFT,
        )
        occlusion, covered, covered_cities = 0.0, frozenset[str](), frozenset[str]()
        if scene.hands or scene.shadows:
            occlusion, covered, covered_cities = self._draw_hands(frame, scene, view, M, bw, bh)
        gain, glare = self._lighting(view)
        cv2.multiply(frame, gain, dst=frame, scale=1 / 128)
        if glare is not None:
            cv2.add(frame, glare, dst=frame)
        if view.noise > 0:
            pos, neg = self._noise_buffers(view.size, view.noise)
            oy = int(rng.integers(0, pos.shape[0] - fh + 1))
            ox = int(rng.integers(0, pos.shape[1] - fw + 1))
            cv2.add(frame, pos[oy : oy + fh, ox : ox + fw], dst=frame)
            cv2.subtract(frame, neg[oy : oy + fh, ox : ox + fw], dst=frame)
        if view.blur > 0.05:
            frame = cv2.GaussianBlur(frame, (0, 0), view.blur)
        return Rendered(frame, corners, occlusion, covered, covered_cities)

    def _table_under(self, view: View) -> np.ndarray:
        """The table with the board's soft shadow on it (cached per view)."""
        key = (view.size, view.table, view.corners)
        t = self._shadowed.get(key)
        if t is None:
            base = self._table(view.size, view.table)
            fw, fh = view.size
            corners = np.array(view.corners, dtype=np.float64)
            span = float(np.linalg.norm(corners[1] - corners[0]))
            cfg = self.config["board"]
            off = float(cfg["shadow_offset"]) * span
            mask = np.zeros((fh, fw), np.uint8)
            cv2.fillPoly(mask, [_fix(corners + off)], 255, cv2.LINE_AA, _SHIFT)
            soft = cv2.GaussianBlur(mask, (0, 0), max(1.0, 2 * off))
            k = 1.0 - np.asarray(soft, np.float32) * (float(cfg["shadow"]) / 255.0)
            t = np.clip(base * k[..., None], 0, 255).astype(np.uint8)
            t.setflags(write=False)
            if len(self._shadowed) > 8:
                self._shadowed.clear()
            self._shadowed[key] = t
        return t

    def _table(self, size: tuple[int, int], index: int) -> np.ndarray:
        key = (size, index)
        t = self._tables.get(key)
        if t is None:
            cfg = self.config["table"]
            colors = cfg["colors"]
            base = np.array(colors[index % len(colors)], dtype=np.float32)
            fw, fh = size
            rng = np.random.default_rng(_stable_seed("table", self.art_seed, index, size))
            streaks = cv2.resize(
                rng.normal(0, 1, size=(max(2, fh // 6), 8)).astype(np.float32),
                (fw, fh),
                interpolation=cv2.INTER_CUBIC,
            )
            img = base + (streaks * float(cfg["grain"]))[..., None]
            t = np.clip(img, 0, 255).astype(np.uint8)
            t.setflags(write=False)
            self._tables[key] = t
        return t

    def _lighting(self, view: View) -> tuple[np.ndarray, np.ndarray | None]:
        key = (view.size, view.light_angle, view.light_strength, view.glare, view.glare_radius)
        cached = self._light.get(key)
        if cached is not None:
            return cached
        fw, fh = view.size
        sw, sh = max(2, fw // 8), max(2, fh // 8)
        ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
        xs = xs / (sw - 1) - 0.5
        ys = ys / (sh - 1) - 0.5
        a = math.radians(view.light_angle)
        g = 1.0 + view.light_strength * 2.0 * (xs * math.cos(a) + ys * math.sin(a))
        gain_small = np.clip(g * 128.0, 0, 255).astype(np.uint8)
        gain = cv2.resize(gain_small, (fw, fh), interpolation=cv2.INTER_LINEAR)
        gain3 = cv2.merge([gain, gain, gain])
        glare: np.ndarray | None = None
        gx, gy, gs = view.glare
        if gs > 0.01:
            r = view.glare_radius
            d2 = ((xs + 0.5 - gx) * fw / fh) ** 2 + (ys + 0.5 - gy) ** 2
            gl = 255.0 * gs * np.exp(-d2 / (2 * r * r))
            gl_small = np.clip(gl, 0, 255).astype(np.uint8)
            g1 = cv2.resize(gl_small, (fw, fh), interpolation=cv2.INTER_LINEAR)
            glare = cv2.merge([g1, g1, g1])
        self._light[key] = (gain3, glare)
        return gain3, glare

    def _noise_buffers(self, size: tuple[int, int], sigma: float) -> tuple[np.ndarray, np.ndarray]:
        key = (size, round(sigma, 1))
        buf = self._noise.get(key)
        if buf is None:
            fw, fh = size
            rng = np.random.default_rng(_stable_seed("noise", self.art_seed, size, key[1]))
            n = rng.normal(0.0, sigma, size=(fh + 48, fw + 48, 3)).astype(np.float32)
            pos = np.clip(n, 0, 255).astype(np.uint8)
            neg = np.clip(-n, 0, 255).astype(np.uint8)
            buf = (pos, neg)
            self._noise[key] = buf
        return buf

    def _quad_info(
        self, view: View, M: np.ndarray, bw: int, bh: int, scale: int
    ) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
        """Small-canvas board mask, its area and the small-canvas positions of spaces and cities."""
        key = (view.size, view.corners, bw, bh, scale)
        q = self._quad.get(key)
        if q is None:
            fw, fh = view.size
            sw, sh = fw // scale + 1, fh // scale + 1
            mask = np.zeros((sh, sw), np.uint8)
            pts = np.array(view.corners, dtype=np.float64) / scale
            cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1)
            area = int(mask.sum())
            names: list[str] = []
            sp: list[tuple[float, float]] = []
            for info in self.geometry.routes.values():
                for s in info.spaces:
                    names.append(info.id)
                    sp.append((s.x * bw, s.y * bh))
            cities = [(c.x * bw, c.y * bh) for c in self.geometry.cities.values()]
            allpts = np.array(sp + cities, dtype=np.float64).reshape(-1, 1, 2)
            proj = cv2.perspectiveTransform(allpts, M.astype(np.float64)).reshape(-1, 2) / scale
            ij = np.round(proj).astype(np.int64)
            ij[:, 0] = np.clip(ij[:, 0], 0, sw - 1)
            ij[:, 1] = np.clip(ij[:, 1], 0, sh - 1)
            q = (mask, area, ij[: len(sp)], ij[len(sp) :])
            self._quad[key] = q
        return q

    def _draw_hands(
        self, frame: np.ndarray, scene: Scene, view: View, M: np.ndarray, bw: int, bh: int
    ) -> tuple[float, frozenset[str], frozenset[str]]:
        cfg = self.config["hand"]
        scale = 4
        fh, fw = frame.shape[:2]
        sw, sh = fw // scale + 1, fh // scale + 1
        corners = np.array(view.corners, dtype=np.float64)
        board_px = float(np.linalg.norm(corners[1] - corners[0]))
        unit = board_px / scale  # a board width in small-canvas pixels
        body = np.zeros((sh, sw), np.float32)
        shadow = np.zeros((sh, sw), np.float32)
        skins = cfg["skin"]
        sleeves = cfg["sleeves"]
        for hand in scene.hands:
            if hand.edge not in EDGES:
                raise ValueError(f"hand edge must be one of {', '.join(EDGES)}, not {hand.edge!r}")
            t = cv2.perspectiveTransform(
                np.array([[[hand.target[0] * bw, hand.target[1] * bh]]], dtype=np.float64), M
            )[0, 0]
            skin = _col(skins[hand.skin % len(skins)])
            sleeve = skin if hand.sleeve is None else _col(sleeves[hand.sleeve % len(sleeves)])
            skin_m = np.zeros((sh, sw), np.uint8)
            sleeve_m = np.zeros((sh, sw), np.uint8)
            target = (float(t[0]) / scale, float(t[1]) / scale)
            hand_shape(skin_m, sleeve_m, hand, target, unit, (sw, sh), cfg)
            a_skin = skin_m.astype(np.float32) * (1 / 255)
            a_sleeve = sleeve_m.astype(np.float32) * (1 / 255) * (1.0 - a_skin)
            union = a_skin + a_sleeve
            dx, dy = (float(v) * unit for v in cfg["shadow_offset"])
            shifted = cv2.warpAffine(
                union, np.array([[1, 0, dx], [0, 1, dy]], dtype=np.float32), (sw, sh)
            )
            soft = cv2.GaussianBlur(shifted, (0, 0), max(0.5, float(cfg["shadow_blur"]) * unit))
            shifted = np.asarray(soft, np.float32) * float(cfg["shadow_strength"]) * hand.shadow
            np.maximum(shadow, shifted, out=shadow)
            np.maximum(body, union, out=body)
            composite(frame, scale, shifted, [(a_sleeve, sleeve), (a_skin, skin)], unit)
        for sh_ in scene.shadows:
            c = cv2.perspectiveTransform(
                np.array([[[sh_.center[0] * bw, sh_.center[1] * bh]]], dtype=np.float64), M
            )[0, 0]
            blob = np.zeros((sh, sw), np.float32)
            axes = (max(1, round(sh_.size[0] * unit / 2)), max(1, round(sh_.size[1] * unit / 2)))
            centre = (round(c[0] / scale), round(c[1] / scale))
            cv2.ellipse(blob, centre, axes, sh_.angle, 0, 360, 1.0, -1)
            soft = cv2.GaussianBlur(blob, (0, 0), max(1.0, 0.25 * min(axes)))
            blob = np.asarray(soft, np.float32) * float(sh_.strength)
            np.maximum(shadow, blob, out=shadow)
            composite(frame, scale, blob, [], unit)

        quad, area, space_ij, city_ij = self._quad_info(view, M, bw, bh, scale)
        cover = ((body > 0.5) | (shadow > 0.12)).astype(np.uint8)
        occ = float((cover & quad).sum()) / max(1, area)
        hit = cover[space_ij[:, 1], space_ij[:, 0]] > 0
        names = [info.id for info in self.geometry.routes.values() for _ in info.spaces]
        covered = frozenset(n for n, h in zip(names, hit, strict=True) if h)
        chit = cover[city_ij[:, 1], city_ij[:, 0]] > 0
        covered_cities = frozenset(c for c, h in zip(self.geometry.cities, chit, strict=True) if h)
        return occ, covered, covered_cities


def random_scene(
    rng: np.random.Generator,
    geometry: DrawnBoard,
    *,
    claimed: float = 0.4,
    stations: int = 6,
    hands: int = 0,
) -> Scene:
    """A random board: about ``claimed`` of the routes owned, some stations, some hands.

    As in the game, the two lanes of a double route never go to the same player."""
    routes: dict[str, str] = {}
    for r in geometry.drawable_routes():
        if rng.random() < claimed:
            k = int(rng.integers(0, len(PLAYER_COLORS)))
            twin = geometry.routes[r].twin
            if twin is not None and routes.get(twin) == PLAYER_COLORS[k]:
                k = (k + 1) % len(PLAYER_COLORS)
            routes[r] = PLAYER_COLORS[k]
    cities = list(geometry.cities)
    picked = rng.choice(len(cities), size=min(stations, len(cities)), replace=False)
    st = {cities[int(i)]: PLAYER_COLORS[int(rng.integers(0, 5))] for i in picked}
    hs = tuple(
        Hand(
            target=(float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9))),
            edge=EDGES[int(rng.integers(0, 4))],
            reach=float(rng.uniform(0.5, 1.0)),
            skin=int(rng.integers(0, 5)),
            sleeve=int(rng.integers(0, 6)) if rng.random() < 0.7 else None,
            spread=float(rng.uniform(-0.15, 0.15)),
        )
        for _ in range(hands)
    )
    return Scene(routes=routes, stations=st, hands=hs, seed=int(rng.integers(0, 2**31)))


def within_the_rules(scene: Scene, geometry: DrawnBoard, seed: int) -> Scene:
    """``scene`` as a rules-keeping table could show it: no colour over a player's trains (45)
    or stations (3) in Europe (``data/europe.json``). Routes and stations are kept in a seeded
    order while they fit; the rest are left free (hands and the scene's seed stay)."""
    rules = load_json("europe.json")
    order = sorted(scene.routes)
    np.random.default_rng(seed).shuffle(order)
    trains = dict.fromkeys(PLAYER_COLORS, 0)
    routes: dict[str, str] = {}
    for r in order:
        colour, length = scene.routes[r], geometry.routes[r].length
        if trains[colour] + length <= int(rules["trains_per_player"]):
            trains[colour] += length
            routes[r] = colour
    built = dict.fromkeys(PLAYER_COLORS, 0)
    stations: dict[str, str] = {}
    for city in sorted(scene.stations):
        colour = scene.stations[city]
        if built[colour] < int(rules["stations_per_player"]):
            built[colour] += 1
            stations[city] = colour
    return Scene(
        routes=routes, stations=stations, hands=scene.hands, shadows=scene.shadows, seed=scene.seed
    )


def own_print_game(seed: int, geometry: DrawnBoard, claimed: float) -> Scene:
    """A random game (``claimed``, 5 stations) whose routes printed in a player colour are, each
    at even odds, claimed by that colour (where its twin lane is not already), kept within the
    rules (``within_the_rules``): trains on their own print, where colour alone cannot tell them
    from it."""
    rng = np.random.default_rng(seed)
    sc = random_scene(rng, geometry, claimed=claimed, stations=5)
    routes = dict(sc.routes)
    for r in geometry.drawable_routes():
        c, twin = geometry.routes[r].color, geometry.routes[r].twin
        if c in PLAYER_COLORS and rng.random() < 0.5 and (twin is None or routes.get(twin) != c):
            routes[r] = c
    return within_the_rules(
        Scene(routes=routes, stations=sc.stations, seed=sc.seed), geometry, seed + 1
    )


def own_print_routes(rng: np.random.Generator, geometry: DrawnBoard) -> dict[str, str]:
    """Trains of their own colour on about half the routes printed in a player colour (never
    both lanes of a double): what the reader cannot tell from the print by colour alone."""
    routes: dict[str, str] = {}
    for r in geometry.drawable_routes():
        colour = geometry.routes[r].color
        twin_same = routes.get(str(geometry.routes[r].twin)) == colour
        if colour in PLAYER_COLORS and rng.random() < 0.5 and not twin_same:
            routes[r] = colour
    return routes
