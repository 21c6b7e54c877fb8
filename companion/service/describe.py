"""One short line per action, and actions as everyone may see them. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core.actions import ACTION_TYPES, action_from_json
from companion.games import GameKind
from companion.games.base import action_line
from companion.service.shapes import CORRECTIONS


def describe(a: Mapping[str, Any], *, secret: bool = True) -> str:
    """A short line for the state's ``last`` (ticket ids hidden when ``secret``)."""
    kind = a.get("type")
    line = action_line(a, secret, action_from_json, ACTION_TYPES)
    if line is not None:
        return line
    if kind in ACTION_TYPES:  # one that cannot be read
        return str(kind)
    if kind == "settle_clash":  # which ticket, and whose, is the host's business
        if secret:
            return "tickets settled by the host"
        keeps = a.get("keeps")
        return f"{a.get('ticket')}: {f'{keeps} keeps it' if keeps else 'nobody keeps it'}"
    if kind == "set_payment_mode":
        return f"payments checked: {a.get('payment_mode')}"
    if kind == "set_board":
        return (
            f"board set: {len(a.get('routes', {}))} routes, {len(a.get('stations', {}))} stations"
        )
    if kind == "undo":
        return f"undo #{a.get('seq')}"
    if kind == "redo":
        return f"redo #{a.get('seq')}"
    if kind == "replace":
        inner = a.get("action", {})
        return f"correct #{a.get('seq')}: {describe(inner, secret=secret)}"
    return str(kind).replace("_", " ")


def describe_in(kind: GameKind | None, a: Mapping[str, Any], *, secret: bool = True) -> str:
    """:func:`describe` for Europe (``kind`` None) or the game's own line."""
    if kind is None or a.get("type") in ("new_game", "finish", "settle_clash"):
        return describe(a, secret=secret)
    if a.get("type") in CORRECTIONS:
        if a.get("type") == "replace":
            inner = describe_in(kind, a.get("action", {}), secret=secret)
            return f"correct #{a.get('seq')}: {inner}"
        return describe(a, secret=secret)
    return kind.describe(a, secret=secret)


def public_action(a: Mapping[str, Any]) -> dict[str, Any]:
    """An action as everyone may see it: kept ticket ids become their number."""
    out = dict(a)
    if out.get("type") == "keep_tickets":
        out["tickets"] = len(out.get("tickets") or [])
    if out.get("type") == "settle_clash":
        out = {"type": "settle_clash"}
    if out.get("type") == "set_board" and isinstance(out.get("tickets"), Mapping):
        out["tickets"] = {c: len(v) for c, v in out["tickets"].items()}
    if out.get("type") == "replace" and isinstance(out.get("action"), Mapping):
        out["action"] = public_action(out["action"])
    if out.get("type") == "score_round":
        out.pop("position", None)  # large; the round's result is in the state
    return dict(sorted(out.items()))  # as the log stores it: a restart gives the same state
