"""The time-lapse: one frame per log position, thinned to a few seconds, as an animated WebP or
(an OpenCV without imwriteanimation, as Debian's 4.6) an MP4; kept until the recording changes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.blackbox import layout
from companion.blackbox.timelapse import choose, positions, timelapse


def recording(tmp: Path, n: int) -> str:
    game = "g1"
    folder = layout.game_dir(tmp, game)
    (folder / "frames").mkdir(parents=True)
    lines = []
    for i in range(n):
        image = np.full((60, 100, 3), (i * 9) % 255, np.uint8)
        cv2.imwrite(str(folder / layout.frame_name(i + 1)), image)
        # two frames per log position: the later one is the position's
        seq = 1 + i // 2
        lines.append(
            {
                "type": "frame",
                "n": i + 1,
                "file": layout.frame_name(i + 1),
                "seq": seq,
                "index": i,
                "why": "move",
            }
        )
    (folder / layout.INDEX).write_text("".join(json.dumps(r) + "\n" for r in lines))
    return game


def test_positions_and_thinning(tmp_path: Path) -> None:
    game = recording(tmp_path, 400)
    records = layout.read_index(layout.game_dir(tmp_path, game))
    pos = positions(records)
    assert list(pos) == list(range(1, 201))
    assert all(pos[s]["n"] == 2 * s for s in pos)  # the last frame at each position
    frames, fps = choose(records)
    cfg = layout.settings()
    assert len(frames) == int(cfg["timelapse_seconds"] * cfg["timelapse_fps_max"])
    assert fps == cfg["timelapse_fps_max"]
    assert [f["seq"] for f in frames] == sorted(f["seq"] for f in frames)
    few, slow = choose(records[:6])
    assert len(few) == 3 and slow == cfg["timelapse_fps_min"]


def test_webp_and_mp4(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = recording(tmp_path, 20)
    made = timelapse(tmp_path, game)
    assert made is not None
    data, mime = made
    if hasattr(cv2, "imwriteanimation"):
        assert mime == "image/webp" and data[8:12] == b"WEBP"
    assert timelapse(tmp_path, game) == made  # kept
    assert (layout.game_dir(tmp_path, game) / f"timelapse.{mime.split('/')[1]}").is_file()
    monkeypatch.delattr(cv2, "imwriteanimation", raising=False)
    other = recording(tmp_path / "b", 20)
    mp4 = timelapse(tmp_path / "b", other)
    assert mp4 is not None and mp4[1] == "video/mp4" and mp4[0][4:8] == b"ftyp"
    assert timelapse(tmp_path / "none", "g9") is None
