from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.vision import calibration as calib
from companion.vision.geometry import load_geometry
from companion.vision.locate import BoardLocation, locate_board
from companion.vision.read import read_board
from companion.vision.read_tune import Accuracy, labelled_photos, score_reading
from companion.vision.types import PLAYER_COLORS


def _drawn_mistakes(reading, owners: dict[str, str]) -> tuple[list[str], list[str]]:
    """Misread routes of a drawn board: (those a flat drawing shows plainly, the others).

    A flat drawing has no plastic relief: a train drawn on a route printed in its own colour, or
    a free route printed in a player's colour, differs from the other case only by a small shift
    of colour, while the reader relies on the relief cues for those. They are counted apart.
    """
    g = load_geometry()
    plain: list[str] = []
    same_colour: list[str] = []
    for r in g.route_ids:
        if reading.routes[r] == owners.get(r):
            continue
        printed = g.routes[r].color
        truth = owners.get(r)
        ambiguous = printed in PLAYER_COLORS and (truth in (None, printed))
        ambiguous = ambiguous and reading.routes[r] in (None, printed)
        (same_colour if ambiguous else plain).append(r)
    return plain, same_colour


def test_reads_a_drawn_board(drawing, ctx, drawn_owners) -> None:
    board = drawing.draw_board(ctx, owners=drawn_owners, seed=1)
    reading = read_board(board, context=ctx)
    g = load_geometry()
    assert set(reading.routes) == set(g.route_ids)
    assert set(reading.stations) == set(g.city_ids)
    plain, same_colour = _drawn_mistakes(reading, drawn_owners)
    assert plain == []
    assert len(same_colour) <= 4, same_colour
    assert all(0.0 <= c <= 1.0 for c in reading.confidence.values())
    assert all(s is None for s in reading.stations.values())
    out = reading.to_json()
    assert out["board"] == "europe" and len(out["routes"]) == 101


def test_fast_path_with_a_known_location(drawing, ctx, drawn_owners) -> None:
    board = drawing.draw_board(ctx, owners=drawn_owners, seed=2)
    h, w = board.shape[:2]
    loc = BoardLocation.from_corners([[0, 0], [w, 0], [w, h], [0, h]], (w, h))
    reading = read_board(board, location=loc, context=ctx)
    plain, same_colour = _drawn_mistakes(reading, drawn_owners)
    assert plain == []
    assert len(same_colour) <= 4, same_colour


def test_cli_read_json_and_refusal(drawing, ctx, drawn_owners, tmp_path: Path, capsys) -> None:
    img = tmp_path / "board.png"
    cv2.imwrite(str(img), drawing.draw_board(ctx, owners=drawn_owners, seed=5))
    assert main(["vision", "read", str(img), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["board"] == "europe"
    assert len(out["routes"]) == 101 and len(out["stations"]) == 47
    noise = tmp_path / "noise.png"
    cv2.imwrite(str(noise), np.random.default_rng(3).integers(0, 256, (400, 600, 3), np.uint8))
    assert main(["vision", "read", str(noise)]) == 2
    assert "no Ticket to Ride: Europe board" in capsys.readouterr().err
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not an image")
    assert main(["vision", "read", str(bad)]) == 2
    assert main(["vision", "read", str(tmp_path / "missing.png")]) == 2


def test_calibration_round_trip_and_bump(drawing, ctx, drawn_owners, tmp_path: Path) -> None:
    board = drawing.draw_board(ctx, owners=drawn_owners, seed=6)
    corners = np.array([[200.0, 150.0], [1400.0, 120.0], [1380.0, 930.0], [230.0, 900.0]])
    frame = drawing.on_table(board, corners, (1600, 1050), seed=1)
    cal = calib.Calibration.from_location(locate_board(frame, context=ctx))
    path = tmp_path / "cal.json"
    calib.save(cal, path)
    again = calib.load(path)
    assert again.method == "automatic"
    assert np.allclose(np.array(again.corners), np.array(cal.corners))
    assert calib.check_registration(frame, again, context=ctx).ok
    bumped = drawing.on_table(board, corners + np.array([60.0, 45.0]), (1600, 1050), seed=1)
    assert not calib.check_registration(bumped, again, context=ctx).ok
    moved = calib.reregister(bumped, again, context=ctx)
    assert np.abs(np.array(moved.corners) - (corners + np.array([60.0, 45.0]))).max() < 25
    (tmp_path / "junk.json").write_text("{}", encoding="utf-8")
    with pytest.raises(calib.CalibrationError):
        calib.load(tmp_path / "junk.json")


def test_cli_calibrate_manual_and_automatic(drawing, ctx, drawn_owners, tmp_path: Path) -> None:
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), drawing.draw_board(ctx, owners=drawn_owners, seed=8))
    out = tmp_path / "cal.json"
    assert main(["vision", "calibrate", "--image", str(img), "--output", str(out)]) == 0
    assert calib.load(out).method == "automatic"
    assert out.with_suffix(".png").is_file()
    w, h = 1200, 800
    corners = f"0,0,{w},0,{w},{h},0,{h}"
    assert (
        main(
            ["vision", "calibrate", "--image", str(img), "--corners", corners, "--output", str(out)]
        )
        == 0
    )
    cal = calib.load(out)
    assert cal.method == "manual" and cal.quality > 0.5
    assert main(["vision", "read", str(img), "--calibration", str(out), "--json"]) == 0
    assert main(["vision", "calibrate", "--image", str(img), "--corners", "1,2,3"]) == 2


@pytest.mark.photos
def test_accuracy_on_the_shared_photos(ctx, photos_dir, small_photos) -> None:
    """The goal: at least 99.5 % of routes and of stations right on the shared photos."""
    total = Accuracy()
    for photo in labelled_photos(photos_dir, ctx):
        reading = read_board(small_photos[photo.name], context=ctx)
        acc, _ = score_reading(reading, photo, ctx)
        total.add(acc)
    assert total.routes_total == 301 and total.stations_total == 141
    assert total.routes_right / total.routes_total >= 0.995, total.row()
    assert total.stations_right / total.stations_total >= 0.995, total.row()
    assert total.spaces_right / total.spaces_total >= 0.99, total.row()
