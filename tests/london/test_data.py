"""The London data file: the board's facts, and that tools/build_data.py rebuilds it exactly."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from companion.core.errors import NotationError
from companion.data import load_json
from companion.london.board import LondonMap

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"


def test_board_facts(lmap: LondonMap) -> None:
    assert len(lmap.locations) == 17 and len(lmap.routes) == 44 and len(lmap.tickets) == 20
    assert sum(r.length for r in lmap.routes.values()) == 95
    assert Counter(r.length for r in lmap.routes.values()) == {1: 15, 2: 12, 3: 12, 4: 5}
    assert sum(1 for r in lmap.routes.values() if r.twin) == 18  # 9 double pairs
    assert [d.number for d in lmap.districts] == [1, 2, 3, 4, 5]
    assert [d.points for d in lmap.districts] == [1, 2, 3, 4, 5]
    in_districts = [loc for d in lmap.districts for loc in d.locations]
    assert sorted(in_districts) == sorted(lmap.locations)  # every location in one district
    for d in lmap.districts:
        assert all(lmap.locations[loc].district == d.number for loc in d.locations)
    for t in lmap.tickets.values():
        assert t.a in lmap.locations and t.b in lmap.locations and t.points > 0
    for r in lmap.routes.values():
        if r.twin:
            twin = lmap.routes[r.twin]
            assert (twin.a, twin.b, twin.length, twin.twin) == (r.a, r.b, r.length, r.id)
    assert (lmap.buses_per_player, lmap.hand_size, lmap.face_up) == (17, 2, 5)
    assert (lmap.tickets_dealt, lmap.tickets_keep_min, lmap.tickets_draw) == (2, 1, 2)
    assert (lmap.min_players, lmap.max_players, lmap.final_round_buses) == (2, 4, 2)


def test_malformed_data_is_refused() -> None:
    data = load_json("london.json")
    data["routes"][0]["b"] = "atlantis"
    with pytest.raises(NotationError):
        LondonMap.from_dict(data)
    with pytest.raises(NotationError):
        LondonMap.from_dict({"map": "london"})


@pytest.mark.skipif(not (SHARED / "reference").is_dir(), reason="../shared is not present")
def test_build_data_reproduces_the_committed_file() -> None:
    spec = importlib.util.spec_from_file_location("build_data", REPO / "tools" / "build_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = json.loads(json.dumps(module.build_london(SHARED)))
    assert built == load_json("london.json")
