"""The black box over HTTP (API.md, "The black box (host)"): the space the recordings take,
deleting a game's frames, the report bundle, and the history's photos and time-lapse.

Who sees a recorded photo: the host, always; anyone who can open the history (as the ticket ids
there), once the game is finished. A frame shows the table around the board too (a hand of
cards held low, tickets put down face up): during the game that is hidden information, after it
nothing of it is secret any more. The host can delete a finished game's frames at any time.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, send_file

from companion.blackbox import layout
from companion.service import Conflict, Forbidden, NotFound, Service

from .security import require, resolve_identity

bp = Blueprint("blackbox", __name__, url_prefix="/api")


def service() -> Service:
    svc: Service = current_app.extensions["companion.service"]
    return svc


def state_dir() -> Path:
    folder = getattr(service().store, "dir", None)
    if folder is None:
        raise NotFound("This server keeps no recordings.", code="blackbox.no_recording")
    return Path(folder)


def recorder() -> Any:
    return current_app.config.get("BLACKBOX")


def cap() -> int:
    box = recorder()
    if box is not None:
        return int(box.settings.cap)
    from companion.blackbox.recorder import Settings

    return Settings().cap


def current_game() -> str | None:
    fold = service().fold
    return None if fold is None or fold.finished else fold.game_id


def check_game(game_id: str) -> str:
    if not layout.valid_game_id(game_id) or service().store.game(game_id) is None:
        raise NotFound(
            f"There is no game {game_id!r}.", code="request.no_game", params={"id": game_id}
        )
    return game_id


def may_see_photos(game_id: str) -> None:
    """The host always; others once the game is finished (see the module note)."""
    if resolve_identity().role == "host":
        return
    row = service().store.game(game_id)
    if row is None or row.finished is None:
        raise Forbidden(
            "The photos of a game are shown to the host until the game is finished.",
            code="blackbox.photos_after_game",
        )


@bp.get("/blackbox")
@require("host")
def usage() -> Response:
    box = recorder()
    out = layout.usage(state_dir(), cap(), service().store.games(), current_game())
    out["recorder"] = box.status() if box is not None else None
    return jsonify(out)


@bp.delete("/blackbox/games/<game_id>")
@require("host")
def delete(game_id: str) -> Response:
    check_game(game_id)
    if game_id == current_game():
        raise Conflict(
            "The frames of the game being played are kept until it is finished.",
            code="blackbox.current_game",
        )
    freed = layout.delete_game(state_dir(), game_id)
    out = layout.usage(state_dir(), cap(), service().store.games(), current_game())
    out["freed"] = freed
    return jsonify(out)


@bp.get("/blackbox/report")
@require("host")
def report() -> Response:
    from companion.blackbox.bundle import write_bundle
    from companion.blackbox.source import BadRecording

    game = request.args.get("game") or None
    if game is not None:
        check_game(game)
    box = recorder()
    if box is not None:
        box.flush(5.0)
    folder = state_dir()
    fd, name = tempfile.mkstemp(prefix=".report-", suffix=".zip", dir=folder)
    os.close(fd)
    path = Path(name)
    try:
        info = write_bundle(
            folder,
            path,
            game,
            config=current_app.config.get("REPORT_CONFIG"),
            log_lines=list(box.writer.log_lines) if box is not None else (),
        )
        f = path.open("rb")  # sent from the open file (a long game's bundle is large) ...
    except BadRecording as exc:
        raise NotFound(str(exc), code="blackbox.no_recording") from None
    finally:
        path.unlink(missing_ok=True)  # ... which is gone from the folder already
    return send_file(
        f,
        mimetype="application/zip",
        as_attachment=True,
        download_name=f"companion-report-{info['game_id']}.zip",
        max_age=0,
    )


@bp.get("/games/<game_id>/frames")
def frames(game_id: str) -> Response:
    from companion.blackbox.timelapse import positions

    check_game(game_id)
    may_see_photos(game_id)
    records = layout.read_index(layout.game_dir(state_dir(), game_id))
    found = [
        {"seq": seq, "frame": int(r["n"]), "t": r.get("t"), "wall": r.get("wall")}
        for seq, r in positions(records).items()
    ]
    return jsonify({"game_id": game_id, "frames": found, "timelapse": bool(found)})


@bp.get("/games/<game_id>/frames/<int:n>")
def frame(game_id: str, n: int) -> Response:
    from companion.blackbox.timelapse import frame_file

    check_game(game_id)
    may_see_photos(game_id)
    path = frame_file(state_dir(), game_id, n)
    if path is None:
        raise NotFound(
            f"Game {game_id} has no frame {n}.", code="blackbox.no_frame", params={"n": n}
        )
    resp = Response(path.read_bytes(), mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "private, max-age=3600"
    return resp


@bp.get("/games/<game_id>/timelapse")
def timelapse(game_id: str) -> Response:
    from companion.blackbox.timelapse import timelapse as make

    check_game(game_id)
    may_see_photos(game_id)
    made = make(state_dir(), game_id)
    if made is None:
        raise NotFound(f"Game {game_id} has no recorded frames.", code="blackbox.no_recording")
    data, mime = made
    ext = "webp" if mime == "image/webp" else "mp4"
    resp = Response(data, mimetype=mime)
    resp.headers["Content-Disposition"] = (
        f'attachment; filename="companion-{game_id}-timelapse.{ext}"'
    )
    resp.headers["Cache-Control"] = "private, no-cache"
    return resp
