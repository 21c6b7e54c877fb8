"""`companion vision watch`: output, frame limit, messages and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.vision.live.live import CallableReader, LiveWatcher
from companion.vision.live.sources import FileSource
from companion.vision.types import BoardReading


def test_watch_a_simulated_game_prints_json_claims(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["vision", "watch", "--source", "sim:3@480x270", "--fps", "5", "--frames", "150", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["event"] == "board" and lines[0]["found"] is True
    claims = [x for x in lines if x["event"] in ("claim", "station")]
    assert claims, "a 30-second simulated game shows some claims"
    assert all(x["color"] in ("blue", "red", "green", "yellow", "black") for x in claims)
    assert max(x["frame"] for x in lines) < 150
    assert "150 frames" in err


def test_watch_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["vision", "watch", "--source", "sim:3@480x270", "--fps", "5", "--frames", "120"]) == 0
    )
    out, _ = capsys.readouterr()
    assert "board found" in out
    assert any(" claim " in line or " station " in line for line in out.splitlines())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--source", "file:/no/such/video.mp4"], "no such file"),
        (["--source", "picamera2"], "install it with `sudo apt install python3-picamera2`"),
        (["--source", "sim", "--frames", "0"], "--frames"),
        (["--source", "sim", "--reader", "psychic"], "unknown reader"),
        (["--source", "sim", "--calibration", "/no/such/cal.json"], "calibration"),
        (["--source", "sim", "--colours", "red,pink"], "unknown player colour 'pink'"),
        (["--source", "sim", "--colours", "red,Red"], "names red more than once"),
        (["--source", "sim", "--colours", " , "], "at least one player colour"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "picamera2", None)
    assert main(["vision", "watch", *argv]) == 2
    _, err = capsys.readouterr()
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_oracle_reader_only_for_the_simulated_camera(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((50, 80, 3), np.uint8))
    assert main(["vision", "watch", "--source", f"file:{tmp_path}", "--reader", "oracle"]) == 2
    assert "simulated camera" in capsys.readouterr().err


def test_callable_reader_with_fixed_corners(tmp_path: Path) -> None:
    """A fixed camera with plain functions: still frames, then a reading is taken."""
    for i in range(8):
        cv2.imwrite(str(tmp_path / f"{i}.png"), np.full((90, 120, 3), 120, np.uint8))
    calls: list[int] = []

    def read(image: np.ndarray) -> BoardReading:
        calls.append(image.shape[1])
        return BoardReading(routes={"berlin-wien": None}, stations={"wien": None})

    reader = CallableReader(read, corners=[[0, 0], [120, 0], [120, 80], [0, 80]])
    watcher = LiveWatcher(reader)
    with FileSource(str(tmp_path), fps=5) as src:
        events = watcher.process_all(src)
    assert calls and set(calls) == {120}
    assert [type(e).__name__ for e in events] == ["BoardFound"]
    with pytest.raises(ValueError, match="locate function or fixed corners"):
        CallableReader(read)


def test_colours_limit_the_same_colour_guess(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--colours reaches the watcher (its same-colour guess); without it the output says the
    guess is made for every colour."""
    import companion.commands.vision_watch as vw

    cv2.imwrite(str(tmp_path / "a.png"), np.full((50, 80, 3), 120, np.uint8))
    told: list[frozenset[str] | None] = []
    real = vw.watch

    def spy(source: Any, watcher: LiveWatcher, **kw: Any) -> int:
        told.append(watcher.players)
        return real(source, watcher, **kw)

    monkeypatch.setattr(vw, "watch", spy)
    source = ["--source", f"file:{tmp_path}", "--frames", "1"]
    assert main(["vision", "watch", *source, "--colours", " Red, blue"]) == 0
    assert "same-colour guess: only for blue, red" in capsys.readouterr().err
    assert main(["vision", "watch", *source]) == 0
    assert "same-colour guess: for every player colour" in capsys.readouterr().err
    assert told == [frozenset({"red", "blue"}), None]


def test_a_simulated_game_tells_its_colours(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "watch", "--source", "sim:3@480x270", "--frames", "1"]) == 0
    err = capsys.readouterr().err
    assert "same-colour guess: only for " in err and "every player colour" not in err


def test_a_missing_pi_camera_is_said_as_the_set_up_check_says_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from companion.doctor.words import software_missing_line, source_problem
    from companion.vision.live.sources import CameraSoftwareMissing, SourceError

    monkeypatch.setitem(sys.modules, "picamera2", None)
    assert main(["vision", "watch", "--source", "picamera2:1280x720"]) == 2
    line = software_missing_line("picamera2")
    assert capsys.readouterr().err.strip() == f"companion: {line}"
    assert "software" in line and "(install it with" in line
    assert source_problem(CameraSoftwareMissing("picamera2")) == line
    assert source_problem(SourceError("no such file: x.mp4")) == "no such file: x.mp4"
