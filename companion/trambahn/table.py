"""Following a Trambahn table card by card (what a phone or tap entry drives).

Each tap is one fact: a passenger card laid beside a terminal, a stop or conductor laid on a
line, a new line started, a tram bought for a line, the end of a turn (lines still without a
tram are turned into money and leave the table). The table triggers the scorings itself - the
4th passenger at a terminal, the 8th card of a line - and records each as a
:class:`~companion.trambahn.scoring.Scoring` snapshot in a :class:`Session`, so a table's
session file is scored by exactly the same code as a hand-entered one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError

from .model import (
    COLORS,
    CONDUCTOR,
    EXTRA_RUN_AT,
    PASSENGERS_PER_SCORING,
    TRAMS,
    Card,
    Line,
    check_supply,
    lines_from_json,
    parse_card,
    parse_color,
    parse_tram,
)
from .scoring import Scoring, Session


@dataclass
class Table:
    players: tuple[str, str]
    lines: dict[str, list[Line]] = field(default_factory=dict)
    passengers: dict[str, int] = field(default_factory=dict)
    session: Session | None = None

    def __post_init__(self) -> None:
        if self.session is None:
            self.session = Session(self.players)
        for p in self.players:
            self.lines.setdefault(p, [])
        for c in COLORS:
            self.passengers.setdefault(c, 0)

    @property
    def s(self) -> Session:
        assert self.session is not None
        return self.session

    def _player(self, name: str) -> list[Line]:
        if name not in self.lines:
            raise NotationError(f"no player called {name!r} ({', '.join(self.players)})")
        return self.lines[name]

    def _index(self, name: str, line_id: str) -> int:
        for i, ln in enumerate(self._player(name)):
            if ln.id == line_id:
                return i
        raise NotationError(f"{name} has no line {line_id!r}")

    def _snapshot(self) -> dict[str, tuple[Line, ...]]:
        return {p: tuple(self.lines[p]) for p in self.players}

    def _check_running(self) -> None:
        if self.s.over:
            raise IllegalActionError("the game is over", rule="game_over")

    def passenger(self, terminal: str, card: Any = CONDUCTOR) -> dict[str, int] | None:
        """A passenger card laid beside a terminal (a stop of that colour, or a conductor).
        Returns the points of the terminal scoring it set off, if it did."""
        self._check_running()
        color = parse_color(terminal)
        parse_card(card)  # the card's colour is the terminal's; a conductor goes anywhere
        self.passengers[color] += 1
        if self.passengers[color] < PASSENGERS_PER_SCORING:
            return None
        self.passengers[color] = 0
        return self.s.add(Scoring("terminal", self._snapshot(), color=color))

    def start_line(self, name: str, color: str) -> str:
        """A new line of ``color`` (it needs a tram before the turn ends). Returns its id."""
        self._check_running()
        lines = self._player(name)
        col = parse_color(color)
        taken = {ln.id for ln in lines}
        n = 1
        while f"{col}-{n}" in taken:
            n += 1
        lid = f"{col}-{n}"
        lines.append(Line(lid, col, None))
        return lid

    def stop(self, name: str, line_id: str, card: Any) -> dict[str, int] | None:
        """A stop or conductor laid on a line. Returns the extra run's points if the line just
        reached its 8th card."""
        self._check_running()
        c: Card = parse_card(card)
        i = self._index(name, line_id)
        ln = self.lines[name][i]
        problem = ln.problem_adding(c)
        if problem == "line_finished":
            raise IllegalActionError(f"line {ln.id} is finished by its 10", rule="line_finished")
        if problem == "ascending":
            raise IllegalActionError(
                f"line {ln.id} ends at {ln.stops[-1]}: stops go in ascending order",
                rule="ascending",
            )
        new = self._replace_line(name, i, Line(ln.id, ln.color, ln.tram, (*ln.cards, c)))
        if len(new.cards) == EXTRA_RUN_AT:
            return self.s.add(Scoring("extra", self._snapshot(), player=name, line=new.id))
        return None

    def tram(self, name: str, line_id: str, tram: Any) -> None:
        """A tram bought and put on a line that has none."""
        self._check_running()
        m = parse_tram(tram)
        if m is None:
            raise NotationError("say which tram: horse, steam or electric")
        i = self._index(name, line_id)
        ln = self.lines[name][i]
        if ln.tram is not None:
            raise IllegalActionError(
                f"line {ln.id} already has a {TRAMS[ln.tram].name} tram; one per line",
                rule="one_tram_per_line",
            )
        self._replace_line(name, i, Line(ln.id, ln.color, m, ln.cards))

    def _replace_line(self, name: str, i: int, new: Line) -> Line:
        """Put ``new`` in place of ``name``'s line ``i``: refused when the cards and trams of
        every line together would be more than the game has (``supply``)."""
        old = self.lines[name][i]
        others = [x for p in self.players for x in self.lines[p] if x is not old]
        try:
            check_supply([*others, new])
        except InvalidStateError as exc:
            raise IllegalActionError(str(exc), rule="supply") from None
        self.lines[name][i] = new
        return new

    def end_turn(self, name: str) -> list[str]:
        """Lines without a tram go to the money pile. Returns their ids."""
        lines = self._player(name)
        gone = [ln.id for ln in lines if ln.tram is None]
        self.lines[name] = [ln for ln in lines if ln.tram is not None]
        return gone

    def to_json(self) -> dict[str, Any]:
        return {
            "game": "trambahn",
            "players": [
                {"name": p, "lines": [ln.to_json() for ln in self.lines[p]]} for p in self.players
            ],
            "passengers": dict(self.passengers),
            "session": self.s.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any) -> Table:
        if not isinstance(data, Mapping) or not isinstance(data.get("players"), list):
            raise NotationError("a Trambahn table needs 'players'")
        session = Session.from_json(data.get("session", {}))
        lines: dict[str, list[Line]] = {}
        for rp in data["players"]:
            if not isinstance(rp, Mapping):
                raise NotationError("each player must be an object with name and lines")
            name = str(rp.get("name"))
            lines[name] = list(lines_from_json(rp.get("lines", []), name))
        if sorted(lines) != sorted(session.players):
            raise NotationError("the table's players and its session's players differ")
        check_supply(ln for ls in lines.values() for ln in ls)
        raw = data.get("passengers", {})
        if not isinstance(raw, Mapping):
            raise NotationError("'passengers' must map terminal colours to counts")
        passengers = {parse_color(k): int(v) for k, v in raw.items()}
        if any(not 0 <= v < PASSENGERS_PER_SCORING for v in passengers.values()):
            raise NotationError("a terminal holds 0-3 passengers between scorings")
        return cls(
            session.players,
            {p: lines[p] for p in session.players},
            passengers,
            session,
        )
