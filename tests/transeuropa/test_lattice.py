"""The lattice data file: the shipped one is consistent; every kind of mistake is reported."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from companion.core.errors import NotationError
from companion.data import load_json
from companion.transeuropa import CITY_COLORS, Lattice, check_lattice_data, trans_europa

SHARED = Path(__file__).resolve().parents[3] / "shared" / "reference" / "trans_europa.json"


def data() -> dict[str, Any]:
    return copy.deepcopy(load_json("trans_europa.json"))


def codes(d: Any) -> set[str]:
    return {i.code for i in check_lattice_data(d) if i.level == "error"}


def test_shipped_data_has_no_errors() -> None:
    issues = check_lattice_data(data())
    assert [i for i in issues if i.level == "error"] == []
    assert {i.code for i in issues} == {"unknown_removed", "disputed_cost"}


def test_shipped_lattice_counts() -> None:
    lat = trans_europa()
    assert (len(lat.nodes), len(lat.links), len(lat.cities)) == (210, 577, 35)
    assert sum(1 for lk in lat.links.values() if lk.double) == 151
    for color in CITY_COLORS:
        assert len(lat.cities_of_color(color)) == 7
    assert lat.black_tracks == 83 and lat.colored_tracks_per_player == 3


@pytest.mark.skipif(not SHARED.exists(), reason="../shared is not beside the checkout")
def test_shipped_data_carries_the_reference_facts() -> None:
    ref = json.loads(SHARED.read_text(encoding="utf-8"))
    d = data()
    assert [(n["id"], n["x"], n["y"]) for n in d["nodes"]] == [
        (n["id"], n["x"], n["y"]) for n in ref["nodes"]
    ]
    assert [(e["a"], e["b"], e["cost"]) for e in d["links"]] == [
        (e["a"], e["b"], e["cost"]) for e in ref["edges"]
    ]
    assert {c["id"]: (c["color"], c["node"]) for c in d["cities"]} == {
        c["id"]: (c["color"], c["node"]) for c in ref["cities"]
    }


def mutate_city_off(d: dict[str, Any]) -> None:
    d["cities"][0]["node"] = "9999"


def mutate_isolated(d: dict[str, Any]) -> None:
    d["nodes"].append({"id": "4001", "x": 40, "y": 1})


def mutate_island(d: dict[str, Any]) -> None:
    d["nodes"] += [{"id": "4001", "x": 40, "y": 1}, {"id": "4201", "x": 42, "y": 1}]
    d["links"].append({"a": "4001", "b": "4201", "cost": 1})


def mutate_double_listed(d: dict[str, Any]) -> None:
    e = d["links"][5]
    d["links"].append({"a": e["b"], "b": e["a"], "cost": e["cost"]})


def mutate_not_adjacent(d: dict[str, Any]) -> None:
    d["links"].append({"a": "0500", "b": "0900", "cost": 1})


def mutate_cost(d: dict[str, Any]) -> None:
    d["links"][0]["cost"] = 3


def mutate_shared_node(d: dict[str, Any]) -> None:
    d["cities"][1]["node"] = d["cities"][0]["node"]


def mutate_color(d: dict[str, Any]) -> None:
    d["cities"][0]["color"] = "purple"


def mutate_count(d: dict[str, Any]) -> None:
    d["cities"].pop()


def mutate_node_id(d: dict[str, Any]) -> None:
    d["nodes"][0]["id"] = "0501"


def mutate_parity(d: dict[str, Any]) -> None:
    d["nodes"].append({"id": "0600", "x": 6, "y": 0})
    d["links"].append({"a": "0600", "b": "0700", "cost": 1})


def mutate_unknown_node(d: dict[str, Any]) -> None:
    d["links"].append({"a": "0500", "b": "0300", "cost": 1})


def mutate_self(d: dict[str, Any]) -> None:
    d["links"].append({"a": "0500", "b": "0500", "cost": 1})


def mutate_dup_city(d: dict[str, Any]) -> None:
    d["cities"].append(dict(d["cities"][0]))


def mutate_alias(d: dict[str, Any]) -> None:
    d["cities"][0]["aliases"] = [d["cities"][1]["name"]]


def mutate_counts(d: dict[str, Any]) -> None:
    d["counts"]["links"] = 578


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (mutate_city_off, "city_off_lattice"),
        (mutate_isolated, "isolated_node"),
        (mutate_island, "disconnected"),
        (mutate_double_listed, "double_listed"),
        (mutate_not_adjacent, "not_adjacent"),
        (mutate_cost, "link_cost"),
        (mutate_shared_node, "shared_node"),
        (mutate_color, "city_color"),
        (mutate_count, "color_count"),
        (mutate_node_id, "node_id"),
        (mutate_parity, "off_lattice_node"),
        (mutate_unknown_node, "unknown_node"),
        (mutate_self, "self_link"),
        (mutate_dup_city, "duplicate_city"),
        (mutate_alias, "ambiguous_name"),
        (mutate_counts, "count"),
    ],
)
def test_each_mistake_is_reported(mutate: Any, code: str) -> None:
    d = data()
    mutate(d)
    assert code in codes(d)
    with pytest.raises(NotationError):
        Lattice.from_dict(d)


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        {"nodes": 3},
        {"nodes": [], "links": [], "cities": [1]},
        {"nodes": [{"id": 5}], "links": [None], "cities": []},
    ],
)
def test_garbage_is_reported_not_raised(bad: Any) -> None:
    assert "format" in codes(bad)
