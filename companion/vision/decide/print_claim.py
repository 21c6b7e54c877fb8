"""A claim in a route's own printed colour whose patches all look like print: listed.

``short_free.py`` lists the routes read free whose patches look like trains; this is its mirror.
On own-print and plain tuning renders at 1,000-1,300 px (issue 25), after every other rule, the
silent errors left of free print read as trains were claims of the route's own printed colour,
every space read so, at a calibrated 0.98-0.995, on routes of three spaces: free yellow
Smolensk-Wilno (own-print tuning game 17605) and red Erzurum-Sochi (17766) read as their colour's
trains; free black lanes beside the other lane's trains (Berlin-Frankfurt-1 beside yellow trains,
17626; Madrid-Pamplona-1 beside blue ones, 16382) read black; free red Berlin-Frankfurt-2 beside
black trains (plain 15114) read red. The colours cannot tell trains from their print, and
the reader took the print for trains with confidence.

``own_second``'s discriminant (the shape of a plastic piece: end gaps, a lit and a shaded side, no
print outline) tells them apart: those claims' spaces scored under -3 but for one, while the claims
of a route's own colour that were right (its colour's trains on it) scored above 0 on at least one
space on all but a few one-space Budapest-Wien-1s (a station beside it, or a short space) and one
Constantinople-Sofia (on real photos scaled to 1,000 px, right two-space claims scored as low,
hence ``min_spaces`` 3). ``list_print_claims`` lists (``print-claim``) every such claim, not listed
yet, of at least ``min_spaces`` spaces none of which scores ``max_below`` or more, or whose spaces
score under ``mean_below`` on average (Madrid-Pamplona-1's middle space, beside the other lane's
blue trains, scored 0.6-4.3 at 1,200-1,300 px, its others under -5). It runs where ``own_second``'s
discriminant does: on pictures of its ``min_space_px`` to ``max_space_px`` pixels a space whose
sure free print scores as its fitted renders' (``own_second.like_the_fit``). Thresholds and the
tuning seeds they were chosen on: ``data/vision_print_claim.json``. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from companion.data import load_json
from companion.vision.decide import own_second
from companion.vision.decide.check import add_to_list
from companion.vision.features.sample import U8Array
from companion.vision.types import PLAYER_COLORS, BoardReading

RULE = "print-claim"


@dataclass(frozen=True)
class PrintClaim:
    """``data/vision_print_claim.json``'s ``print_claim`` section (``min_spaces`` 0: off)."""

    min_spaces: int
    max_below: float  # listed when every space scores under this ...
    mean_below: float  # ... or the spaces' mean does (the other lane's trains reach into one)


@cache
def print_claim_config() -> PrintClaim:
    data: dict[str, Any] = load_json("vision_print_claim.json")["print_claim"]
    return PrintClaim(
        min_spaces=int(data["min_spaces"]),
        max_below=float(data["max_below"]),
        mean_below=float(data["mean_below"]),
    )


def own_claims(reading: BoardReading, info: Any, cfg: PrintClaim) -> list[int]:
    """Route numbers (``info.route_ids`` order) of the routes the rule looks at: of at least
    ``min_spaces`` spaces, read as a claim of their own printed player colour, not listed."""
    sizes, colour = own_second.printed_routes(info)
    listed = set(reading.check)
    return [
        k
        for k, rid in enumerate(info.route_ids)
        if colour[k] >= 0
        and sizes[k] >= cfg.min_spaces
        and reading.routes.get(rid) == PLAYER_COLORS[int(colour[k])]
        and rid not in listed
    ]


def print_like(
    rows: list[int], reading: BoardReading, spaces_lab: U8Array, info: Any, space_px: float
) -> list[int]:
    """Of ``rows``, the routes none of whose spaces ``own_second``'s discriminant scores
    ``max_below`` or more, or whose spaces' mean is under ``mean_below``; none where the
    discriminant is not to be trusted."""
    cfg = print_claim_config()

    def keep(k: int, sl: slice, mine: own_second.FloatArray) -> bool:
        return bool(mine.max() < cfg.max_below or mine.mean() < cfg.mean_below)

    return own_second.pick(rows, reading, spaces_lab, info, space_px, keep)


def list_print_claims(
    reading: BoardReading,
    spaces_lab: U8Array,
    info: Any,
    geometry: Any,
    space_px: float | None,
) -> BoardReading:
    """``reading`` with the claims of a route's own printed colour that its patches call print
    on its check list (``RULE``). ``spaces_lab``: every space's patch (n, ny, nx, 3, 8-bit Lab);
    ``info``: a ``classify.SpaceLayoutInfo``; ``space_px``: the picture's train space length
    (None: unknown, nothing listed)."""
    cfg = print_claim_config()
    if cfg.min_spaces <= 0 or space_px is None:
        return reading
    found = print_like(own_claims(reading, info, cfg), reading, spaces_lab, info, space_px)
    if not found:
        return reading
    return add_to_list(reading, [info.route_ids[k] for k in found], RULE, geometry)
