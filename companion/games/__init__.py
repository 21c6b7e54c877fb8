"""The games the service runs besides Ticket to Ride: Europe, behind one small interface.

Europe is the service's own fold (``companion.service``: table tracker, camera, card reader,
photo mode). Every other game is a :class:`GameKind` that starts a :class:`GameTable`; the
service logs its actions, replays them onto the table (restart, undo, history) and publishes
:meth:`GameTable.public`. See base.py.
"""

from __future__ import annotations

from functools import cache

from .base import Announcement, GameKind, GameTable, Seat

EUROPE = "europe"
GAMES: tuple[str, ...] = (EUROPE, "london", "transeuropa", "trambahn")


@cache
def game_kind(name: str) -> GameKind:
    """The kind of a game other than Europe (KeyError for an unknown name or Europe)."""
    if name == "london":
        from .london import London

        return London()
    if name == "transeuropa":
        from .transeuropa import TransEuropa

        return TransEuropa()
    if name == "trambahn":
        from .trambahn import Trambahn

        return Trambahn()
    raise KeyError(name)


def all_colors() -> tuple[str, ...]:
    """Every player colour any game accepts (pairing links take these)."""
    from companion.core.cards import PLAYER_COLORS

    out = list(PLAYER_COLORS)
    for name in GAMES[1:]:
        for c in game_kind(name).colors:
            if c not in out:
                out.append(c)
    return tuple(out)


__all__ = [
    "EUROPE",
    "GAMES",
    "Announcement",
    "GameKind",
    "GameTable",
    "Seat",
    "all_colors",
    "game_kind",
]
