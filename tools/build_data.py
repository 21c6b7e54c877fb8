"""Build companion/data/europe.json (and london.json) from the facts in ../shared/reference.

Run from the repository root: ``python tools/build_data.py [--shared ../shared]``.
Only facts (ids, names, numbers) are carried over; the output is committed so the
package never needs ../shared at run time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# How the classic games deal tickets (the Europe box and Europa 1912 alike).
CLASSIC_DEAL = {
    "setup": {
        "long_dealt": 1,
        "regular_dealt": 3,
        "keep_min": 2,
        "long_keep_max": None,
        "unkept": {"long": "box", "regular": "box"},
    },
    "draw": 3,
    "draw_keep_min": 1,
}

VARIANTS = {
    "europe": {
        "name": "Europe",
        "decks": ["europe_2005"],
        **CLASSIC_DEAL,
    },
    "1912": {
        "name": "Europa 1912",
        "decks": ["europa_1912"],
        **CLASSIC_DEAL,
    },
    "mega_europe": {
        "name": "Mega Europe",
        "decks": ["europe_2005", "europa_1912"],
        "setup": {
            "long_dealt": 2,
            "regular_dealt": 5,
            "keep_min": 3,
            "long_keep_max": 1,
            "unkept": {"long": "box", "regular": "bottom"},
        },
        "draw": 3,
        "draw_keep_min": 1,
    },
    "big_cities": {
        "name": "Big Cities of Europe",
        "decks": ["big_cities"],
        "setup": {
            "long_dealt": 0,
            "regular_dealt": 5,
            "keep_min": 2,
            "long_keep_max": None,
            "unkept": {"long": "box", "regular": "bottom"},
        },
        "draw": 4,
        "draw_keep_min": 1,
    },
}


def build(shared: Path) -> dict[str, object]:
    ref = shared / "reference"
    europe = json.loads((ref / "ttr_europe.json").read_text(encoding="utf-8"))
    e1912 = json.loads((ref / "ttr_europe_1912.json").read_text(encoding="utf-8"))
    big = json.loads((ref / "ttr_europe_bigcities.json").read_text(encoding="utf-8"))

    big_ids = {t["id"] for t in big["tickets"]}
    tickets = []
    for t in europe["tickets"] + e1912["tickets"]:
        decks = ["europe_2005" if t["edition"] == "europe_2005" else "europa_1912"]
        if t["id"] in big_ids:
            decks.append("big_cities")
        tickets.append(
            {
                "id": t["id"],
                "a": t["a"],
                "b": t["b"],
                "points": t["points"],
                "long": t["long"],
                "decks": decks,
            }
        )
    if len({t["id"] for t in tickets}) != len(tickets):
        raise SystemExit("duplicate ticket ids across the Europe and 1912 decks")
    if not big_ids <= {t["id"] for t in tickets}:
        raise SystemExit("a Big Cities ticket is in neither the Europe nor the 1912 deck")

    routes = [
        {
            "id": r["id"],
            "a": r["a"],
            "b": r["b"],
            "length": r["length"],
            "color": r["color"],
            "tunnel": r["tunnel"],
            "locomotives": r["locomotives"],
            "twin": r["twin"],
        }
        for r in europe["routes"]
    ]
    comp = europe["components"]
    scoring = europe["scoring"]
    return {
        "map": "europe",
        "name": europe["game"],
        "generated_from": "shared/reference/ttr_europe*.json by tools/build_data.py",
        "trains_per_player": comp["trains_per_player"],
        "stations_per_player": comp["stations_per_player"],
        "train_cards": {
            "colors": ["pink", "blue", "orange", "white", "green", "yellow", "black", "red"],
            "per_color": comp["train_cards"]["per_color"],
            "locomotives": comp["train_cards"]["locomotives"],
        },
        "route_points": {int(k): v for k, v in scoring["route_points"].items()},
        "unused_station_points": scoring["unused_station_points"],
        "station_cost_cards": [1, 2, 3],
        "express_bonus": scoring["european_express"]["bonus"],
        "final_round_trains": 2,
        "hand_size": 4,
        "face_up": 5,
        "face_up_locomotive_limit": 3,
        "tunnel_reveal": 3,
        "big_cities": big["big_cities"],
        "cities": [{"id": c["id"], "name": c["name"]} for c in europe["cities"]],
        "routes": routes,
        "tickets": tickets,
        "variants": VARIANTS,
    }


def build_board(shared: Path) -> dict[str, object]:
    """Board geometry: every train space and city spot as fractions of the board image."""
    board = json.loads((shared / "reference" / "ttr_europe_board.json").read_text(encoding="utf-8"))
    return {
        "board": "europe",
        "generated_from": "shared/reference/ttr_europe_board.json by tools/build_data.py",
        "frame": board["frame"],
        "missing_routes": board["missing_routes"],
        "routes": {rid: r["spaces"] for rid, r in sorted(board["routes"].items())},
        "cities": board["cities"],
    }


def build_london(shared: Path) -> dict[str, object]:
    """Ticket to Ride: London: locations with their districts, routes, tickets and the rules'
    numbers (those of the rule sheet; see companion/london/README.md)."""
    london = json.loads((shared / "reference" / "ttr_london.json").read_text(encoding="utf-8"))
    comp = london["components"]
    cards = comp["transportation_cards"]
    colors = ["black", "blue", "green", "orange", "pink", "yellow"]
    if (
        cards["colors"] != len(colors)
        or cards["per_color"] * len(colors) + cards["multicolour_bus_wild"] != cards["total"]
    ):
        raise SystemExit("the London card counts do not add up")
    low, high = (int(x) for x in comp["players"].split("-"))
    return {
        "map": "london",
        "name": london["game"],
        "generated_from": "shared/reference/ttr_london.json by tools/build_data.py",
        "players": {"min": low, "max": high},
        "buses_per_player": comp["buses_per_player"],
        "transport_cards": {
            "colors": colors,
            "per_color": cards["per_color"],
            "buses": cards["multicolour_bus_wild"],
        },
        "route_points": {int(k): v for k, v in london["scoring"]["route_points"].items()},
        "hand_size": 2,
        "face_up": 5,
        "face_up_bus_limit": 3,
        "tickets_dealt": 2,
        "tickets_keep_min": 1,
        "tickets_draw": 2,
        "tickets_draw_keep_min": 1,
        "final_round_buses": 2,
        "doubles_closed_up_to_players": 2,
        "district_points_note": (
            "the rule sheet says the number printed on a district is its points; which number "
            "each district shows is medium confidence (shared/reference/README.md): correct "
            "districts[].points in the reference and rebuild if the board says otherwise"
        ),
        "locations": [
            {"id": loc["id"], "name": loc["name"], "district": loc["district"]}
            for loc in london["locations"]
        ],
        "districts": [
            {"district": d["district"], "points": d["points"], "locations": d["locations"]}
            for d in london["districts"]
        ],
        "routes": [
            {
                "id": r["id"],
                "a": r["a"],
                "b": r["b"],
                "length": r["length"],
                "color": r["color"],
                "twin": r["twin"],
            }
            for r in london["routes"]
        ],
        "tickets": [
            {"id": t["id"], "a": t["a"], "b": t["b"], "points": t["points"]}
            for t in london["tickets"]
        ],
    }


def build_trans_europa(shared: Path) -> dict[str, object]:
    """Trans Europa's lattice, cities and components (low-confidence facts; see its "confidence").

    The schema is documented in companion/transeuropa/README.md; ``companion transeuropa
    check-data`` reports inconsistencies (off-lattice cities, isolated nodes, double links...).
    """
    ref = json.loads((shared / "reference" / "trans_europa.json").read_text(encoding="utf-8"))
    links = []
    for e in ref["edges"]:
        link: dict[str, object] = {"a": e["a"], "b": e["b"], "cost": e["cost"]}
        if e.get("cost_disputed"):
            link["cost_alt"] = e["cost_alt"]
            link["disputed"] = True
        links.append(link)
    return {
        "game": "trans_europa",
        "name": ref["game"],
        "schema_version": 1,
        "generated_from": "shared/reference/trans_europa.json by tools/build_data.py",
        "confidence": ref["confidence"],
        "coordinate_system": ref["coordinate_system"],
        "link_costs": ref["edge_costs"],
        "components": {
            "players_min": 2,
            "players_max": 6,
            "black_tracks": 83,
            "colored_tracks_per_player": 3,
            "city_cards": 35,
            "cards_removed_for_2_3_players": 10,
        },
        "score_track": {
            "start": 13,
            "red_at_or_below": 0,
            "note": "not in the rule text: start 13 and the red area from 0 down follow "
            "TransAmerica; unverified for Trans Europa",
        },
        "city_colors": ["red", "orange", "yellow", "green", "blue"],
        "removed_for_2_3_players": None,
        "nodes": [{"id": n["id"], "x": n["x"], "y": n["y"]} for n in ref["nodes"]],
        "links": links,
        "cities": [
            {
                "id": c["id"],
                "name": c["name"],
                "color": c["color"],
                "node": c["node"],
                "aliases": list(c["aliases"]),
            }
            for c in ref["cities"]
        ],
        "counts": {
            "nodes": ref["counts"]["nodes"],
            "links": ref["counts"]["edges"],
            "doubles": ref["counts"]["double_edges"],
        },
        "sources": [s.get("repo") or s.get("url") for s in ref["sources"]],
        "discrepancies": ref["discrepancies"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--force-board", action="store_true", help="rebuild europe_board.json")
    args = parser.parse_args()
    data = build(args.shared)
    out = ROOT / "companion" / "data" / "europe.json"
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")
    london_out = ROOT / "companion" / "data" / "london.json"
    london_out.write_text(
        json.dumps(build_london(args.shared), indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {london_out.relative_to(ROOT)}")
    te_out = ROOT / "companion" / "data" / "trans_europa.json"
    te_out.write_text(
        json.dumps(build_trans_europa(args.shared), indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {te_out.relative_to(ROOT)}")
    board_out = ROOT / "companion" / "data" / "europe_board.json"
    if not board_out.exists() or args.force_board:
        board_out.write_text(
            json.dumps(build_board(args.shared), indent=1) + "\n", encoding="utf-8"
        )
        print(f"wrote {board_out.relative_to(ROOT)}")
    else:
        print(
            f"kept {board_out.relative_to(ROOT)} (holds measured additions; --force-board rebuilds)"
        )


if __name__ == "__main__":
    main()
