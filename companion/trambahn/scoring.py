"""Trambahn scorings and a session of them with running totals.

Two kinds of scoring, from the rule text:

- terminal (``"terminal"``): the 4th passenger card beside a terminal scores, for BOTH players,
  every line of that terminal's colour (a player without such a line scores 0). Only these count
  towards the ten scorings; the game ends when the 10th is done.
- extra run (``"extra"``): the moment a line holds its 8th card (conductors count), that one line
  scores, once per line: a 9th card brings no second extra run. It scores the line as it was
  with 8 cards.

A scoring is entered as a snapshot of both players' lines at that moment (see the README).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.core.scoring import leaders

from .model import EXTRA_RUN_AT, TERMINAL_SCORINGS, Line, check_supply, lines_from_json, parse_color


@dataclass(frozen=True, slots=True)
class LineScore:
    player: str
    line: str
    color: str
    tram: int | None
    stop_points: int
    points: int

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "line": self.line,
            "color": self.color,
            "multiplier": self.tram or 0,
            "stop_points": self.stop_points,
            "points": self.points,
        }


@dataclass(frozen=True, slots=True)
class Scoring:
    """One scoring event: its kind, what it is about, and the lines at that moment."""

    kind: str  # "terminal" or "extra"
    lines: Mapping[str, tuple[Line, ...]]  # player name -> lines
    color: str | None = None  # terminal scorings
    player: str | None = None  # extra runs
    line: str | None = None  # extra runs

    def result(self) -> tuple[dict[str, int], list[LineScore]]:
        points = dict.fromkeys(self.lines, 0)
        details: list[LineScore] = []
        if self.kind == "terminal":
            for name, lines in self.lines.items():
                for ln in lines:
                    if ln.color == self.color:
                        s = LineScore(name, ln.id, ln.color, ln.tram, ln.stop_points(), ln.points())
                        details.append(s)
                        points[name] += s.points
        else:
            assert self.player is not None
            ln = self.extra_line()
            s = LineScore(
                self.player,
                ln.id,
                ln.color,
                ln.tram,
                ln.stop_points(EXTRA_RUN_AT),
                ln.points(EXTRA_RUN_AT),
            )
            details.append(s)
            points[self.player] += s.points
        return points, details

    def extra_line(self) -> Line:
        assert self.player is not None
        for ln in self.lines[self.player]:
            if ln.id == self.line:
                return ln
        raise NotationError(f"{self.player} has no line {self.line!r}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "terminal":
            out["color"] = self.color
        else:
            out["player"] = self.player
            out["line"] = self.line
        out["players"] = [
            {"name": n, "lines": [ln.to_json() for ln in lines]} for n, lines in self.lines.items()
        ]
        return out

    @classmethod
    def from_json(cls, data: Any, names: Sequence[str] | None = None) -> Scoring:
        """``{"kind": ..., "color"/"player"+"line": ..., "players": [{"name", "lines"}]}``.
        Also takes the event in a nested ``"scoring"`` object (the one-scoring file)."""
        if not isinstance(data, Mapping):
            raise NotationError("a scoring must be a JSON object")
        event = data.get("scoring", data)
        if not isinstance(event, Mapping):
            raise NotationError('\'scoring\' must be an object such as {"kind": "terminal"}')
        raw_players = data.get("players")
        if not isinstance(raw_players, list) or len(raw_players) != 2:
            raise NotationError("Trambahn is for two players: give 'players' as a list of two")
        lines: dict[str, tuple[Line, ...]] = {}
        for i, rp in enumerate(raw_players):
            if not isinstance(rp, Mapping):
                raise NotationError(f"player #{i + 1} must be an object with name and lines")
            name = str(rp.get("name") or f"player {i + 1}")
            if name in lines:
                raise NotationError(f"two players are called {name!r}")
            lines[name] = lines_from_json(rp.get("lines", []), name)
        if names is not None and sorted(names) != sorted(lines):
            raise NotationError(
                f"this scoring names {', '.join(lines)}, the session {', '.join(names)}"
            )
        check_supply(ln for ls in lines.values() for ln in ls)
        kind = event.get("kind")
        if kind == "terminal":
            return cls("terminal", lines, color=parse_color(event.get("color")))
        if kind == "extra":
            player = event.get("player")
            if player not in lines:
                raise NotationError(f"the extra run's 'player' must be one of {', '.join(lines)}")
            s = cls("extra", lines, player=str(player), line=str(event.get("line")))
            ln = s.extra_line()
            if len(ln.cards) < EXTRA_RUN_AT:
                raise InvalidStateError(
                    f"line {ln.id} holds {len(ln.cards)} cards; an extra run comes with the "
                    f"{EXTRA_RUN_AT}th"
                )
            return s
        raise NotationError(f"unknown scoring kind {kind!r}: expected terminal or extra")


@dataclass
class Session:
    """The scorings of one game, in order, with running totals."""

    players: tuple[str, str]
    scorings: list[Scoring] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    extra_done: set[tuple[str, str]] = field(default_factory=set)
    seen: dict[tuple[str, str], Line] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if len(set(self.players)) != 2:
            raise NotationError("Trambahn is for two players with different names")
        for p in self.players:
            self.totals.setdefault(p, 0)

    @property
    def terminal_scorings(self) -> int:
        return sum(1 for s in self.scorings if s.kind == "terminal")

    @property
    def over(self) -> bool:
        return self.terminal_scorings >= TERMINAL_SCORINGS

    @property
    def winners(self) -> list[str]:
        return leaders(self.totals, self.players) if self.over else []

    def add(self, scoring: Scoring) -> dict[str, int]:
        """Record one scoring; returns the points it gave each player."""
        if self.over:
            raise IllegalActionError(
                f"the game ended with the {TERMINAL_SCORINGS}th terminal scoring", rule="game_over"
            )
        if sorted(scoring.lines) != sorted(self.players):
            raise NotationError(f"the scoring must name the players {', '.join(self.players)}")
        # cards never leave a line that has a tram, so every line only grows
        for name, lines in scoring.lines.items():
            for ln in lines:
                old = self.seen.get((name, ln.id))
                if old is not None and old.tram is not None:
                    if ln.cards[: len(old.cards)] != old.cards or ln.color != old.color:
                        raise InvalidStateError(
                            f"{name}'s line {ln.id} was {old.cards} in an earlier scoring and is "
                            f"{ln.cards} now: cards never leave a line"
                        )
                    if ln.tram != old.tram:
                        raise InvalidStateError(
                            f"{name}'s line {ln.id} changed its tram: a tram stays on its line"
                        )
        if scoring.kind == "extra":
            assert scoring.player is not None and scoring.line is not None
            key = (scoring.player, scoring.line)
            if key in self.extra_done:
                raise IllegalActionError(
                    f"{scoring.player}'s line {scoring.line} already had its extra run",
                    rule="extra_once",
                )
            self.extra_done.add(key)
        points, _ = scoring.result()
        for p, v in points.items():
            self.totals[p] += v
        self.scorings.append(scoring)
        for name, lines in scoring.lines.items():
            for ln in lines:
                self.seen[(name, ln.id)] = ln
        return points

    def report(self) -> dict[str, Any]:
        """Every scoring with its points and the running totals after it."""
        running = dict.fromkeys(self.players, 0)
        rows = []
        n = 0
        for s in self.scorings:
            points, details = s.result()
            for p, v in points.items():
                running[p] += v
            if s.kind == "terminal":
                n += 1
            rows.append(
                {
                    "kind": s.kind,
                    "color": s.color if s.kind == "terminal" else s.extra_line().color,
                    **({"player": s.player, "line": s.line} if s.kind == "extra" else {}),
                    "terminal_scoring": n if s.kind == "terminal" else None,
                    "points": points,
                    "lines": [d.to_json() for d in details],
                    "totals": dict(running),
                }
            )
        return {
            "players": list(self.players),
            "scorings": rows,
            "totals": dict(self.totals),
            "terminal_scorings": self.terminal_scorings,
            "game_over": self.over,
            "winners": self.winners,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "game": "trambahn",
            "players": list(self.players),
            "scorings": [s.to_json() for s in self.scorings],
        }

    @classmethod
    def from_json(cls, data: Any) -> Session:
        if not isinstance(data, Mapping):
            raise NotationError("a Trambahn session must be a JSON object")
        if data.get("game", "trambahn") != "trambahn":
            raise NotationError(f"this is a {data.get('game')!r} file, not Trambahn")
        names = data.get("players")
        if (
            not isinstance(names, list)
            or len(names) != 2
            or not all(isinstance(n, str) for n in names)
        ):
            raise NotationError("a session's 'players' must be the two players' names")
        raw = data.get("scorings")
        if not isinstance(raw, list):
            raise NotationError("a session needs a 'scorings' list")
        session = cls((names[0], names[1]))
        for i, s in enumerate(raw):
            try:
                session.add(Scoring.from_json(s, names))
            except IllegalActionError as exc:
                raise IllegalActionError(f"scoring #{i + 1}: {exc}", rule=exc.rule) from None
            except (NotationError, InvalidStateError) as exc:
                raise type(exc)(f"scoring #{i + 1}: {exc}") from None
        return session
