"""`companion trambahn score`: one scoring, a session, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main

ONE = {
    "game": "trambahn",
    "players": [
        {"name": "Aki", "lines": [{"color": "brown", "tram": "horse", "cards": [6, 7]}]},
        {"name": "Ben", "lines": [{"color": "green", "tram": 3, "cards": [1, "C", 9]}]},
    ],
    "scoring": {"kind": "terminal", "color": "brown"},
    "totals_before": {"Aki": 10, "Ben": 4},
    "terminal_scorings_before": 9,
}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "scoring.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_one_scoring(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "trambahn", "score", write(tmp_path, ONE), "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["points"] == {"Aki": 6, "Ben": 0}
    assert r["totals"] == {"Aki": 16, "Ben": 4}
    assert r["terminal_scorings"] == 10 and r["game_over"] and r["winners"] == ["Aki"]
    code, out, _ = run(capsys, "trambahn", "score", write(tmp_path, ONE))
    assert code == 0 and "Aki +6" in out and "winner: Aki" in out


def test_session(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ev = {k: v for k, v in ONE.items() if k in ("players",)}
    ev.update(kind="terminal", color="green")
    data = {"game": "trambahn", "players": ["Aki", "Ben"], "scorings": [ev, ev]}
    code, out, _ = run(capsys, "trambahn", "score", write(tmp_path, data), "--json")
    assert code == 0
    r = json.loads(out)
    assert r["totals"] == {"Aki": 0, "Ben": 2 * (1 + 2) * 3}
    assert [s["totals"]["Ben"] for s in r["scorings"]] == [9, 18]
    assert not r["game_over"]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("{", "not valid JSON"),
        ({**ONE, "scoring": {"kind": "terminal", "color": "purple"}}, "unknown line colour"),
        ({**ONE, "terminal_scorings_before": 10}, "0-9"),
        ({**ONE, "totals_before": {"Cy": 1}}, "not playing"),
        (
            {
                **ONE,
                "players": [
                    {"name": "Aki", "lines": [{"color": "blue", "tram": 2, "cards": [4, 2]}]},
                    ONE["players"][1],
                ],
            },
            "ascending",
        ),
        ({"game": "london"}, "not Trambahn"),
    ],
)
def test_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: Any, words: str
) -> None:
    code, out, err = run(capsys, "trambahn", "score", write(tmp_path, data))
    assert code == 2 and out == "" and words in err and "Traceback" not in err
