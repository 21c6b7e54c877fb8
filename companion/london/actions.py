"""London actions: the core's action dataclasses where no card is named, London ones where one is.

JSON and text forms are those of the Europe actions (``companion.core.actions``), with London
card names (``bus`` is the wild card). London has no tunnels and no stations. Text form::

    red draw deck        red draw face bus        red claim big-ben--waterloo blue
    red tickets          red keep covent-garden--hyde-park
    red drew 2           red end                  red pass
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.core.actions import (
    Action,
    DrawDeck,
    DrawTickets,
    DrewCards,
    EndTurn,
    KeepTickets,
    Pass,
)
from companion.core.cards import parse_player_color
from companion.core.errors import NotationError

from .cards import Card, parse_card, parse_cards

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


def _cards_text(cards: Sequence[Card] | None) -> list[str]:
    """Cards as words; an explicitly empty list is ``-`` (no words means "not known")."""
    if cards is None:
        return []
    return [c.value for c in cards] or ["-"]


@dataclass(frozen=True, slots=True)
class DrawFaceUp(Action):
    """Take one of the five face-up cards (simulation)."""

    card: Card = Card.BUS
    TYPE: ClassVar[str] = "draw_face_up"
    VERB: ClassVar[str] = "draw face"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "player": self.player, "card": self.card.value}

    def _text_args(self) -> list[str]:
        return [self.card.value]


@dataclass(frozen=True, slots=True)
class ClaimRoute(Action):
    """Put buses on a route. ``cards`` may be None at a table where nobody tapped them."""

    route: str = ""
    cards: tuple[Card, ...] | None = None
    TYPE: ClassVar[str] = "claim"
    VERB: ClassVar[str] = "claim"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE, "player": self.player, "route": self.route}
        if self.cards is not None:
            out["cards"] = [c.value for c in self.cards]
        return out

    def _text_args(self) -> list[str]:
        return [self.route, *_cards_text(self.cards)]


ACTION_TYPES: dict[str, type[Action]] = {
    cls.TYPE: cls
    for cls in (
        DrawDeck,
        DrawFaceUp,
        ClaimRoute,
        DrawTickets,
        KeepTickets,
        DrewCards,
        EndTurn,
        Pass,
    )
}

_NOT_IN_LONDON = {
    "tunnel_reveal": "London has no tunnels",
    "tunnel_pay": "London has no tunnels",
    "tunnel_withdraw": "London has no tunnels",
    "build_station": "London has no stations",
    "reveal": "London has no tunnels",
    "tunnel-pay": "London has no tunnels",
    "tunnel-withdraw": "London has no tunnels",
    "station": "London has no stations",
}


def action_from_json(data: Any) -> Action:
    """Parse the JSON form of a London action."""
    if not isinstance(data, Mapping):
        raise NotationError('an action must be a JSON object with a "type"')
    kind = data.get("type")
    if isinstance(kind, str) and kind in _NOT_IN_LONDON:
        raise NotationError(f"{_NOT_IN_LONDON[kind]}: {kind} is not a London action")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise NotationError(
            f"unknown action type {kind!r}: expected one of {', '.join(sorted(ACTION_TYPES))}"
        )
    if not isinstance(data.get("player"), str):
        raise NotationError(f'a {kind} action needs "player" (a player colour)')
    player = parse_player_color(data["player"])
    if cls is DrawFaceUp:
        card = data.get("card")
        if not isinstance(card, str):
            raise NotationError(f'a {kind} action needs "card" (a card name)')
        return DrawFaceUp(player, parse_card(card))
    if cls is ClaimRoute:
        route = data.get("route")
        if not isinstance(route, str) or not route.strip():
            raise NotationError('"route" of claim must be a non-empty id string')
        value = data.get("cards")
        if value is None:
            return ClaimRoute(player, route.strip().lower(), None)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise NotationError('"cards" of claim must be a list of card names')
        return ClaimRoute(player, route.strip().lower(), tuple(parse_cards(value)))
    if cls is KeepTickets:
        value = data.get("tickets")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise NotationError('"tickets" must be a list of ticket ids')
        return KeepTickets(player, tuple(v.strip().lower() for v in value))
    if cls is DrewCards:
        count = data.get("count", 2)
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 2:
            raise NotationError('"count" of drew_cards must be 0, 1 or 2')
        return DrewCards(player, count)
    return cls(player)


def parse_action(text: str) -> Action:
    """Parse the text form (see the module docstring)."""
    words = text.split()
    if len(words) < 2:
        raise NotationError(f"cannot read action {text!r}: expected '<player> <verb> ...'")
    player = parse_player_color(words[0])
    verb, args = words[1].lower(), words[2:]
    if verb in _NOT_IN_LONDON:
        raise NotationError(f"{_NOT_IN_LONDON[verb]}: cannot read {text!r}")
    if verb == "draw":
        if args == ["deck"]:
            return DrawDeck(player)
        if len(args) == 2 and args[0].lower() == "face":
            return DrawFaceUp(player, parse_card(args[1]))
        raise NotationError(f"cannot read {text!r}: expected 'draw deck' or 'draw face <card>'")
    if verb == "claim":
        if not args:
            raise NotationError(f"claim needs a route id in {text!r}")
        rest = args[1:]
        cards: tuple[Card, ...] | None
        if not rest:
            cards = None
        elif rest == ["-"]:
            cards = ()
        else:
            cards = tuple(parse_cards(rest))
        return ClaimRoute(player, args[0].lower(), cards)
    if verb == "keep":
        return KeepTickets(player, tuple(a.lower() for a in args))
    if verb == "drew":
        if len(args) > 1 or (args and args[0] not in ("0", "1", "2")):
            raise NotationError(f"cannot read {text!r}: expected 'drew [0|1|2]'")
        return DrewCards(player, int(args[0]) if args else 2)
    simple: dict[str, type[Action]] = {"tickets": DrawTickets, "end": EndTurn, "pass": Pass}
    cls = simple.get(verb)
    if cls is None:
        raise NotationError(f"unknown verb {verb!r} in {text!r}")
    if args:
        raise NotationError(f"{verb} takes no arguments in {text!r}")
    return cls(player)
