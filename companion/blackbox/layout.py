"""Where the black box keeps a game's recording, and how much room the recordings take.

One folder per game under the state directory::

    DIR/blackbox/<game id>/index.jsonl     what was recorded, one JSON record a line (appended)
    DIR/blackbox/<game id>/frames/f000001.jpg
    DIR/blackbox/<game id>/profiles/p0001.json   the table profile, each version read with
    DIR/blackbox/<game id>/log.txt         the last log lines while the game ran

Records (``type``): ``start`` (camera id, frame size, JPEG quality, the watcher's state at the
start), ``location`` (corners and local offsets the reader read with), ``profile`` (a version of
the table profile), ``frame`` (its file, camera frame number and time, wall time, log position
``seq``, why it was kept, location, profile version, the reading's summary), ``event`` (a camera
event: claim seen, question, veto, board lost, with the frames before and after it),
``decision`` (what the service made of a claim or station seen: result, log position before it,
the pending payment it was decided with) and ``refused`` (a sighting the game refused, which the
watcher forgot, with the last frame the camera had looked at when it did). A line cut short by a
crash is skipped when read.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

FOLDER = "blackbox"
INDEX = "index.jsonl"
FRAMES = "frames"
PROFILES = "profiles"
LOG = "log.txt"
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@cache
def settings() -> dict[str, Any]:
    """companion/data/blackbox.json (what each number means is told there)."""
    from companion.data import load_json

    data: dict[str, Any] = load_json("blackbox.json")
    return data


def valid_game_id(game_id: str) -> bool:
    return bool(GAME_ID.match(game_id))


def root(state_dir: Path) -> Path:
    return Path(state_dir) / FOLDER


def game_dir(state_dir: Path, game_id: str) -> Path:
    if not valid_game_id(game_id):
        raise ValueError(f"{game_id!r} is not a game id")
    return root(state_dir) / game_id


def frame_name(n: int) -> str:
    return f"{FRAMES}/f{n:06d}.jpg"


def profile_name(version: int) -> str:
    return f"{PROFILES}/p{version:04d}.json"


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), sort_keys=True)


def parse_index(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The records of an index; a line that is not a whole JSON object (cut by a crash) is
    skipped."""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("type"), str):
            yield record


def read_index(folder: Path) -> list[dict[str, Any]]:
    path = folder / INDEX
    if not path.is_file():
        return []
    with path.open(encoding="utf-8", errors="replace") as f:
        return list(parse_index(f))


def folder_size(folder: Path) -> tuple[int, int]:
    """(bytes, frames) of one game's recording."""
    size = frames = 0
    for p in folder.rglob("*"):
        try:
            if p.is_file():
                size += p.stat().st_size
                frames += p.suffix == ".jpg"
        except OSError:
            continue
    return size, frames


def recorded_games(state_dir: Path) -> list[str]:
    base = root(state_dir)
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if p.is_dir() and valid_game_id(p.name))


def usage(state_dir: Path, cap: int, games: list[Any], current: str | None) -> dict[str, Any]:
    """The space the recordings take (API.md: GET /api/blackbox). ``games``: the store's game
    rows (for their order and whether they finished)."""
    rows = {g.id: g for g in games}
    out = []
    total = 0
    for gid in recorded_games(state_dir):
        size, frames = folder_size(game_dir(state_dir, gid))
        total += size
        g = rows.get(gid)
        out.append(
            {
                "game_id": gid,
                "bytes": size,
                "frames": frames,
                "created": g.created if g is not None else None,
                "finished": g.finished if g is not None else None,
                "current": gid == current,
            }
        )
    out.sort(key=lambda r: r["created"] or 0.0, reverse=True)
    return {"bytes": total, "cap": cap, "games": out}


def prune_order(state_dir: Path, games: list[Any], current: str | None) -> list[str]:
    """The recordings that may go to make room, first to go first: every game but the current
    one, those the store does not know first, then by when they were created."""
    rows = {g.id: g for g in games}
    others = [gid for gid in recorded_games(state_dir) if gid != current]

    def key(gid: str) -> tuple[int, float]:
        g = rows.get(gid)
        return (0, 0.0) if g is None else (1, float(g.created))

    return sorted(others, key=key)


def delete_game(state_dir: Path, game_id: str) -> int:
    """Delete a game's recording; the bytes it took (0: there was none)."""
    folder = game_dir(state_dir, game_id)
    if not folder.is_dir():
        return 0
    size, _ = folder_size(folder)
    shutil.rmtree(folder, ignore_errors=True)
    return size


def total_size(state_dir: Path) -> int:
    return sum(folder_size(game_dir(state_dir, g))[0] for g in recorded_games(state_dir))
