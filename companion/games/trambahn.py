"""Trambahn on the dashboard: the scoring assistant, entered card by card by tapping.

Every tap is one fact for :class:`companion.trambahn.Table` (keyed by the players' colours):
a passenger beside a terminal (the 4th sets off that terminal's scoring), a new line, a stop
or conductor on a line (the 8th card sets off its extra run), a tram bought, a turn's end
(lines without a tram leave). ``terminal_scoring`` scores a terminal at once for a table that
does not enter passengers. The game ends by itself with the 10th terminal scoring; ``finish``
ends it early.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.core.scoring import leaders
from companion.trambahn import Table
from companion.trambahn.model import (
    COLORS,
    PASSENGERS_PER_SCORING,
    TERMINAL_SCORINGS,
    TRAMS,
    parse_card,
    parse_color,
    parse_tram,
)
from companion.trambahn.scoring import Scoring

from .base import Announcement, GameKind, GameTable, Seat, base_player, need_str

ACTIONS = ("passenger", "start_line", "stop", "tram", "end_turn", "terminal_scoring")


class TrambahnTable(GameTable):
    def __init__(self, seats: Sequence[Seat]) -> None:
        super().__init__(seats)
        self.table = Table((seats[0].color, seats[1].color))
        self.ended_early = False

    def copy(self) -> TrambahnTable:
        return copy.deepcopy(self)

    def apply(self, action: Mapping[str, Any]) -> list[str]:
        kind = action["type"]
        if kind == "finish":
            if self.finished:
                raise IllegalActionError("the game is already finished", rule="finished")
            self.ended_early = True
            return []
        if self.finished:
            raise IllegalActionError(
                "the game is over; undo the last scoring or the finish to change it",
                rule="finished",
            )
        trial = copy.deepcopy(self.table)
        try:
            self._apply(trial, action)
        except (NotationError, InvalidStateError) as exc:
            raise IllegalActionError(str(exc), rule="illegal") from None
        self.table = trial
        return []

    def _apply(self, t: Table, a: Mapping[str, Any]) -> None:
        kind = a["type"]
        if kind == "passenger":
            if a.get("player") is not None:
                self.check_player(a["player"])
            t.passenger(a["terminal"], a.get("card", "C"))
        elif kind == "terminal_scoring":
            if t.s.over:
                raise IllegalActionError("the game is over", rule="game_over")
            color = a["terminal"]
            t.passengers[color] = 0
            snapshot = {p: tuple(t.lines[p]) for p in t.players}
            t.s.add(Scoring("terminal", snapshot, color=color))
        else:
            player = self.check_player(a.get("player"))
            if kind == "start_line":
                t.start_line(player, a["color"])
            elif kind == "stop":
                t.stop(player, a["line"], a["card"])
            elif kind == "tram":
                t.tram(player, a["line"], a["tram"])
            else:
                t.end_turn(player)

    @property
    def finished(self) -> bool:
        return self.table.s.over or self.ended_early

    @property
    def winners(self) -> list[str]:
        return leaders(self.table.s.totals, self.colors) if self.finished else []

    def scores(self) -> dict[str, int]:
        return dict(self.table.s.totals)

    def progress(self) -> int:
        return len(self.table.s.scorings)

    def public(self) -> dict[str, Any]:
        t = self.table
        s = t.s
        report = s.report()
        totals = s.totals
        ranks = {c: sorted(totals.values(), reverse=True).index(v) + 1 for c, v in totals.items()}
        players = []
        for seat in self.seats:
            c = seat.color
            d = base_player(seat, totals[c])
            d["lines"] = [
                {
                    **ln.to_json(),
                    "stop_points": ln.stop_points(),
                    "points": ln.points(),
                    "finished": ln.finished,
                    "extra_done": (c, ln.id) in s.extra_done,
                }
                for ln in t.lines[c]
            ]
            if self.finished:
                d["final"] = {
                    "total": totals[c],
                    "rank": ranks[c],
                    "terminal_points": sum(
                        r["points"][c] for r in report["scorings"] if r["kind"] == "terminal"
                    ),
                    "extra_points": sum(
                        r["points"][c] for r in report["scorings"] if r["kind"] == "extra"
                    ),
                }
            players.append(d)
        table = {
            "passengers": dict(t.passengers),
            "passengers_per_scoring": PASSENGERS_PER_SCORING,
            "terminal_scorings": s.terminal_scorings,
            "terminal_scorings_total": TERMINAL_SCORINGS,
            "scorings": report["scorings"],
            "ended_early": self.ended_early,
        }
        return self.turnless_public(len(s.scorings), players, table)

    def announcement(self) -> Announcement | None:
        if self.finished:
            return self.game_over_announcement()
        return None


class Trambahn(GameKind):
    name = "trambahn"
    title = "Trambahn"
    min_players = 2
    max_players = 2
    colors = ("blue", "red", "green", "yellow", "black")
    action_types = ACTIONS

    def start(self, seats: Sequence[Seat], options: Mapping[str, Any]) -> TrambahnTable:
        return TrambahnTable(seats)

    def check_action(self, data: Mapping[str, Any]) -> dict[str, Any]:
        kind = data.get("type")
        if kind not in ACTIONS:
            raise NotationError(
                f"unknown Trambahn action {kind!r}: expected one of {', '.join(ACTIONS)}"
            )
        out: dict[str, Any] = {"type": kind}
        player = data.get("player")
        if kind in ("passenger", "terminal_scoring"):
            out["terminal"] = parse_color(data.get("terminal"))
            if kind == "passenger":
                out["card"] = parse_card(data.get("card", "C"))
                if player is not None:
                    out["player"] = need_str(data, "player", kind)
            return out
        out["player"] = need_str(data, "player", kind)
        if kind == "start_line":
            out["color"] = parse_color(data.get("color"))
        elif kind in ("stop", "tram"):
            out["line"] = need_str(data, "line", kind)
            if kind == "stop":
                if "card" not in data:
                    raise NotationError('a stop action needs "card": a stop number 1-10 or "C"')
                out["card"] = parse_card(data["card"])
            else:
                m = parse_tram(data.get("tram"))
                if m is None:
                    raise NotationError('a tram action needs "tram": horse, steam or electric')
                out["tram"] = TRAMS[m].name
        return out

    def describe(self, action: Mapping[str, Any], *, secret: bool = True) -> str:
        kind = action.get("type")
        who = action.get("player")
        if kind == "passenger":
            return f"passenger at the {action.get('terminal')} terminal"
        if kind == "terminal_scoring":
            return f"{action.get('terminal')} terminal scored"
        if kind == "start_line":
            return f"{who} starts a {action.get('color')} line"
        if kind == "stop":
            return f"{who} lays {action.get('card')} on {action.get('line')}"
        if kind == "tram":
            return f"{who} puts a {action.get('tram')} tram on {action.get('line')}"
        return super().describe(action, secret=secret)

    def board_json(self) -> dict[str, Any]:
        return {
            "game": self.name,
            "colors": list(COLORS),
            "trams": {
                t.name: {"multiplier": t.multiplier, "cards": t.cards} for t in TRAMS.values()
            },
            "passengers_per_scoring": PASSENGERS_PER_SCORING,
            "terminal_scorings": TERMINAL_SCORINGS,
        }
