"""Trans Europa on the dashboard: a match of rounds on the score track.

Each round is entered either as every player's penalty (what the table counted) or as the
round's end position (cities and tracks, the ``transeuropa score`` JSON), which
:meth:`companion.transeuropa.Round.score` turns into the exact penalties. The
:class:`companion.transeuropa.Match` keeps the running totals; the game ends by itself when,
after a round, the lowest marker is in the red area. ``finish`` ends it early.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.core.scoring import leaders
from companion.transeuropa import Lattice, Match, Round, trans_europa

from .base import Announcement, GameKind, GameTable, Seat, base_player

ACTIONS = ("round_penalties", "score_round")
MAX_PENALTY = 200  # more track than the board holds: a typing slip


class TransEuropaTable(GameTable):
    def __init__(self, seats: Sequence[Seat], lattice: Lattice, start_points: int) -> None:
        super().__init__(seats)
        self.lattice = lattice
        self.match = Match(lattice, [(s.color, s.name) for s in seats], start_points=start_points)
        self.details: list[dict[str, Any]] = []  # per round: how it was entered, per player
        self.ended_early = False

    def copy(self) -> TransEuropaTable:
        return copy.deepcopy(self, {id(self.lattice): self.lattice})

    def apply(self, action: Mapping[str, Any]) -> list[str]:
        kind = action["type"]
        if kind == "finish":
            if self.finished:
                raise IllegalActionError("the game is already finished", rule="finished")
            if not self.match.rounds:
                raise IllegalActionError(
                    "no round has been scored yet: score a round first", rule="no-rounds"
                )
            self.ended_early = True
            return []
        if self.finished:
            raise IllegalActionError(
                "the game is over; undo the last round or the finish to change it",
                rule="finished",
            )
        if kind == "round_penalties":
            penalties = dict(action["penalties"])
            self._check_colors(penalties, "the penalties")
            detail: dict[str, Any] = {
                "source": "entered",
                "players": {c: {"penalty": penalties[c]} for c in self.colors},
            }
        else:
            rnd = Round.from_json(self.lattice, action["position"])
            self._check_colors({p.color: 0 for p in rnd.players}, "the position")
            result = rnd.score()
            if not result.over:
                raise IllegalActionError(
                    "in this position nobody's cities are joined and black tracks are left: "
                    "the round is not over yet",
                    rule="round-running",
                )
            penalties = result.penalties()
            detail = {
                "source": "position",
                "reason": result.reason,
                "players": {
                    p.color: {
                        "penalty": p.penalty,
                        "complete": p.complete,
                        "cities": list(p.cities),
                        "build": list(p.build),
                    }
                    for p in result.players
                },
            }
        before = dict(self.match.scores)
        self.match.record(penalties)
        for c in self.colors:
            detail["players"][c]["score_before"] = before[c]
            detail["players"][c]["score_after"] = self.match.scores[c]
        self.details.append(detail)
        return []

    def _check_colors(self, named: Mapping[str, Any], what: str) -> None:
        if set(named) != set(self.colors):
            missing = sorted(set(self.colors) - set(named))
            extra = sorted(set(named) - set(self.colors))
            parts = []
            if missing:
                parts.append(f"leave out {', '.join(missing)}")
            if extra:
                parts.append(f"name {', '.join(extra)}, who does not play")
            raise IllegalActionError(
                f"{what} must name every player once: they {' and '.join(parts)}",
                rule="round-players",
            )

    @property
    def finished(self) -> bool:
        return self.match.over or self.ended_early

    @property
    def winners(self) -> list[str]:
        return leaders(self.match.scores, self.colors) if self.finished else []

    def scores(self) -> dict[str, int]:
        return dict(self.match.scores)

    def progress(self) -> int:
        return len(self.match.rounds)

    def _ranks(self) -> dict[str, int]:
        values = sorted(self.match.scores.values(), reverse=True)
        return {c: values.index(v) + 1 for c, v in self.match.scores.items()}

    def public(self) -> dict[str, Any]:
        m = self.match
        ranks = self._ranks() if self.finished else {}
        players = []
        for seat in self.seats:
            c = seat.color
            d = base_player(seat, m.scores[c])
            d["penalties"] = [r[c] for r in m.rounds]
            d["in_red"] = m.scores[c] <= (m.red_at_or_below or 0)
            if self.finished:
                d["final"] = {
                    "total": m.scores[c],
                    "rank": ranks[c],
                    "penalties": [r[c] for r in m.rounds],
                    "start_points": m.start_points,
                }
            players.append(d)
        rounds = []
        for i, (pen, detail) in enumerate(zip(m.rounds, self.details, strict=True)):
            rounds.append(
                {
                    "number": i + 1,
                    "penalties": dict(pen),
                    "scores": {c: detail["players"][c]["score_after"] for c in self.colors},
                    "source": detail["source"],
                    "reason": detail.get("reason"),
                    "complete": {
                        c: detail["players"][c].get("complete", pen[c] == 0) for c in self.colors
                    },
                }
            )
        table = {
            "round": len(m.rounds) + (0 if self.finished else 1),
            "rounds": rounds,
            "start_points": m.start_points,
            "red_at_or_below": m.red_at_or_below,
            "start_player": None if self.finished else m.colors[m.start_player],
            "ended_early": self.ended_early,
        }
        return self.turnless_public(len(m.rounds), players, table)

    def announcement(self) -> Announcement | None:
        if self.finished:
            return self.game_over_announcement()
        m = self.match
        c = m.colors[m.start_player]
        n = len(m.rounds) + 1
        name = self.name_of(c)
        return (
            f"Round {n}: {name} ({c}) starts.",
            "transeuropa.round",
            {"n": n, "name": name, "color": c},
        )


def _penalties_shape(value: Any) -> dict[str, int]:
    if not isinstance(value, Mapping) or not value:
        raise NotationError('"penalties" must be an object of player colour -> track units')
    out: dict[str, int] = {}
    for c, v in value.items():
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_PENALTY:
            raise NotationError(
                f"the penalty of {c} must be a whole number of track units 0-{MAX_PENALTY}"
            )
        out[str(c).strip().lower()] = v
    return out


class TransEuropa(GameKind):
    name = "transeuropa"
    title = "Trans Europa"
    colors = ("blue", "red", "green", "yellow", "white", "purple")
    action_types = ACTIONS

    def __init__(self, lattice: Lattice | None = None) -> None:
        self.lattice = lattice or trans_europa()
        self.min_players = self.lattice.players_min
        self.max_players = self.lattice.players_max

    def parse_options(self, data: Mapping[str, Any]) -> dict[str, Any]:
        start = data.get("start_points", self.lattice.start_points)
        if not isinstance(start, int) or isinstance(start, bool) or not 1 <= start <= 99:
            raise NotationError('"start_points" must be a whole number 1-99')
        return {"start_points": start}

    def start(self, seats: Sequence[Seat], options: Mapping[str, Any]) -> TransEuropaTable:
        start = int(options.get("start_points", self.lattice.start_points))
        return TransEuropaTable(seats, self.lattice, start)

    def check_action(self, data: Mapping[str, Any]) -> dict[str, Any]:
        kind = data.get("type")
        if kind == "round_penalties":
            return {"type": kind, "penalties": _penalties_shape(data.get("penalties"))}
        if kind == "score_round":
            position = data.get("position")
            if not isinstance(position, Mapping):
                raise NotationError(
                    '"position" must be the round\'s end position: players with cities, tracks'
                )
            try:
                Round.from_json(self.lattice, position)
            except InvalidStateError as exc:
                raise NotationError(f"the position is impossible: {exc}") from None
            return {"type": kind, "position": dict(position)}
        raise NotationError(
            f"unknown Trans Europa action {kind!r}: expected one of {', '.join(ACTIONS)}"
        )

    def describe(self, action: Mapping[str, Any], *, secret: bool = True) -> str:
        kind = action.get("type")
        if kind == "round_penalties":
            pen = action.get("penalties", {})
            return "round penalties: " + ", ".join(
                f"{c} -{v}" if v else f"{c} 0" for c, v in sorted(pen.items())
            )
        if kind == "score_round":
            return "round scored from the position"
        return super().describe(action, secret=secret)

    def board_json(self) -> dict[str, Any]:
        lat = self.lattice
        return {
            "game": self.name,
            "cities": {
                c.id: {"name": c.name, "color": c.color, "node": c.node}
                for c in sorted(lat.cities.values(), key=lambda c: (c.color, c.name))
            },
            "start_points": lat.start_points,
            "red_at_or_below": lat.red_at_or_below,
            "players_min": lat.players_min,
            "players_max": lat.players_max,
        }
