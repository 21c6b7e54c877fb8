"""Uneven light taken off (companion.vision.features.light) and empty boards read empty in many
lights."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from companion.sim.perturb import channel_gains, light_gradient
from companion.sim.render import BoardRenderer, Scene, random_scene, random_view
from companion.vision.decide.context import ReadContext, sample_raw, take_samples
from companion.vision.features import light
from companion.vision.locate.locate import BoardLocation
from companion.vision.reading.read import ReadCache, read_board, read_samples


def test_the_light_surface_is_measured_apart_from_the_paper_colours() -> None:
    rng = np.random.default_rng(5)
    uv = rng.uniform(0, 1, (1500, 2))
    materials = np.array([[200, 190, 170], [150, 175, 200], [120, 120, 130]], float)  # BGR
    kind = rng.integers(0, 3, len(uv))
    kind[uv[:, 0] < 0.3] = 0  # one material crowded on one side: not a gradient
    slope = 0.6  # the right side lit exp(0.6) = 1.8 times the left
    gain = np.exp(slope * (uv[:, 0] - 0.5))
    px = materials[kind] * gain[:, None] * rng.normal(1, 0.02, (len(uv), 1))
    fit = light.light_surface(np.clip(px, 0, 255).astype(np.uint8), uv)
    assert fit is not None
    surface, span = fit
    assert surface[0] == pytest.approx(slope, abs=0.08)
    assert abs(surface[1]) < 0.08
    assert span == pytest.approx(slope, abs=0.12)
    even = materials[kind] * rng.normal(1, 0.02, (len(uv), 1))
    fit_even = light.light_surface(np.clip(even, 0, 255).astype(np.uint8), uv)
    assert fit_even is not None and fit_even[1] < 0.1


def test_gains_scale_every_byte_as_the_fixed_point_formula() -> None:
    """Every byte times every gain the fixed point allows (0.5 to 1.99 in 1/128):
    ``min((byte * gain) >> 7, 255)``, on this OpenCV and numpy."""
    gains = np.arange(64, 256, dtype=np.uint16)
    px = np.tile(np.arange(256, dtype=np.uint8), (len(gains), 3)).reshape(-1, 3)
    got = light._scaled(px, len(gains), gains).reshape(len(gains), -1)
    wide = px.reshape(len(gains), -1).astype(np.int64) * gains[:, None].astype(np.int64)
    assert np.array_equal(got, np.minimum(wide >> 7, 255))


def _top(renderer: BoardRenderer, seed: int) -> tuple[np.ndarray, np.ndarray]:
    board = renderer.render_board(Scene(seed=seed), 2000)
    h, w = board.shape[:2]
    return board, np.array([[0, 0], [w, 0], [w, h], [0, h]], float)


def test_an_evenly_lit_board_is_left_alone(ctx: ReadContext, renderer: BoardRenderer) -> None:
    board, corners = _top(renderer, 1)
    loc = BoardLocation.from_corners(corners, (board.shape[1], board.shape[0]))
    raw = sample_raw(board, loc.homography, ctx)
    assert light.flatten_raw(raw, ctx) is raw
    dark = sample_raw(light_gradient(board, 0.5), loc.homography, ctx)
    flat = light.flatten_raw(dark, ctx)
    assert flat is not dark
    # the dark side brought back in line with the bright one: the spread over the board of
    # each space's brightness against the evenly lit board's shrinks
    n_sp = raw.spaces_shape[0]

    def level(r) -> np.ndarray:
        return r.body[: r.n_space_px].reshape(n_sp, -1).astype(float).mean(axis=1)

    before = np.std(np.log(level(dark) / level(raw)))
    after = np.std(np.log(level(flat) / level(raw)))
    assert after < 0.4 * before


LIGHTS = {
    "warm": lambda i: channel_gains(i, (0.7, 0.92, 1.25)),
    "very warm": lambda i: channel_gains(i, (0.6, 0.88, 1.3)),
    "cool": lambda i: channel_gains(i, (1.25, 1.0, 0.8)),
    "uneven": lambda i: light_gradient(i, 0.55),
    "dark uneven": lambda i: light_gradient(channel_gains(i, (0.8, 0.8, 0.8)), 0.5),
}


@pytest.mark.parametrize("name", sorted(LIGHTS))
def test_an_empty_board_reads_empty(ctx: ReadContext, renderer: BoardRenderer, name: str):
    """Top-down and at an angle (a random overhead camera, seeded), in each light: no route
    claimed and no station, and nothing it is unsure of that a person must check."""
    change = LIGHTS[name]
    board, corners = _top(renderer, 2)
    view = random_view(np.random.default_rng(104), (1920, 1080))
    frame = renderer.render_frame(Scene(seed=2), view, np.random.default_rng(2))
    for image, where in ((change(board), corners), (change(frame.image), frame.corners)):
        loc = BoardLocation.from_corners(where, (image.shape[1], image.shape[0]))
        reading, _ = read_samples(take_samples(image, loc.homography, ctx), ctx)
        claimed = [r for r, c in reading.routes.items() if c is not None]
        built = [c for c, s in reading.stations.items() if s is not None]
        assert claimed == [] and built == [], (claimed, built)
        assert len(reading.check) <= 3, reading.check


def test_live_frames_at_one_place_share_one_measure_of_the_light(
    ctx: ReadContext, renderer: BoardRenderer
) -> None:
    """ReadCache: the light's shape measured on the first full read at a place is taken off the
    frames that follow (its gains within a few per cent of measuring it on each; the readings
    differ at most on what either lists to check, and what it reads wrong is wrong measuring
    the light on each frame too, or on its check list); a lamp switched on at the other side
    is noticed and measured again, and it is measured again after ``light.refresh_reads`` full
    reads in any case."""
    rng = np.random.default_rng(11)
    scene = random_scene(np.random.default_rng(12), renderer.geometry)
    board = renderer.render_board(scene, 2000)
    h, w = board.shape[:2]
    loc = BoardLocation.from_corners(np.array([[0, 0], [w, 0], [w, h], [0, h]], float), (w, h))

    def noisy(image: np.ndarray) -> np.ndarray:
        return np.clip(image + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)

    def wrong(reading: Any) -> set[str]:
        routes = {r for r, c in reading.routes.items() if c != scene.routes.get(r)}
        return routes | {c for c, s in reading.stations.items() if s != scene.stations.get(c)}

    lamp_left = light_gradient(board, 0.45)

    def gains(frame: np.ndarray) -> np.ndarray:
        own = light.measure(sample_raw(frame, loc.homography, ctx), ctx)
        assert own is not None and own.gain_patch is not None
        return own.gain_patch.astype(int)

    # the measure's own jitter under sensor noise: two noisy frames of the same picture, each
    # measured (about 6 steps of 1/128 with numpy 2 + OpenCV 5.0, 10 on the Pi's pair)
    jitter = max(
        int(np.abs(gains(noisy(lamp_left)) - gains(noisy(lamp_left))).max()) for _ in range(3)
    )
    cache = ReadCache()
    for k in range(3):
        cache.reference = None  # every frame read in full
        frame = noisy(lamp_left)
        got = read_board(frame, location=loc, context=ctx, cache=cache)
        cold = read_board(frame, location=loc, context=ctx)
        differ = {r for r in got.routes if got.routes[r] != cold.routes[r]}
        differ |= {c for c in got.stations if got.stations[c] != cold.stations[c]}
        assert differ <= set(got.check) | set(cold.check), differ
        assert wrong(got) - wrong(cold) <= set(got.check)  # no silent error of its own
        # the gains kept (1/128 steps) against the frame's own: within the measure's own jitter
        # under sensor noise (and two steps more)
        assert cache.light is not None and cache.light.gain_patch is not None
        step = np.abs(gains(frame) - cache.light.gain_patch.astype(int))
        assert step.max() <= (0 if k == 0 else jitter + 2), (step.max(), jitter)
    assert cache.full_reads == 3 and cache.light_fits == 1
    assert cache.light is not None and not cache.light.even
    lamp_right = np.ascontiguousarray(light_gradient(board[:, ::-1], 0.45)[:, ::-1])
    cache.reference = None
    frame = noisy(lamp_right)
    got = read_board(frame, location=loc, context=ctx, cache=cache)
    assert cache.light_fits == 2
    assert wrong(got) - wrong(read_board(frame, location=loc, context=ctx)) <= set(got.check)
    for _ in range(int(ctx.cfg["light"]["refresh_reads"])):
        cache.reference = None
        read_board(noisy(lamp_right), location=loc, context=ctx, cache=cache)
    assert cache.light_fits == 3
