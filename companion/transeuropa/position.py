"""What a Trans Europa round's position is made of, apart from the round's rules: the players
(:class:`RoundPlayer`), the check that a position can arise in a legal round
(:func:`check_position`) and the reading of a round's JSON form (:func:`read_round`).
:class:`~companion.transeuropa.rules.Round` uses them; they need nothing of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.errors import InvalidStateError, NotationError
from companion.core.records import fields_json

from .actions import Action, action_from_json
from .lattice import CITY_COLORS, Lattice

BLACK = "black"
PHASES = ("start", "build", "over")


def _player_color(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise NotationError("every player needs a colour (a word such as 'red')")
    color = text.strip().lower()
    if color == BLACK:
        raise NotationError("'black' is the colour of the shared tracks, not a player colour")
    return color


@dataclass(slots=True)
class RoundPlayer:
    color: str
    name: str
    cities: tuple[str, ...]
    start: str | None = None
    colored_left: int = 3

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


class _Components:
    def __init__(self, nodes: Iterable[str]) -> None:
        self.parent = {n: n for n in nodes}

    def find(self, x: str) -> str:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def check_position(
    lat: Lattice,
    players: Sequence[RoundPlayer],
    *,
    colored_variant: bool,
    start_player: int,
    current: int,
    phase: str,
    tracks: Mapping[str, str],
    stock: int,
    placed: Sequence[str],
) -> None:
    """Raise InvalidStateError for a position no legal round can reach."""
    n = len(players)
    if not lat.players_min <= n <= lat.players_max:
        raise InvalidStateError(
            f"Trans Europa is for {lat.players_min}-{lat.players_max} players, got {n}"
        )
    colors = [p.color for p in players]
    dup = [c for c, k in Counter(colors).items() if k > 1]
    if dup:
        raise InvalidStateError(f"two players have the colour {dup[0]}")
    holder: dict[str, str] = {}
    for p in players:
        got = sorted(lat.cities[c].color for c in p.cities)
        if got != sorted(CITY_COLORS):
            raise InvalidStateError(
                f"{p.color} must hold one city of each colour ({', '.join(CITY_COLORS)}); "
                f"holds {', '.join(p.cities) or 'none'}"
            )
        for c in p.cities:
            if c in holder:
                raise InvalidStateError(
                    f"the city card {c} is held by both {holder[c]} and {p.color}"
                )
            holder[c] = p.color
        if p.start is not None and p.start not in lat.nodes:
            raise InvalidStateError(f"{p.color}'s start marker is on unknown node {p.start}")
        if not 0 <= p.colored_left <= lat.colored_tracks_per_player:
            raise InvalidStateError(
                f"{p.color} has {p.colored_left} coloured tracks left; a player has "
                f"{lat.colored_tracks_per_player}"
            )
    if not 0 <= start_player < n or not 0 <= current < n:
        raise InvalidStateError("the start player or current player is not at the table")
    if phase not in PHASES:
        raise InvalidStateError(f"unknown phase {phase!r}: expected one of {PHASES}")
    per_owner = Counter(tracks.values())
    for lid, owner in tracks.items():
        if lid not in lat.links:
            raise InvalidStateError(f"track on unknown link {lid}")
        if owner != BLACK and owner not in colors:
            raise InvalidStateError(f"a {owner} track, but no player has that colour")
    colored = sum(k for o, k in per_owner.items() if o != BLACK)
    if colored and not colored_variant:
        raise InvalidStateError("coloured tracks are on the board but the variant is off")
    for p in players:
        if per_owner[p.color] + p.colored_left > lat.colored_tracks_per_player:
            raise InvalidStateError(
                f"{p.color} has {per_owner[p.color]} coloured tracks on the board and "
                f"{p.colored_left} left: more than the {lat.colored_tracks_per_player} a "
                "player has"
            )
    for node, k in colored_degree(lat, tracks).items():
        if k > 2:
            raise InvalidStateError(
                f"{k} coloured tracks touch node {node}; a node takes at most 2"
            )
    black = per_owner[BLACK]
    if black + stock != lat.black_tracks:
        raise InvalidStateError(
            f"{black} black tracks on the board and {stock} in stock make "
            f"{black + stock}, not {lat.black_tracks}"
        )
    for lid in placed:
        if lid not in tracks:
            raise InvalidStateError(f"link {lid} was placed this turn but has no track")
    if phase != "start" and all(p.start is not None for p in players):
        _check_tracks_reachable(lat, tracks, players)


def _check_tracks_reachable(
    lattice: Lattice, tracks: Mapping[str, str], players: Sequence[RoundPlayer]
) -> None:
    comps = _Components(lattice.nodes)
    for lid in tracks:
        link = lattice.links[lid]
        comps.union(link.a, link.b)
    rooted = {comps.find(p.start) for p in players if p.start is not None}
    for lid in sorted(tracks):
        if comps.find(lattice.links[lid].a) not in rooted:
            raise InvalidStateError(
                f"the track on {lid} is not joined to any start marker; tracks are only "
                "placed onto a player's network"
            )


def colored_degree(lattice: Lattice, tracks: Mapping[str, str]) -> Counter[str]:
    """How many coloured tracks touch each node."""
    deg: Counter[str] = Counter()
    for lid, owner in tracks.items():
        if owner != BLACK:
            link = lattice.links[lid]
            deg[link.a] += 1
            deg[link.b] += 1
    return deg


def read_round(lattice: Lattice, data: Any) -> tuple[dict[str, Any], Callable[[], list[Action]]]:
    """The fields of a round in its JSON form (or a bare position: players with cities, and
    tracks) for the round's constructor, and how to read its history (once the round is made:
    an impossible position is told before a malformed history). Raises NotationError for
    malformed JSON and InvalidStateError for two tracks on one link."""
    if not isinstance(data, Mapping):
        raise NotationError("a Trans Europa round must be a JSON object")
    game = data.get("game", "trans_europa")
    if game != "trans_europa":
        raise NotationError(f"this is a {game!r} file, not a Trans Europa round")
    raw_players = data.get("players")
    if not isinstance(raw_players, list) or not raw_players:
        raise NotationError("the round needs a 'players' list")
    players: list[RoundPlayer] = []
    for i, rp in enumerate(raw_players):
        if not isinstance(rp, Mapping):
            raise NotationError(f"player #{i + 1} is not a JSON object")
        color = _player_color(rp.get("color"))
        raw_cities = rp.get("cities")
        if not isinstance(raw_cities, list) or not all(isinstance(c, str) for c in raw_cities):
            raise NotationError(f"{color} needs a 'cities' list of city names")
        start = rp.get("start")
        if start is not None and not isinstance(start, str):
            raise NotationError(f"{color}'s 'start' must be a node id such as '0906'")
        left = rp.get("colored_left", lattice.colored_tracks_per_player)
        if not isinstance(left, int) or isinstance(left, bool):
            raise NotationError(f"{color}'s 'colored_left' must be a whole number")
        name = rp.get("name") or color
        players.append(
            RoundPlayer(
                color=color,
                name=str(name),
                cities=tuple(lattice.city(c).id for c in raw_cities),
                start=None if start is None else lattice.node(start),
                colored_left=left,
            )
        )
    colors = [p.color for p in players]
    tracks: dict[str, str] = {}
    raw_tracks = data.get("tracks", [])
    if not isinstance(raw_tracks, list):
        raise NotationError("'tracks' must be a list of links")
    for t in raw_tracks:
        if isinstance(t, str):
            lid, owner = lattice.link(t).id, BLACK
        elif isinstance(t, Mapping) and isinstance(t.get("link"), str):
            lid = lattice.link(t["link"]).id
            owner = str(t.get("color", BLACK)).strip().lower()
        else:
            raise NotationError(
                f"cannot read the track {t!r}: write 'NODE-NODE' or "
                '{"link": "NODE-NODE", "color": "red"}'
            )
        if lid in tracks:
            raise InvalidStateError(f"link {lid} has two tracks")
        tracks[lid] = owner
    variant = data.get("variant")
    if variant is None:
        variant = "colored" if any(o != BLACK for o in tracks.values()) else "basic"
    if variant not in ("basic", "colored"):
        raise NotationError(f"unknown variant {variant!r}: expected basic or colored")

    def index_of(key: str, default: int) -> int:
        value = data.get(key)
        if value is None:
            return default
        color = _player_color(value)
        if color not in colors:
            raise NotationError(f"'{key}' names {color}, who is not a player")
        return colors.index(color)

    stock = data.get("stock", -1)
    if not isinstance(stock, int) or isinstance(stock, bool) or stock < -1:
        raise NotationError("'stock' must be the number of black tracks left")
    placed = data.get("placed", [])
    if not isinstance(placed, list):
        raise NotationError("'placed' must be a list of links")
    phase = data.get("phase")
    if phase is None:
        phase = "build" if all(p.start is not None for p in players) or tracks else "start"
    fields: dict[str, Any] = dict(
        players=players,
        colored_variant=variant == "colored",
        start_player=index_of("start_player", 0),
        tracks=tracks,
        stock=stock,
        phase=str(phase),
        current=index_of("current", -1),
        placed=[lattice.link(str(x)).id for x in placed],
        end_reason=data.get("end_reason"),
    )

    def history() -> list[Action]:
        raw = data.get("history", [])
        if not isinstance(raw, list):
            raise NotationError("'history' must be a list of actions")
        return [action_from_json(a) for a in raw]

    return fields, history
