"""Live mode turns what a reading lists for checking into a question; the demo's first frame is
located (companion.vision.decide.check with companion.vision.live.live,
companion.vision.locate.locate)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.camera import SimulatedCamera
from companion.sim.live_oracle import OracleReader
from companion.sim.render import BoardRenderer
from companion.vision.live.live import ClaimSeen, LiveWatcher, NeedsConfirmation
from companion.vision.live.sources import Frame
from companion.vision.types import BoardReading


class _Listed(OracleReader):
    """The truth, read with confidence, but every claimed route on the check list."""

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        r = super().read(frame, corners)
        listed = [k for k, v in r.routes.items() if v is not None]
        return BoardReading(r.routes, r.stations, dict.fromkeys(r.confidence, 0.99), check=listed)


def _run(renderer: BoardRenderer, reader: OracleReader) -> tuple[list, LiveWatcher]:
    script = [{"t": 2.0, "claim": "berlin-wien", "color": "red"}]
    cam = SimulatedCamera(script, seed=1, fps=5.0, size=(480, 270), renderer=renderer)
    watcher = LiveWatcher(reader, geometry=renderer.geometry)
    events = []
    with cam:
        for f in cam:
            events.extend(watcher.process(f))
    return events, watcher


def test_a_reading_on_the_check_list_becomes_a_question(renderer: BoardRenderer) -> None:
    events, watcher = _run(renderer, _Listed(renderer.geometry, flip=0.0))
    asks = [e for e in events if isinstance(e, NeedsConfirmation)]
    assert [(a.change.key, a.change.new) for a in asks] == [("berlin-wien", "red")]
    assert not any(isinstance(e, ClaimSeen) for e in events)
    done = watcher.confirm("route", "berlin-wien")
    assert [(c.route, c.color) for c in done if isinstance(c, ClaimSeen)] == [
        ("berlin-wien", "red")
    ]
    # the same reading without the check list: a plain claim, no question
    events, _ = _run(renderer, OracleReader(renderer.geometry, seed=1, flip=0.0))
    assert not any(isinstance(e, NeedsConfirmation) for e in events)
    assert [(e.route, e.color) for e in events if isinstance(e, ClaimSeen)] == [
        ("berlin-wien", "red")
    ]


@pytest.mark.parametrize("seed", [2023, 2028])
def test_the_demo_cameras_first_frame_is_located(seed: int) -> None:
    """Seeds whose first (empty-board, 960x540) frame was refused: the soft small frame had
    weaker gradients on every space than the photos the locating means come from."""
    from companion.commands.demo_game import _table_camera_class
    from companion.vision.live.readers import VisionReader

    cam = _table_camera_class()(seed=seed)
    found = np.asarray(VisionReader().locate(cam.frame_at(0)), np.float64)
    known = np.asarray(cam.view.corners, np.float64)
    assert np.abs(found - known).max() < 0.01 * np.linalg.norm(known[1] - known[0])


def test_a_listed_claim_reaches_the_service_as_a_question(renderer: BoardRenderer) -> None:
    """as_questions: the watcher records the listed claim and reports it unsure and listed
    (the service asks the host); a plain claim and a station's question pass unchanged."""
    from companion.vision.live.live import Change, StationSeen, as_questions

    events, watcher = _run(renderer, _Listed(renderer.geometry, flip=0.0))
    out = as_questions(watcher, events)
    claims = [e for e in out if isinstance(e, ClaimSeen)]
    assert [(c.route, c.color, c.unsure, c.listed) for c in claims] == [
        ("berlin-wien", "red", True, True)
    ]
    assert not any(isinstance(e, NeedsConfirmation) for e in out)
    assert watcher.state.get("route", "berlin-wien") == "red"
    assert claims[0].to_json()["listed"] is True
    # a "no" from the host: the watcher forgets it
    assert watcher.forget("route", "berlin-wien", "red")
    assert watcher.state.get("route", "berlin-wien") is None
    # a station's question stays a question (a notice)
    ask = NeedsConfirmation(Change("station", "wien", None, "red", 0.5), "unsure", 3, 1.0)
    seen = StationSeen("wien", "red", 0.9, 3, 1.0)
    assert as_questions(watcher, [ask, seen]) == [ask, seen]
