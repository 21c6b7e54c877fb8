"""Ticket clashes, for the host only (see API.md, "Ticket clashes"): two players kept the same
ticket. Each keeper was answered as for any other keep; only the host sees the clash and settles
it with the action ``settle_clash``."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from companion.service import Service

from .security import require

bp = Blueprint("clashes", __name__, url_prefix="/api/clashes")


@bp.get("")
@require("host")
def clashes() -> Response:
    svc: Service = current_app.extensions["companion.service"]
    return jsonify({"clashes": svc.clashes()})
