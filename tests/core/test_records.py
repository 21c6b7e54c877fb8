"""The shared small pieces: a record's JSON by its fields, and who leads a table of scores."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from companion.core.records import fields_json
from companion.core.scoring import leaders


@dataclass
class _Row:
    name: str
    cards: tuple[str, ...]
    params: dict[str, int] = field(default_factory=dict)
    rank: int = 0


def test_fields_json_keeps_field_order_and_makes_tuples_lists() -> None:
    row = _Row("aki", ("red", "loco"), {"n": 2}, 1)
    out = fields_json(row)
    assert list(out) == ["name", "cards", "params", "rank"]
    assert out == {"name": "aki", "cards": ["red", "loco"], "params": {"n": 2}, "rank": 1}
    out["params"]["n"] = 9  # a copy: the record is not changed through its JSON
    assert row.params == {"n": 2}


def test_fields_json_with_names_takes_only_those_in_that_order() -> None:
    row = _Row("ben", ())
    assert list(fields_json(row, ("rank", "name"))) == ["rank", "name"]


def test_fields_json_makes_any_mapping_a_dict() -> None:
    out = fields_json(_Row("cy", (), MappingProxyType({"n": 1})))  # type: ignore[arg-type]
    assert type(out["params"]) is dict and out["params"] == {"n": 1}


def test_leaders_all_tied_at_the_top_in_the_given_order() -> None:
    scores = {"red": 7, "blue": 9, "green": 9}
    assert leaders(scores) == ["blue", "green"]
    assert leaders(scores, ["green", "red", "blue"]) == ["green", "blue"]
    assert leaders({"red": -3}) == ["red"]
