"""What the reader learns of each picture (companion.vision.adapt), on hand-made numbers."""

from __future__ import annotations

import numpy as np

from companion.vision.adapt import plastic_offsets, same_colour_terms
from companion.vision.classify import CUE_FEATURES
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
