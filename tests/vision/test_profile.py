"""A table's profile (companion.vision.decide.profile) and readings with it, on rendered boards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.sim.perturb import channel_gains
from companion.sim.render import BoardRenderer, Scene, own_print_routes, random_view
from companion.vision.decide import profile as prof
from companion.vision.decide.check import CheckConfig, profile_fits, route_evidence
from companion.vision.decide.classify import lab8, space_features_lab8
from companion.vision.decide.context import ReadContext, take_samples
from companion.vision.locate.locate import BoardLocation
from companion.vision.reading.read import read_samples


def _samples(image, corners, ctx: ReadContext):
    loc = BoardLocation.from_corners(corners, (image.shape[1], image.shape[0]))
    return take_samples(image, loc.homography, ctx)


def _features(samples, ctx: ReadContext):
    return space_features_lab8(lab8(samples.spaces), ctx.layout, ctx.windows, ctx.info.tunnel)


def _same_colour_scene(renderer: BoardRenderer, seed: int) -> Scene:
    """Trains of their own colour on half the routes printed in a player colour."""
    routes = own_print_routes(np.random.default_rng(seed), renderer.geometry)
    return Scene(routes=routes, seed=seed)


@pytest.fixture(scope="module")
def table(ctx: ReadContext, renderer: BoardRenderer):
    """One camera: the empty board (the profile), then a game under a little warmer light."""
    view = random_view(np.random.default_rng(302), (1280, 720))
    empty = renderer.render_frame(Scene(seed=2), view, np.random.default_rng(1))
    profile = prof.TableProfile.from_empty("cam0", _features(_samples(*_pair(empty), ctx), ctx))
    scene = _same_colour_scene(renderer, 7)
    frame = renderer.render_frame(scene, view, np.random.default_rng(3))
    image = channel_gains(frame.image, (0.9, 0.98, 1.08))
    return profile, scene, _samples(image, frame.corners, ctx)


def _pair(rendered):
    return rendered.image, rendered.corners


def _read(samples, ctx: ReadContext, profile: prof.TableProfile | None):
    reading, _ = read_samples(samples, ctx, profile=profile)
    return reading


def test_a_profile_sees_trains_on_their_own_print(ctx: ReadContext, table) -> None:
    profile, scene, samples = table
    g = ctx.geometry
    assert len(scene.routes) >= 10
    truth = {r: scene.routes.get(r) for r in g.route_ids}
    without = _read(samples, ctx, None)
    with_profile = _read(samples, ctx, profile)
    wrong_without = [r for r in g.route_ids if without.routes[r] != truth[r]]
    wrong_with = [r for r in g.route_ids if with_profile.routes[r] != truth[r]]
    assert len(wrong_with) <= 1 < len(wrong_without)
    assert set(wrong_with) <= set(with_profile.check)
    # every space of a claimed route changed from its empty look, most free ones did not
    changed = profile.changed(_features(samples, ctx), ctx.info.printed_index[1])
    cfg = CheckConfig.load()
    claimed = np.array([truth[r] is not None for r in ctx.info.route_ids])[ctx.info.space_route]
    assert np.median(changed[~claimed]) < cfg.unchanged / 4
    assert np.percentile(changed[claimed], 5) > cfg.changed


def test_a_profile_that_does_not_fit_is_not_used(ctx: ReadContext, renderer, table) -> None:
    profile, _, _ = table
    other_view = random_view(np.random.default_rng(777), (1280, 720))
    fr = renderer.render_frame(Scene(seed=5), other_view, np.random.default_rng(4))
    samples = _samples(fr.image, fr.corners, ctx)
    _, res = read_samples(samples, ctx)
    ev = route_evidence(res.scores, ctx.info, ctx.model.route_temperature)
    cfg = CheckConfig.load()
    assert (
        profile_fits(
            profile.changed(_features(samples, ctx), ctx.info.printed_index[1]), ev, ctx.info, cfg
        )
        is False
    )
    # another look of the table's own empty board fits
    view = random_view(np.random.default_rng(302), (1280, 720))
    again = renderer.render_frame(Scene(seed=2), view, np.random.default_rng(11))
    s2 = _samples(again.image, again.corners, ctx)
    _, res2 = read_samples(s2, ctx)
    ev2 = route_evidence(res2.scores, ctx.info, ctx.model.route_temperature)
    assert (
        profile_fits(
            profile.changed(_features(s2, ctx), ctx.info.printed_index[1]), ev2, ctx.info, cfg
        )
        is True
    )


def test_player_colours_learnt_refined_and_kept_per_camera(ctx: ReadContext, tmp_path: Path):
    n = len(ctx.info.printed_colors)
    rng = np.random.default_rng(0)
    look = rng.normal(50, 5, (n, 8))
    feats = type("F", (), {})()
    feats.printed, feats.cues = look[:, :4], look[:, 4:]
    p = prof.TableProfile.from_empty("usb:0 (Logitech)", feats)
    assert p.empty_count == 1 and np.allclose(p.noise(), prof.NOISE_FLOOR)
    feats.printed = look[:, :4] + rng.normal(0, 6, (n, 4))
    p.add_empty(feats)
    assert p.empty_count == 2 and p.noise()[0] > prof.NOISE_FLOOR
    red = ctx.model.plastic["red"]
    p.add_trains("red", np.tile(red + np.array([2.0, 0.0, 0.0, 0.0]), (6, 1)))
    p.add_trains("red", np.tile(red + np.array([-4.0, 0.0, 0.0, 0.0]), (3, 1)))
    assert p.plastic_count["red"] == 9
    assert p.plastic["red"][0] == pytest.approx(red[0])  # (6 * 2 - 3 * 4) / 9 = 0
    with pytest.raises(ValueError):
        p.add_trains("purple", np.zeros((1, 4)))
    model = p.model(ctx.model)
    assert model.plastic["blue"] is ctx.model.plastic["blue"]
    q = p.quality(ctx.model)
    assert q["colours"]["red"]["learnt_from"] == 9 and q["colours"]["blue"]["learnt_from"] == 0
    assert 0 < q["colours"]["red"]["to_nearest_colour"] < 100
    path = prof.profile_path(tmp_path, p.camera)
    assert path.name == "vision_profile_usb_0_Logitech.json"
    prof.save(p, path)
    back = prof.load(path)
    assert back.camera == p.camera and back.empty_count == 2
    assert np.allclose(back.empty, p.empty, atol=1e-4)
    assert np.allclose(back.plastic["red"], p.plastic["red"], atol=1e-4)
    path.write_text('{"version": 1, "features": []}', encoding="utf-8")
    with pytest.raises(ValueError):
        prof.load(path)


def test_colours_learnt_from_the_first_trains(ctx: ReadContext, renderer: BoardRenderer) -> None:
    routes = {"berlin-wien": "red", "madrid-pamplona-2": "red", "paris-zurich": "blue"}
    # the game under a slightly other light than the empty board
    board = channel_gains(
        renderer.render_board(Scene(routes=routes, seed=4), 1500), (0.95, 1, 1.05)
    )
    h, w = board.shape[:2]
    samples = _samples(board, np.array([[0, 0], [w, 0], [w, h], [0, h]], float), ctx)
    feats = _features(samples, ctx)
    empty = renderer.render_board(Scene(seed=4), 1500)
    p = prof.TableProfile.from_empty(
        "cam", _features(_samples(empty, [[0, 0], [w, 0], [w, h], [0, h]], ctx), ctx)
    )
    before = p.empty.copy()
    claims: dict[str, str | None] = {**routes, "brest-paris": None}
    prof.learn_claims(p, feats, ctx.info, ctx.windows, ctx.model, claims)
    g = ctx.geometry
    assert (
        p.plastic_count["red"]
        == g.routes["berlin-wien"].length + g.routes["madrid-pamplona-2"].length
    )
    assert p.plastic_count["blue"] == g.routes["paris-zurich"].length
    # the learnt red sits nearer the reader's red than any other plastic does
    scale = ctx.model.scale
    d = {
        c: float(np.sum(((p.plastic["red"] - v) / scale) ** 2))
        for c, v in ctx.model.plastic.items()
    }
    assert min(d, key=d.get) == "red"
    sl = ctx.info.route_slices["brest-paris"]
    assert not np.allclose(p.empty[sl], before[sl]) and np.allclose(
        p.empty[: sl.start], before[: sl.start]
    )
    with pytest.raises(ValueError):
        prof.learn_claims(p, feats, ctx.info, ctx.windows, ctx.model, {"nowhere-x": "red"})
