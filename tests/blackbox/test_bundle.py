"""``companion report``: the bundle replays as the state directory does, holds no token and no
ticket of another game, and bad input (a truncated or foreign bundle, a missing frame, a frame of
another size) is one sentence, exit 2, nothing written."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from companion.blackbox import layout
from companion.blackbox.bundle import jpeg_size, scrub
from companion.blackbox.source import open_recording
from companion.cli import main
from companion.data import europe_map
from companion.store import EventStore

pytestmark = pytest.mark.slow

HOST_TOKEN = "h0sT-t0ken-" + "x" * 32


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def other_game_ticket(game_events: list[Any]) -> str:
    text = json.dumps([e.to_json() for e in game_events])
    return next(t.id for t in europe_map().tickets.values() if t.id not in text)


@pytest.fixture
def private_dir(copy_of: Path, recorded: dict[str, Any]) -> dict[str, Any]:
    """The copy with a host token, pairing tokens of both games and a second game that dealt a
    ticket the recorded game never saw."""
    (copy_of / "host-token").write_text(HOST_TOKEN + "\n", encoding="utf-8")
    store = EventStore(copy_of)
    try:
        game = recorded["game_id"]
        ticket = other_game_ticket(store.events(game))
        store.add_token("p1ay3r-t0ken-" + "y" * 24, game, "red")
        players = [{"name": "X", "color": "green"}, {"name": "Y", "color": "black"}]
        store.new_game(
            game_id="gother00001",
            variant="europe",
            mode="table",
            players=players,
            actor="host",
            action={"type": "new_game", "players": players},
        )
        keep = {"type": "keep_tickets", "player": "green", "tickets": [ticket]}
        store.append(game_id="gother00001", actor="host", action=keep)
        store.add_token("p1ay3r-t0ken-" + "z" * 24, "gother00001", "green")
        # a log line that carried a login link
        log = layout.game_dir(copy_of, game) / layout.LOG
        with log.open("a", encoding="utf-8") as f:
            f.write(f"INFO x: open http://10.0.0.2:8080/host/login?token={HOST_TOKEN}\n")
    finally:
        store.close()
    return {"dir": copy_of, "ticket": ticket, "game": game}


def test_the_bundle_replays_the_same_and_keeps_nothing_private(
    private_dir: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.zip"
    code, text, err = run(
        capsys, "report", "--state-dir", str(private_dir["dir"]), "--out", str(out)
    )
    assert code == 0 and "written to" in text, err
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        blob = b"".join(zf.read(n) for n in names)
        manifest = json.loads(zf.read("manifest.json"))
        events = [json.loads(x) for x in zf.read("events.jsonl").splitlines()]
    assert {"manifest.json", "events.jsonl", "config.json", "log.txt"} <= set(names)
    assert "recording/index.jsonl" in names and any(n.endswith(".jpg") for n in names)
    assert manifest["game_id"] == private_dir["game"]
    assert {"companion", "python", "numpy", "opencv"} <= set(manifest["versions"])
    assert {e["game_id"] for e in events} == {private_dir["game"]}
    # never a token, no ticket of another game
    assert HOST_TOKEN.encode() not in blob
    assert b"p1ay3r-t0ken-" not in blob
    assert private_dir["ticket"].encode() not in blob
    assert b"gother00001" not in blob
    # what replay makes of it is what it makes of the state directory
    code, text, _ = run(capsys, "replay", str(out), "--json")
    from_bundle = json.loads(text)
    code2, text2, _ = run(capsys, "replay", str(private_dir["dir"]), "--json")
    assert code == code2 == 0
    assert from_bundle == json.loads(text2)
    assert from_bundle["identical"] is True


def test_bad_bundles_are_one_sentence_and_exit_2(
    recorded: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.zip"
    assert run(capsys, "report", "--state-dir", str(recorded["dir"]), "--out", str(good))[0] == 0
    cut = tmp_path / "cut.zip"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    code, out, err = run(capsys, "replay", str(cut))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "damaged or cut short" in err
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("hello.txt", "hi")
    code, out, err = run(capsys, "replay", str(foreign))
    assert code == 2 and "not a companion report bundle" in err
    text = tmp_path / "notes.txt"
    text.write_text("not a zip", encoding="utf-8")
    code, out, err = run(capsys, "replay", str(text))
    assert code == 2 and "not a companion report bundle" in err
    # a bundle whose frame went missing
    holed = tmp_path / "holed.zip"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(holed, "w") as dst:
        dropped = next(n for n in src.namelist() if n.endswith(".jpg"))
        for n in src.namelist():
            if n != dropped:
                dst.writestr(n, src.read(n))
    code, out, err = run(capsys, "replay", str(holed))
    assert code == 2 and "is missing from the recording" in err


def test_report_refuses_bad_recordings_and_writes_nothing(
    copy_of: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2
    import numpy as np

    rec = open_recording(copy_of)
    folder = layout.game_dir(copy_of, rec.game_id)
    out = tmp_path / "r.zip"
    frame = rec.frames()[2]
    cv2.imwrite(str(folder / frame["file"]), np.zeros((90, 160, 3), np.uint8))
    code, text, err = run(capsys, "report", "--state-dir", str(copy_of), "--out", str(out))
    assert code == 2 and text == "" and "is 160x90, but the camera's frames are 960x540" in err
    (folder / frame["file"]).unlink()
    code, text, err = run(capsys, "report", "--state-dir", str(copy_of), "--out", str(out))
    assert code == 2 and "is missing from the recording" in err
    code, text, err = run(
        capsys, "report", "--state-dir", str(tmp_path / "none"), "--out", str(out)
    )
    assert code == 2
    assert not out.exists() and not list(tmp_path.glob(".report-*"))


def test_scrub_and_jpeg_size() -> None:
    assert scrub("a secret-token-123 b", ["secret-token-123"]) == "a [removed] b"
    assert "abcdefghij" not in scrub("/pair/abcdefghij and token=abcdefghijk", [])
    import cv2
    import numpy as np

    ok, blob = cv2.imencode(".jpg", np.zeros((30, 50, 3), np.uint8))
    assert ok and jpeg_size(blob.tobytes()) == (50, 30)
    assert jpeg_size(b"not a jpeg") is None
