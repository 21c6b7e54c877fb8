"""Camera decisions: what an observation means for the game (:func:`reconcile`).

An action to apply, a question for the host, a veto, a tap for the pending payment, or nothing.
Pure: changes neither the fold nor the pending taps; no thread, no store, no Flask.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.core.actions import action_from_json
from companion.core.errors import IllegalActionError, RulesError
from companion.service.errors import sentence
from companion.service.fold import AnyFold, GameFold, OtherFold, Step
from companion.service.pending import Pending

# Rules whose refusal means the camera saw something that cannot be: a veto, not a question.
VETO_RULES = frozenset(
    {
        "unknown-route",
        "unknown-city",
        "route-taken",
        "double-both",
        "double-closed",
        "not-enough-trains",
        "station-taken",
        "no-stations",
        "game-over",
        "finished",
        "unknown-player",
    }
)


@dataclass(frozen=True)
class Decision:
    """What an observation means: ``apply`` an action, ``confirm`` (ask), ``veto``, ``ignore``,
    or ``tap`` (collected into the pending payment/tickets)."""

    kind: str
    reason: str = ""
    action: dict[str, Any] | None = None
    code: str = ""  # a stable code for the reason (translated by the dashboard) ...
    params: dict[str, Any] = field(default_factory=dict)  # ... and what fills it in


def rule_decision(kind: str, exc: RulesError, action: dict[str, Any]) -> Decision:
    """A decision whose reason is a refusal by the rules: code ``rule.<rule>``."""
    # the refusal's own params first (e.g. whose turn it is), then what the camera saw
    params: dict[str, Any] = dict(getattr(exc, "params", None) or {})
    params.update({k: action[k] for k in ("route", "city") if k in action})
    params["color"] = action.get("player")
    params["text"] = sentence(str(exc))
    rule = getattr(exc, "rule", None) or "illegal"
    return Decision(kind, str(exc), action, f"rule.{rule}", params)


def ended_turn(fold: GameFold, color: str) -> Step | None:
    """The step that ended ``color``'s turn, when it is the game's last live step."""
    for s in reversed(fold.steps):
        if s.effective is None:
            continue
        if s.effective.get("type") == "end_turn" and s.effective.get("player") == color:
            return s
        return None
    return None


# what the camera saw, by place: (unknown place, its code, already the player's, another's,
# its code); {place}, {color} and {owner} are filled in
SEEN_WORDS = {
    "route": (
        "the camera saw an unknown route {place!r}",
        "camera.unknown_route",
        "{place} is already {color}'s",
        "the camera saw {color} trains on {place}, which belongs to {owner}",
        "camera.route_taken",
    ),
    "city": (
        "the camera saw a station on an unknown city {place!r}",
        "camera.unknown_city",
        "the station on {place} is already {color}'s",
        "the camera saw a {color} station on {place}, which holds {owner}'s",
        "camera.station_taken",
    ),
}


def seen_owned(
    kind: str, place: str, known: Mapping[str, Any], owners: Mapping[str, str], color: str
) -> Decision | None:
    """``color``'s piece seen on ``place`` (a route or a city): a veto when the place is unknown
    or another's, ignored when it is already ``color``'s, else None (go on)."""
    unknown, unknown_code, own, taken, taken_code = SEEN_WORDS[kind]
    if place not in known:
        return Decision(
            "veto", unknown.format(place=place), code=unknown_code, params={"id": place}
        )
    owner = owners.get(place)
    if owner == color:
        return Decision("ignore", own.format(place=place, color=color))
    if owner is not None:
        return Decision(
            "veto",
            taken.format(place=place, color=color, owner=owner),
            code=taken_code,
            params={"color": color, kind: place, "owner": owner},
        )
    return None


def sighting(
    kind: str, key: str, color: str, *, unsure: bool = False, listed: bool = False
) -> dict[str, Any]:
    """The observation of what the camera saw: a claim (``kind`` "claim", ``key`` its route,
    marked ``unsure`` or ``listed`` when it is) or a station (``key`` its city)."""
    if kind == "station":
        return {"kind": "station_seen", "city": key, "color": color}
    out: dict[str, Any] = {"kind": "claim_seen", "route": key, "color": color}
    if unsure:
        out["unsure"] = True
    if listed:
        out["listed"] = True
    return out


def reconcile(
    fold: AnyFold | None, pending: Pending, obs: Mapping[str, Any], *, late: bool = True
) -> Decision:
    """Decide what an observation means for the game (pure: changes neither argument).

    ``late``: a claim or station of the player whose turn has just ended (the last step of
    the game, nobody acted since) is a ``late`` decision: the service tries it in that turn.
    """
    kind = obs["kind"]
    if isinstance(fold, OtherFold):
        if kind == "button":
            return Decision("button")
        return Decision(
            "ignore", "the camera and the card reader follow Ticket to Ride: Europe games only"
        )
    if kind in ("card_tapped", "ticket_tapped", "reader_player"):
        if fold is None or fold.finished:
            return Decision("ignore", "no game is running")
        return Decision("tap")
    if kind == "button":
        return Decision("button")
    if fold is None:
        return Decision("ignore", "no game is running")
    if fold.finished or fold.mode == "photo":
        return Decision("ignore", "the game is not being played live")
    t = fold.tracker
    color = obs["color"]
    if kind == "claim_seen":
        route = obs["route"]
        refused = seen_owned("route", route, t.map.routes, t.route_owner, color)
        if refused is not None:
            return refused
        if t.tunnel is not None and t.tunnel.route == route:
            return Decision("ignore", f"the tunnel {route} is being settled")
        action: dict[str, Any] = {"type": "claim", "player": color, "route": route}
    else:
        city = obs["city"]
        refused = seen_owned("city", city, t.map.cities, t.station_owner, color)
        if refused is not None:
            return refused
        action = {"type": "build_station", "player": color, "city": city}
    if pending.payment_player == color and pending.cards:
        action["cards"] = list(pending.cards)
    if color not in {p.color for p in t.players}:
        return Decision(
            "veto",
            f"the camera saw {color}, who does not play in this game",
            code="camera.not_playing",
            params={"color": color},
        )
    cur = t.current_player.color
    ended = ended_turn(fold, color) if late and not t.acted and t.phase != "setup" else None
    if ended is not None and t.tunnel is None:
        action.pop("cards", None)
        if pending.ended is not None and pending.ended[:2] == (ended.seq, color):
            action["cards"] = list(pending.ended[2])
        key = action.get("route") or action.get("city")
        return Decision(
            "late",
            f"{color}'s turn ended before the camera saw {key}",
            action,
            "camera.late_claim",
            {
                "color": color,
                **{k: action[k] for k in ("route", "city") if k in action},
                "seq": ended.seq,
            },
        )
    if color != cur and not t.acted and t.phase != "setup":
        return Decision(
            "confirm",
            f"it is {cur}'s turn and {cur} has not played yet",
            action,
            "camera.not_their_turn",
            {"color": color, "current": cur},
        )
    try:
        trial = t.copy()
        trial.apply(action_from_json(action))
    except IllegalActionError as exc:
        return rule_decision("veto" if exc.rule in VETO_RULES else "confirm", exc, action)
    if obs.get("unsure") or obs.get("listed"):
        route = action.get("route")
        if obs.get("listed"):  # on the reading's check list
            code = "camera.unsure_listed"
            reason = f"the camera is not sure of {route}: a person should check it"
        else:
            code = "camera.unsure_same_colour"
            reason = (
                f"the camera cannot tell {color} trains from {route}'s print, which is {color} too"
            )
        return Decision("confirm", reason, action, code, {"color": color, "route": route})
    return Decision("apply", "", action)
