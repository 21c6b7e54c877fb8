"""Players at the table and whose turn it is: shared by every board's simulation and tracker.

A :class:`Seat` holds what every board's player has (routes, tickets, pieces left, the score
track); each board names its pieces (``trains``, ``buses``) with :class:`PiecesAlias` and its
JSON key ``PIECES``. :class:`TurnOrder` holds the players, the current one, the turn count and
the final round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Self, TypeVar, overload

from .board import MapLookups
from .errors import IllegalActionError
from .networks import BoardRoute
from .rules import FinalRound, TurnRules, check_pieces, check_route_free


class PiecesAlias:
    """A board's own name for a seat's ``pieces`` (``trains = PiecesAlias()``)."""

    @overload
    def __get__(self, obj: None, owner: type[Any] | None = None) -> PiecesAlias: ...

    @overload
    def __get__(self, obj: Seat, owner: type[Any] | None = None) -> int: ...

    def __get__(self, obj: Seat | None, owner: type[Any] | None = None) -> int | PiecesAlias:
        return self if obj is None else obj.pieces

    def __set__(self, obj: Seat, value: int) -> None:
        obj.pieces = value


@dataclass
class Seat:
    """A player as every board has one. ``PIECES`` is the board's JSON name of ``pieces``."""

    color: str
    name: str
    routes: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)
    pieces: int = 0  # trains or buses left
    score: int = 0  # the score track: route points so far
    ready: bool = False  # chose the first tickets
    PIECES: ClassVar[str] = "trains"

    def to_json(self) -> dict[str, Any]:
        """Colour and name, the fields of a simulated or a tracked player (``_body_json``),
        then the pieces left, the score and whether the first tickets are chosen."""
        return {
            "color": self.color,
            "name": self.name,
            **self._body_json(),
            self.PIECES: self.pieces,
            "score": self.score,
            "ready": self.ready,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Self:
        return cls(
            color=d["color"],
            name=d["name"],
            **cls._body_from_json(d),
            pieces=int(d[cls.PIECES]),
            score=int(d["score"]),
            ready=bool(d["ready"]),
        )

    def _body_json(self) -> dict[str, Any]:
        """A simulated or tracked player's fields, the board's own among them."""
        raise NotImplementedError

    @classmethod
    def _body_from_json(cls, d: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _extra_json(self) -> dict[str, Any]:
        """The board's own fields in the JSON form (Europe: ``stations``)."""
        return {}

    @classmethod
    def _extra_from_json(cls, d: Mapping[str, Any]) -> dict[str, Any]:
        return {}


S = TypeVar("S", bound=Seat)


class TurnOrder(Generic[S]):
    """The players in turn order, whose turn it is, the turn count and the final round."""

    map: MapLookups[Any, Any]  # each board's game or table names its map type
    route_owner: dict[str, str]

    def __init__(self, players: list[S], rules: TurnRules) -> None:
        self.players = players
        self.rules = rules
        self.current = 0
        self.turn = 0
        self.final = FinalRound()

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def current_player(self) -> S:
        return self.players[self.current]

    @property
    def final_round(self) -> bool:
        return self.final.started

    def _check_claim(self, route: BoardRoute, seat: Seat) -> None:
        """Raise unless ``seat`` may claim ``route`` now: free for them, and pieces enough."""
        closed_up_to = self.rules.doubles_closed_up_to
        check_route_free(
            self.map, self.route_owner, route, seat.color, self.n_players, closed_up_to
        )
        check_pieces(route, seat.pieces, seat.PIECES)

    def player(self, color: str) -> S:
        for p in self.players:
            if p.color == color:
                return p
        raise IllegalActionError(
            f"no player plays {color} in this game", rule="unknown-player", params={"color": color}
        )

    def _next_turn(self) -> bool:
        """End the current player's turn (the final round counts down) and move on; True when
        that was the last turn of the game."""
        last = self.final.turn_ended(
            self.current, self.current_player.pieces, self.rules.final_round_pieces, self.n_players
        )
        self.turn += 1
        if not last:
            self.current = (self.current + 1) % self.n_players
        return last
