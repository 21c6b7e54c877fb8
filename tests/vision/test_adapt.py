"""What the reader learns of each picture (companion.vision.decide.adapt), on hand-made numbers."""

from __future__ import annotations

import numpy as np

from companion.vision.decide.adapt import (
    own_print_apart,
    own_print_final,
    own_print_scores,
    own_print_terms,
    plastic_offsets,
    same_colour_terms,
)
from companion.vision.decide.classify import CUE_FEATURES
from companion.vision.types import PLAYER_COLORS

ASYM = CUE_FEATURES.index("asymmetry")


def _cues(rng: np.random.Generator, n: int, asym: float) -> np.ndarray:
    out = rng.normal(5.0, 1.0, size=(n, len(CUE_FEATURES)))
    out[:, ASYM] = rng.normal(asym, 1.0, size=n)
    return out


def test_the_relief_of_a_colour_is_learnt_from_its_trains_and_its_print() -> None:
    """Yellow trains more one-sided than yellow print on this picture: yellow's row weighs
    one-side shading towards the trains (its log-likelihood ratio is positive on a train's
    value, negative on the print's); colours not seen both ways keep the prior row."""
    rng = np.random.default_rng(1)
    yellow = PLAYER_COLORS.index("yellow")
    cues = np.concatenate([_cues(rng, 8, 14.0), _cues(rng, 10, 6.0), _cues(rng, 2, 14.0)])
    trains = np.r_[np.full(8, yellow), np.full(10, -1), np.full(2, 0)]
    prints = np.r_[np.full(8, -1), np.full(10, yellow), np.full(2, -1)]
    prior = np.full((len(PLAYER_COLORS), 1 + len(CUE_FEATURES)), 0.25)
    out = same_colour_terms(cues, trains, prints, prior, (ASYM,), 0.5, 3, 1.0)
    row = out[yellow]
    assert row[1 + ASYM] > 0.5
    assert row[0] + row[1 + ASYM] * 14.0 > 0 > row[0] + row[1 + ASYM] * 6.0
    others = [i for i in range(len(PLAYER_COLORS)) if i != yellow]
    assert np.array_equal(out[others], prior[others])  # blue: 2 trains, no print seen
    # drawn towards the prior as ``shrink`` spaces would
    half = same_colour_terms(cues, trains, prints, prior, (ASYM,), 0.5, 3, 1.0, shrink=8.0)
    assert np.allclose(half[yellow], (8 * row + 8 * prior[yellow]) / 16)
    # nothing learnt without cues or below the minimum
    assert np.array_equal(same_colour_terms(cues, trains, prints, prior, (), 0.5, 3, 1.0), prior)
    assert np.array_equal(
        same_colour_terms(cues, trains, prints, prior, (ASYM,), 0.5, 9, 1.0), prior
    )


def test_a_plastic_moves_with_its_print_as_far_as_its_prior_counts() -> None:
    shift = np.zeros((len(PLAYER_COLORS), 4))
    shift[:, 1:3] = [-6.0, -8.0]  # duller colour processing: a and b towards grey
    shift[:, 0] = 3.0
    seen = np.array([0.0, 8.0, 24.0, 0.0, 0.0])
    out = plastic_offsets(shift, seen, 8.0, (1, 2))
    assert np.allclose(out[0], [0.0, -6.0, -8.0, 0.0])  # no trains of it: the whole shift
    assert np.allclose(out[1], [0.0, -3.0, -4.0, 0.0])  # as many trains as the prior counts
    assert np.allclose(out[2], [0.0, -1.5, -2.0, 0.0])
    assert not plastic_offsets(shift, seen, 8.0, ()).any()


def test_a_table_profiles_colours_are_not_moved_with_the_print_again() -> None:
    """With a table profile, a colour it has learnt is that camera's own plastic: the picture's
    print shift (dull colour processing here) moves the other colours, not that one."""
    from companion.sim.perturb import saturation
    from companion.sim.render import BoardRenderer, random_scene
    from companion.vision.decide.context import make_context, take_samples
    from companion.vision.decide.profile import TableProfile
    from companion.vision.locate.locate import BoardLocation
    from companion.vision.reading.read import read_samples

    ctx = make_context()
    renderer = BoardRenderer()
    scene = random_scene(np.random.default_rng(12), renderer.geometry)
    board = saturation(renderer.render_board(scene, 1400), 0.6)
    h, w = board.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    loc = BoardLocation.from_corners(corners, (w, h))
    samples = take_samples(board, loc.homography, ctx)
    _, plain = read_samples(samples, ctx)
    assert plain.model.plastic_offset is not None
    red = PLAYER_COLORS.index("red")
    assert np.abs(plain.model.plastic_offset[red]).max() > 0.5
    look = np.zeros((len(ctx.info.space_route), 8))
    profile = TableProfile("cam", look, look, 1)
    profile.plastic["red"] = np.asarray(ctx.model.plastic["red"], dtype=np.float64)
    assert profile.model(ctx.model).camera_plastic == frozenset({"red"})
    _, with_profile = read_samples(samples, ctx, profile=profile)
    offset = with_profile.model.plastic_offset
    assert offset is not None
    assert np.abs(offset[red]).max() == 0.0
    others = [i for i, c in enumerate(PLAYER_COLORS) if c != "red"]
    assert np.abs(offset[others]).max() > 0.5


def test_trains_on_their_own_print_are_told_apart_only_where_this_picture_separates_them() -> None:
    """Red trains (elsewhere) darker and more shaded than red print on this picture: the
    discriminant is learnt, calls a train-like space on red print red and a print-like one
    free, and is used in the final decision (``own_print_apart``). Where the free spaces on red
    print look like the trains half the time (a photo whose trains resemble their print), it
    is learnt but not used."""
    rng = np.random.default_rng(4)
    red = PLAYER_COLORS.index("red")
    n_t, n_p = 20, 12
    trains = np.r_[np.full(n_t, red), np.full(n_p, -1)]
    prints = np.r_[np.full(n_t, -1), np.full(n_p, red)]
    apart_x = np.r_[rng.normal(-3.0, 1.0, (n_t, 2)), rng.normal(3.0, 1.0, (n_p, 2))]
    terms = own_print_terms(apart_x, trains, prints, 3, 0.5, 3.0)
    assert np.isfinite(terms[red]).all()
    assert np.isnan(np.delete(terms, red, axis=0)).all()  # no other colour seen both ways
    gate = own_print_apart(apart_x, trains, prints, terms, 3.0, 0.03)
    assert gate.tolist() == [c == "red" for c in PLAYER_COLORS]
    # two spaces printed red, the scores unsure: one like a train, one like the print
    scores = np.zeros((2, 1 + len(PLAYER_COLORS)))
    own = np.full(2, red)
    x = np.array([[-3.0, -3.0], [3.0, 3.0]])
    out = own_print_scores(scores, x, own, terms, 1.0, gate)
    assert out[0, 1 + red] > out[0, 0] and out[1, 0] > out[1, 1 + red]
    # the two spaces one route: it changes as its least train-like space, both print
    same = own_print_scores(scores, x, own, terms, 1.0, gate, np.zeros(2, np.int64))
    assert (same[:, 0] > same[:, 1 + red]).all()
    assert np.allclose(same[0], out[1]) and np.allclose(same[1], out[1])
    # mixed: half the "print" group looks like the trains
    mixed_x = apart_x.copy()
    mixed_x[n_t : n_t + n_p // 2] = rng.normal(-3.0, 1.0, (n_p // 2, 2))
    mixed = own_print_terms(mixed_x, trains, prints, 3, 0.5, 3.0)
    assert np.isfinite(mixed[red]).all()
    assert not own_print_apart(mixed_x, trains, prints, mixed, 3.0, 0.03).any()
    kept = own_print_scores(scores, x, own, mixed, 1.0, np.zeros(len(PLAYER_COLORS), bool))
    assert np.array_equal(kept, scores)


def test_a_colour_the_discriminant_would_give_more_trains_than_a_player_has_is_left_out() -> None:
    """Four one-space routes printed red, all train-like to the discriminant: within a
    player's trains (here 4) they read red; over them by more than a route (here 0) red's
    discriminant is left out and the scores stay as they were (free)."""
    red = PLAYER_COLORS.index("red")
    k = len(PLAYER_COLORS)
    terms = np.full((k, 3), np.nan)
    terms[red] = [0.9, 0.0, 1.0]  # share, bias, weight: positive x is a train
    x = np.full((4, 1), 5.0)
    own = np.full(4, red)
    route = np.arange(4)
    scores = np.zeros((4, 1 + k))
    scores[:, 0] = 1.0  # the fitted model leans free

    def decide(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.argmax(s, axis=1), np.ones(len(s))

    apart = np.array([c == "red" for c in PLAYER_COLORS])
    within = own_print_final(scores, x, own, terms, 1.0, (apart, route, 4), decide)
    assert (decide(within)[0] == 1 + red).all()
    over = own_print_final(scores, x, own, terms, 1.0, (apart, route, 0), decide)
    assert np.array_equal(over, scores)
    # over by one space (within own_route's slack): only one route leaves the discriminant,
    # at even odds between red and free; the others read red
    by_one = own_print_final(scores, x, own, terms, 1.0, (apart, route, 3), decide)
    even = by_one[:, 0] == by_one[:, 1 + red]
    assert even.sum() == 1 and (decide(by_one[~even])[0] == 1 + red).all()
