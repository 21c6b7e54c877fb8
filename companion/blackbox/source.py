"""A recording read back: a game's log and what the black box kept of it, from a state directory
or a report bundle (the same for :mod:`.replay` either way).

Everything is checked before it is used; a problem is a :class:`BadRecording` whose message is
one sentence: a truncated or foreign bundle, a game with no recording, a frame missing, a frame
of another size than the camera's.
"""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.blackbox import layout
from companion.store import DB_NAME, Event

FORMAT = "companion-report"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
EVENTS = "events.jsonl"
RECORDING = "recording/"


class BadRecording(ValueError):
    """A recording that cannot be used; the message is one plain sentence."""


@dataclass
class Recording:
    """One game's log and recording. ``read(name)``: a file of the recording's folder."""

    game_id: str
    events: list[Event]
    records: list[dict[str, Any]]
    read: Callable[[str], bytes]
    names: set[str]
    origin: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] == kind]

    @property
    def start(self) -> dict[str, Any]:
        starts = self.of_type("start")
        return starts[0] if starts else {}

    @property
    def size(self) -> tuple[int, int] | None:
        size = self.start.get("size")
        return (int(size[0]), int(size[1])) if size else None

    def frames(self) -> list[dict[str, Any]]:
        """The frame records, one per camera frame, in camera order (a frame kept for several
        reasons once, with its latest log position)."""
        by_index: dict[int, dict[str, Any]] = {}
        for r in self.of_type("frame"):
            by_index[int(r["index"])] = r
        return [by_index[i] for i in sorted(by_index)]

    def check_frames(self) -> None:
        """Every frame record names a file that is there."""
        for r in self.of_type("frame"):
            name = str(r.get("file", ""))
            if name not in self.names:
                raise BadRecording(
                    f"frame {r.get('n')} ({name}) of game {self.game_id} is missing from "
                    f"the recording"
                )

    def image(self, record: dict[str, Any]) -> Any:
        """A frame's picture (BGR), checked against the camera's size."""
        import cv2
        import numpy as np

        name = str(record["file"])
        try:
            blob = self.read(name)
        except (KeyError, OSError, zipfile.BadZipFile) as exc:
            raise BadRecording(f"frame {record.get('n')} ({name}) cannot be read: {exc}") from None
        image = cv2.imdecode(np.frombuffer(blob, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise BadRecording(f"frame {record.get('n')} ({name}) is not a picture")
        size = self.size
        h, w = image.shape[:2]
        if size is not None and (w, h) != size:
            raise BadRecording(
                f"frame {record.get('n')} ({name}) is {w}x{h}, but the camera's frames are "
                f"{size[0]}x{size[1]}"
            )
        return image


def open_recording(source: Path, game: str | None = None) -> Recording:
    """A state directory's recording (of ``game``, default the newest recorded) or a bundle's."""
    source = Path(source)
    if source.is_dir():
        return from_state_dir(source, game)
    if source.is_file():
        rec = from_bundle(source)
        if game is not None and game != rec.game_id:
            raise BadRecording(f"the bundle {source} holds game {rec.game_id}, not {game}")
        return rec
    raise BadRecording(f"{source} is neither a state directory nor a report bundle")


def read_events(state_dir: Path, game_id: str) -> list[Event]:
    """A game's events, read without writing anything into the state directory."""
    path = state_dir / DB_NAME
    if not path.is_file():
        raise BadRecording(f"{state_dir} has no event log ({DB_NAME})")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = db.execute(
                "SELECT seq, game_id, ts, actor, action FROM events WHERE game_id=? ORDER BY seq",
                (game_id,),
            ).fetchall()
        finally:
            db.close()
        return [Event(int(s), str(g), float(t), str(a), json.loads(j)) for s, g, t, a, j in rows]
    except (sqlite3.Error, ValueError) as exc:
        raise BadRecording(f"the event log of {state_dir} cannot be read: {exc}") from None


def newest_game(state_dir: Path) -> str | None:
    best: tuple[float, str] | None = None
    for gid in layout.recorded_games(state_dir):
        start = next(
            (r for r in layout.read_index(layout.game_dir(state_dir, gid)) if r["type"] == "start"),
            None,
        )
        wall = float(start.get("wall") or 0.0) if start else 0.0
        if best is None or wall > best[0]:
            best = (wall, gid)
    return best[1] if best else None


def from_state_dir(state_dir: Path, game: str | None) -> Recording:
    if game is not None and not layout.valid_game_id(game):
        raise BadRecording(f"{game!r} is not a game id")
    gid = game or newest_game(state_dir)
    if gid is None:
        raise BadRecording(f"{state_dir} holds no recording of a game")
    folder = layout.game_dir(state_dir, gid)
    records = layout.read_index(folder)
    if not records:
        raise BadRecording(f"game {gid} has no recording in {state_dir}")
    events = read_events(state_dir, gid)
    if not events:
        raise BadRecording(f"the event log of {state_dir} has no game {gid}")
    names = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}

    def read(name: str) -> bytes:
        return (folder / name).read_bytes()

    rec = Recording(gid, events, records, read, names, origin=str(state_dir))
    rec.check_frames()
    return rec


def from_bundle(path: Path) -> Recording:
    try:
        with path.open("rb") as f:
            magic = f.read(4)
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        if magic != b"PK\x03\x04":
            raise BadRecording(f"{path} is not a companion report bundle") from None
        raise BadRecording(f"{path} is damaged or cut short: it is not a whole zip file") from None
    except OSError as exc:
        raise BadRecording(f"{path} cannot be read: {exc.strerror or exc}") from None
    try:
        manifest = json.loads(zf.read(MANIFEST))
    except KeyError:
        raise BadRecording(f"{path} is not a companion report bundle (no {MANIFEST})") from None
    except (ValueError, zipfile.BadZipFile, OSError):
        raise BadRecording(f"{path} is damaged: its {MANIFEST} cannot be read") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BadRecording(f"{path} is not a companion report bundle")
    if manifest.get("version") != FORMAT_VERSION:
        raise BadRecording(
            f"{path} is a report bundle of version {manifest.get('version')}; "
            f"this companion reads version {FORMAT_VERSION}"
        )
    bad = _first_bad_member(zf)
    if bad is not None:
        raise BadRecording(f"{path} is damaged: {bad} does not read back whole")
    gid = str(manifest.get("game_id") or "")
    try:
        lines = zf.read(EVENTS).decode("utf-8", errors="replace").splitlines()
        index = zf.read(RECORDING + layout.INDEX).decode("utf-8", errors="replace").splitlines()
    except KeyError as exc:
        raise BadRecording(f"{path} lacks {exc.args[0]}: it is not a whole report bundle") from None
    try:
        events = [_event(json.loads(line)) for line in lines if line.strip()]
    except (ValueError, TypeError, KeyError):
        raise BadRecording(f"{path} has events that cannot be read") from None
    if not events or any(e.game_id != gid for e in events):
        raise BadRecording(f"{path} has events of another game than {gid}")
    names = {n[len(RECORDING) :] for n in zf.namelist() if n.startswith(RECORDING)}

    def read(name: str) -> bytes:
        return zf.read(RECORDING + name)

    rec = Recording(gid, events, list(layout.parse_index(index)), read, names, str(path), manifest)
    if not rec.records:
        raise BadRecording(f"{path} holds no recording of game {gid}")
    rec.check_frames()
    return rec


def _first_bad_member(zf: zipfile.ZipFile) -> str | None:
    try:
        return zf.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        return f"its contents ({exc})"


def _event(d: dict[str, Any]) -> Event:
    action = dict(d["action"])
    return Event(int(d["seq"]), str(d["game_id"]), float(d["ts"]), str(d["actor"]), action)
