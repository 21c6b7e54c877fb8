"""``companion replay``: a recording of a simulated game replays identical; a deliberate error
(a claim altered in the log, a colour in the recording, a frame swapped) is found and reported;
bad input is one sentence and exit 2."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from companion.blackbox import layout
from companion.blackbox.replay import replay
from companion.blackbox.source import BadRecording, open_recording
from companion.cli import main

pytestmark = pytest.mark.slow


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_recording_replays_identical(
    recorded: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert recorded["finished"]
    assert recorded["state"]["phase"] == "finished"
    code, out, _ = run(capsys, "replay", str(recorded["dir"]), "--json")
    data = json.loads(out)
    assert data["differences"] == [], data
    assert code == 0
    assert data["identical"] is True
    assert data["game_id"] == recorded["game_id"]
    assert data["seen_then"] >= 20 and data["seen_now"] == data["seen_then"]
    assert data["frames"] >= data["seen_then"]
    # the replay's watcher guesses only the colours of the recorded game, as the camera's did
    from companion.blackbox.replay import players_of
    from companion.commands.devices import playing_colours

    colours = {p["color"] for p in recorded["state"]["players"]}
    assert players_of(open_recording(Path(recorded["dir"]))) == colours
    assert playing_colours(recorded["service"]) == colours and len(colours) == 2


def camera_claim(folder: Path) -> tuple[int, dict[str, Any]]:
    db = sqlite3.connect(folder / "companion.sqlite3")
    try:
        for seq, action in db.execute(
            "SELECT seq, action FROM events WHERE actor='camera' ORDER BY seq"
        ):
            a = json.loads(action)
            if a.get("type") == "claim":
                return int(seq), a
    finally:
        db.close()
    raise AssertionError("no claim by the camera")


def test_a_claim_altered_in_the_log_is_found(
    copy_of: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seq, action = camera_claim(copy_of)
    action["route"] = "zagrab-wien" if action["route"] != "zagrab-wien" else "berlin-wien"
    db = sqlite3.connect(copy_of / "companion.sqlite3")
    db.execute("UPDATE events SET action=? WHERE seq=?", (json.dumps(action), seq))
    db.commit()
    db.close()
    code, out, _ = run(capsys, "replay", str(copy_of), "--json")
    assert code == 1
    diffs = json.loads(out)["differences"]
    logs = [d for d in diffs if d["kind"] == "log"]
    assert logs and any(action["route"] in d["text"] for d in logs), diffs


def test_a_colour_altered_in_the_recording_is_found(copy_of: Path) -> None:
    rec = open_recording(copy_of)
    path = layout.game_dir(copy_of, rec.game_id) / layout.INDEX
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        r = json.loads(line)
        if r["type"] == "event" and r["event"]["kind"] == "claim":
            was = r["event"]["color"]
            r["event"]["color"] = "yellow" if was != "yellow" else "black"
            lines[i] = json.dumps(r)
            route = r["event"]["route"]
            break
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    outcome = replay(open_recording(copy_of))
    colours = [d for d in outcome.differences if d.kind == "colour"]
    assert [d.params["id"] for d in colours] == [route]
    assert colours[0].params["now"] == was


def test_a_frame_swapped_is_found(copy_of: Path) -> None:
    """The frames from the last claim on swapped for the one before it: the camera misses it."""
    rec = open_recording(copy_of)
    folder = layout.game_dir(copy_of, rec.game_id)
    last = [r for r in rec.of_type("event") if r["event"]["kind"] == "claim"][-1]
    before = next(f for f in rec.of_type("frame") if f["n"] == last["before"])
    for f in rec.frames():
        if f["index"] > before["index"]:
            shutil.copyfile(folder / before["file"], folder / f["file"])
    outcome = replay(open_recording(copy_of))
    missed = [d for d in outcome.differences if d.kind == "missed"]
    assert [d.params["id"] for d in missed] == [last["event"]["route"]], outcome.to_json()


def test_bad_sources_are_one_sentence_and_exit_2(
    tmp_path: Path, recorded: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "replay", str(tmp_path / "nothing-here"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "neither a state directory nor a report bundle" in err
    code, _, err = run(capsys, "replay", str(tmp_path))
    assert code == 2 and "no recording" in err
    code, _, err = run(capsys, "replay", str(recorded["dir"]), "--game", "g0000000000")
    assert code == 2 and "no recording" in err
    with pytest.raises(BadRecording):
        open_recording(recorded["dir"], "../etc")


def test_a_missing_frame_is_bad_input(copy_of: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = open_recording(copy_of)
    frame = rec.frames()[5]
    (layout.game_dir(copy_of, rec.game_id) / frame["file"]).unlink()
    code, out, err = run(capsys, "replay", str(copy_of))
    assert code == 2 and out == ""
    assert "is missing from the recording" in err and err.count("\n") == 1


def test_a_frame_of_another_size_is_bad_input(
    copy_of: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2
    import numpy as np

    rec = open_recording(copy_of)
    frame = rec.frames()[3]
    path = layout.game_dir(copy_of, rec.game_id) / frame["file"]
    cv2.imwrite(str(path), np.zeros((100, 200, 3), np.uint8))
    code, out, err = run(capsys, "replay", str(copy_of))
    assert code == 2 and out == ""
    assert "is 200x100, but the camera's frames are 960x540" in err


def test_a_route_seen_twice_pairs_each_sighting_with_its_own() -> None:
    """A colour the game refused (the watcher forgot it), then a player's trains on the same
    route: the replay's sighting of the trains pairs with the trains of then, not with the
    refused colour (which the replay may not see: a note, not a colour changed). A colour that
    did change is still paired and found."""
    from companion.blackbox.replay import Sighting, pair_up

    refused = Sighting("claim", "barcelona-madrid", "yellow", unsure=True, frame=238)
    trains = Sighting("claim", "barcelona-madrid", "blue", frame=359)
    now = Sighting("claim", "barcelona-madrid", "blue", frame=359)
    assert pair_up([refused, trains], [now]) == [(refused, None), (trains, now)]
    other = Sighting("claim", "barcelona-madrid", "red", frame=359)
    left = [other]
    assert pair_up([trains], left) == [(trains, other)] and left == []
