"""What the reader learns of each picture beyond its class means (``classify._adapt``).

Two things a camera, a light and a print run change together, learnt on the picture itself from
the spaces read with confidence:

* **the relief of plastic against print** (``same_colour_terms``): how one-side shading, fine
  dark lines and a specular highlight show depends on the camera's sharpness and the light (on
  the shared photos the glossy print shows more highlight and more fine lines than the pieces;
  under another light or another camera it can be the other way round). Per player colour, the
  log-likelihood ratio of those cues between that colour's trains and its printed spaces *in
  this picture* replaces the one fitted on the tuning photos, once both are seen on enough
  spaces: it is what tells a train from the print of its own colour, where the colours cannot;
* **a colour's shift** (``plastic_offsets``): the colour processing (saturation, the hue of a
  lamp) moves a player colour's plastic the way it moves the print of the same colour, which
  every board shows on many spaces even when few trains of that colour stand elsewhere. The
  plastic's prior mean is moved with its print (chroma only: ``channels``); trains of that
  colour read with confidence outweigh it as they do the prior.

Pure array functions; the colours are indexed in ``types.PLAYER_COLORS`` order.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from companion.vision.types import PLAYER_COLORS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def same_colour_terms(
    cues: FloatArray,
    trains: IntArray,
    prints: IntArray,
    prior: FloatArray,
    columns: tuple[int, ...],
    weight: float,
    min_spaces: int,
    var_floor: float,
    shrink: float = 0.0,
) -> FloatArray:
    """The same-colour terms (5, 1 + n_cues) of this picture.

    ``cues`` (n, n_cues) clipped; ``trains`` (n,): the colour index of a space read with
    confidence as a train, else -1; ``prints`` (n,): the colour index of a space read with
    confidence as free and printed in that player colour, else -1; ``prior``: the terms fitted
    on the tuning photos, kept for a colour not seen on ``min_spaces`` spaces both ways. Each
    row: bias and cue weights of ``weight`` times the log-likelihood ratio (normal, variance
    pooled over the picture's groups, at least ``var_floor``) of the ``columns`` cues, drawn
    towards the prior's row as ``shrink`` spaces would (m / (m + shrink) of the picture's own,
    m the smaller of the two groups)."""
    out = np.array(prior, dtype=np.float64, copy=True)
    if not columns:
        return out
    cols = np.array(columns, dtype=np.int64)
    k = len(PLAYER_COLORS)
    # One label per space: its colour's trains (0..k-1), its colour's print (k..2k-1).
    label = np.where(trains >= 0, trains, prints + k * (prints >= 0))
    keep = label >= 0
    lab, sub = label[keep], cues[keep][:, cols]
    onehot = np.zeros((2 * k, len(lab)))
    onehot[lab, np.arange(len(lab))] = 1.0
    count = onehot.sum(axis=1)
    sums = onehot @ sub
    squares = onehot @ (sub * sub)
    big = count >= 3
    if not big.any():
        return out
    mean = sums / np.maximum(count, 1.0)[:, None]
    var = np.maximum((squares[big] / count[big, None] - mean[big] ** 2).mean(axis=0), var_floor)
    mp, mr = mean[:k], mean[k:]
    m = np.minimum(count[:k], count[k:])
    rows = np.zeros_like(out)
    rows[:, 0] = -0.5 * weight * ((mp * mp - mr * mr) / var).sum(axis=1)
    rows[:, 1 + cols] = weight * (mp - mr) / var
    share = (m / np.maximum(m + shrink, 1e-9))[:, None]
    seen = m >= min_spaces
    out[seen] = (share * rows + (1.0 - share) * out)[seen]
    return out


def plastic_offsets(
    printed_shift: FloatArray,
    trains_seen: FloatArray,
    prior_weight: float,
    channels: tuple[int, ...],
) -> FloatArray:
    """(5, n_features) what to add to each player colour's adapted plastic mean.

    ``printed_shift`` (5, n_features): the colour's print as adapted on this picture less its
    prior (zeros for a colour no board prints); ``trains_seen`` (5,): the trains of the colour
    read with confidence (the prior's share of the adapted mean is ``prior_weight`` over
    ``prior_weight + trains_seen``: so much of the shift moves it)."""
    out = np.zeros_like(printed_shift)
    if not channels:
        return out
    cols = np.array(channels, dtype=np.int64)
    share = prior_weight / (prior_weight + trains_seen)
    out[:, cols] = printed_shift[:, cols] * share[:, None]
    return out
