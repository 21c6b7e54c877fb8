"""A game of Trans Europa: rounds until the lowest score reaches the red area.

Every player starts with the same points (13 by default: the data file's ``score_track``). After
each round the penalties are taken off; when, after a round's scoring, the lowest player's marker
is in the red area (at or below ``red_at_or_below``, 0 by default), the game ends and the most
points left wins (ties share the win). The start player moves one seat to the left each round.
In the coloured-track variant each player has three coloured tracks for the whole game.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.core.scoring import leaders

from .lattice import Lattice
from .position import _player_color
from .rules import Round, RoundScore, cities_removed


@dataclass
class Match:
    lattice: Lattice
    players: list[tuple[str, str]]  # (colour, name) in seating order
    colored_variant: bool = False
    scores: dict[str, int] = field(default_factory=dict)
    colored_left: dict[str, int] = field(default_factory=dict)
    rounds: list[dict[str, int]] = field(default_factory=list)  # penalties of each round
    start_player: int = 0
    start_points: int = -1
    red_at_or_below: int | None = None
    # the city cards out of the game (2-3 players: 10, chosen at the first deal, kept for all
    # rounds); None until then
    removed_cities: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        self.players = [(_player_color(c), n or c) for c, n in self.players]
        colors = [c for c, _ in self.players]
        if len(set(colors)) != len(colors):
            raise InvalidStateError("two players have the same colour")
        lat = self.lattice
        if not lat.players_min <= len(colors) <= lat.players_max:
            raise InvalidStateError(
                f"Trans Europa is for {lat.players_min}-{lat.players_max} players, "
                f"got {len(colors)}"
            )
        if self.start_points < 0:
            self.start_points = lat.start_points
        if self.red_at_or_below is None:
            self.red_at_or_below = lat.red_at_or_below
        for c in colors:
            self.scores.setdefault(c, self.start_points)
            self.colored_left.setdefault(c, lat.colored_tracks_per_player)
        if set(self.scores) != set(colors) or set(self.colored_left) != set(colors):
            raise InvalidStateError("scores name a colour that is not at the table")
        if not 0 <= self.start_player < len(colors):
            raise InvalidStateError("the start player is not at the table")

    @property
    def colors(self) -> list[str]:
        return [c for c, _ in self.players]

    @property
    def over(self) -> bool:
        assert self.red_at_or_below is not None
        return bool(self.rounds) and min(self.scores.values()) <= self.red_at_or_below

    @property
    def winners(self) -> list[str]:
        return leaders(self.scores, self.colors) if self.over else []

    def new_round(
        self,
        cities: Mapping[str, Sequence[str]] | None = None,
        rng: random.Random | None = None,
    ) -> Round:
        if self.over:
            raise IllegalActionError("the game is over", rule="game_over")
        rng = rng or random.Random()
        if cities is None and self.removed_cities is None:
            self.removed_cities = cities_removed(self.lattice, len(self.players), rng)
        return Round.new(
            self.lattice,
            self.players,
            cities,
            rng=rng,
            removed=self.removed_cities,
            colored_variant=self.colored_variant,
            start_player=self.start_player,
            colored_left=self.colored_left if self.colored_variant else None,
        )

    def finish_round(self, rnd: Round) -> RoundScore:
        """Score a finished round: take off the penalties, keep the coloured tracks used."""
        if rnd.phase != "over":
            raise IllegalActionError("the round is not over yet", rule="round_running")
        result = rnd.score()
        self.record(result.penalties())
        if self.colored_variant:
            for p in rnd.players:
                self.colored_left[p.color] = p.colored_left
        return result

    def record(self, penalties: Mapping[str, int]) -> None:
        """Take one round's penalties off the scores (what the dashboard does after a
        ``transeuropa score``); the start player passes to the left."""
        if self.over:
            raise IllegalActionError("the game is over", rule="game_over")
        if set(penalties) != set(self.colors):
            raise InvalidStateError("a round's penalties must name every player once")
        for c, pen in penalties.items():
            if not isinstance(pen, int) or pen < 0:
                raise InvalidStateError(f"{c}'s penalty must be a whole number >= 0")
        for c, pen in penalties.items():
            self.scores[c] -= pen
        self.rounds.append({c: penalties[c] for c in self.colors})
        self.start_player = (self.start_player + 1) % len(self.players)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": "trans_europa",
            "variant": "colored" if self.colored_variant else "basic",
            "players": [{"color": c, "name": n} for c, n in self.players],
            "scores": dict(self.scores),
            "colored_left": dict(self.colored_left),
            "rounds": [dict(r) for r in self.rounds],
            "start_player": self.colors[self.start_player],
            "start_points": self.start_points,
            "red_at_or_below": self.red_at_or_below,
            "over": self.over,
            "winners": self.winners,
            "removed_cities": None if self.removed_cities is None else list(self.removed_cities),
        }

    @classmethod
    def from_json(cls, lattice: Lattice, data: Any) -> Match:
        if not isinstance(data, Mapping) or not isinstance(data.get("players"), list):
            raise NotationError("a Trans Europa game needs a 'players' list")
        players = []
        for p in data["players"]:
            if not isinstance(p, Mapping):
                raise NotationError("each player must be a JSON object with a colour")
            players.append((_player_color(p.get("color")), str(p.get("name") or "")))
        colors = [c for c, _ in players]
        start = data.get("start_player")
        try:
            m = cls(
                lattice,
                players,
                colored_variant=data.get("variant", "basic") == "colored",
                start_points=int(data.get("start_points", lattice.start_points)),
                red_at_or_below=int(data.get("red_at_or_below", lattice.red_at_or_below)),
                start_player=colors.index(start) if start in colors else 0,
                colored_left={str(k): int(v) for k, v in data.get("colored_left", {}).items()},
            )
            removed = data.get("removed_cities")
            if removed is not None:
                m.removed_cities = tuple(lattice.city(str(c)).id for c in removed)
            for r in data.get("rounds", []):
                m.record({str(k): int(v) for k, v in r.items()})
        except (TypeError, ValueError, AttributeError) as exc:
            raise NotationError(f"cannot read the game: {exc}") from None
        if "scores" in data and {str(k): v for k, v in data["scores"].items()} != m.scores:
            raise InvalidStateError("the scores do not match the rounds' penalties")
        if start in colors:
            m.start_player = colors.index(start)
        return m
