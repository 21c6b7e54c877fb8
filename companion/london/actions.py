"""London actions: the core's action dataclasses where no card is named, London ones where one is.

JSON and text forms are those of the Europe actions (``companion.core.actions``, read by the
same code with a London :class:`~companion.core.actions.Notation`), with London card names
(``bus`` is the wild card). London has no tunnels and no stations. Text form::

    red draw deck        red draw face bus        red claim big-ben--waterloo blue
    red tickets          red keep covent-garden--hyde-park
    red drew 2           red end                  red pass
"""

from __future__ import annotations

from typing import Any

from companion.core.actions import (
    Action,
    DrawDeck,
    DrawTickets,
    DrewCards,
    EndTurn,
    FaceUpDraw,
    KeepTickets,
    Notation,
    Pass,
    RouteClaim,
    action_types,
    read_action,
    read_action_text,
)

from .cards import LONDON_CARDS, Card

__all__ = [
    "ACTION_TYPES",
    "Action",
    "ClaimRoute",
    "DrawDeck",
    "DrawFaceUp",
    "DrawTickets",
    "DrewCards",
    "EndTurn",
    "KeepTickets",
    "Pass",
    "action_from_json",
    "parse_action",
]


class DrawFaceUp(FaceUpDraw[Card]):
    """Take one of the five face-up London cards (simulation)."""


class ClaimRoute(RouteClaim[Card]):
    """Put buses on a route."""


ACTION_TYPES = action_types(DrawFaceUp, ClaimRoute)

# Europe's action types and verbs London has not, and why
_TUNNEL_TYPES = ("tunnel_reveal", "tunnel_pay", "tunnel_withdraw")
_NOT_IN_LONDON = {
    **dict.fromkeys(_TUNNEL_TYPES, "London has no tunnels"),
    **dict.fromkeys(("reveal", "tunnel-pay", "tunnel-withdraw"), "London has no tunnels"),
    **dict.fromkeys(("build_station", "station"), "London has no stations"),
}

LONDON_NOTATION: Notation[Card] = Notation(
    ACTION_TYPES,
    {
        "claim": ClaimRoute,
        "tickets": DrawTickets,
        "keep": KeepTickets,
        "drew": DrewCards,
        "end": EndTurn,
        "pass": Pass,
    },
    LONDON_CARDS,
    absent=_NOT_IN_LONDON,
    tuple_cards=False,
    null_count=False,
    face_any_case=True,
    claim_id="a route id",
    board="London",
)


def action_from_json(data: Any) -> Action:
    """Parse the JSON form of a London action."""
    return read_action(data, LONDON_NOTATION)


def parse_action(text: str) -> Action:
    """Parse the text form (see the module docstring)."""
    return read_action_text(text, LONDON_NOTATION)
