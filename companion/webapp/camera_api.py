"""The table camera's profile: the host's guided set-up and its quality (see API.md, "The table
camera's profile"), and a photo from the table's own camera."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from companion.service import Service

from .security import require

bp = Blueprint("camera", __name__, url_prefix="/api/camera")


def service() -> Service:
    svc: Service = current_app.extensions["companion.service"]
    return svc


def status() -> Response:
    svc = service()
    colours = [str(p["color"]) for p in svc.state().get("players") or []]
    return jsonify(svc.profiles.status(colours))


@bp.get("/profile")
@require("host")
def profile() -> Response:
    return status()


@bp.post("/profile/empty")
@require("host")
def learn_empty() -> Response:
    service().profiles.learn_empty()
    return status()


@bp.post("/profile/forget")
@require("host")
def forget() -> Response:
    service().profiles.forget()
    return status()


@bp.post("/photo")
@require("host")
def photo() -> tuple[Response, int]:
    job = service().read_camera_photo()
    return jsonify({"job": job.id}), 202
