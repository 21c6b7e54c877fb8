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

from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.decide.own_route import even_odds, route_values, within_trains
from companion.vision.features.exact import pair_sq_dist
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


def own_print_features(
    printed: FloatArray, cues: FloatArray, scale: FloatArray, columns: tuple[int, ...]
) -> FloatArray:
    """(n, len(columns)) what tells a train from the print of its own colour, per space: of the
    core's colour features (L, a, b, L spread; as ``classify.space_features`` measures them)
    over the model's scales and the clipped cues over their spread on this picture, the
    ``columns`` (colour features first, then cues)."""
    spread = np.maximum(cues.std(axis=0), 1e-6)
    both = np.concatenate([printed / scale, cues / spread], axis=1)
    return np.asarray(both[:, list(columns)], dtype=np.float64)


def own_print_terms(
    x: FloatArray,
    trains: IntArray,
    prints: IntArray,
    min_spaces: int,
    var_floor: float,
    shrink: float,
) -> FloatArray:
    """Per player colour, the linear discriminant between that colour's trains and its print
    *on this picture* (5, 2 + n_features: its share, bias, weights; NaN where not learnt).

    ``x``: ``own_print_features``; ``trains`` (n,): the colour index of a space read with
    confidence as a train on a route printed in another colour (the colours tell those apart
    from any print), else -1; ``prints`` (n,): the colour index of a space read with confidence
    as free and printed in that player colour, else -1. Where a train stands on its own print
    its colour and relief are those of its trains elsewhere, and the print's are those of the
    free spaces: both groups seen on ``min_spaces`` spaces give the log-likelihood ratio of two
    normal distributions with their pooled per-feature variance (at least ``var_floor``). Its
    share of the decision is m / (m + ``shrink``), m the smaller group."""
    k = len(PLAYER_COLORS)
    out = np.full((k, 2 + x.shape[1]), np.nan)
    counts = np.minimum(
        np.bincount(trains[trains >= 0], minlength=k)[:k],
        np.bincount(prints[prints >= 0], minlength=k)[:k],
    )
    for c in np.flatnonzero(counts >= max(min_spaces, 1)):  # the colours both groups show
        t, p = x[trains == c], x[prints == c]
        m = min(len(t), len(p))
        mt, mp = t.sum(axis=0) / len(t), p.sum(axis=0) / len(p)  # their means
        within = ((t - mt) ** 2).sum(axis=0) + ((p - mp) ** 2).sum(axis=0)
        w = (mt - mp) / np.maximum(within / (len(t) + len(p)), var_floor)
        out[c, 0] = m / (m + shrink)
        out[c, 1] = -float(w @ (mt + mp)) / 2.0
        out[c, 2:] = w
    return out


def own_print_apart(
    x: FloatArray,
    trains: IntArray,
    prints: IntArray,
    terms: FloatArray,
    min_separation: float,
    max_error: float,
) -> npt.NDArray[np.bool_]:
    """(5,) per player colour: whether this picture shows its trains and its print apart along
    the learnt ``own_print_terms`` (groups as there): their means at least ``min_separation``
    pooled standard deviations apart, and at most a share ``max_error`` of the spaces of both
    groups on the wrong side. Where they are not (on photos whose trains look like their
    print), the final decision leaves the discriminant out: it would read print as trains."""
    apart, wrong = own_print_separation(x, trains, prints, terms)
    return np.asarray((apart >= min_separation) & (wrong <= max_error), dtype=np.bool_)


def own_print_separation(
    x: FloatArray, trains: IntArray, prints: IntArray, terms: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(5,) and (5,) per player colour, along its ``own_print_terms`` (groups as in
    ``own_print_apart``, every colour at once): how many pooled standard deviations apart its
    trains' and its print's means are, and the share of both groups' spaces on the wrong
    side; NaN where not learnt or a group is empty."""
    k = len(terms)
    learnt = np.isfinite(terms[:, 0])
    w = np.where(learnt[:, None], np.nan_to_num(terms[:, 2:]), 0.0)
    bias = np.where(learnt, terms[:, 1], 0.0)
    counts, sums, squares, wrong = (np.zeros((2, k)) for _ in range(4))
    for side, (group, sign) in enumerate(((trains, 1.0), (prints, -1.0))):
        rows = np.flatnonzero((group >= 0) & learnt[np.maximum(group, 0)])
        c = group[rows]
        s = np.einsum("ij,ij->i", x[rows], w[c]) + bias[c]  # every space on its colour's axis
        counts[side] = np.bincount(c, minlength=k)
        sums[side] = np.bincount(c, weights=s, minlength=k)
        squares[side] = np.bincount(c, weights=s * s, minlength=k)
        wrong[side] = np.bincount(c, weights=(s * sign < 0), minlength=k)
    ok = learnt & (counts > 0).all(axis=0)
    n = np.maximum(counts, 1.0)
    mean = sums / n
    var = np.maximum(squares / n - mean * mean, 0.0)  # per group (the variance of its scores)
    total = np.maximum(counts.sum(axis=0), 1.0)
    spread = np.maximum(np.sqrt((var * counts).sum(axis=0) / total), 1e-9)
    apart = np.where(ok, (mean[0] - mean[1]) / spread, np.nan)
    return apart, np.where(ok, wrong.sum(axis=0) / total, np.nan)


def own_print_scores(
    scores: FloatArray,
    x: FloatArray,
    own: IntArray,
    terms: FloatArray,
    weight: float,
    apart: npt.NDArray[np.bool_] | None = None,
    route: IntArray | None = None,
) -> FloatArray:
    """``scores`` (n, 6; free, then PLAYER_COLORS) where a space is printed in a player colour
    whose ``own_print_terms`` were learnt: how likely the space shows that print or that
    colour's trains at all, against the other colours, stays as the scores say (their
    log-sum-exp is kept); between the two, the log-odds become the picture's own discriminant
    (times ``weight``) and the scores' own log-odds, in the discriminant's share. ``apart``:
    only the colours set there (``own_print_apart``; default all learnt). ``route`` (n,): each
    space's route; given, a route's spaces change together: each takes the discriminant of its
    route's least train-like space (trains cover every space of a claimed route; a print that
    looks like trains on some of its spaces, in a shadow or beside another lane, is print), or
    of the next where that is clearly trains (``own_route.route_values``)."""
    learnt = np.isfinite(terms[:, 0])
    if apart is not None:
        learnt &= apart
    rows = np.flatnonzero((own >= 0) & learnt[np.maximum(own, 0)])
    if not len(rows):
        return scores
    out = np.array(scores, dtype=np.float64, copy=True)
    col = 1 + own[rows]
    t = terms[own[rows]]
    seen = weight * (t[:, 1] + (x[rows] * t[:, 2:]).sum(axis=1))
    if route is not None:  # the least train-like space's, or the next if clearly trains
        seen = route_values(seen, route[rows])
    odds = t[:, 0] * seen + (1.0 - t[:, 0]) * (out[rows, col] - out[rows, 0])
    both = np.logaddexp(out[rows, 0], out[rows, col])
    out[rows, 0] = both - np.logaddexp(0.0, odds)
    out[rows, col] = both - np.logaddexp(0.0, -odds)
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


@cache
def print_estimate_config() -> dict[str, float]:
    """``space_model.adapt.print_estimate`` of ``data/vision.json``."""
    cfg = load_json("vision.json")["space_model"]["adapt"]["print_estimate"]
    return {k: float(v) for k, v in cfg.items() if k != "note"}


def print_estimate(
    printed: FloatArray,
    index: IntArray,
    names: list[str],
    prior: dict[str, FloatArray],
    plastic: dict[str, FloatArray],
    scale: FloatArray,
    cfg: dict[str, float] | None = None,
) -> tuple[dict[str, FloatArray], frozenset[str]]:
    """The print of the copy in front of the camera, from the picture itself, and the printed
    colours whose print this picture does not settle.

    ``printed``: every space's core (L, a, b, L spread) as ``classify.space_features`` measures
    it; ``index``: each space's printed colour in ``names``. Most spaces of a board are free
    for most of a game, and trains on a printed colour come in five colours that scatter while
    its print is one cluster. Per printed colour: the densest cluster of its spaces (the most
    spaces within ``radius``, squared scaled distance in L, a, b, of one of them), when it
    holds at least ``min_share`` of them and ``min_spaces``, and is nearer the fitted print
    than any plastic (a cluster of trains is not a print) or, nearer only the plastic of its
    own colour, holds ``high_share`` of them (this only on another copy, seen in some other
    colour's print: on the fitted copy such a cluster is that colour's trains covering most of
    its print, as late in a game), gives the print's look when it lies further than
    ``radius`` from the fitted print: its mean, drawn towards ``prior`` as ``prior_weight``
    spaces would (nearer, the fitted print stays and adaptation moves it as before). A colour
    with no such cluster keeps ``prior`` and is unsettled unless ``min_spaces`` of its spaces
    lie near that (late in a game few are free, but those show the known print) and some
    other print was found further than ``copy_radius`` from the fitted one (another copy: the
    fitted print tells nothing of it); a print found as near its own plastic as the fitted
    print is unsettled too (trains on it, or hidden, cannot be told from it)."""
    c = cfg if cfg is not None else print_estimate_config()
    out = dict(prior)
    unsettled: set[str] = set()
    moved = False  # a print found unlike the fitted one: another copy of the board
    covered: list[tuple[str, int, FloatArray]] = []  # clusters as near their own trains
    s = np.asarray(scale, dtype=np.float64)[:3]
    r = c["radius"]
    colours = [p for p in PLAYER_COLORS if p in plastic]
    plastics = np.stack([plastic[p][:3] for p in colours])
    for i, name in enumerate(names):
        if name not in prior:
            continue
        rows = printed[index == i]
        n = len(rows)
        need = max(c["min_spaces"], c["min_share"] * n)
        z = rows[:, :3] / s
        near_prior = int((((z - prior[name][:3] / s) ** 2).sum(axis=1) <= r).sum())
        if n < c["min_spaces"]:
            continue
        d = pair_sq_dist(z)  # ((z[:, None] - z[None]) ** 2).sum(axis=2), features/exact.py
        counts = (d <= r).sum(axis=1)
        centre = int(np.argmax(counts))
        members = rows[d[centre] <= r]
        if len(members) < need:
            if near_prior < c["min_spaces"]:
                unsettled.add(name)
            continue
        mean = members.mean(axis=0)
        to_print = float((((mean[:3] - prior[name][:3]) / s) ** 2).sum())
        to_plastic = ((mean[:3] / s - plastics / s) ** 2).sum(axis=1)
        own = np.array([p == name for p in colours])
        far = to_print > r
        other_trains = far and bool((to_plastic[~own] <= to_print).any())
        own_trains = far and bool((to_plastic[own] <= to_print).any())
        if other_trains or (own_trains and len(members) < c["high_share"] * n):
            # a cluster as near a plastic as the print: trains (another colour's, or its own
            # on too few spaces to be its print): this picture cannot tell
            if near_prior < c["min_spaces"]:
                unsettled.add(name)
            continue
        if own_trains:  # most of the colour's spaces: its print, but as near as its trains
            # (or its trains, covering most of its print late in a game): its print only when
            # this is another copy, seen in some other colour's print
            unsettled.add(name)
            covered.append((name, len(members), mean))
            continue
        if not far:  # the fitted print explains it: adaptation does the rest, as before
            continue
        moved = moved or to_print > c["copy_radius"]
        k = c["prior_weight"]
        out[name] = np.asarray((len(members) * mean + k * prior[name]) / (len(members) + k))
    if not moved:  # every print seen is the fitted one: so are those too covered to be seen
        return out, frozenset()
    for name, m, mean in covered:
        out[name] = np.asarray(
            (m * mean + c["prior_weight"] * prior[name]) / (m + c["prior_weight"])
        )
    return out, frozenset(unsettled)


def with_print_estimate(
    model: Any, printed: FloatArray, names: list[str], index: IntArray
) -> tuple[Any, frozenset[str]]:
    """``model`` (a ``classify.SpaceModel``) with this picture's print (``print_estimate``)
    and the printed colours the picture cannot settle."""
    est, unsettled = print_estimate(
        printed, index, names, model.printed, model.plastic, model.scale
    )
    return replace(model, printed=est), unsettled


def own_print_final(
    scores: FloatArray,
    x: FloatArray,
    own: IntArray,
    terms: FloatArray,
    weight: float,
    gate: tuple[npt.NDArray[np.bool_], IntArray, int],
    decide: Callable[[FloatArray], tuple[IntArray, FloatArray]],
) -> FloatArray:
    """The final round's ``own_print_scores``: ``gate`` is (the colours apart, each space's
    route, a player's trains). A colour that the discriminant would give more trains than a
    player has (``decide``: every route's hypothesis and confidence from the scores) is left
    out: this picture's discriminant then takes its print for trains; but over by a route or
    so, only its least train-like route is (``own_route.within_trains``), and read at even odds
    between its trains and its print (``own_route.even_odds``: not sure either way)."""
    apart, route, most = gate
    doubt = np.full(len(own), -1)  # routes left out by within_trains: even odds, not the colours'
    while True:
        out = even_odds(own_print_scores(scores, x, own, terms, weight, apart, route), doubt)
        claimed = decide(out)[0][route]  # each space's route's hypothesis
        trains = np.bincount(claimed, minlength=1 + len(apart))[1:]
        over = apart & (trains > most)
        if not over.any():
            return out
        left, keep = within_trains(x, own, terms, (route, claimed), trains - most, over)
        doubt = np.where(left != own, own, doubt)
        own, apart = left, apart & keep
