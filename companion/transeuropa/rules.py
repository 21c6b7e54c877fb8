"""One round of Trans Europa on the lattice, and the penalties when it ends.

The rules (from the rule text): every player holds one city of each of the five colours and
first places a start marker on any node. Then, on each turn, a player places either one or two
tracks on free plain links, or one track on a free double link, each connected to their own
network (the tracks joined to their start marker; tracks of others joined to it are part of it).
At least one track each turn. The round ends when some player's five cities are joined by
track; if that happened with the first of two plain tracks, the second may still be placed. It
also ends when all the tracks are on the board. Every player whose cities are not joined then
loses the least number of track units still needed (plain 1, double 2), using all the track on
the board in the best way (:mod:`.steiner`).

The coloured-track variant: each player may, three times in the game, place a track of their
own colour instead of a black one; only its owner may use that link, and a node can touch at
most two coloured tracks.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.core.records import fields_json

from .actions import Action, EndTurn, PlaceStart, PlaceTrack
from .lattice import CITY_COLORS, Lattice
from .position import (
    BLACK,
    RoundPlayer,
    _Components,
    _player_color,
    check_position,
    colored_degree,
    read_round,
)
from .steiner import INF, Connection, connection


@dataclass(frozen=True, slots=True)
class PlayerPenalty:
    color: str
    name: str
    cities: tuple[str, ...]
    complete: bool
    penalty: int | None  # None: another player's coloured tracks cut a city off entirely
    build: tuple[str, ...]  # one cheapest set of free links that would join the cities

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(frozen=True, slots=True)
class RoundScore:
    players: tuple[PlayerPenalty, ...]
    over: bool
    reason: str | None  # "connected", "stock", "blocked" or None while the round runs

    def penalties(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.players:
            if p.penalty is None:
                raise InvalidStateError(
                    f"{p.color}'s cities cannot be joined at all (other players' coloured "
                    "tracks cut one off): no penalty can be counted"
                )
            out[p.color] = p.penalty
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [p.to_json() for p in self.players],
            "round_over": self.over,
            "reason": self.reason,
        }


REMOVED_PER_COLOR_2_3 = 2  # with 2-3 players, 10 city cards (2 of each colour) leave the game


def cities_removed(lattice: Lattice, n_players: int, rng: random.Random) -> tuple[str, ...]:
    """The city cards that leave the game with 2-3 players: the data file's framed cards when
    it lists them, else 2 of each colour chosen with ``rng`` (the rule text does not say
    which); none with 4 or more players."""
    if n_players > 3:
        return ()
    if lattice.removed_for_2_3_players is not None:
        return tuple(lattice.removed_for_2_3_players)
    out: list[str] = []
    for col in CITY_COLORS:
        deck = sorted(c.id for c in lattice.cities_of_color(col))
        out.extend(sorted(rng.sample(deck, min(REMOVED_PER_COLOR_2_3, len(deck)))))
    return tuple(out)


def deal_cities(
    lattice: Lattice,
    colors: Sequence[str],
    rng: random.Random,
    removed: Iterable[str] | None = None,
) -> dict[str, tuple[str, ...]]:
    """One city of each colour for every player, no city twice (seeded). ``removed``: the
    cards out of the game (by default :func:`cities_removed`, drawn with ``rng``)."""
    gone = set(cities_removed(lattice, len(colors), rng) if removed is None else removed)
    hands: dict[str, list[str]] = {c: [] for c in colors}
    for col in CITY_COLORS:
        deck = sorted(c.id for c in lattice.cities_of_color(col) if c.id not in gone)
        if len(deck) < len(colors):
            raise InvalidStateError(f"only {len(deck)} {col} cities for {len(colors)} players")
        rng.shuffle(deck)
        for player, city in zip(colors, deck, strict=False):
            hands[player].append(city)
    return {p: tuple(h) for p, h in hands.items()}


@dataclass
class Round:
    """The state of one round. Change it only through :meth:`apply`."""

    lattice: Lattice
    players: list[RoundPlayer]
    colored_variant: bool = False
    start_player: int = 0
    tracks: dict[str, str] = field(default_factory=dict)  # link id -> "black" or player colour
    stock: int = -1  # black tracks left; -1: all of them
    phase: str = "start"
    current: int = -1  # -1: the start player
    placed: list[str] = field(default_factory=list)  # links placed in the current turn
    end_reason: str | None = None
    history: list[Action] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.stock < 0:
            self.stock = self.lattice.black_tracks - sum(
                1 for o in self.tracks.values() if o == BLACK
            )
        if self.current < 0:
            self.current = self.start_player
        self.validate()

    # --- construction and checks ---------------------------------------------------------

    @classmethod
    def new(
        cls,
        lattice: Lattice,
        players: Sequence[tuple[str, str]],
        cities: Mapping[str, Sequence[str]] | None = None,
        *,
        rng: random.Random | None = None,
        colored_variant: bool = False,
        start_player: int = 0,
        colored_left: Mapping[str, int] | None = None,
        removed: Iterable[str] | None = None,
    ) -> Round:
        """A fresh round. ``players``: (colour, name) in seating order. ``cities``: each
        player's city ids (or names); dealt with ``rng`` when not given, without the
        ``removed`` cards (with 2-3 players, by default 2 of each colour, see
        :func:`cities_removed`)."""
        colors = [_player_color(c) for c, _ in players]
        if cities is None:
            cities = deal_cities(lattice, colors, rng or random.Random(), removed)
        left = colored_left or {}
        rps = [
            RoundPlayer(
                color=col,
                name=name or col,
                cities=tuple(lattice.city(c).id for c in cities.get(col, ())),
                colored_left=int(left.get(col, lattice.colored_tracks_per_player)),
            )
            for col, (_, name) in zip(colors, players, strict=True)
        ]
        return cls(lattice, rps, colored_variant=colored_variant, start_player=start_player)

    def validate(self) -> None:
        """Raise InvalidStateError for a position no legal round can reach."""
        check_position(
            self.lattice,
            self.players,
            colored_variant=self.colored_variant,
            start_player=self.start_player,
            current=self.current,
            phase=self.phase,
            tracks=self.tracks,
            stock=self.stock,
            placed=self.placed,
        )

    def _colored_degree(self) -> Counter[str]:
        return colored_degree(self.lattice, self.tracks)

    # --- queries -------------------------------------------------------------------------

    def player(self, color: str) -> RoundPlayer:
        for p in self.players:
            if p.color == color:
                return p
        raise NotationError(
            f"no player has the colour {color!r} (players: "
            f"{', '.join(p.color for p in self.players)})"
        )

    @property
    def current_player(self) -> RoundPlayer:
        return self.players[self.current]

    def usable(self, color: str) -> list[str]:
        """Links with track that ``color`` may use: black ones and their own coloured ones."""
        return [lid for lid, o in self.tracks.items() if o in (BLACK, color)]

    def blocked(self, color: str) -> list[str]:
        return [lid for lid, o in self.tracks.items() if o not in (BLACK, color)]

    def network(self, color: str) -> set[str]:
        """The nodes of the player's network: reachable from their start marker by track they
        may use."""
        start = self.player(color).start
        if start is None:
            return set()
        mine = {o for o in (BLACK, color)}
        seen = {start}
        todo = [start]
        while todo:
            node = todo.pop()
            for link in self.lattice.links_at[node]:
                if self.tracks.get(link.id) in mine:
                    other = link.other(node)
                    if other not in seen:
                        seen.add(other)
                        todo.append(other)
        return seen

    def complete(self, color: str) -> bool:
        """Are the player's cities all joined by track they may use?"""
        p = self.player(color)
        comps = _Components(self.lattice.nodes)
        for lid in self.usable(color):
            link = self.lattice.links[lid]
            comps.union(link.a, link.b)
        return len({comps.find(self.lattice.cities[c].node) for c in p.cities}) <= 1

    def penalty(self, color: str) -> Connection:
        p = self.player(color)
        nodes = [self.lattice.cities[c].node for c in p.cities]
        return connection(self.lattice, nodes, set(self.usable(color)), set(self.blocked(color)))

    def placement_problem(self, color: str, link_text: str, colored: bool = False) -> str | None:
        """Why ``color`` may not place a track on the link now (a rule key), or None."""
        try:
            self._check_placement(PlaceTrack(color, link_text, colored))
        except IllegalActionError as exc:
            return exc.rule
        return None

    def legal_placements(self, color: str) -> list[PlaceTrack]:
        """Every track the player could place next (their turn or not, as if it were)."""
        if self.phase != "build":
            return []
        p = self.player(color)
        net = self.network(color)
        done_double = any(self.lattice.links[lid].double for lid in self.placed)
        if done_double or len(self.placed) >= 2:
            return []
        can_black = self.stock > 0
        can_colored = self.colored_variant and p.colored_left > 0
        if not (can_black or can_colored):
            return []
        cdeg = self._colored_degree() if can_colored else Counter()
        out: list[PlaceTrack] = []
        seen: set[str] = set()
        for node in sorted(net):
            for link in self.lattice.links_at[node]:
                if link.id in seen or link.id in self.tracks:
                    continue
                seen.add(link.id)
                if link.double and self.placed:
                    continue
                if can_black:
                    out.append(PlaceTrack(color, link.id))
                if can_colored and cdeg[link.a] < 2 and cdeg[link.b] < 2:
                    out.append(PlaceTrack(color, link.id, True))
        return out

    def score(self) -> RoundScore:
        """Each player's penalty if the round ended now (0 for joined cities)."""
        out = []
        for p in self.players:
            if self.complete(p.color):
                out.append(PlayerPenalty(p.color, p.name, p.cities, True, 0, ()))
                continue
            conn = self.penalty(p.color)
            cost = None if conn.cost >= INF else conn.cost
            out.append(PlayerPenalty(p.color, p.name, p.cities, False, cost, conn.links))
        reason = self.end_reason
        if reason is None and any(p.complete for p in out):
            reason = "connected"
        elif reason is None and self.stock <= 0:
            reason = "stock"
        return RoundScore(tuple(out), reason is not None, reason)

    # --- actions -------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        if self.phase == "over":
            raise IllegalActionError("the round is over", rule="round_over")
        if action.player != self.current_player.color:
            self.player(action.player)
            raise IllegalActionError(
                f"it is {self.current_player.color}'s turn, not {action.player}'s",
                rule="not_your_turn",
            )
        if isinstance(action, PlaceStart):
            self._start(action)
        elif isinstance(action, PlaceTrack):
            self._track(action)
        else:
            self._end(action)
        self.history.append(action)

    def _start(self, action: PlaceStart) -> None:
        if self.phase != "start":
            raise IllegalActionError(
                "start markers are placed on the first turn of the round only", rule="start_once"
            )
        node = self.lattice.node(action.node)
        self.current_player.start = node
        nxt = (self.current + 1) % len(self.players)
        if nxt == self.start_player:
            self.phase = "build"
        self.current = nxt

    def _check_placement(self, action: PlaceTrack) -> str:
        if self.phase == "start":
            raise IllegalActionError(
                "every player places a start marker before any track is laid", rule="start_first"
            )
        if self.phase == "over":
            raise IllegalActionError("the round is over", rule="round_over")
        link = self.lattice.link(action.link)
        p = self.player(action.player)
        if link.id in self.tracks:
            raise IllegalActionError(f"link {link.id} already has a track", rule="occupied")
        if any(self.lattice.links[lid].double for lid in self.placed):
            raise IllegalActionError(
                "a track on a double link is the whole turn", rule="one_double_per_turn"
            )
        if link.double and self.placed:
            raise IllegalActionError(
                f"{link.id} is a double link (river or mountain): it takes a whole turn",
                rule="one_double_per_turn",
            )
        if len(self.placed) >= 2:
            raise IllegalActionError("at most two tracks per turn", rule="two_tracks_per_turn")
        if action.colored:
            if not self.colored_variant:
                raise IllegalActionError(
                    "coloured tracks belong to the coloured-track variant", rule="variant_off"
                )
            if p.colored_left <= 0:
                raise IllegalActionError(
                    f"{p.color} has used all {self.lattice.colored_tracks_per_player} coloured "
                    "tracks",
                    rule="no_colored_left",
                )
            cdeg = self._colored_degree()
            full = [n for n in (link.a, link.b) if cdeg[n] >= 2]
            if full:
                raise IllegalActionError(
                    f"node {full[0]} already touches two coloured tracks",
                    rule="colored_per_node",
                )
        elif self.stock <= 0:
            raise IllegalActionError("no black tracks are left", rule="no_stock")
        net = self.network(p.color)
        if link.a not in net and link.b not in net:
            raise IllegalActionError(
                f"{link.id} is not connected to {p.color}'s network", rule="not_connected"
            )
        return link.id

    def _track(self, action: PlaceTrack) -> None:
        lid = self._check_placement(action)
        p = self.current_player
        if action.colored:
            self.tracks[lid] = p.color
            p.colored_left -= 1
        else:
            self.tracks[lid] = BLACK
            self.stock -= 1
        self.placed.append(lid)
        if not self.legal_placements(p.color):
            self._finish_turn()

    def _end(self, action: EndTurn) -> None:
        if self.phase == "start":
            raise IllegalActionError("the first turn places the start marker", rule="start_first")
        if not self.placed:
            raise IllegalActionError("every turn places at least one track", rule="must_place")
        self._finish_turn()

    def _finish_turn(self) -> None:
        self.placed = []
        if any(self.complete(p.color) for p in self.players):
            self.phase, self.end_reason = "over", "connected"
            return
        if self.stock <= 0:
            self.phase, self.end_reason = "over", "stock"
            return
        n = len(self.players)
        for step in range(1, n + 1):
            nxt = (self.current + step) % n
            if self.legal_placements(self.players[nxt].color):
                self.current = nxt
                return
        self.phase, self.end_reason = "over", "blocked"

    # --- JSON ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        tracks: list[Any] = []
        for lid in sorted(self.tracks):
            owner = self.tracks[lid]
            tracks.append(lid if owner == BLACK else {"link": lid, "color": owner})
        return {
            "game": "trans_europa",
            "variant": "colored" if self.colored_variant else "basic",
            "players": [p.to_json() for p in self.players],
            "tracks": tracks,
            "stock": self.stock,
            "phase": self.phase,
            "start_player": self.players[self.start_player].color,
            "current": self.current_player.color,
            "placed": list(self.placed),
            "end_reason": self.end_reason,
            "history": [a.to_json() for a in self.history],
        }

    @classmethod
    def from_json(cls, lattice: Lattice, data: Any) -> Round:
        """Read a round (or a bare position: players with cities, and tracks). Raises
        NotationError for malformed JSON and InvalidStateError for an impossible position."""
        fields, history = read_round(lattice, data)
        rnd = cls(lattice, **fields)
        rnd.history = history()
        return rnd
