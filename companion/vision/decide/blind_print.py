"""A free route this picture cannot settle: printed in the colour of trains seen playing, on a
picture that could not tell that colour's trains from its print.

Where a route is printed in a player colour, its colour cannot tell that colour's trains from
the print (``check.print_like``); only the picture's trains-on-their-own-print discriminant can
(``adapt.own_print_terms``). Where ``adapt.own_print_apart`` leaves a colour's discriminant out
of the final decision (its trains and its print not apart on this picture), a route printed in
that colour and read free rests on colour alone. ``check.assess`` lists it (reason
``blind-print``, ``vision_check.json`` ``list_blind``), whatever its calibrated share, where
nothing else on the board vouches for it: that colour's trains are seen on fewer than
``blind_few_trains`` spaces of the whole board (a colour seen so little, and not told from its
print, may have its trains on that print), or the route is at most ``blind_short`` spaces long
(one space of its print's colour, nothing else of the route to tell); and only while the
print's case over those trains (its grade) is under ``blind_grade`` log-odds.

On tuning own-print games (seeds 6000-6599 at 900-1,300 px, ``tools/silent_stats.py``), 45 of
the 69 routes read free on their own colour's print, wrong and calibrated >= ``sure``, were
printed in a colour the picture could not tell (7.6 % of the 591 such readings, against 0.1 %
of the others; the calibration's fitting sets see few such pictures, and pool them with the
rest of ``free-own``). All 45 are of the two cases above with grades under 12 (75 readings
with a grade under 15): the rest of a blind colour's free print, 516 readings there, was right,
and listing it all cost up to 10 more routes on a picture of one colour on both lanes.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from companion.vision.decide.classify import SpaceLayoutInfo, SpaceModel

BoolArray = npt.NDArray[np.bool_]


def cannot_tell(model: SpaceModel) -> BoolArray | None:
    """(5,) per player colour (``PLAYER_COLORS`` order): whether this picture could not tell its
    trains from its print (the model learnt the trains-on-their-own-print discriminant and
    ``adapt.own_print_apart`` left that colour's out of the final decision); None where the
    discriminant is not used at all."""
    if model.own_print_weight <= 0.0 or model.own_print_apart is None:
        return None
    return ~np.asarray(model.own_print_apart, dtype=np.bool_)


def blind_routes(
    kinds: list[str],
    grade: npt.NDArray[np.float64],
    used: npt.NDArray[np.int64],
    info: SpaceLayoutInfo,
    blind: BoolArray | None,
    limits: tuple[int, int, float],
) -> BoolArray:
    """Per route (``info.route_ids`` order): read free on the print of a colour seen playing
    (calibration kind ``free-own`` or ``free-own-mixed``: not ``free-full``, which the trains as
    read settle), printed in a colour of ``blind`` (``cannot_tell``), with a grade (the print's
    case over those trains, ``calibrate.route_grades``) under ``limits[2]``, and either that
    colour's trains read on fewer than ``limits[0]`` spaces of the whole board (``used``: the
    trains read per hypothesis, free first, ``check.trains_read``) or the route at most
    ``limits[1]`` spaces long."""
    few_trains, short, under = limits
    n = len(kinds)
    if blind is None:
        return np.zeros(n, dtype=np.bool_)
    starts = np.asarray(info.route_starts)
    colour = np.asarray(info.own_colour)[starts]  # -1: no player colour
    length = np.diff(np.r_[starts, len(info.printed_colors)])
    few = np.asarray(used)[colour + 1] < few_trains
    own = np.array([k.startswith("free-own") for k in kinds], dtype=np.bool_)
    cannot = np.asarray(blind, dtype=np.bool_)[np.maximum(colour, 0)]
    weak = np.asarray(grade, dtype=np.float64) < under
    out: BoolArray = own & (colour >= 0) & cannot & weak & (few | (length <= short))
    return out
