"""The black box's recorder with a fake watcher: what it keeps, the cap, a full disk, a full
queue, and that the camera's thread never waits for the disk."""

from __future__ import annotations

import errno
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.blackbox import layout
from companion.blackbox.recorder import Recorder, Settings
from tests.blackbox_fakes import Frame, Watcher

# the recorder's tests draw a 300x200 board
CORNERS = np.array([[1, 2], [300, 2], [300, 200], [1, 200]])


@dataclass
class Row:
    id: str
    created: float
    finished: float | None = None


@dataclass
class ClaimSeen:  # named as the watcher's event
    route: str
    color: str
    frame: int = 0
    t: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"event": "claim", "route": self.route, "color": self.color}


class Table:
    """The public state and the notices a recorder sees."""

    def __init__(self, game: str = "g1") -> None:
        self.snap: dict[str, Any] = {"game_id": game, "game": "europe", "mode": "table", "seq": 1}
        self.rows: list[Row] = [Row(game, 100.0)]
        self.notices: list[tuple[str, dict[str, Any]]] = []

    def notice(self, text: str, level: str = "info", color: Any = None, **kw: Any) -> None:
        self.notices.append((kw.get("code", ""), kw))


def image(seed: int, size: tuple[int, int] = (64, 48)) -> Any:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 255, (size[1], size[0], 3), dtype=np.uint8)


def recorder(tmp: Path, table: Table, **kw: Any) -> Recorder:
    settings = kw.pop("settings", Settings(every=5.0, quality=80, cap=1 << 30))
    return Recorder(
        tmp,
        settings,
        now=lambda: table.snap,
        games=lambda: table.rows,
        notice=table.notice,
        camera="cam",
        **kw,
    ).start()


def records(tmp: Path, game: str) -> list[dict[str, Any]]:
    return layout.read_index(layout.game_dir(tmp, game))


def test_keeps_event_frames_moves_and_every_n_seconds(tmp_path: Path) -> None:
    table = Table()
    rec = recorder(tmp_path, table)
    w = Watcher(corners=CORNERS)
    rec.look(Frame(image(0), 0.0, 0), w, [])  # first clean frame: kept as "every"
    w.status.state = "moving"
    rec.look(Frame(image(1), 0.2, 1), w, [])
    w.status.state = "read"
    event = ClaimSeen("berlin-wien", "red")
    rec.look(Frame(image(2), 0.4, 2), w, [])
    rec.look(Frame(image(3), 0.6, 3), w, [event])  # before = frame 0, after = frame 3
    rec.heard("state", {"seq": 2})  # a move: the newest clean frame, once more on record
    rec.look(Frame(image(4), 1.0, 4), w, [])
    rec.look(Frame(image(5), 6.0, 5), w, [])  # 6 s after the last "every": kept
    assert rec.flush()
    rec.stop()
    rs = records(tmp_path, "g1")
    frames = [r for r in rs if r["type"] == "frame"]
    whys = {(r["index"], r["why"]) for r in frames}
    assert (0, "every") in whys and (0, "before") in whys
    assert (3, "after") in whys and (2, "confirm") not in whys  # no watcher config: 1 read
    assert (4, "move") in whys and (5, "every") in whys
    ev = next(r for r in rs if r["type"] == "event")
    assert ev["event"]["kind"] == "claim" and ev["event"]["route"] == "berlin-wien"
    before = next(r for r in frames if r["n"] == ev["before"])
    assert before["index"] == 0
    start = next(r for r in rs if r["type"] == "start")
    assert start["size"] == [64, 48] and start["camera"] == "cam"
    # each frame is written once, as a JPEG of the configured size
    files = sorted((layout.game_dir(tmp_path, "g1") / "frames").iterdir())
    assert len(files) == len({r["index"] for r in frames})
    loc = next(r for r in rs if r["type"] == "location")
    assert loc["corners"][1] == [300.0, 2.0]


def test_records_nothing_without_a_live_game(tmp_path: Path) -> None:
    table = Table()
    table.snap = {"game_id": "g1", "game": "europe", "mode": "photo", "seq": 1}
    rec = recorder(tmp_path, table)
    rec.look(Frame(image(0), 0.0, 0), Watcher(corners=CORNERS), [])
    assert rec.flush()
    rec.stop()
    assert not layout.root(tmp_path).exists()


def fill(tmp: Path, game: str, size: int) -> None:
    folder = layout.game_dir(tmp, game) / "frames"
    folder.mkdir(parents=True)
    (folder / "f000001.jpg").write_bytes(b"x" * size)


def test_the_cap_takes_the_oldest_finished_game_first_never_the_current(tmp_path: Path) -> None:
    table = Table("g3")
    table.rows = [Row("g1", 10.0, 20.0), Row("g2", 30.0, 40.0), Row("g3", 50.0)]
    fill(tmp_path, "g1", 40_000)
    fill(tmp_path, "g2", 40_000)
    # room for one old game and a frame or two of the current one
    rec = recorder(tmp_path, table, settings=Settings(every=0.5, quality=80, cap=60_000))
    w = Watcher(corners=CORNERS)
    for i in range(3):
        rec.look(Frame(image(i), i * 1.0, i), w, [])
        assert rec.flush()
    assert not layout.game_dir(tmp_path, "g1").exists()  # the oldest went first
    assert layout.game_dir(tmp_path, "g2").exists()
    assert layout.game_dir(tmp_path, "g3").exists()
    # the current game alone over the cap: recording stops with one notice, g3 is kept
    for i in range(3, 60):
        rec.look(Frame(image(i), i * 1.0, i), w, [])
        assert rec.flush()
    rec.stop()
    assert layout.game_dir(tmp_path, "g3").exists()
    assert not layout.game_dir(tmp_path, "g2").exists()
    assert rec.stopped == "cap"
    assert [c for c, _ in table.notices] == ["blackbox.full"]
    assert table.notices[0][1]["audience"] == "host"
    assert layout.total_size(tmp_path) <= 60_000


def test_a_full_disk_stops_recording_with_one_notice(tmp_path: Path) -> None:
    table = Table()
    writes: list[Path] = []

    def full(path: Path, blob: bytes) -> None:
        writes.append(path)
        raise OSError(errno.ENOSPC, "No space left on device")

    rec = recorder(tmp_path, table, write=full)
    w = Watcher(corners=CORNERS)
    for i in range(10):
        rec.look(Frame(image(i), i * 10.0, i), w, [])
    assert rec.flush()
    rec.stop()
    assert rec.stopped == "disk_full"
    assert [c for c, _ in table.notices] == ["blackbox.disk_full"]
    assert len(writes) == 1  # nothing more was tried
    assert rec.status()["stopped"] == "disk_full"


def test_a_full_queue_drops_and_counts_and_never_waits(tmp_path: Path) -> None:
    table = Table()
    gate = threading.Event()

    def slow(path: Path, blob: bytes) -> None:
        gate.wait(10)
        path.write_bytes(blob)

    rec = recorder(tmp_path, table, write=slow)
    w = Watcher(corners=CORNERS)
    n = layout.settings()["queue_frames"] + 40
    t0 = time.perf_counter()
    for i in range(n):
        rec.look(Frame(image(i % 7), i * 10.0, i), w, [])
    took = time.perf_counter() - t0
    assert rec.dropped > 0
    gate.set()
    assert rec.flush()
    rec.stop()
    frames = [r for r in records(tmp_path, "g1") if r["type"] == "frame"]
    # at most queue_frames frames waited (each holds a picture); the others were dropped
    assert 0 < len(frames) <= layout.settings()["queue_frames"] + 1
    assert rec.dropped == n - len(frames)
    # the camera's thread only queued: well under the time one blocked write would take
    assert took < 5.0


def test_decisions_are_recorded_with_what_they_were_made_with(tmp_path: Path) -> None:
    from concurrent.futures import Future

    table = Table()
    rec = recorder(tmp_path, table)
    w = Watcher(corners=CORNERS)
    event = ClaimSeen("berlin-wien", "red")
    rec.look(Frame(image(0), 0.0, 0), w, [event])
    fut: Future[Any] = Future()
    rec.observed(event, fut)
    fut.set_result({"result": "applied", "seq": 5, "before": 4, "pending": {"cards": ["red"]}})
    rec.forgot("route", "berlin-wien", "red", None)  # the camera's thread, before frame 1
    rec.look(Frame(image(1), 0.2, 1), w, [])
    assert rec.flush()
    rec.stop()
    rs = records(tmp_path, "g1")
    dec = next(r for r in rs if r["type"] == "decision")
    assert dec["result"] == "applied" and dec["seq"] == 4 and dec["after"] == 5
    assert dec["e"] == next(r for r in rs if r["type"] == "event")["e"]
    refused = next(r for r in rs if r["type"] == "refused")
    assert refused["key"] == "berlin-wien" and refused["frame"] == 0
    assert json.dumps(rs)  # every record is JSON


def test_a_refusal_is_recorded_where_the_camera_forgot_it(tmp_path: Path) -> None:
    """The game refuses on the loop's thread, maybe while the camera is half-way through a
    frame; the watcher forgets it before the next frame it takes up, and the recording says
    so (the replay forgets it there too), whatever frame the camera was at when the game
    refused."""
    from companion.commands.devices import forget_refused, watch_refusals

    class Service:
        def __init__(self) -> None:
            self.listeners: list[Any] = []

    class Forgetting:
        def __init__(self) -> None:
            self.forgot: list[tuple[str, str]] = []

        def forget(self, kind: str, key: str, color: str, owner: str | None) -> bool:
            self.forgot.append((kind, key))
            return True

    table = Table()
    rec = recorder(tmp_path, table)
    svc = Service()
    refused = watch_refusals(svc)
    w = Watcher(corners=CORNERS)
    forgetting = Forgetting()
    rec.look(Frame(image(0), 0.0, 0), w, [])
    assert forget_refused(forgetting, refused, rec) == 0
    # frame 1 is being looked at (after forget_refused, before look) when the game refuses
    for listener in svc.listeners:
        listener("vetoed", {"kind": "claim", "key": "berlin-wien", "color": "red"})
    rec.heard("vetoed", {"kind": "claim", "key": "berlin-wien", "color": "red"})
    rec.look(Frame(image(1), 0.2, 1), w, [])
    assert forgetting.forgot == []  # not yet: the watcher read frame 1 with it
    assert forget_refused(forgetting, refused, rec) == 1
    rec.look(Frame(image(2), 0.4, 2), w, [])
    assert forgetting.forgot == [("route", "berlin-wien")]
    assert rec.flush()
    rec.stop()
    rs = [r for r in records(tmp_path, "g1") if r["type"] == "refused"]
    # forgotten after frame 1: the replay forgets it before frame 2, not before frame 1
    assert [(r["key"], r["color"], r["frame"]) for r in rs] == [("berlin-wien", "red", 1)]


def test_nothing_more_once_the_game_is_finished(tmp_path: Path) -> None:
    table = Table()
    rec = recorder(tmp_path, table)
    w = Watcher(corners=CORNERS)
    rec.look(Frame(image(0), 0.0, 0), w, [])
    rec.look(Frame(image(1), 1.0, 1), w, [])
    table.snap = {**table.snap, "phase": "finished", "seq": 9}
    rec.heard("state", {"seq": 9})
    rec.look(Frame(image(2), 40.0, 2), w, [])  # the finishing move's frame: the last clean one
    rec.look(Frame(image(3), 80.0, 3), w, [])  # nothing more, not even every 30 s
    assert rec.flush()
    rec.stop()
    frames = [r for r in records(tmp_path, "g1") if r["type"] == "frame"]
    assert [(r["index"], r["why"], r["seq"]) for r in frames][-1] == (1, "move", 9)
    assert max(r["index"] for r in frames) == 1
