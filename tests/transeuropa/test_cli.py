"""`companion transeuropa score|move|check-data`: output, exit codes and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.data import load_json
from companion.transeuropa import trans_europa
from companion.transeuropa.steiner import connection
from tests.core.cli_helpers import run, write

LAT = trans_europa()
RED = ["london", "paris", "malmo", "minsk", "roma"]
BLUE = ["madrid", "berlin", "oslo", "kyiv", "sofia"]


def finished_round() -> dict[str, Any]:
    """Red's cities joined by track; blue's not."""
    nodes = [LAT.city(c).node for c in RED]
    tree = connection(LAT, nodes)
    return {
        "game": "trans_europa",
        "players": [
            {"color": "red", "name": "Aki", "cities": RED, "start": nodes[0]},
            {"color": "blue", "name": "Ben", "cities": BLUE},
        ],
        "tracks": list(tree.links),
        "scores": {"red": 13, "blue": 9},
    }


def test_score_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = finished_round()
    code, out, err = run(capsys, "transeuropa", "score", write(tmp_path, data), "--json")
    assert code == 0, err
    result = json.loads(out)
    red, blue = result["players"]
    assert red["complete"] and red["penalty"] == 0 and red["score_after"] == 13
    want = connection(LAT, [LAT.city(c).node for c in BLUE], set(data["tracks"])).cost
    assert blue["penalty"] == want > 0
    assert blue["score_after"] == 9 - want
    assert result["round_over"] and result["reason"] == "connected"
    assert result["game_over"] == (9 - want <= 0)
    assert sum(LAT.links[lid].cost for lid in blue["build"]) == want


def test_score_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "transeuropa", "score", write(tmp_path, finished_round()))
    assert code == 0
    assert "Aki (red)" in out and "done" in out and "round over (connected)" in out


def test_score_reads_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(finished_round())))
    code, out, _ = run(capsys, "transeuropa", "score", "-", "--json")
    assert code == 0 and json.loads(out)["players"][0]["complete"]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("{nope", "not valid JSON"),
        ({"players": [{"color": "red", "cities": ["atlantis"]}]}, "unknown Trans Europa city"),
        (
            {"players": [{"color": "red", "cities": RED}, {"color": "blue", "cities": RED}]},
            "held by both",
        ),
        (
            {
                "players": [{"color": "red", "cities": RED}, {"color": "blue", "cities": BLUE}],
                "tracks": ["0906-2906"],
            },
            "no link",
        ),
        (
            {
                "players": [{"color": "red", "cities": RED}, {"color": "blue", "cities": BLUE}],
                "scores": {"red": 3},
            },
            "every player",
        ),
    ],
)
def test_score_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: Any, words: str
) -> None:
    code, out, err = run(capsys, "transeuropa", "score", write(tmp_path, data))
    assert code == 2 and out == ""
    assert words in err and "Traceback" not in err and err.count("\n") == 1


def test_score_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "transeuropa", "score", str(tmp_path / "none.json"))
    assert code == 2 and "no such file" in err


def test_move_legal_and_illegal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = {
        "players": [
            {"color": "red", "cities": RED, "start": "0906"},
            {"color": "blue", "cities": BLUE, "start": "2906"},
        ],
        "current": "red",
    }
    path = write(tmp_path, data)
    code, out, _ = run(capsys, "transeuropa", "move", path, "red", "track", "0906-1005", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["legal"] and result["round"]["tracks"] == ["0906-1005"]
    code, out, _ = run(capsys, "transeuropa", "move", path, "red track 2906-3005", "--json")
    assert code == 1 and json.loads(out)["rule"] == "not_connected"
    code, out, _ = run(capsys, "transeuropa", "move", path, "blue end")
    assert code == 1 and "not_your_turn" in out
    code, _, err = run(capsys, "transeuropa", "move", path, "red fly")
    assert code == 2 and "cannot read" in err


def test_check_data(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "transeuropa", "check-data")
    assert code == 0 and "0 error(s)" in out and "210 nodes" in out
    bad = load_json("trans_europa.json")
    bad["cities"][0]["node"] = "9999"
    bad["links"].append(dict(bad["links"][0]))
    code, out, _ = run(capsys, "transeuropa", "check-data", write(tmp_path, bad), "--json")
    assert code == 1
    result = json.loads(out)
    assert not result["ok"]
    assert {"city_off_lattice", "double_listed"} <= {i["code"] for i in result["issues"]}
    code, _, err = run(capsys, "transeuropa", "check-data", write(tmp_path, "[1,"))
    assert code == 2 and "not valid JSON" in err


def test_bare_group_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "transeuropa")
    assert code == 2 and "score" in out
