"""A free route this picture cannot settle: printed in the colour of trains seen playing, on a
picture that could not tell that colour's trains from its print.

Where a route is printed in a player colour, its colour cannot tell that colour's trains from
the print (``check.print_like``); only the picture's trains-on-their-own-print discriminant can
(``adapt.own_print_terms``). Where ``adapt.own_print_apart`` leaves a colour's discriminant out
of the final decision (its trains and its print not apart on this picture), a route printed in
that colour and read free rests on colour alone: the reading cannot say whether that colour's
trains stand on it. ``check.assess`` lists it (reason ``blind-print``, ``vision_check.json``
``list_blind``), whatever its calibrated share, as it lists claims on a print the picture did
not show (``print-unsettled``).

On tuning own-print games (seeds 6000-6599 at 900-1,300 px, ``tools/silent_stats.py``), 45 of
the 69 routes read free on their own colour's print, wrong and calibrated >= ``sure``, were of
this case: 7.6 % of its 591 readings there, against 0.1 % of the others (the calibration's
fitting sets see few such pictures, and pool them with the rest of ``free-own``).
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


def blind_routes(kinds: list[str], info: SpaceLayoutInfo, blind: BoolArray | None) -> BoolArray:
    """Per route (``info.route_ids`` order): read free on the print of a colour seen playing
    (calibration kind ``free-own`` or ``free-own-mixed``: not ``free-full``, which the trains as
    read settle) and printed in a colour of ``blind`` (``cannot_tell``)."""
    n = len(kinds)
    if blind is None:
        return np.zeros(n, dtype=np.bool_)
    colour = np.asarray(info.own_colour)[info.route_starts]  # -1: no player colour
    own = np.array([k.startswith("free-own") for k in kinds], dtype=np.bool_)
    out: BoolArray = own & (colour >= 0) & np.asarray(blind, dtype=np.bool_)[np.maximum(colour, 0)]
    return out
