"""The small interface every game other than Europe implements for the service.

A :class:`GameKind` knows one game's rules module: it reads the options of a ``new_game``, starts
a :class:`GameTable`, checks the JSON shape of that game's actions and describes them in one
line. A :class:`GameTable` is the state of one game: the service's fold replays the event log's
effective steps onto it with :meth:`GameTable.apply` (so restart, undo and history agree), and
reads the public state, a player's private state and the final breakdown from it.

Errors follow the rules core: :class:`~companion.core.errors.NotationError` for malformed input
(HTTP 400), any other :class:`~companion.core.errors.RulesError` for what the rules refuse (409).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.errors import IllegalActionError, NotationError, RulesError
from companion.core.records import fields_json
from companion.core.tracking import Tracker

Announcement = tuple[str, str, dict[str, Any]]  # (English sentence, code, params)


@dataclass(frozen=True, slots=True)
class Seat:
    """One player at the table: display name and colour (the colour is the player's id)."""

    name: str
    color: str


class GameTable(ABC):
    """The state of one game. ``apply`` changes it in place and, when it raises, leaves it as it
    was (the service also applies each new action to a copy first)."""

    def __init__(self, seats: Sequence[Seat]) -> None:
        self.seats = list(seats)

    # --- identity ---------------------------------------------------------------------
    @property
    def colors(self) -> list[str]:
        return [s.color for s in self.seats]

    def name_of(self, color: str) -> str:
        for s in self.seats:
            if s.color == color:
                return s.name
        return color

    def check_player(self, color: Any) -> str:
        if color not in self.colors:
            raise IllegalActionError(f"no player plays {color} in this game", rule="unknown-player")
        return str(color)

    # --- the game ---------------------------------------------------------------------
    @abstractmethod
    def copy(self) -> GameTable: ...

    @abstractmethod
    def apply(self, action: Mapping[str, Any]) -> list[str]:
        """Apply one checked action (or ``{"type": "finish"}``); returns warnings."""

    @property
    @abstractmethod
    def finished(self) -> bool: ...

    @property
    @abstractmethod
    def winners(self) -> list[str]: ...

    @abstractmethod
    def scores(self) -> dict[str, int]:
        """Each colour's score now (the final total once finished)."""

    @abstractmethod
    def progress(self) -> int:
        """Turns, rounds or scorings so far: the x axis of the score chart."""

    @abstractmethod
    def public(self) -> dict[str, Any]:
        """The game's part of GET /api/state: ``phase``, ``turn``, ``current``, ``acted``,
        ``final_round``, ``turns_left``, ``payment_mode``, ``players`` (each with the spec
        fields) and ``table`` (what only this game has). No secrets."""

    def turnless_public(
        self, turn: int, players: list[dict[str, Any]], table: dict[str, Any]
    ) -> dict[str, Any]:
        """:meth:`public` of a game whose turns the service does not follow (nobody's turn, no
        final round, no payments): ``turn`` (rounds or scorings so far), players, table."""
        return {
            "phase": "finished" if self.finished else "playing",
            "turn": turn,
            "current": None,
            "acted": False,
            "final_round": False,
            "turns_left": None,
            "payment_mode": None,
            "players": players,
            "table": table,
        }

    def announcement(self) -> Announcement | None:
        return None

    def private(self, color: str) -> dict[str, Any]:
        """What only ``color`` (or the host) may see."""
        self.check_player(color)
        return {"color": color, "tickets": []}

    def current_color(self) -> str | None:
        """Whose turn it is, when the game follows turns (the end-turn button)."""
        return None

    def game_over_announcement(self) -> Announcement:
        return game_over([self.name_of(c) for c in self.winners])


def game_over(names: list[str]) -> Announcement:
    """The announcement of a finished game: its winners by name."""
    verb = "win" if len(names) > 1 else "wins"
    return f"Game over. {' and '.join(names)} {verb}!", "game.over", {"winners": names}


def action_line(
    action: Mapping[str, Any],
    secret: bool,
    read: Callable[[Any], Any],
    types: Collection[str],
) -> str | None:
    """The short line of a tracked board's action (one of ``types``, read with ``read``): a
    ticket keep names no ticket when ``secret``; None when it is none of ``types`` or cannot
    be read."""
    kind = action.get("type")
    if kind == "keep_tickets" and secret:
        n = len(action.get("tickets", []))
        return f"{action.get('player')} keeps {n} ticket{'s' if n != 1 else ''}"
    if kind not in types:
        return None
    try:
        return str(read(action).to_text())
    except RulesError:
        return None


def tracked_announcement(
    t: Tracker[Any, Any], pieces: tuple[str, str], code: str
) -> Announcement | None:
    """What a tracked game being played announces: its last turn played, or its final round
    (who set it off with how many ``pieces`` left, the board's word for one and for more, under
    the board's ``code``); None otherwise."""
    if t.over:
        return (
            "The last turn is played: the host can finish the game for the final scores.",
            "game.last_turn_played",
            {},
        )
    if t.final.trigger is None:
        return None
    p = t.players[t.final.trigger]
    word = pieces[0] if p.pieces == 1 else pieces[1]
    text = (
        f"Final round: {p.name} ({p.color}) has {p.pieces} {word} left. "
        f"Everyone plays one last turn, ending with {p.color}."
    )
    return text, code, {"name": p.name, "color": p.color, "n": p.pieces}


class GameKind(ABC):
    """One game the service can run besides Europe."""

    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 4
    colors: tuple[str, ...] = ()
    action_types: tuple[str, ...] = ()

    def parse_options(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """The game's own ``new_game`` options, normalised (NotationError when malformed)."""
        return {}

    @abstractmethod
    def start(self, seats: Sequence[Seat], options: Mapping[str, Any]) -> GameTable: ...

    @abstractmethod
    def check_action(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """The normalised JSON of one of :attr:`action_types` (NotationError when malformed)."""

    def describe(self, action: Mapping[str, Any], *, secret: bool = True) -> str:
        kind = str(action.get("type", "?")).replace("_", " ")
        who = action.get("player")
        return f"{who} {kind}" if who else kind

    def board_json(self) -> dict[str, Any]:
        """The facts the dashboard needs to draw and enter this game."""
        return {"game": self.name}

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.name,
            **fields_json(self, ("title", "min_players", "max_players", "colors")),
            "actions": list(self.action_types),
        }


def need_str(data: Mapping[str, Any], key: str, what: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise NotationError(f'a {what} action needs "{key}" (a string)')
    return value.strip().lower()


def need_int(data: Mapping[str, Any], key: str, what: str, low: int, high: int) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise NotationError(f'"{key}" of a {what} action must be a whole number {low}-{high}')
    return value


def base_player(seat: Seat, score: int) -> dict[str, Any]:
    """The spec's per-player fields with values for a game without trains or stations."""
    return {
        "name": seat.name,
        "color": seat.color,
        "score": score,
        "trains_left": 0,
        "stations_left": 0,
        "routes": [],
        "stations": [],
        "tickets_held": 0,
        "ready": True,
        "final": None,
    }
