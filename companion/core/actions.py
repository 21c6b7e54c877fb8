"""Actions: value types with a JSON form (the HTTP API's) and a short text form.

Text form, one action per line: ``<player> <verb> [args...]``, e.g.::

    red draw deck            red draw face green       red claim paris-zurich red red locomotive
    red station wien blue    red tickets               red keep paris-wien brest-petrograd
    red tunnel-pay green     red tunnel-withdraw       red reveal red green locomotive
    red drew                 red end                   red pass
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Generic, TypeVar

from .cards import EUROPE_CARDS, Card, CardSet, TrainCard, parse_player_color
from .errors import NotationError

C = TypeVar("C", bound=TrainCard)


@dataclass(frozen=True, slots=True)
class Action:
    """Base of every action. ``player`` is the acting player's colour."""

    player: str
    TYPE: ClassVar[str] = ""
    VERB: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, TrainCard):
                value = value.value
            elif isinstance(value, tuple):
                value = [v.value if isinstance(v, TrainCard) else v for v in value]
            if value is not None:
                out[f.name] = value
        return out

    def to_text(self) -> str:
        return " ".join([self.player, self.VERB, *self._text_args()])

    def _text_args(self) -> list[str]:
        return []


def cards_text(cards: Sequence[TrainCard] | None) -> list[str]:
    """Cards as words; an explicitly empty list is ``-`` (no words means "not known")."""
    if cards is None:
        return []
    return [c.value for c in cards] or ["-"]


def card_words(words: Sequence[str], card_set: CardSet[C]) -> tuple[C, ...] | None:
    """The inverse of :func:`cards_text`: no words is None (not known), ``-`` is no cards."""
    if not words:
        return None
    if list(words) == ["-"]:
        return ()
    return tuple(card_set.parse_many(words))


@dataclass(frozen=True, slots=True)
class DrawDeck(Action):
    """Take the top card of the draw pile (simulation)."""

    TYPE: ClassVar[str] = "draw_deck"
    VERB: ClassVar[str] = "draw deck"


@dataclass(frozen=True, slots=True)
class FaceUpDraw(Action, Generic[C]):
    """Take one of the five face-up cards (simulation); each board's action is this with its
    own cards."""

    card: C
    TYPE: ClassVar[str] = "draw_face_up"
    VERB: ClassVar[str] = "draw face"

    def _text_args(self) -> list[str]:
        return [self.card.value]


@dataclass(frozen=True, slots=True)
class RouteClaim(Action, Generic[C]):
    """Put pieces on a route; ``cards`` may be None at a table where nobody tapped them. Each
    board's action is this with its own cards."""

    route: str = ""
    cards: tuple[C, ...] | None = None
    TYPE: ClassVar[str] = "claim"
    VERB: ClassVar[str] = "claim"

    def _text_args(self) -> list[str]:
        return [self.route, *cards_text(self.cards)]


class DrawFaceUp(FaceUpDraw[Card]):
    """Take one of the five face-up train cards (simulation)."""


class ClaimRoute(RouteClaim[Card]):
    """Put trains on a route."""


@dataclass(frozen=True, slots=True)
class RevealTunnel(Action):
    """The 0-3 cards turned up for a tunnel (table tracker; the simulation draws them)."""

    cards: tuple[Card, ...] = ()
    TYPE: ClassVar[str] = "tunnel_reveal"
    VERB: ClassVar[str] = "reveal"

    def _text_args(self) -> list[str]:
        return cards_text(self.cards)


@dataclass(frozen=True, slots=True)
class PayTunnel(Action):
    """Pay the tunnel surcharge and build it."""

    cards: tuple[Card, ...] | None = None
    TYPE: ClassVar[str] = "tunnel_pay"
    VERB: ClassVar[str] = "tunnel-pay"

    def _text_args(self) -> list[str]:
        return cards_text(self.cards)


@dataclass(frozen=True, slots=True)
class WithdrawTunnel(Action):
    """Take the played cards back; the turn ends."""

    TYPE: ClassVar[str] = "tunnel_withdraw"
    VERB: ClassVar[str] = "tunnel-withdraw"


@dataclass(frozen=True, slots=True)
class BuildStation(Action):
    city: str = ""
    cards: tuple[Card, ...] | None = None
    TYPE: ClassVar[str] = "build_station"
    VERB: ClassVar[str] = "station"

    def _text_args(self) -> list[str]:
        return [self.city, *cards_text(self.cards)]


@dataclass(frozen=True, slots=True)
class DrawTickets(Action):
    """Draw destination tickets (simulation: from the deck; the keep follows)."""

    TYPE: ClassVar[str] = "draw_tickets"
    VERB: ClassVar[str] = "tickets"


@dataclass(frozen=True, slots=True)
class KeepTickets(Action):
    """Keep these tickets of those offered (or, at a table, of those just taken)."""

    tickets: tuple[str, ...] = ()
    TYPE: ClassVar[str] = "keep_tickets"
    VERB: ClassVar[str] = "keep"

    def _text_args(self) -> list[str]:
        return list(self.tickets)


@dataclass(frozen=True, slots=True)
class DrewCards(Action):
    """Table tracker: the player took train cards this turn (they are not seen)."""

    count: int = 2
    TYPE: ClassVar[str] = "drew_cards"
    VERB: ClassVar[str] = "drew"

    def _text_args(self) -> list[str]:
        return [str(self.count)]


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    TYPE: ClassVar[str] = "end_turn"
    VERB: ClassVar[str] = "end"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Nothing can be drawn and the player takes no other action (simulation)."""

    TYPE: ClassVar[str] = "pass"
    VERB: ClassVar[str] = "pass"


def action_types(*own: type[Action]) -> dict[str, type[Action]]:
    """A board's actions by their JSON type: the draw from the pile, the board's own (its
    face-up draw and claim first) and the ticket and turn actions every board has."""
    shared = [DrawTickets, KeepTickets, DrewCards, EndTurn, Pass]
    classes: list[type[Action]] = [DrawDeck, *own, *shared]
    return {cls.TYPE: cls for cls in classes}


ACTION_TYPES = action_types(
    DrawFaceUp, ClaimRoute, RevealTunnel, PayTunnel, WithdrawTunnel, BuildStation
)


@dataclass(frozen=True)
class Notation(Generic[C]):
    """How one board reads actions: its action types and verbs, its cards, the actions it does
    not have, and the few words in which its messages differ."""

    types: Mapping[str, type[Action]]
    verbs: Mapping[str, type[Action]]
    cards: CardSet[C]
    absent: Mapping[str, str] = field(default_factory=dict)  # type or verb -> why not here
    tuple_cards: bool = True  # a (Python) tuple of card names is read as a list
    null_count: bool = True  # "count": null in drew_cards means 2
    face_any_case: bool = False  # "draw FACE red"
    claim_id: str = "an id"  # "claim needs <claim_id> in ..."
    board: str = "Europe"  # "<why>: build_station is not a <board> action"


def _id(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise NotationError(f"{what} must be a non-empty id string")
    return value.strip().lower()


def read_action(data: Any, notation: Notation[C]) -> Action:
    """Parse the JSON form of an action with ``notation`` (the board's types and cards)."""
    if not isinstance(data, Mapping):
        raise NotationError('an action must be a JSON object with a "type"')
    kind = data.get("type")
    if isinstance(kind, str) and kind in notation.absent:
        raise NotationError(f"{notation.absent[kind]}: {kind} is not a {notation.board} action")
    types = notation.types
    cls = types.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise NotationError(
            f"unknown action type {kind!r}: expected one of {', '.join(sorted(types))}"
        )
    if not isinstance(data.get("player"), str):
        raise NotationError(f'a {kind} action needs "player" (a player colour)')
    kwargs: dict[str, Any] = {"player": parse_player_color(data["player"])}
    for f in fields(cls):
        if f.name == "player":
            continue
        value = data.get(f.name)
        if f.name == "card":
            if not isinstance(value, str):
                raise NotationError(f'a {kind} action needs "card" (a card name)')
            kwargs["card"] = notation.cards.parse(value)
        elif f.name == "cards":
            if value is None:
                if cls is RevealTunnel:
                    raise NotationError('a tunnel_reveal action needs "cards" (0-3 card names)')
                kwargs["cards"] = None
            else:
                kwargs["cards"] = _card_list(value, f'"cards" of {kind}', notation)
        elif f.name in ("route", "city"):
            kwargs[f.name] = _id(value, f'"{f.name}" of {kind}')
        elif f.name == "tickets":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise NotationError('"tickets" must be a list of ticket ids')
            kwargs["tickets"] = tuple(v.strip().lower() for v in value)
        elif f.name == "count":
            if value is None and (notation.null_count or "count" not in data):
                value = 2
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 2:
                raise NotationError('"count" of drew_cards must be 0, 1 or 2')
            kwargs["count"] = value
    return cls(**kwargs)


def _card_list(value: Any, what: str, notation: Notation[C]) -> tuple[C, ...]:
    listed = isinstance(value, list) or (notation.tuple_cards and isinstance(value, tuple))
    if not listed or not all(isinstance(v, str) for v in value):
        raise NotationError(f"{what} must be a list of card names")
    return tuple(notation.cards.parse_many(value))


def read_action_text(text: str, notation: Notation[C]) -> Action:
    """Parse the text form (see the module docstring) with ``notation``."""
    words = text.split()
    if len(words) < 2:
        raise NotationError(f"cannot read action {text!r}: expected '<player> <verb> ...'")
    player = parse_player_color(words[0])
    verb, args = words[1].lower(), words[2:]
    if verb in notation.absent:
        raise NotationError(f"{notation.absent[verb]}: cannot read {text!r}")
    types = notation.types
    if verb == "draw":
        face = args[0].lower() if notation.face_any_case and args else (args[0] if args else "")
        if args == ["deck"]:
            return types["draw_deck"](player)
        if len(args) == 2 and face == "face":
            return types["draw_face_up"](player, notation.cards.parse(args[1]))  # type: ignore[call-arg]
        raise NotationError(f"cannot read {text!r}: expected 'draw deck' or 'draw face <card>'")
    cls = notation.verbs.get(verb)
    if cls is None:
        raise NotationError(f"unknown verb {verb!r} in {text!r}")
    if cls.TYPE in ("claim", "build_station"):
        if not args:
            what = notation.claim_id if cls.TYPE == "claim" else "an id"
            raise NotationError(f"{verb} needs {what} in {text!r}")
        cards = card_words(args[1:], notation.cards)
        return cls(player, args[0].lower(), cards)  # type: ignore[call-arg]
    if cls is RevealTunnel:
        return RevealTunnel(player, card_words(args, EUROPE_CARDS) or ())
    if cls is PayTunnel:
        return PayTunnel(player, card_words(args, EUROPE_CARDS))
    if cls is KeepTickets:
        return KeepTickets(player, tuple(a.lower() for a in args))
    if cls is DrewCards:
        if len(args) > 1 or (args and args[0] not in ("0", "1", "2")):
            raise NotationError(f"cannot read {text!r}: expected 'drew [0|1|2]'")
        return DrewCards(player, int(args[0]) if args else 2)
    if args:
        raise NotationError(f"{verb} takes no arguments in {text!r}")
    return cls(player)


_VERBS: dict[str, type[Action]] = {
    "claim": ClaimRoute,
    "reveal": RevealTunnel,
    "tunnel-pay": PayTunnel,
    "tunnel-withdraw": WithdrawTunnel,
    "station": BuildStation,
    "tickets": DrawTickets,
    "keep": KeepTickets,
    "drew": DrewCards,
    "end": EndTurn,
    "pass": Pass,
}

EUROPE_NOTATION: Notation[Card] = Notation(ACTION_TYPES, _VERBS, EUROPE_CARDS)


def action_from_json(data: Any) -> Action:
    """Parse the JSON form of an action (the HTTP API's ``POST /api/actions`` body)."""
    return read_action(data, EUROPE_NOTATION)


def parse_action(text: str) -> Action:
    """Parse the text form (see the module docstring)."""
    return read_action_text(text, EUROPE_NOTATION)
