"""Fixtures for the reading/locating tests.

Real photos are read from ../shared/photos (never copied) and skipped when absent. Everything
else is drawn here from the board's facts: space boxes in the printed colours the tuned model
expects (its own numbers, converted from Lab), a paper background spread in the tones the reader
expects of a board's paper, and a dark border.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.sim.render import BoardRenderer
from companion.vision.decide.context import ReadContext, make_context
from companion.vision.geometry.geometry import corners_homography, load_geometry, project
from companion.vision.types import PLAYER_COLORS, BoardReading

REPO = Path(__file__).resolve().parents[2]
PHOTOS = REPO / ".." / "shared" / "photos"


def lab_to_bgr(lab: Any) -> tuple[int, int, int]:
    px = np.array([[lab[:3]]], dtype=np.float32)
    bgr = cv2.cvtColor(px, cv2.COLOR_LAB2BGR)[0, 0]
    return tuple(round(float(np.clip(v, 0, 1)) * 255) for v in bgr)  # type: ignore[return-value]


def paper(ctx: ReadContext, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """The board's paper, land and sea: smooth blotches whose tones spread per channel as the
    reader's tone reference says a board's paper does (so its tone map is about identity)."""
    h, w = shape
    field = cv2.resize(rng.normal(0, 1, (12, 18)).astype(np.float32), (w, h))
    rank = field.argsort(axis=None).argsort().reshape(h, w) / (h * w - 1) * 100.0
    out = np.empty((h, w, 3), np.uint8)
    knots = [0.0, *ctx.tone_percentiles, 100.0]
    for c in range(3):
        ref = ctx.tone_reference[:, c]
        tones = [ref[0] * 0.8, *ref, min(255.0, ref[-1] + 4.0)]
        out[..., c] = np.interp(rank, knots, tones).astype(np.uint8)
    return out


def draw_board(
    ctx: ReadContext,
    size: tuple[int, int] = (1200, 800),
    owners: dict[str, str] | None = None,
    seed: int = 0,
) -> np.ndarray:
    """A flat, project-drawn Europe board: every space in its printed colour (or a train's)."""
    rng = np.random.default_rng(seed)
    w, h = size
    g = load_geometry()
    img = paper(ctx, (h, w), rng)
    b = int(0.03 * h)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (40, 50, 60), 2 * b)
    hmat = corners_homography(np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
    model = ctx.model
    a = g.aspect
    # The printed outline sits inside the measured box, as on the real board.
    outline_along = float(ctx.cfg["register"]["outline_along"])
    outline_across = float(ctx.cfg["register"]["outline_across"])
    owners = owners or {}
    for rid in g.route_ids:
        owner = owners.get(rid)
        for sp in g.spaces[rid]:
            th = np.radians(sp.angle)
            dl = np.array([np.cos(th), np.sin(th)]) * sp.length * a / 2 * outline_along
            dw = np.array([-np.sin(th), np.cos(th)]) * sp.width / 2 * outline_across
            cen = np.array([sp.u * a, sp.v])
            pts = np.array([cen - dl - dw, cen + dl - dw, cen + dl + dw, cen - dl + dw])
            pts[:, 0] /= a
            poly = project(hmat, pts).astype(np.int32).reshape(-1, 1, 2)
            if owner is None:
                colour = lab_to_bgr(model.printed[g.routes[rid].color])
            else:
                colour = lab_to_bgr(model.plastic[owner])
            cv2.fillPoly(img, [poly], colour)
            cv2.polylines(img, [poly], True, (60, 60, 60), 1)
    for cid in g.city_ids:
        c = g.cities[cid]
        p = project(hmat, np.array([[c.u, c.v]]))[0]
        cv2.circle(img, (int(p[0]), int(p[1])), max(2, int(0.008 * h)), (40, 110, 200), -1)
    noise = rng.normal(0, 6, (h, w, 1))  # print and sensor grain
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def on_table(
    board: np.ndarray, corners: np.ndarray, size: tuple[int, int], seed: int
) -> np.ndarray:
    """Warp ``board`` into a bigger frame at ``corners`` (TL TR BR BL) over a wood-like table."""
    rng = np.random.default_rng(seed)
    w, h = size
    table = np.zeros((h, w, 3), np.float32)
    table[:] = (40, 80, 130)
    grain = cv2.resize(
        rng.normal(0, 1, (max(2, h // 20), max(2, w // 2))).astype(np.float32), (w, h)
    )
    table += grain[..., None] * 25
    out = np.clip(table, 0, 255).astype(np.uint8)
    bh, bw = board.shape[:2]
    src = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], np.float32)
    m = cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32))
    cv2.warpPerspective(board, m, (w, h), dst=out, borderMode=cv2.BORDER_TRANSPARENT)
    return out


@pytest.fixture(scope="session")
def ctx() -> ReadContext:
    return make_context()


@pytest.fixture(scope="module")
def renderer() -> BoardRenderer:
    """The simulator's board renderer, one per test module (as each module had its own)."""
    return BoardRenderer()


@pytest.fixture(scope="session")
def photos_dir() -> Path:
    if not PHOTOS.is_dir():
        pytest.skip("../shared/photos is absent")
    return PHOTOS.resolve()


@pytest.fixture(scope="session")
def small_photos(photos_dir: Path) -> dict[str, np.ndarray]:
    """The shared photos, downscaled once per session (about 1800 px wide)."""
    out = {}
    for p in sorted(photos_dir.glob("*.jpg")):
        img = cv2.imread(str(p))
        f = 1800 / img.shape[1]
        out[p.stem] = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return out


@pytest.fixture(scope="session")
def drawn_owners() -> dict[str, str]:
    rng = np.random.default_rng(7)
    g = load_geometry()
    ids = list(g.route_ids)
    chosen = rng.choice(len(ids), size=40, replace=False)
    return {ids[int(i)]: PLAYER_COLORS[int(rng.integers(0, 5))] for i in chosen}


class Drawing:
    """The drawing helpers, handed to tests as a fixture (tests/vision is not a package)."""

    draw_board = staticmethod(draw_board)
    on_table = staticmethod(on_table)


@pytest.fixture(scope="session")
def drawing() -> type[Drawing]:
    return Drawing


def _free_reading(ctx: ReadContext, station_confidence: float = 0.999) -> BoardReading:
    """A reading of ``ctx``'s board: every route free (confidence 1), no station (confidence
    ``station_confidence``)."""
    g = ctx.geometry
    return BoardReading(
        routes={r: None for r in g.route_ids},
        stations={c: None for c in g.city_ids},
        confidence={
            **{r: 1.0 for r in g.route_ids},
            **{c: station_confidence for c in g.city_ids},
        },
        spaces={r: [None] * len(g.spaces[r]) for r in g.route_ids},
    )


@pytest.fixture(scope="session")
def free_reading() -> Any:
    """``_free_reading``, a new reading each call (tests/vision is not a package)."""
    return _free_reading
