"""Write web/static/map.json: the compact map the dashboard draws, from the package's own data.

Run from the repository root: ``.venv/bin/python web/build_map.py [--check]``.

Everything comes from ``companion/data/europe.json`` (routes, cities, tickets, variants) and
``companion/data/europe_board.json`` (where each city and train space sits on the 1.5:1 board).
Positions are scaled to a 1500 x 1000 drawing and rounded to 0.1 so the file stays small; the
dashboard builds the SVG from it in the browser. ``--check`` exits 1 when the committed file is
stale (a test runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "web" / "static" / "map.json"
WIDTH = 1500.0
HEIGHT = 1000.0


def _r(v: float) -> float | int:
    out = round(v, 1)
    return int(out) if out == int(out) else out


def build(root: Path = ROOT) -> dict[str, Any]:
    facts = json.loads((root / "companion" / "data" / "europe.json").read_text("utf-8"))
    board = json.loads((root / "companion" / "data" / "europe_board.json").read_text("utf-8"))
    spots = dict(board["cities"])
    spaces = dict(board["routes"])
    first = next(iter(spaces.values()))[0]
    cities = []
    for c in facts["cities"]:
        s = spots[c["id"]]
        cities.append([c["id"], c["name"], _r(s["x"] * WIDTH), _r(s["y"] * HEIGHT)])
    routes = []
    for r in facts["routes"]:
        boxes = [
            [_r(b["x"] * WIDTH), _r(b["y"] * HEIGHT), _r(b["angle"] % 360)] for b in spaces[r["id"]]
        ]
        routes.append(
            [
                r["id"],
                r["a"],
                r["b"],
                r["length"],
                r["color"],
                1 if r["tunnel"] else 0,
                r["locomotives"],
                boxes,
            ]
        )
    tickets = [
        [t["id"], t["a"], t["b"], t["points"], 1 if t["long"] else 0, t["decks"]]
        for t in facts["tickets"]
    ]
    variants = [[k, v["name"], v["decks"]] for k, v in facts["variants"].items()]
    return {
        "size": [int(WIDTH), int(HEIGHT)],
        "space": [_r(first["w"] * WIDTH), _r(first["h"] * HEIGHT)],
        "city": _r(next(iter(spots.values()))["w"] * WIDTH / 2),
        "trains": facts["trains_per_player"],
        "stations": facts["stations_per_player"],
        "route_points": facts["route_points"],
        "cities": cities,
        "routes": routes,
        "tickets": tickets,
        "variants": variants,
        "fields": {
            "cities": ["id", "name", "x", "y"],
            "routes": ["id", "a", "b", "length", "color", "tunnel", "locomotives", "spaces"],
            "spaces": ["x", "y", "angle"],
            "tickets": ["id", "a", "b", "points", "long", "decks"],
            "variants": ["id", "name", "decks"],
        },
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if map.json is out of date")
    args = ap.parse_args(argv)
    text = render(build())
    if args.check:
        current = OUT.read_text("utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is stale: run web/build_map.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
