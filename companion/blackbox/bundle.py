"""The report bundle (``companion report``, the host's 「問題を報告」): one game's recording as a
zip that ``companion replay`` reads.

Inside::

    manifest.json        format, version, game id, when, versions (companion, Python, numpy,
                         OpenCV, the platform), the camera, what the files are
    events.jsonl         the game's events (only this game's: no ticket of another game)
    recording/...        its black box folder: index.jsonl, frames/, profiles/, log.txt
    table_profile.json   the camera's table profile as it is now (when there is one)
    config.json          the configuration, without anything secret
    log.txt              the last log lines

Never a token: neither the host token nor a pairing token is put in, and every text file is
scrubbed of them (and of anything shaped like a login or pairing link). The bundle is checked
before it is written (a frame missing, a frame of another size than the camera's: one sentence,
nothing written) and written to a temporary file first, then renamed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import re
import sqlite3
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from companion.blackbox import layout
from companion.blackbox.source import (
    EVENTS,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    RECORDING,
    BadRecording,
    Recording,
    from_state_dir,
)
from companion.store import DB_NAME

SECRET_KEY = re.compile(r"token|secret|password|passwd|psk|key", re.I)
LINK = re.compile(r"(token=|/pair/|Bearer\s+)[A-Za-z0-9_\-.~%]{8,}")
REDACTED = "[removed]"


def versions() -> dict[str, str]:
    import cv2
    import numpy

    import companion

    return {
        "companion": companion.__version__,
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "opencv": cv2.__version__,
        "platform": platform.platform(),
    }


def tokens_of(state_dir: Path) -> list[str]:
    """Every token of the state directory: the host's and every pairing token of every game."""
    out: list[str] = []
    host = state_dir / "host-token"
    try:
        text = host.read_text(encoding="utf-8").strip()
        if text:
            out.append(text)
    except OSError:
        pass
    path = state_dir / DB_NAME
    if path.is_file():
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                out += [str(r[0]) for r in db.execute("SELECT token FROM tokens")]
            finally:
                db.close()
        except sqlite3.Error:
            pass
    return [t for t in out if len(t) >= 8]


def scrub(text: str, tokens: Iterable[str]) -> str:
    """``text`` without any token (named, or in a link)."""
    for t in sorted(set(tokens), key=len, reverse=True):
        text = text.replace(t, REDACTED)
    return LINK.sub(lambda m: m.group(1) + REDACTED, text)


def config_json(config: Any) -> dict[str, Any]:
    """The configuration as JSON, without keys that could hold a secret."""
    if config is None:
        return {}

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k): clean(v) for k, v in value.items() if not SECRET_KEY.search(str(k))}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        if isinstance(value, Path):
            return str(value)
        return value

    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        data: Any = dataclasses.asdict(config)
    else:
        data = dict(config)
    return dict(clean(data))


def jpeg_size(blob: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's frame header, without decoding it (None: not a JPEG)."""
    if blob[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(blob):
        if blob[i] != 0xFF:
            return None
        marker = blob[i + 1]
        length = int.from_bytes(blob[i + 2 : i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE):
            h = int.from_bytes(blob[i + 5 : i + 7], "big")
            w = int.from_bytes(blob[i + 7 : i + 9], "big")
            return (w, h)
        i += 2 + length
    return None


def check_sizes(rec: Recording) -> int:
    """Every frame file is a JPEG of the camera's size; how many frame files."""
    size = rec.size
    seen: set[str] = set()
    for r in rec.of_type("frame"):
        name = str(r["file"])
        if name in seen:
            continue
        seen.add(name)
        got = jpeg_size(rec.read(name))
        if got is None:
            raise BadRecording(f"frame {r.get('n')} ({name}) is not a JPEG picture")
        if size is not None and got != size:
            raise BadRecording(
                f"frame {r.get('n')} ({name}) is {got[0]}x{got[1]}, but the camera's frames "
                f"are {size[0]}x{size[1]}"
            )
    return len(seen)


def write_bundle(
    state_dir: Path,
    out: Path,
    game: str | None = None,
    *,
    config: Any = None,
    log_lines: Iterable[str] = (),
) -> dict[str, Any]:
    """Write the report bundle of ``game`` (default: the newest recorded) to ``out``; what was
    written (game id, frames, bytes). :class:`BadRecording` (nothing written) on bad input."""
    state_dir = Path(state_dir)
    rec = from_state_dir(state_dir, game)
    frames = check_sizes(rec)
    tokens = tokens_of(state_dir)
    folder = layout.game_dir(state_dir, rec.game_id)
    camera = str(rec.start.get("camera") or "")
    out = Path(out)
    if out.is_dir():
        raise BadRecording(f"{out} is a folder; name the bundle's file")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise BadRecording(f"the folder {parent} does not exist")
    manifest = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "game_id": rec.game_id,
        "created": round(time.time(), 3),
        "camera": camera,
        "size": list(rec.size) if rec.size else None,
        "frames": frames,
        "versions": versions(),
        "files": {
            EVENTS: "the game's events, one JSON object a line",
            RECORDING: "the black box's folder of the game (index.jsonl, frames/, profiles/)",
            "table_profile.json": "the camera's table profile now",
            "config.json": "the configuration, without secrets",
            "log.txt": "the last log lines",
        },
    }
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".zip", dir=parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False))
            events = "".join(json.dumps(e.to_json(), sort_keys=True) + "\n" for e in rec.events)
            zf.writestr(EVENTS, scrub(events, tokens))
            for name in sorted(rec.names):
                data = rec.read(name)
                if name.endswith((".jsonl", ".json", ".txt")):
                    text = scrub(data.decode("utf-8", errors="replace"), tokens)
                    zf.writestr(RECORDING + name, text)
                else:  # pictures: stored as they are (already compressed)
                    zf.writestr(RECORDING + name, data, compress_type=zipfile.ZIP_STORED)
            profile = _profile_file(state_dir, camera)
            if profile is not None:
                zf.writestr("table_profile.json", scrub(profile, tokens))
            zf.writestr("config.json", json.dumps(config_json(config), indent=1))
            lines = list(log_lines) or _lines(folder / layout.LOG)
            zf.writestr("log.txt", scrub("".join(x.rstrip("\n") + "\n" for x in lines), tokens))
        size = os.path.getsize(tmp)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return {"game_id": rec.game_id, "frames": frames, "bytes": size}


def _profile_file(state_dir: Path, camera: str) -> str | None:
    if not camera:
        return None
    from companion.vision.decide.profile import profile_path

    try:
        return profile_path(state_dir, camera).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
