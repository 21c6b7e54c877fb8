"""`companion score` on London states ("map": "london"): output, exit codes, brute force."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..core.cli_helpers import assert_refused_in_one_line, run, write
from ..london.endstates import EIGHTEEN_BUSES

STATE = {
    "map": "london",
    "players": [
        {
            "name": "Aki",
            "color": "red",
            "routes": [
                "big-ben--trafalgar-square",
                "buckingham-palace--trafalgar-square",
                "piccadilly-circus--trafalgar-square-1",
                "big-ben--waterloo",
            ],
            "tickets": ["piccadilly-circus--waterloo", "brick-lane--globe-theatre"],
        },
        {"name": "Ben", "color": "blue", "routes": ["baker-street--hyde-park"], "tickets": []},
    ],
}


def test_london_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "score", write(tmp_path, STATE), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["map"] == "london"
    aki, ben = data["players"]
    assert (aki["name"], aki["color"]) == ("Aki", "red")
    assert aki["route_points"] == 5
    assert [(t["id"], t["completed"], t["points"]) for t in aki["tickets"]] == [
        ("piccadilly-circus--waterloo", True, 3),
        ("brick-lane--globe-theatre", False, -4),
    ]
    assert aki["ticket_points"] == -1 and aki["tickets_completed"] == 1
    assert aki["district_points"] == 2
    assert [d for d in aki["districts"] if d["completed"]] == [
        {"district": 2, "completed": True, "points": 2}
    ]
    assert len(aki["districts"]) == 5
    assert aki["total"] == 6 and aki["rank"] == 2 and aki["buses_used"] == 5
    assert ben["total"] == 7 and ben["rank"] == 1
    assert data["winners"] == ["blue"]
    assert "stations_built" not in aki and "longest_route" not in aki


def test_london_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", write(tmp_path, STATE))
    assert code == 0
    assert "districts" in out and "Aki (red)" in out and "2 (2)" in out
    assert out.strip().endswith("winner: blue")


def test_map_name_is_case_and_space_tolerant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "score", write(tmp_path, {**STATE, "map": " London "}), "--json")
    assert code == 0 and json.loads(out)["winners"] == ["blue"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"map": "london"}, '"players" must be a list'),
        ({"map": "london", "players": [{"color": "red", "routes": ["paris-wien"]}]}, "unknown"),
        ({"map": "london", "players": [{"color": "red", "stations": ["big-ben"]}]}, "stations"),
        (
            {
                "map": "london",
                "players": [
                    {"color": "red", "routes": ["globe-theatre--st-pauls-1"]},
                    {"color": "blue", "routes": ["globe-theatre--st-pauls-2"]},
                ],
            },
            "2-player game",
        ),
        (
            {
                "map": "london",
                "players": [
                    {
                        "color": "red",
                        "routes": list(EIGHTEEN_BUSES),
                    }
                ],
            },
            "only 17",
        ),
        (
            {
                "map": "london",
                "players": [{"color": c} for c in ("red", "blue", "green", "yellow", "black")],
            },
            "2-4 players",
        ),
        ({"map": "london", "players": [{"color": "red", "tickets": ["big-ben"]}]}, "ticket id"),
        ({"map": "mars", "players": []}, "expected europe or london"),
    ],
)
def test_london_bad_input_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object, message: str
) -> None:
    assert_refused_in_one_line(capsys, tmp_path, content, message)


def test_europe_states_are_still_scored_as_europe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    europe = {"map": "europe", "players": [{"color": "red", "routes": ["berlin-wien"]}]}
    code, out, _ = run(capsys, "score", write(tmp_path, europe), "--json")
    assert code == 0 and "longest_route" in json.loads(out)["players"][0]
