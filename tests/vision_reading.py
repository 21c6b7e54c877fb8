"""Reading a rendered board that fills its picture, as the vision tests do."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from companion.sim.render import Scene
from companion.vision.decide.context import ReadContext, take_samples
from companion.vision.locate.locate import BoardLocation, locate_board
from companion.vision.reading.read import read_samples
from companion.vision.types import PLAYER_COLORS, BoardReading

# adapt.print_estimate's settings and feature scale as the print-estimate tests give them
PRINT_CFG: dict[str, float] = {
    "radius": 9.0,
    "copy_radius": 16.0,
    "min_share": 0.3,
    "min_spaces": 4.0,
    "high_share": 0.6,
    "prior_weight": 8.0,
}
PRINT_SCALE = np.array([6.0, 4.0, 5.0, 3.0])


def read_whole(image: np.ndarray, ctx: ReadContext) -> BoardReading:
    """Read a picture that is the board from edge to edge, sampled and read as a located photo
    is, without locating it."""
    h, w = image.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    loc = BoardLocation.from_corners(corners, (w, h))
    reading, _ = read_samples(take_samples(image, loc.homography, ctx), ctx)
    return reading


def read_located(image: np.ndarray, ctx: ReadContext) -> tuple[Any, BoardReading]:
    """Locate the board in a photo, sample and read it as the photo mode does: the samples
    (``take_samples``'s) and the reading."""
    store: dict[int, Any] = {}
    loc = locate_board(image, context=ctx, store=store)
    samples = take_samples(image, loc.homography, ctx, store=store, offsets=loc.offsets)
    reading, _ = read_samples(samples, ctx)
    return samples, reading


def layout_info(sizes: list[int], own: list[int], pairs: list[tuple[int, int]]) -> SimpleNamespace:
    """A ``classify.SpaceLayoutInfo`` as the rules after ``assess`` read it: routes ``r0``...
    of ``sizes`` spaces printed in player colour ``own`` (one per route; -1: none), ``pairs``
    of route numbers the two lanes of a double route."""
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    ids = [f"r{k}" for k in range(len(sizes))]
    return SimpleNamespace(
        route_starts=starts,
        route_ids=ids,
        route_slices={
            rid: slice(int(a), int(a) + n) for rid, a, n in zip(ids, starts, sizes, strict=True)
        },
        printed_colors=["x"] * int(sum(sizes)),  # only its length is read
        own_colour=np.repeat(np.array(own, dtype=np.int64), sizes),
        space_route=np.repeat(np.arange(len(sizes)), sizes),
        pair_index=(
            np.array([a for a, _ in pairs], dtype=np.int64),
            np.array([b for _, b in pairs], dtype=np.int64),
        ),
        lane_pairs=[(ids[a], ids[b]) for a, b in pairs],
    )


def between_free_and(colour: int, margins: list[float]) -> np.ndarray:
    """Log-probabilities (n, 6) of spaces between free and ``colour`` only (``colour`` minus
    free: ``margins``)."""
    m = np.array(margins)
    lp = np.full((len(m), 1 + len(PLAYER_COLORS)), -40.0)
    lp[:, 0] = -np.logaddexp(0.0, m)
    lp[:, 1 + colour] = m - np.logaddexp(0.0, m)
    return lp


def assert_undisputed(reading: BoardReading, scene: Scene, ctx: ReadContext) -> None:
    """Every route ``reading`` has wrong (against ``scene``) is on its check list, and every
    colour's train count is within 2 of the truth."""
    lengths = ctx.geometry.routes
    err = dict.fromkeys(PLAYER_COLORS, 0)
    for rid in ctx.geometry.route_ids:
        t, got = scene.routes.get(rid), reading.routes[rid]
        if t is not None:
            err[t] -= lengths[rid].length
        if got is not None:
            err[got] += lengths[rid].length
        assert got == t or rid in reading.check, (rid, t, got)
    assert max(abs(v) for v in err.values()) <= 2, err
