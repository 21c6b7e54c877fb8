"""The whole system on a short rendered game: camera frames -> live watcher (the project's pixel
reader, finding the board itself) -> Service.observe (the rules' vetoes and questions), with a
table that follows the game's script. No false claim may enter the game."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.service import Service
from companion.sim.camera import SimulatedCamera, simulated_game
from companion.sim.live_oracle import OracleReader
from companion.sim.render import BoardRenderer
from companion.sim.table_sim import SimulatedTable
from companion.store import EventStore
from companion.vision.live.live import LiveWatcher, VisionReader
from companion.vision.live.sources import Frame
from companion.vision.types import BoardReading


def test_the_script_records_its_turns(renderer: BoardRenderer) -> None:
    script = simulated_game(4, renderer=renderer, max_turns=10)
    assert len(script.turns) == 10
    players = script.players
    for k, turn in enumerate(script.turns):
        assert turn.player == players[k % len(players)]
        assert turn.t < turn.done
        if k:
            assert turn.t >= script.turns[k - 1].done
    pieces = {(e.route or e.city, e.color) for e in script.claims()}
    assert pieces == {(t.key, t.player) for t in script.turns if t.action != "draw"}


class _WrongColour(OracleReader):
    """The truth, except that the trains of every other claim are read in the next colour."""

    def __init__(self, renderer: BoardRenderer, wrong: dict[str, str]) -> None:
        super().__init__(renderer.geometry, seed=0, flip=0.0, covered_flip=0.0)
        self.wrong = wrong

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        reading = super().read(frame, corners)
        for rid, colour in self.wrong.items():
            if reading.routes.get(rid) is not None:
                reading.routes[rid] = colour
        return reading


def test_a_false_sighting_is_stopped_by_the_rules(renderer: BoardRenderer, tmp_path: Path) -> None:
    """A reader that sees trains in the wrong colour: the watcher reports a claim by a player
    whose turn it is not, the service asks, the host's "no" keeps it out of the game, and the
    host enters the real claim."""
    script = simulated_game(5, renderer=renderer, max_turns=8)
    claims = [t for t in script.turns if t.action == "claim"]
    players = list(script.players)
    wrong = {t.key: players[(players.index(t.player) + 1) % len(players)] for t in claims[1::2]}
    assert wrong
    cam = SimulatedCamera(script, seed=5, fps=5.0, size=(480, 270), renderer=renderer)
    store = EventStore(tmp_path)
    try:
        watcher = LiveWatcher(_WrongColour(renderer, wrong), geometry=renderer.geometry)
        table = SimulatedTable(script, watcher, Service(store))
        with cam:
            counts = table.run(cam)
    finally:
        store.close()
    assert counts.false_accepted == 0
    assert counts.false_asked + counts.false_vetoed == len(wrong), counts.notes
    assert counts.entered_by_host == len(wrong)
    assert counts.true_accepted == counts.pieces - len(wrong)
    assert counts.final_mismatches == 0, counts.notes


@pytest.mark.slow
def test_no_false_claim_enters_the_game_through_the_service(
    renderer: BoardRenderer, tmp_path: Path
) -> None:
    script = simulated_game(4, renderer=renderer, max_turns=14)
    cam = SimulatedCamera(script, seed=4, fps=5.0, size=(960, 540), renderer=renderer)
    watcher = LiveWatcher(VisionReader(), geometry=renderer.geometry)
    store = EventStore(tmp_path)
    try:
        table = SimulatedTable(script, watcher, Service(store))
        with cam:
            counts = table.run(cam)
    finally:
        store.close()
    assert counts.pieces >= 10
    assert counts.false_accepted == 0, counts.notes
    # the camera saw (nearly) every claim, and the rules let them in without questions
    assert counts.true_accepted >= counts.pieces - 1, counts.notes
    assert counts.true_asked <= 1, counts.notes
    assert counts.final_mismatches == 0, counts.notes
