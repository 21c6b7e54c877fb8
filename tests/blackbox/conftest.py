"""A game recorded by the black box: the fast demo (a seeded bot game at a simulated table,
through the camera's real watcher and pixel reader) with a recorder, as ``serve --demo`` runs it.
Played once per test session; tests copy the state directory before changing anything."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.blackbox.recorder import Settings, for_service
from companion.commands.demo_game import DEMO_CAMERA, Demo
from tests.serving import running_service

SEED = 1  # 2 players: tunnels, ferries, a station, 34 claims
PLAYERS = 2


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    state_dir = tmp_path_factory.mktemp("recorded")
    with running_service(state_dir) as svc:
        box = for_service(svc, state_dir, Settings(), camera=DEMO_CAMERA)
        demo = Demo(svc, state_dir, seed=SEED, players=PLAYERS, fast=True, recorder=box).start()
        try:
            finished = demo.wait(timeout=180)
            state = svc.state()
            # the camera stops before anything is copied: a frame written while a test copies
            # the directory would leave the copy's index naming a frame the copy does not hold
            demo.stop()
            box.flush()
            yield {
                "dir": state_dir,
                "finished": finished,
                "game_id": state["game_id"],
                "state": state,
                "service": svc,
                "recorder": box,
            }
        finally:
            demo.stop()
            box.stop()


@pytest.fixture
def copy_of(recorded: dict[str, Any], tmp_path: Path) -> Path:
    """A copy of the recorded state directory (its event log and recordings only)."""
    out = tmp_path / "copy"
    out.mkdir()
    src = Path(recorded["dir"])
    shutil.copy2(src / "companion.sqlite3", out / "companion.sqlite3")
    for side in ("-wal", "-shm"):
        if (src / f"companion.sqlite3{side}").exists():
            shutil.copy2(src / f"companion.sqlite3{side}", out / f"companion.sqlite3{side}")
    shutil.copytree(src / "blackbox", out / "blackbox")
    return out
