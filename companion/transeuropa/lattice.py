"""The Trans Europa board: a triangular lattice of nodes joined by links, cities on nodes.

The facts live in ``companion/data/trans_europa.json`` (schema in this package's README). They are
low-confidence, so :func:`check_lattice_data` reports every inconsistency of a data file (cities
off the lattice, isolated or disconnected nodes, links listed twice, links that are not lattice
neighbours, wrong colour counts) instead of trusting it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from companion.core.errors import NotationError

DATA_FILE = "trans_europa.json"
CITY_COLORS: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue")
LATTICE_STEPS = frozenset({(2, 0), (-2, 0), (1, 1), (-1, -1), (1, -1), (-1, 1)})


def link_id(a: str, b: str) -> str:
    """The canonical id of the link between nodes ``a`` and ``b``: ``"0500-0601"``."""
    return f"{a}-{b}" if a <= b else f"{b}-{a}"


@dataclass(frozen=True, slots=True)
class Link:
    """A lattice link. ``cost`` 1 is a plain link, 2 a double link (river, mountain, sea)."""

    id: str
    a: str
    b: str
    cost: int
    cost_alt: int | None = None  # the cost another source gives, when the sources disagree

    @property
    def double(self) -> bool:
        return self.cost == 2

    def other(self, node: str) -> str:
        if node == self.a:
            return self.b
        if node == self.b:
            return self.a
        raise ValueError(f"{node} is not an end of link {self.id}")


@dataclass(frozen=True, slots=True)
class City:
    id: str
    name: str
    color: str
    node: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Lattice:
    """Nodes, links and cities. Build it with :meth:`from_dict` (or :func:`trans_europa`)."""

    nodes: Mapping[str, tuple[int, int]]
    links: Mapping[str, Link]
    cities: Mapping[str, City]
    black_tracks: int = 83
    colored_tracks_per_player: int = 3
    players_min: int = 2
    players_max: int = 6
    start_points: int = 13
    red_at_or_below: int = 0
    removed_for_2_3_players: tuple[str, ...] | None = None
    links_at: Mapping[str, tuple[Link, ...]] = field(default_factory=dict)
    city_names: Mapping[str, str] = field(default_factory=dict)  # lower-case name/alias -> id

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, alt_costs: bool = False) -> Lattice:
        """Build from the data file's form. Raises NotationError when it cannot be used at all
        (run :func:`check_lattice_data` for the full list of problems). ``alt_costs`` takes the
        other source's cost for disputed links."""
        issues = [i for i in check_lattice_data(data) if i.level == "error"]
        if issues:
            raise NotationError(
                f"the Trans Europa data has {len(issues)} error(s); first: {issues[0].message}"
            )
        nodes = {str(n["id"]): (int(n["x"]), int(n["y"])) for n in data["nodes"]}
        links: dict[str, Link] = {}
        for raw in data["links"]:
            a, b = str(raw["a"]), str(raw["b"])
            alt = raw.get("cost_alt")
            cost = int(alt) if alt_costs and alt is not None else int(raw["cost"])
            lid = link_id(a, b)
            links[lid] = Link(lid, min(a, b), max(a, b), cost, None if alt is None else int(alt))
        cities = {
            str(c["id"]): City(
                str(c["id"]),
                str(c["name"]),
                str(c["color"]),
                str(c["node"]),
                tuple(str(a) for a in c.get("aliases", ())),
            )
            for c in data["cities"]
        }
        at: dict[str, list[Link]] = {n: [] for n in nodes}
        for link in links.values():
            at[link.a].append(link)
            at[link.b].append(link)
        names: dict[str, str] = {}
        for c in cities.values():
            for n in (c.id, c.name, *c.aliases):
                names[n.lower()] = c.id
        comp = data.get("components", {})
        track = data.get("score_track", {})
        removed = data.get("removed_for_2_3_players")
        return cls(
            nodes=nodes,
            links=links,
            cities=cities,
            black_tracks=int(comp.get("black_tracks", 83)),
            colored_tracks_per_player=int(comp.get("colored_tracks_per_player", 3)),
            players_min=int(comp.get("players_min", 2)),
            players_max=int(comp.get("players_max", 6)),
            start_points=int(track.get("start", 13)),
            red_at_or_below=int(track.get("red_at_or_below", 0)),
            removed_for_2_3_players=None if removed is None else tuple(map(str, removed)),
            links_at={n: tuple(ls) for n, ls in at.items()},
            city_names=names,
        )

    # --- look-ups that accept what people type ------------------------------------------

    def city(self, text: str) -> City:
        """A city by id, name or alias (any case)."""
        cid = self.city_names.get(str(text).strip().lower())
        if cid is None:
            raise NotationError(f"unknown Trans Europa city {text!r}")
        return self.cities[cid]

    def node(self, text: str) -> str:
        """A node by id (``"0906"``) or by the city on it."""
        t = str(text).strip()
        if t in self.nodes:
            return t
        if t.lower() in self.city_names:
            return self.cities[self.city_names[t.lower()]].node
        raise NotationError(f"unknown lattice node {text!r} (node ids look like '0906')")

    def link(self, text: str) -> Link:
        """A link by id ``"0906-1005"`` (either order; city names allowed for the ends)."""
        parts = str(text).strip().split("-")
        if len(parts) != 2:
            # city ids contain dashes (st-petersburg): try every split point
            for i in range(1, len(parts)):
                a, b = "-".join(parts[:i]), "-".join(parts[i:])
                try:
                    return self.link_between(self.node(a), self.node(b))
                except NotationError:
                    continue
            raise NotationError(f"{text!r} is not a link: write it as 'NODE-NODE', e.g. 0500-0601")
        return self.link_between(self.node(parts[0]), self.node(parts[1]))

    def link_between(self, a: str, b: str) -> Link:
        lid = link_id(a, b)
        if lid not in self.links:
            raise NotationError(f"there is no link between {a} and {b} on the lattice")
        return self.links[lid]

    def cities_of_color(self, color: str) -> tuple[City, ...]:
        return tuple(c for c in self.cities.values() if c.color == color)


# --- validation of a data file ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Issue:
    level: str  # "error" (the data contradicts itself or the rules) or "note" (worth a look)
    code: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"level": self.level, "code": self.code, "message": self.message}


def _components(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> list[set[str]]:
    adj: dict[str, set[str]] = {n: set() for n in nodes}
    for a, b in edges:
        if a in adj and b in adj:
            adj[a].add(b)
            adj[b].add(a)
    seen: set[str] = set()
    comps: list[set[str]] = []
    for start in adj:
        if start in seen:
            continue
        comp = {start}
        todo = [start]
        while todo:
            n = todo.pop()
            for m in adj[n]:
                if m not in comp:
                    comp.add(m)
                    todo.append(m)
        seen |= comp
        comps.append(comp)
    return sorted(comps, key=len, reverse=True)


def check_lattice_data(data: Any) -> list[Issue]:
    """Every inconsistency of a Trans Europa data file, errors first. Never raises."""
    errors: list[Issue] = []
    notes: list[Issue] = []

    def err(code: str, msg: str) -> None:
        errors.append(Issue("error", code, msg))

    def note(code: str, msg: str) -> None:
        notes.append(Issue("note", code, msg))

    if not isinstance(data, Mapping):
        return [Issue("error", "format", "the data is not a JSON object")]
    for key in ("nodes", "links", "cities"):
        if not isinstance(data.get(key), list):
            err("format", f"the data has no {key!r} list")
    if errors:
        return errors

    nodes: dict[str, tuple[int, int]] = {}
    for i, n in enumerate(data["nodes"]):
        if not isinstance(n, Mapping) or not isinstance(n.get("id"), str):
            err("format", f"node #{i} is not an object with a string 'id'")
            continue
        x, y = n.get("x"), n.get("y")
        if not isinstance(x, int) or not isinstance(y, int) or isinstance(x, bool):
            err("format", f"node {n['id']} has no integer x and y")
            continue
        if n["id"] in nodes:
            err("duplicate_node", f"node {n['id']} is listed twice")
            continue
        if n["id"] != f"{x:02d}{y:02d}":
            err("node_id", f"node {n['id']} sits at x={x}, y={y}: its id should be {x:02d}{y:02d}")
        nodes[n["id"]] = (x, y)
    parities = Counter((x + y) % 2 for x, y in nodes.values())
    if len(parities) > 1:
        odd = min(parities, key=lambda p: parities[p])
        bad = sorted(n for n, (x, y) in nodes.items() if (x + y) % 2 == odd)
        err("off_lattice_node", f"nodes off the triangular lattice (x+y parity): {', '.join(bad)}")
    at_xy = Counter(nodes.values())
    for (x, y), k in at_xy.items():
        if k > 1:
            err("duplicate_node", f"{k} nodes share the position x={x}, y={y}")

    seen_links: dict[str, int] = {}
    good_edges: list[tuple[str, str]] = []
    degree: Counter[str] = Counter()
    disputed: list[str] = []
    doubles = 0
    for i, e in enumerate(data["links"]):
        a = e.get("a") if isinstance(e, Mapping) else None
        b = e.get("b") if isinstance(e, Mapping) else None
        if not isinstance(a, str) or not isinstance(b, str):
            err("format", f"link #{i} is not an object with string 'a' and 'b'")
            continue
        lid = link_id(a, b)
        cost = e.get("cost")
        if cost not in (1, 2) or isinstance(cost, bool):
            err("link_cost", f"link {lid} has cost {cost!r}: a link costs 1 (plain) or 2 (double)")
        elif cost == 2:
            doubles += 1
        alt = e.get("cost_alt")
        if alt is not None:
            if alt not in (1, 2):
                err("link_cost", f"link {lid} has cost_alt {alt!r}: expected 1 or 2")
            disputed.append(f"{lid} ({cost} or {alt})")
        if a == b:
            err("self_link", f"link #{i} joins node {a} to itself")
            continue
        missing = [n for n in (a, b) if n not in nodes]
        if missing:
            err(
                "unknown_node", f"link {lid} names node(s) not on the lattice: {', '.join(missing)}"
            )
            continue
        if lid in seen_links:
            err(
                "double_listed", f"link {lid} is listed twice (entries #{seen_links[lid]} and #{i})"
            )
            continue
        seen_links[lid] = i
        (xa, ya), (xb, yb) = nodes[a], nodes[b]
        if (xb - xa, yb - ya) not in LATTICE_STEPS:
            err("not_adjacent", f"link {lid} joins nodes that are not lattice neighbours")
            continue
        good_edges.append((a, b))
        degree[a] += 1
        degree[b] += 1

    isolated = sorted(n for n in nodes if degree[n] == 0)
    if isolated:
        err("isolated_node", f"nodes with no link: {', '.join(isolated)}")
    comps = [
        c
        for c in _components(nodes, good_edges)
        if not (len(c) == 1 and degree[next(iter(c))] == 0)
    ]
    if len(comps) > 1:
        for c in comps[1:]:
            err(
                "disconnected",
                f"nodes cut off from the main lattice ({len(c)}): {', '.join(sorted(c))}",
            )

    colors = data.get("city_colors", list(CITY_COLORS))
    if not isinstance(colors, list) or not all(isinstance(c, str) for c in colors):
        err("format", "city_colors is not a list of names")
        colors = list(CITY_COLORS)
    city_ids: set[str] = set()
    on_node: dict[str, str] = {}
    per_color: Counter[str] = Counter()
    names: dict[str, str] = {}
    for i, c in enumerate(data["cities"]):
        if not isinstance(c, Mapping) or not all(
            isinstance(c.get(k), str) for k in ("id", "name", "color", "node")
        ):
            err("format", f"city #{i} needs string id, name, color and node")
            continue
        cid = c["id"]
        if cid in city_ids:
            err("duplicate_city", f"city {cid} is listed twice")
            continue
        city_ids.add(cid)
        if c["color"] not in colors:
            err("city_color", f"city {cid} has colour {c['color']!r}, not one of {colors}")
        else:
            per_color[c["color"]] += 1
        node = c["node"]
        if node not in nodes:
            err("city_off_lattice", f"city {cid} is on node {node}, which is not on the lattice")
        else:
            if degree[node] == 0:
                err("city_unreachable", f"city {cid} is on node {node}, which has no link")
            if ("x" in c or "y" in c) and (c.get("x"), c.get("y")) != nodes[node]:
                err("city_position", f"city {cid}: x/y disagree with its node {node}")
        if node in on_node:
            err("shared_node", f"cities {on_node[node]} and {cid} are both on node {node}")
        on_node[node] = cid
        for n in (cid, c["name"], *c.get("aliases", ())):
            key = str(n).lower()
            if key in names and names[key] != cid:
                err("ambiguous_name", f"the name {n!r} means both {names[key]} and {cid}")
            names[key] = cid
    comp = data.get("components", {})
    cards = comp.get("city_cards") if isinstance(comp, Mapping) else None
    if isinstance(cards, int) and len(colors):
        want = cards // len(colors)
        for col in colors:
            if per_color[col] != want:
                err(
                    "color_count",
                    f"{per_color[col]} {col} cities; {cards} cards in {len(colors)} colours "
                    f"make {want} of each",
                )
    removed = data.get("removed_for_2_3_players")
    if removed is None:
        note(
            "unknown_removed",
            "which city cards leave the game with 2-3 players is not recorded "
            "(removed_for_2_3_players is null)",
        )
    elif isinstance(removed, list):
        unknown = [r for r in removed if r not in city_ids]
        if unknown:
            err("unknown_city", f"removed_for_2_3_players names unknown cities: {unknown}")
    if disputed:
        note("disputed_cost", f"links whose cost the sources dispute: {', '.join(disputed)}")
    missing_links = 0
    pos = {xy: n for n, xy in nodes.items()}
    for n, (x, y) in nodes.items():
        for dx, dy in ((2, 0), (1, 1), (-1, 1)):
            m = pos.get((x + dx, y + dy))
            if m is not None and link_id(n, m) not in seen_links:
                missing_links += 1
    if missing_links:
        note(
            "unlinked_neighbours",
            f"{missing_links} pairs of neighbouring nodes have no link (sea or border, or a "
            "link missing from the data)",
        )
    counts = data.get("counts")
    if isinstance(counts, Mapping):
        for key, actual in (
            ("nodes", len(nodes)),
            ("links", len(seen_links)),
            ("doubles", doubles),
        ):
            if key in counts and counts[key] != actual:
                err("count", f"counts.{key} says {counts[key]}, the data has {actual}")
    return errors + notes


def lattice_summary(data: Mapping[str, Any]) -> dict[str, int]:
    """Counts of a (checked) data file, for reports."""
    links = data.get("links", [])
    return {
        "nodes": len(data.get("nodes", [])),
        "links": len(links),
        "double_links": sum(1 for e in links if isinstance(e, Mapping) and e.get("cost") == 2),
        "cities": len(data.get("cities", [])),
    }


@cache
def trans_europa(alt_costs: bool = False) -> Lattice:
    """The shipped lattice (``companion/data/trans_europa.json``); ``alt_costs`` takes the
    disputed links' other cost."""
    from companion.data import load_json

    return Lattice.from_dict(load_json(DATA_FILE), alt_costs=alt_costs)
