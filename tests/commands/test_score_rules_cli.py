"""`companion score` and `companion rules`: the contracts of shared/spec/cli.md."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.core.scoring import score_final
from companion.data import europe_map
from companion.london.board import london_map
from companion.london.scoring import score_final as london_score_final

from ..core.brute import brute_score
from ..core.cli_helpers import assert_refused_in_one_line, run, scored, write
from ..core.endstates import random_end_state
from ..london.brute import brute_score as london_brute_score
from ..london.endstates import random_end_state as london_end_state

STATE = {
    "map": "europe",
    "players": [
        {
            "name": "Aki",
            "color": "red",
            "routes": ["frankfurt-paris-1", "frankfurt-munchen"],
            "stations": ["munchen"],
            "tickets": ["paris-wien", "brest-petrograd"],
        },
        {"name": "Ben", "color": "blue", "routes": ["munchen-wien"], "stations": [], "tickets": []},
    ],
}


def test_score_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "score", write(tmp_path, STATE), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    aki = data["players"][0]
    assert aki["name"] == "Aki" and aki["color"] == "red"
    assert aki["route_points"] == 4 + 2
    assert aki["tickets"] == [
        {
            "id": "paris-wien",
            "completed": True,
            "points": 8,
            "path": ["frankfurt-paris-1", "frankfurt-munchen", "munchen-wien"],
        },
        {"id": "brest-petrograd", "completed": False, "points": -20, "path": []},
    ]
    assert aki["ticket_points"] == -12
    assert aki["stations_built"] == 1 and aki["station_points"] == 8
    assert aki["station_routes"] == {"munchen": "munchen-wien"}
    assert aki["longest_route"] == 5 and aki["european_express"] and aki["express_points"] == 10
    assert aki["total"] == 6 - 12 + 8 + 10
    assert data["winners"] == ["blue"] and aki["rank"] == 2


def test_score_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", write(tmp_path, STATE))
    assert code == 0
    assert "Aki (red)" in out and "winner: blue" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "JSON object"),
        ({"map": "europe"}, '"players" must be a list'),
        ({"map": "mars", "players": []}, "unknown map 'mars'"),
        ({"players": [{"color": "red", "routes": ["paris-atlantis"]}]}, "unknown route id"),
        ({"players": [{"color": "red", "routes": "paris-wien"}]}, "list of ids"),
        ({"players": [{"name": "x"}]}, 'has no "color"'),
        ({"players": [{"color": "red", "stations": ["a", "b", "c", "d"]}]}, "only 3"),
        ({"players": [{"color": "red", "stations": ["atlantis"]}]}, "unknown city"),
    ],
)
def test_score_bad_input_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object, message: str
) -> None:
    assert_refused_in_one_line(capsys, tmp_path, content, message)


def test_score_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "score", "/nonexistent/state.json")
    assert code == 2 and "no such file" in err


# each board: its map, a random end state, its scoring, the brute force's, and what more than
# the totals and ranks the brute force scores
BOARDS: dict[str, tuple[Any, Any, Any, Any, tuple[str, ...]]] = {
    "europe": (europe_map(), random_end_state, score_final, brute_score, ()),
    "london": (
        london_map(),
        london_end_state,
        london_score_final,
        london_brute_score,
        ("district_points",),
    ),
}


@pytest.mark.parametrize(("board", "seed", "states"), [("europe", 77, 60), ("london", 31, 80)])
def test_score_agrees_with_brute_force_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], board: str, seed: int, states: int
) -> None:
    game_map, end_state, score, brute, more = BOARDS[board]
    rng = random.Random(seed)
    for i in range(states):
        players = end_state(game_map, rng)
        state = {"map": board, "players": [p.to_json() for p in players]}
        got = scored(capsys, tmp_path, state, f"s{i}.json")
        want = brute(game_map, players)
        for key in ("total", "rank", *more):
            assert [p[key] for p in got["players"]] == [w[key] for w in want], key
        assert got == score(game_map, players).to_json()


@pytest.mark.parametrize(
    ("args", "code", "legal"),
    [
        (["berlin-frankfurt-2", "red", "red", "locomotive"], 0, True),
        (["berlin-frankfurt-2", "red", "red"], 1, False),
        (["berlin-frankfurt-2", "blue", "blue", "blue"], 1, False),
        (["palermo-smyrna", "red", "red", "red", "red", "loco", "loco"], 0, True),
        (["palermo-smyrna", "red", "red", "red", "red", "red", "loco"], 1, False),
        (["paris-zurich", "purple", "purple", "purple"], 0, True),
        (["paris-zurich", "red", "blue", "red"], 1, False),
    ],
)
def test_rules_pay(
    capsys: pytest.CaptureFixture[str], args: list[str], code: int, legal: bool
) -> None:
    got, out, _ = run(capsys, "rules", "pay", *args, "--json")
    data = json.loads(out)
    assert got == code and data["legal"] is legal and data["reason"]


def test_rules_pay_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "pay", "paris-atlantis", "red")
    assert code == 2 and "unknown route id" in err and out == ""
    code, out, err = run(capsys, "rules", "pay", "paris-zurich", "gold")
    assert code == 2 and "unknown card 'gold'" in err


@pytest.mark.parametrize(
    ("played", "revealed", "extra", "color"),
    [
        (["red", "red"], ["red", "blue", "green"], 1, "red"),  # rulebook example 1
        (["green", "green"], ["locomotive", "blue", "yellow"], 1, "green"),  # example 2
        (["locomotive", "locomotive"], ["locomotive", "red", "red"], 1, "locomotive"),  # ex. 3
        (["red", "locomotive"], ["red", "locomotive", "red"], 3, "red"),
        (["red", "red"], [], 0, "red"),
    ],
)
def test_rules_tunnel(
    capsys: pytest.CaptureFixture[str],
    played: list[str],
    revealed: list[str],
    extra: int,
    color: str,
) -> None:
    code, out, _ = run(
        capsys,
        "rules",
        "tunnel",
        "angora-constantinople",
        "--played",
        *played,
        "--revealed",
        *revealed,
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert (data["extra"], data["extra_color"]) == (extra, color)


def test_rules_tunnel_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "rules", "tunnel", "berlin-wien", "--played", "red", "red", "red")
    assert code == 2 and "not a tunnel" in err
    code, out, _ = run(
        capsys, "rules", "tunnel", "marseille-zurich", "--played", "red", "red", "--json"
    )
    assert code == 1 and json.loads(out)["legal"] is False  # marseille-zurich is pink
    code, _, err = run(
        capsys,
        "rules",
        "tunnel",
        "paris-zurich",
        "--played",
        "red",
        "red",
        "red",
        "--revealed",
        "red",
        "red",
        "red",
        "red",
    )
    assert code == 2 and "at most 3" in err


def test_console_script_runs() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "rules",
            "pay",
            "berlin-wien",
            "green",
            "green",
            "loco",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("legal")


def test_demo_plays_a_whole_seeded_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--terminal", "--seed", "3", "--players", "3")
    assert code == 0
    assert "final round" in out and "winner" in out
    again_code, again, _ = run(capsys, "demo", "--terminal", "--seed", "3", "--players", "3")
    assert again_code == 0 and again == out
