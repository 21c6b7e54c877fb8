"""The one loop that owns the game state.

Commands (actions from the web, observations from the camera, the card reader and the buttons)
go through one queue to one thread. For each: validate with the rules (``TableTracker``), append
the event to the log (committed and synced), update the state, publish the new public state to
the subscribers (server-sent events).

The state of a game is the fold of its events (:func:`fold_game`): ``new_game`` starts it;
table actions, ``set_payment_mode``, ``set_board`` and ``finish`` are *steps*; ``undo``,
``redo`` and ``replace`` are *corrections* that change which steps count (and are events
themselves). The fold replays the effective steps in order, so a restart, a replay and the
history all agree.

Observations are reconciled (:func:`reconcile`) into an action, a question for the host
(needs confirmation), a veto, or a tap collected into the pending payment of a player.
Pending taps and questions are not in the log: a restart forgets them.
"""

from __future__ import annotations

import heapq
import json
import logging
import queue
import secrets
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from companion.core.actions import (
    ACTION_TYPES,
    KeepTickets,
    action_from_json,
)
from companion.core.board import GameMap, Route
from companion.core.cards import PLAYER_COLORS, Card, parse_card
from companion.core.errors import IllegalActionError, NotationError, RulesError
from companion.core.scoring import FinalScore, PlayerEnd, score_final, validate_end_state
from companion.core.tracker import PAYMENT_MODES, TableTracker
from companion.games import EUROPE, GAMES, GameKind, GameTable, Seat, game_kind
from companion.store import Event, EventStore

log = logging.getLogger(__name__)

T = TypeVar("T")

HOST_ONLY = frozenset(
    {"new_game", "finish", "undo", "redo", "replace", "set_payment_mode", "set_board"}
)
CORRECTIONS = frozenset({"undo", "redo", "replace"})
TABLE_TYPES = frozenset(
    {
        "claim",
        "build_station",
        "keep_tickets",
        "tunnel_reveal",
        "tunnel_pay",
        "tunnel_withdraw",
        "drew_cards",
        "end_turn",
    }
)
SERVICE_STEPS = frozenset({"finish", "set_payment_mode", "set_board"})
MODES = ("table", "photo")


# --- errors ---------------------------------------------------------------------------------


class ServiceError(Exception):
    """A refused request; ``status`` is the HTTP status, the message one plain sentence."""

    status = 400

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def to_json(self) -> dict[str, str]:
        out = {"error": self.message}
        if self.rule:
            out["rule"] = self.rule
        return out


class BadRequest(ServiceError):
    status = 400


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class Unavailable(ServiceError):
    status = 503


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def conflict(exc: RulesError) -> Conflict:
    return Conflict(_sentence(str(exc)), getattr(exc, "rule", None) or "illegal")


# --- who acts -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: the host, a paired player (``color``), or a device in the process."""

    role: str  # "host" | "player" | "device"
    color: str | None = None
    name: str = "host"  # what goes into the log's actor column

    @staticmethod
    def host() -> Actor:
        return Actor("host", None, "host")

    @staticmethod
    def player(color: str) -> Actor:
        return Actor("player", color, color)

    @staticmethod
    def device(name: str) -> Actor:
        return Actor("device", None, name)


# --- the fold -------------------------------------------------------------------------------


@dataclass
class Step:
    seq: int
    actor: str
    action: dict[str, Any]  # as logged
    effective: dict[str, Any] | None  # after replace; None when undone


@dataclass
class GameFold:
    """A game's state as the fold of its events."""

    game_id: str
    mode: str
    variant: str
    tracker: TableTracker
    seq: int = 0
    steps: list[Step] = field(default_factory=list)
    final: FinalScore | None = None
    warnings: list[str] = field(default_factory=list)
    last: dict[str, Any] | None = None
    skipped: list[str] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.final is not None

    def step(self, seq: int) -> Step | None:
        for s in self.steps:
            if s.seq == seq:
                return s
        return None


@dataclass
class OtherFold:
    """A game other than Europe as the fold of its events: its :class:`GameTable` and steps."""

    game_id: str
    game: str
    kind: GameKind
    table: GameTable
    seq: int = 0
    steps: list[Step] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    last: dict[str, Any] | None = None
    skipped: list[str] = field(default_factory=list)
    series: list[dict[str, Any]] = field(default_factory=list)
    mode: str = "table"

    @property
    def finished(self) -> bool:
        return self.table.finished

    def step(self, seq: int) -> Step | None:
        for s in self.steps:
            if s.seq == seq:
                return s
        return None

    def add_point(self) -> None:
        """The score chart: a point whenever the scores change."""
        scores = self.table.scores()
        x = self.table.progress() + (1 if self.finished else 0)
        if self.series and self.series[-1]["scores"] == scores:
            return
        if len(self.series) > 1 and self.series[-1]["turn"] == x:
            self.series[-1] = {"turn": x, "scores": scores}
        else:
            self.series.append({"turn": x, "scores": scores})


AnyFold = GameFold | OtherFold


def fold_colors(fold: AnyFold) -> list[str]:
    if isinstance(fold, OtherFold):
        return fold.table.colors
    return [p.color for p in fold.tracker.players]


def fold_winners(fold: AnyFold) -> list[str]:
    if isinstance(fold, OtherFold):
        return fold.table.winners
    return list(fold.final.winners) if fold.final else []


def fold_game_name(fold: AnyFold | None) -> str | None:
    if fold is None:
        return None
    return fold.game if isinstance(fold, OtherFold) else EUROPE


def _kind_of(name: Any) -> GameKind:
    if not isinstance(name, str) or name not in GAMES:
        raise BadRequest(f"unknown game {name!r}: expected one of {', '.join(GAMES)}.")
    return game_kind(name)


def parse_other_new_game(data: Mapping[str, Any], kind: GameKind) -> dict[str, Any]:
    """Check a ``new_game`` of another game (raises BadRequest / Conflict)."""
    mode = data.get("mode", "table")
    if mode != "table":
        raise BadRequest(f"{kind.title} is played in table mode only (no photo mode).")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, Mapping) for p in players):
        raise BadRequest('a new_game action needs "players": a list of {"name", "color"}.')
    low, high = kind.min_players, kind.max_players
    if not low <= len(players) <= high:
        count = f"{low}" if low == high else f"{low} to {high}"
        raise Conflict(f"{kind.title} is for {count} players, not {len(players)}.", "player-count")
    out_players: list[dict[str, str]] = []
    for p in players:
        color = p.get("color")
        name = p.get("name", color)
        if not isinstance(color, str) or color.strip().lower() not in kind.colors:
            raise BadRequest(
                f"unknown player colour {color!r} for {kind.title}: expected one of "
                f"{', '.join(kind.colors)}."
            )
        if not isinstance(name, str) or len(name) > 40:
            raise BadRequest("a player's name must be a string of at most 40 characters.")
        color = color.strip().lower()
        out_players.append({"name": name.strip() or color, "color": color})
    colors = [p["color"] for p in out_players]
    if len(set(colors)) != len(colors):
        raise Conflict("Two players chose the same colour.", "same-colour")
    try:
        options = kind.parse_options(data)
    except NotationError as exc:
        raise BadRequest(_sentence(str(exc))) from None
    return {
        "type": "new_game",
        "game": kind.name,
        "variant": kind.name,
        "mode": "table",
        **options,
        "players": out_players,
    }


def parse_new_game(data: Mapping[str, Any], game_map: GameMap) -> dict[str, Any]:
    """Check a ``new_game`` action; returns its normalised form (raises BadRequest)."""
    game = data.get("game", EUROPE)
    if game != EUROPE:
        return parse_other_new_game(data, _kind_of(game))
    variant = data.get("variant", "europe")
    if not isinstance(variant, str) or variant not in game_map.variants:
        raise BadRequest(
            f"unknown variant {variant!r}: expected one of {', '.join(game_map.variants)}."
        )
    mode = data.get("mode", "table")
    if mode not in MODES:
        raise BadRequest(f'"mode" must be one of {", ".join(MODES)}.')
    payment = data.get("payment_mode", "lenient")
    if payment not in PAYMENT_MODES:
        raise BadRequest(f'"payment_mode" must be one of {", ".join(PAYMENT_MODES)}.')
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, Mapping) for p in players):
        raise BadRequest('a new_game action needs "players": a list of {"name", "color"}.')
    if not 2 <= len(players) <= 5:
        raise Conflict(
            f"Ticket to Ride: Europe is for 2 to 5 players, not {len(players)}.", "player-count"
        )
    out_players: list[dict[str, str]] = []
    for p in players:
        color = p.get("color")
        name = p.get("name", color)
        if not isinstance(color, str) or color.strip().lower() not in PLAYER_COLORS:
            raise BadRequest(
                f"unknown player colour {color!r}: expected one of {', '.join(PLAYER_COLORS)}."
            )
        if not isinstance(name, str) or len(name) > 40:
            raise BadRequest("a player's name must be a string of at most 40 characters.")
        color = color.strip().lower()
        out_players.append({"name": name.strip() or color, "color": color})
    colors = [p["color"] for p in out_players]
    if len(set(colors)) != len(colors):
        raise Conflict("Two players chose the same colour.", "same-colour")
    return {
        "type": "new_game",
        "variant": variant,
        "mode": mode,
        "payment_mode": payment,
        "players": out_players,
    }


def start_other_fold(event: Event) -> OtherFold:
    a = event.action
    kind = game_kind(a["game"])
    seats = [Seat(p["name"], p["color"]) for p in a["players"]]
    fold = OtherFold(event.game_id, kind.name, kind, kind.start(seats, a), seq=event.seq)
    fold.last = {"seq": event.seq, "type": "new_game", "player": None, "text": "new game"}
    fold.add_point()
    return fold


def start_any_fold(event: Event, game_map: GameMap) -> AnyFold:
    if event.action.get("game", EUROPE) != EUROPE:
        return start_other_fold(event)
    return start_fold(event, game_map)


def start_fold(event: Event, game_map: GameMap) -> GameFold:
    a = event.action
    tracker = TableTracker(
        game_map,
        [(p["name"], p["color"]) for p in a["players"]],
        variant=a["variant"],
        payment_mode=a["payment_mode"],
    )
    fold = GameFold(event.game_id, a["mode"], a["variant"], tracker, seq=event.seq)
    fold.last = {"seq": event.seq, "type": "new_game", "player": None, "text": "new game"}
    return fold


def _card_list(value: Any, what: str) -> list[Card]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRequest(f"{what} must be a list of card names.")
    try:
        return [parse_card(v) for v in value]
    except NotationError as exc:
        raise BadRequest(_sentence(str(exc))) from None


def check_action_shape(
    data: Any, game_map: GameMap, game: GameKind | None = None
) -> dict[str, Any]:
    """Validate the JSON shape of a step or correction (400 on any malformation).

    Returns a normalised copy. Rules (whose turn, free routes, ...) are checked by the fold.
    ``game``: the kind of the game being played when it is not Europe.
    """
    if not isinstance(data, Mapping):
        raise BadRequest('An action must be a JSON object with a "type".')
    kind = data.get("type")
    if kind == "new_game":
        return parse_new_game(data, game_map)
    if game is not None:
        return _check_other_shape(data, game_map, game)
    if kind in TABLE_TYPES:
        if kind == "keep_tickets" and data.get("tickets") is None:
            data = {**data, "tickets": []}  # the tickets tapped on the reader, if any
        try:
            return action_from_json(data).to_json()
        except NotationError as exc:
            raise BadRequest(_sentence(str(exc))) from None
    if kind == "finish":
        return {"type": "finish"}
    if kind == "set_payment_mode":
        mode = data.get("payment_mode")
        if mode not in PAYMENT_MODES:
            raise BadRequest(f'"payment_mode" must be one of {", ".join(PAYMENT_MODES)}.')
        return {"type": "set_payment_mode", "payment_mode": mode}
    if kind in ("undo", "redo", "replace"):
        seq = data.get("seq")
        if kind != "undo" and seq is None:
            raise BadRequest(f'a {kind} action needs "seq" (the event to change).')
        if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
            raise BadRequest('"seq" must be a positive whole number.')
        out: dict[str, Any] = {"type": kind}
        if seq is not None:
            out["seq"] = seq
        if kind == "replace":
            inner = check_action_shape(data.get("action"), game_map)
            if inner["type"] not in TABLE_TYPES | SERVICE_STEPS:
                raise BadRequest("only a table action or a service step can replace a step.")
            out["action"] = inner
        return out
    if kind == "set_board":
        return _check_board_shape(data, game_map)
    known = sorted(TABLE_TYPES | HOST_ONLY)
    raise BadRequest(f"unknown action type {kind!r}: expected one of {', '.join(known)}.")


def _check_other_shape(
    data: Mapping[str, Any], game_map: GameMap, game: GameKind
) -> dict[str, Any]:
    kind = data.get("type")
    if kind == "finish":
        return {"type": "finish"}
    if kind in CORRECTIONS:
        seq = data.get("seq")
        if kind != "undo" and seq is None:
            raise BadRequest(f'a {kind} action needs "seq" (the event to change).')
        if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
            raise BadRequest('"seq" must be a positive whole number.')
        out: dict[str, Any] = {"type": kind}
        if seq is not None:
            out["seq"] = seq
        if kind == "replace":
            inner = check_action_shape(data.get("action"), game_map, game)
            if inner["type"] not in (*game.action_types, "finish"):
                raise BadRequest(f"only a {game.title} action can replace a step.")
            out["action"] = inner
        return out
    if kind not in game.action_types:
        known = sorted({*game.action_types, "finish", "new_game", *CORRECTIONS})
        raise BadRequest(
            _sentence(
                f"unknown {game.title} action type {kind!r}: expected one of {', '.join(known)}"
            )
        )
    try:
        return game.check_action(data)
    except NotationError as exc:
        raise BadRequest(_sentence(str(exc))) from None


def _check_board_shape(data: Mapping[str, Any], game_map: GameMap) -> dict[str, Any]:
    def owners(value: Any, what: str, ids: Mapping[str, Any]) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise BadRequest(f'"{what}" must be an object of id -> player colour.')
        out: dict[str, str] = {}
        for k, v in value.items():
            if v is None:
                continue
            if k not in ids:
                raise BadRequest(f"unknown {what[:-1]} id {k!r}.")
            if not isinstance(v, str) or v not in PLAYER_COLORS:
                raise BadRequest(f"the owner of {k} must be a player colour, not {v!r}.")
            out[str(k)] = v
        return dict(sorted(out.items()))

    routes = owners(data.get("routes"), "routes", game_map.routes)
    stations = owners(data.get("stations"), "cities", game_map.cities)
    out: dict[str, Any] = {"type": "set_board", "routes": routes, "stations": stations}
    tickets = data.get("tickets")
    if tickets is not None:
        if not isinstance(tickets, Mapping):
            raise BadRequest('"tickets" must be an object of colour -> list of ticket ids.')
        norm: dict[str, list[str]] = {}
        for color, ids in tickets.items():
            if color not in PLAYER_COLORS:
                raise BadRequest(f"unknown player colour {color!r}.")
            if not isinstance(ids, list) or not all(isinstance(t, str) for t in ids):
                raise BadRequest('"tickets" must be an object of colour -> list of ticket ids.')
            for t in ids:
                if t not in game_map.tickets:
                    raise BadRequest(f"unknown ticket id {t!r}.")
            norm[str(color)] = list(ids)
        out["tickets"] = norm
    return out


def _apply_set_board(tracker: TableTracker, a: Mapping[str, Any]) -> None:
    m = tracker.map
    colors = {p.color for p in tracker.players}
    for what, table in (("route", a["routes"]), ("station", a["stations"])):
        for key, color in table.items():
            if color not in colors:
                raise IllegalActionError(
                    f"the {what} {key} is given to {color}, who does not play in this game",
                    rule="unknown-player",
                )
    tickets: Mapping[str, list[str]] = a.get("tickets") or {}
    for color in tickets:
        if color not in colors:
            raise IllegalActionError(
                f"tickets are given to {color}, who does not play in this game",
                rule="unknown-player",
            )
    ends = []
    for p in tracker.players:
        ends.append(
            PlayerEnd(
                p.color,
                p.name,
                tuple(r for r, c in a["routes"].items() if c == p.color),
                tuple(s for s, c in a["stations"].items() if c == p.color),
                tuple(tickets.get(p.color, p.tickets)),
            )
        )
    try:
        validate_end_state(m, ends)
    except RulesError as exc:
        raise IllegalActionError(str(exc), rule="impossible-board") from None
    if tracker.tunnel is not None:
        raise IllegalActionError(
            f"first settle the tunnel {tracker.tunnel.route}", rule="tunnel-pending"
        )
    tracker.route_owner = dict(a["routes"])
    tracker.station_owner = dict(a["stations"])
    for p, end in zip(tracker.players, ends, strict=True):
        p.routes = list(end.routes)
        p.stations = list(end.stations)
        p.tickets = list(end.tickets)
        p.trains = m.trains_per_player - sum(m.routes[r].length for r in end.routes)
        p.score = sum(m.points_for(m.routes[r]) for r in end.routes)
        if end.tickets:
            p.ready = True


def _photo_keep(tracker: TableTracker, action: KeepTickets) -> None:
    """Photo mode: tickets are entered after the game, in any order."""
    p = tracker.player(action.player)
    if len(set(action.tickets)) != len(action.tickets):
        raise IllegalActionError("a ticket is named twice", rule="ticket-twice")
    for t in action.tickets:
        if t not in tracker.map.tickets:
            raise IllegalActionError(f"unknown ticket id {t!r}", rule="unknown-ticket")
        holder = tracker.ticket_holder(t)
        if holder is not None:
            raise IllegalActionError(f"{t} is already held by {holder}", rule="ticket-held")
    p.tickets.extend(action.tickets)
    p.ready = True


def apply_step(fold: GameFold, a: Mapping[str, Any]) -> list[str]:
    """Apply one step to the fold in place; raises IllegalActionError (fold unchanged)."""
    kind = a["type"]
    if kind == "finish":
        if fold.finished:
            raise IllegalActionError("the game is already finished", rule="finished")
        t = fold.tracker
        if t.tunnel is not None:
            raise IllegalActionError(
                f"first settle the tunnel {t.tunnel.route}: reveal the cards, pay or withdraw",
                rule="tunnel-pending",
            )
        try:
            fold.final = t.final_score()
        except RulesError as exc:
            raise IllegalActionError(str(exc), rule="cannot-score") from None
        return []
    if fold.finished:
        raise IllegalActionError(
            "the game is finished; undo the finish to change it", rule="finished"
        )
    if kind == "set_payment_mode":
        fold.tracker.payment_mode = a["payment_mode"]
        return []
    if kind == "set_board":
        trial = fold.tracker.copy()
        _apply_set_board(trial, a)
        fold.tracker = trial
        return []
    action = action_from_json(a)
    if fold.mode == "photo":
        if not isinstance(action, KeepTickets):
            raise IllegalActionError(
                "in photo mode the board comes from the photo: use set_board, keep_tickets "
                "and finish",
                rule="photo-mode",
            )
        trial = fold.tracker.copy()
        _photo_keep(trial, action)
        fold.tracker = trial
        return []
    return fold.tracker.apply(action)


def describe(a: Mapping[str, Any], *, secret: bool = True) -> str:
    """A short line for the state's ``last`` (ticket ids hidden when ``secret``)."""
    kind = a.get("type")
    if kind == "keep_tickets" and secret:
        n = len(a.get("tickets", []))
        return f"{a.get('player')} keeps {n} ticket{'s' if n != 1 else ''}"
    if kind in ACTION_TYPES:
        try:
            return action_from_json(a).to_text()
        except NotationError:
            return str(kind)
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


def _effective_steps(events: Sequence[Event]) -> tuple[list[Step], list[str]]:
    steps: list[Step] = []
    by_seq: dict[int, Step] = {}
    problems: list[str] = []
    for e in events[1:]:
        kind = e.action.get("type")
        if kind in CORRECTIONS:
            target = by_seq.get(int(e.action.get("seq", 0)))
            if target is None:
                problems.append(f"event {e.seq} corrects an unknown event")
                continue
            if kind == "undo":
                target.effective = None
            elif kind == "redo":
                target.effective = dict(target.action)
            else:
                target.effective = dict(e.action["action"])
        else:
            s = Step(e.seq, e.actor, e.action, dict(e.action))
            steps.append(s)
            by_seq[e.seq] = s
    return steps, problems


def fold_other(events: Sequence[Event]) -> OtherFold:
    """The state of a game other than Europe: replay its effective steps onto its table."""
    fold = start_other_fold(events[0])
    steps, problems = _effective_steps(events)
    fold.steps = steps
    fold.skipped = problems
    warnings: list[str] = []
    for s in steps:
        if s.effective is None:
            continue
        try:
            trial = fold.table.copy()
            warnings = trial.apply(s.effective)
            fold.table = trial
            fold.add_point()
        except (RulesError, KeyError, TypeError, ValueError) as exc:
            log.warning("event %d no longer applies (%s); skipped", s.seq, exc)
            fold.skipped.append(f"event {s.seq} was skipped: {exc}")
            s.effective = None
            warnings = []
    last = events[-1]
    fold.seq = last.seq
    fold.warnings = warnings if last.action.get("type") not in CORRECTIONS else []
    fold.last = _last(last, fold.kind)
    return fold


def fold_game(events: Sequence[Event], game_map: GameMap) -> AnyFold:
    """The state of one game: replay its effective steps in order."""
    if not events or events[0].action.get("type") != "new_game":
        raise ValueError("a game's events must start with new_game")
    if events[0].action.get("game", EUROPE) != EUROPE:
        return fold_other(events)
    fold = start_fold(events[0], game_map)
    steps, problems = _effective_steps(events)
    fold.steps = steps
    fold.skipped = problems
    warnings: list[str] = []
    for s in steps:
        if s.effective is None:
            continue
        try:
            warnings = apply_step(fold, s.effective)
        except (RulesError, KeyError, TypeError, ValueError) as exc:
            # Only a log written by another version of the rules can get here.
            log.warning("event %d no longer applies (%s); skipped", s.seq, exc)
            fold.skipped.append(f"event {s.seq} was skipped: {exc}")
            s.effective = None
            warnings = []
    last = events[-1]
    fold.seq = last.seq
    fold.warnings = warnings if last.action.get("type") not in CORRECTIONS else []
    fold.last = _last(last)
    return fold


def describe_in(kind: GameKind | None, a: Mapping[str, Any], *, secret: bool = True) -> str:
    """:func:`describe` for Europe (``kind`` None) or the game's own line."""
    if kind is None or a.get("type") in ("new_game", "finish"):
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
    if out.get("type") == "set_board" and isinstance(out.get("tickets"), Mapping):
        out["tickets"] = {c: len(v) for c, v in out["tickets"].items()}
    if out.get("type") == "replace" and isinstance(out.get("action"), Mapping):
        out["action"] = public_action(out["action"])
    if out.get("type") == "score_round":
        out.pop("position", None)  # large; the round's result is in the state
    return dict(sorted(out.items()))  # as the log stores it: a restart gives the same state


def _last(e: Event, kind: GameKind | None = None) -> dict[str, Any]:
    a = e.action
    return {
        "seq": e.seq,
        "type": a.get("type"),
        "player": a.get("player"),
        "actor": e.actor,
        "text": describe_in(kind, a),
        "action": public_action(a),
    }


# --- the public state -----------------------------------------------------------------------


@dataclass
class Confirmation:
    id: str
    kind: str  # "claim" | "station"
    key: str
    color: str
    reason: str
    action: dict[str, Any]
    reason_code: str = "message"
    reason_params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "route": self.key if self.kind == "claim" else None,
            "city": self.key if self.kind == "station" else None,
            "color": self.color,
            "reason": self.reason,
            "reason_code": self.reason_code,
            "reason_params": self.reason_params,
            "action": self.action,
        }


@dataclass
class Pending:
    """Taps and camera questions waiting for a decision (not in the log)."""

    payment_player: str | None = None
    cards: list[str] = field(default_factory=list)
    uids: list[str] = field(default_factory=list)
    duplicates: int = 0
    tickets_player: str | None = None
    tickets: list[str] = field(default_factory=list)
    reader_player: str | None = None
    confirmations: list[Confirmation] = field(default_factory=list)
    counter: int = 0
    # (seq of the end_turn, player, cards): a player's taps when they ended their turn
    # without an action, kept for a claim the camera reports late (see reconcile; not shown)
    ended: tuple[int, str, list[str]] | None = None

    def clear_payment(self) -> None:
        self.payment_player = None
        self.cards = []
        self.uids = []
        self.duplicates = 0

    def clear_tickets(self) -> None:
        self.tickets_player = None
        self.tickets = []

    def to_json(self) -> dict[str, Any]:
        return {
            "payment": None
            if self.payment_player is None
            else {
                "player": self.payment_player,
                "cards": list(self.cards),
                "duplicates": self.duplicates,
            },
            "tickets": None
            if self.tickets_player is None
            else {"player": self.tickets_player, "count": len(self.tickets)},
            "reader_player": self.reader_player,
            "confirmations": [c.to_json() for c in self.confirmations],
        }


def _announcement_of(fold: GameFold) -> tuple[str, str, dict[str, Any]] | None:
    """The announcement as (sentence, code, params); None when there is nothing to announce."""
    t = fold.tracker
    if fold.finished:
        winners = [p.name for p in fold.final.players if p.rank == 1] if fold.final else []
        text = f"Game over. {' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'}!"
        return text, "game.over", {"winners": winners}
    if t.over:
        return (
            "The last turn is played: the host can finish the game for the final scores.",
            "game.last_turn_played",
            {},
        )
    if t.final.trigger is not None:
        trig = t.players[t.final.trigger]
        text = (
            f"Final round: {trig.name} ({trig.color}) has {trig.trains} train"
            f"{'s' if trig.trains != 1 else ''} left. Everyone plays one last turn, "
            f"ending with {trig.color}."
        )
        return text, "final.round", {"name": trig.name, "color": trig.color, "n": trig.trains}
    return None


def _announcement(fold: GameFold) -> str | None:
    ann = _announcement_of(fold)
    return ann[0] if ann else None


def other_public_state(
    fold: OtherFold,
    pend: dict[str, Any],
    paired: Mapping[str, str] | None,
    *,
    seq: int = 0,
) -> dict[str, Any]:
    """The public state of a game other than Europe: the same fields, filled by its table."""
    pub = fold.table.public()
    for p in pub["players"]:
        p["paired"] = bool(paired and p["color"] in paired)
    ann = fold.table.announcement()
    return {
        "seq": seq or fold.seq,
        "game": fold.game,
        "game_id": fold.game_id,
        "mode": "table",
        "variant": fold.game,
        "payment_mode": pub["payment_mode"],
        "phase": pub["phase"],
        "turn": pub["turn"],
        "current": pub["current"],
        "acted": pub["acted"],
        "final_round": pub["final_round"],
        "turns_left": pub["turns_left"],
        "announcement": ann[0] if ann else None,
        "announcement_code": ann[1] if ann else None,
        "announcement_params": ann[2] if ann else None,
        "tunnel": None,
        "players": pub["players"],
        "winners": fold.table.winners,
        "warnings": list(fold.warnings),
        "last": fold.last,
        "can_undo": any(s.effective is not None for s in fold.steps),
        "pending": pend,
        "table": pub["table"],
        "series": [dict(p) for p in fold.series],
    }


def public_state(
    fold: AnyFold | None,
    pending: Pending | None = None,
    paired: Mapping[str, str] | None = None,
    *,
    seq: int = 0,
) -> dict[str, Any]:
    """The public state (no ticket ids until the game is finished)."""
    pend = (pending or Pending()).to_json()
    if isinstance(fold, OtherFold):
        return other_public_state(fold, pend, paired, seq=seq)
    if fold is None:
        return {
            "seq": seq,
            "game": None,
            "game_id": None,
            "mode": None,
            "variant": None,
            "payment_mode": None,
            "phase": "none",
            "turn": 0,
            "current": None,
            "acted": False,
            "final_round": False,
            "turns_left": None,
            "announcement": None,
            "announcement_code": None,
            "announcement_params": None,
            "tunnel": None,
            "players": [],
            "winners": [],
            "warnings": [],
            "last": None,
            "can_undo": False,
            "pending": pend,
        }
    t = fold.tracker
    m = t.map
    final = {p.color: p for p in fold.final.players} if fold.final else {}
    if fold.finished:
        phase = "finished"
    elif fold.mode == "photo":
        phase = "playing"
    else:
        phase = t.phase
    players = []
    for p in t.players:
        score = final[p.color].total if p.color in final else p.score
        players.append(
            {
                "name": p.name,
                "color": p.color,
                "score": score,
                "trains_left": p.trains,
                "stations_left": m.stations_per_player - len(p.stations),
                "routes": list(p.routes),
                "stations": list(p.stations),
                "tickets_held": len(p.tickets),
                "ready": p.ready,
                "paired": bool(paired and p.color in paired),
                "final": final[p.color].to_json() if p.color in final else None,
            }
        )
    tunnel = None
    if t.tunnel is not None:
        tunnel = {"player": t.current_player.color, **t.tunnel.to_json()}
    live = not fold.finished and fold.mode == "table" and not t.over
    ann = _announcement_of(fold)
    return {
        "seq": seq or fold.seq,
        "game": EUROPE,
        "game_id": fold.game_id,
        "mode": fold.mode,
        "variant": fold.variant,
        "payment_mode": t.payment_mode,
        "phase": phase,
        "turn": t.turn,
        "current": t.current_player.color if live else None,
        "acted": t.acted if live else False,
        "final_round": t.final_round and not fold.finished,
        "turns_left": t.final.turns_left if live else None,
        "announcement": ann[0] if ann else None,
        "announcement_code": ann[1] if ann else None,
        "announcement_params": ann[2] if ann else None,
        "tunnel": tunnel,
        "players": players,
        "winners": list(fold.final.winners) if fold.final else [],
        "warnings": list(fold.warnings),
        "last": fold.last,
        "can_undo": any(s.effective is not None for s in fold.steps),
        "pending": pend,
    }


# --- ticket progress ------------------------------------------------------------------------


def _blocked(t: TableTracker, color: str, route: Route) -> bool:
    owner = t.route_owner.get(route.id)
    if owner is not None:
        return owner != color
    if route.twin is not None:
        twin_owner = t.route_owner.get(route.twin)
        if twin_owner == color:
            return True
        if twin_owner is not None and t.n_players <= 3:
            return True
    return False


def missing_routes(t: TableTracker, color: str, a: str, b: str) -> list[str] | None:
    """Cheapest set of free routes joining a and b with the player's own (None: impossible).

    Dijkstra over own routes (weight 0) and claimable free routes (weight = length).
    """
    m = t.map
    dist: dict[str, int] = {a: 0}
    prev: dict[str, tuple[str, Route]] = {}
    heap: list[tuple[int, str]] = [(0, a)]
    done: set[str] = set()
    while heap:
        d, city = heapq.heappop(heap)
        if city in done:
            continue
        done.add(city)
        if city == b:
            break
        for r in sorted(m.routes_at.get(city, ()), key=lambda r: r.id):
            if _blocked(t, color, r):
                continue
            w = 0 if t.route_owner.get(r.id) == color else r.length
            nxt = r.other_end(city)
            nd = d + w
            if nd < dist.get(nxt, 1 << 30):
                dist[nxt] = nd
                prev[nxt] = (city, r)
                heapq.heappush(heap, (nd, nxt))
    if b not in done:
        return None
    path: list[str] = []
    node = b
    while node != a:
        city, r = prev[node]
        if t.route_owner.get(r.id) != color:
            path.append(r.id)
        node = city
    return sorted(path)


def ticket_progress(
    fold: GameFold, color: str, pending_tickets: Sequence[str] = ()
) -> dict[str, Any]:
    t = fold.tracker
    m = t.map
    player = t.player(color)
    if fold.final is not None:
        results = {r.id: r for r in fold.final.by_color(color).tickets}
    else:
        score = score_final(m, t.end_positions())
        results = {r.id: r for r in score.by_color(color).tickets}
    tickets = []
    points = 0
    for tid in player.tickets:
        tk = m.tickets[tid]
        res = results[tid]
        missing: list[str] | None = [] if res.completed else missing_routes(t, color, tk.a, tk.b)
        trains = sum(m.routes[r].length for r in missing) if missing else 0
        points += res.points
        tickets.append(
            {
                "id": tid,
                "a": tk.a,
                "b": tk.b,
                "points": tk.points,
                "long": tk.long,
                "completed": res.completed,
                "path": list(res.path),
                "reachable": res.completed or (missing is not None and trains <= player.trains),
                "missing": missing if missing is not None else [],
                "missing_trains": trains,
            }
        )
    return {
        "color": color,
        "game_id": fold.game_id,
        "pending": list(pending_tickets),
        "tickets": tickets,
        "points_if_ended_now": points,
    }


# --- observations and reconciliation ----------------------------------------------------------

OBSERVATION_KINDS = (
    "claim_seen",
    "station_seen",
    "card_tapped",
    "ticket_tapped",
    "reader_player",
    "button",
)
BUTTONS = ("end_turn", "undo", "confirm", "reject")

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


def check_observation(data: Any) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise BadRequest('An observation must be a JSON object with a "kind".')
    kind = data.get("kind")
    if kind not in OBSERVATION_KINDS:
        raise BadRequest(
            f"unknown observation kind {kind!r}: expected one of {', '.join(OBSERVATION_KINDS)}."
        )

    def text(name: str, optional: bool = False) -> str | None:
        v = data.get(name)
        if v is None and optional:
            return None
        if not isinstance(v, str) or not v.strip():
            raise BadRequest(f'a {kind} observation needs "{name}" (a string).')
        return v.strip().lower()

    out: dict[str, Any] = {"kind": kind}
    if kind == "claim_seen":
        out["route"], out["color"] = text("route"), text("color")
    elif kind == "station_seen":
        out["city"], out["color"] = text("city"), text("color")
    elif kind == "card_tapped":
        card = text("card")
        try:
            out["card"] = parse_card(card or "").value
        except NotationError as exc:
            raise BadRequest(_sentence(str(exc))) from None
        out["uid"] = text("uid", optional=True)
    elif kind == "ticket_tapped":
        out["ticket"] = text("ticket")
        out["uid"] = text("uid", optional=True)
    elif kind == "reader_player":
        out["player"] = text("player")
    else:
        name = text("name")
        if name not in BUTTONS:
            raise BadRequest(f"unknown button {name!r}: expected one of {', '.join(BUTTONS)}.")
        out["name"] = name
    for key in ("color", "player"):
        if key in out and out[key] not in PLAYER_COLORS:
            raise BadRequest(f"unknown player colour {out[key]!r}.")
    if kind == "claim_seen" and data.get("unsure") is not None:
        if not isinstance(data.get("unsure"), bool):
            raise BadRequest('"unsure" must be true or false.')
        out["unsure"] = bool(data["unsure"])
    return out


@dataclass(frozen=True)
class Decision:
    """What an observation means: ``apply`` an action, ``confirm`` (ask), ``veto``, ``ignore``,
    or ``tap`` (collected into the pending payment/tickets)."""

    kind: str
    reason: str = ""
    action: dict[str, Any] | None = None
    code: str = ""  # a stable code for the reason (translated by the dashboard) ...
    params: dict[str, Any] = field(default_factory=dict)  # ... and what fills it in


def _rule_decision(kind: str, exc: RulesError, action: dict[str, Any]) -> Decision:
    """A decision whose reason is a refusal by the rules: code ``rule.<rule>``."""
    params: dict[str, Any] = {k: action[k] for k in ("route", "city") if k in action}
    params["color"] = action.get("player")
    params["text"] = _sentence(str(exc))
    rule = getattr(exc, "rule", None) or "illegal"
    return Decision(kind, str(exc), action, f"rule.{rule}", params)


def _ended_turn(fold: GameFold, color: str) -> Step | None:
    """The step that ended ``color``'s turn, when it is the game's last live step."""
    for s in reversed(fold.steps):
        if s.effective is None:
            continue
        if s.effective.get("type") == "end_turn" and s.effective.get("player") == color:
            return s
        return None
    return None


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
        if route not in t.map.routes:
            return Decision(
                "veto",
                f"the camera saw an unknown route {route!r}",
                code="camera.unknown_route",
                params={"id": route},
            )
        owner = t.route_owner.get(route)
        if owner == color:
            return Decision("ignore", f"{route} is already {color}'s")
        if owner is not None:
            return Decision(
                "veto",
                f"the camera saw {color} trains on {route}, which belongs to {owner}",
                code="camera.route_taken",
                params={"color": color, "route": route, "owner": owner},
            )
        if t.tunnel is not None and t.tunnel.route == route:
            return Decision("ignore", f"the tunnel {route} is being settled")
        action: dict[str, Any] = {"type": "claim", "player": color, "route": route}
    else:
        city = obs["city"]
        if city not in t.map.cities:
            return Decision(
                "veto",
                f"the camera saw a station on an unknown city {city!r}",
                code="camera.unknown_city",
                params={"id": city},
            )
        owner = t.station_owner.get(city)
        if owner == color:
            return Decision("ignore", f"the station on {city} is already {color}'s")
        if owner is not None:
            return Decision(
                "veto",
                f"the camera saw a {color} station on {city}, which holds {owner}'s",
                code="camera.station_taken",
                params={"color": color, "city": city, "owner": owner},
            )
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
    ended = _ended_turn(fold, color) if late and not t.acted and t.phase != "setup" else None
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
        return _rule_decision("veto" if exc.rule in VETO_RULES else "confirm", exc, action)
    if obs.get("unsure"):
        route = action.get("route")
        return Decision(
            "confirm",
            f"the camera cannot tell {color} trains from {route}'s print, which is {color} too",
            action,
            "camera.unsure_same_colour",
            {"color": color, "route": route},
        )
    return Decision("apply", "", action)


# --- subscribers ----------------------------------------------------------------------------


class Subscription:
    """One server-sent-events client: a bounded queue of (event, id, data)."""

    def __init__(self, service: Service, maxsize: int = 256) -> None:
        self._service = service
        self.queue: queue.Queue[tuple[str | None, int | None, str] | None] = queue.Queue(maxsize)
        self.closed = False

    def put(self, item: tuple[str | None, int | None, str] | None) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(item)
        except queue.Full:
            # A client that does not read: drop it; it reconnects with Last-Event-ID.
            self.closed = True

    def get(self, timeout: float) -> tuple[str | None, int | None, str] | None:
        """The next message; raises queue.Empty on timeout, None when closed."""
        if self.closed and self.queue.empty():
            return None
        return self.queue.get(timeout=timeout)

    def close(self) -> None:
        self.closed = True
        self._service.unsubscribe(self)


# --- the service ----------------------------------------------------------------------------


@dataclass
class PhotoJob:
    id: str
    status: str = "reading"  # reading | done | failed
    error: str | None = None
    reading: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"job": self.id, "status": self.status, "error": self.error, "reading": self.reading}


class Service:
    """Owns the current game. Every change runs on the loop thread, in arrival order."""

    def __init__(
        self,
        store: EventStore,
        game_map: GameMap | None = None,
        *,
        history: int = 256,
        photo_reader: Callable[[bytes], dict[str, Any]] | None = None,
    ) -> None:
        if game_map is None:
            from companion.data import europe_map

            game_map = europe_map()
        self.store = store
        self.map = game_map
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # subscribers, recent, snapshot
        self._subs: set[Subscription] = set()
        self._recent: deque[tuple[int, str]] = deque(maxlen=history)
        self.fold: AnyFold | None = None
        self.events: list[Event] = []
        self.pending = Pending()
        self.paired: dict[str, str] = {}
        self._snapshot: dict[str, Any] = {}
        self._snapshot_json = ""
        self._photo_reader = photo_reader
        self._photo_pool: ThreadPoolExecutor | None = None
        self._photo_jobs: dict[str, PhotoJob] = {}
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._closing = False
        self._load()

    # --- lifecycle ------------------------------------------------------------------
    def _load(self) -> None:
        game_id = self.store.current_game_id()
        if game_id is not None:
            self.events = self.store.events(game_id)
            self.fold = fold_game(self.events, self.map)
            self.paired = self.store.tokens_of(game_id)
        self._refresh(publish=False)

    def start(self) -> Service:
        self._closing = False
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="companion-loop", daemon=True)
            self._thread.start()
        return self

    def close_streams(self) -> None:
        """End every server-sent-event stream now and refuse new ones (the server is stopping):
        the web threads finish their responses while the server can still send them."""
        with self._lock:
            self._closing = True
            subs = list(self._subs)
        for s in subs:
            s.put(None)

    def stop(self, timeout: float = 5.0) -> None:
        self.close_streams()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None
        if self._photo_pool is not None:
            self._photo_pool.shutdown(wait=False, cancel_futures=True)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, fut = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(self._run_one(fn))
            except BaseException as exc:
                if not isinstance(exc, ServiceError):
                    log.exception("the game loop failed on a command")
                fut.set_exception(exc)

    def _run_one(self, fn: Callable[[], T]) -> T:
        """Run one command; a refusal by the rules (409) is told to the listeners."""
        try:
            return fn()
        except Conflict as exc:
            self._tell("refused", exc.to_json())
            raise

    def call(self, fn: Callable[[], T], timeout: float = 15.0) -> T:
        """Run ``fn`` on the loop thread and wait for its result (or its ServiceError)."""
        if self._thread is None:
            return self._run_one(fn)
        if threading.current_thread() is self._thread:
            return fn()
        fut: Future[T] = Future()
        self._queue.put((fn, fut))
        try:
            return fut.result(timeout)
        except TimeoutError:
            raise Unavailable("The game loop is busy; try again in a moment.") from None

    def post(self, fn: Callable[[], Any]) -> Future[Any]:
        """Queue ``fn`` for the loop thread without waiting."""
        fut: Future[Any] = Future()
        if self._thread is None:
            try:
                fut.set_result(self._run_one(fn))
            except BaseException as exc:
                fut.set_exception(exc)
            return fut
        self._queue.put((fn, fut))
        return fut

    # --- snapshots and publishing ------------------------------------------------------
    @property
    def seq(self) -> int:
        return self.fold.seq if self.fold else self.store.last_seq()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._snapshot

    def state_json(self) -> str:
        with self._lock:
            return self._snapshot_json

    def _refresh(self, *, publish: bool = True, pending_only: bool = False) -> None:
        snap = public_state(self.fold, self.pending, self.paired, seq=self.seq)
        text = json.dumps(snap, separators=(",", ":"))
        with self._lock:
            self._snapshot = snap
            self._snapshot_json = text
            seq = int(snap["seq"])
            if not pending_only and (not self._recent or self._recent[-1][0] != seq):
                self._recent.append((seq, text))
            elif self._recent and self._recent[-1][0] == seq:
                self._recent[-1] = (seq, text)
            if publish:
                if pending_only:
                    msg: tuple[str | None, int | None, str] = (
                        "pending",
                        None,
                        json.dumps(snap["pending"], separators=(",", ":")),
                    )
                else:
                    msg = (None, seq, text)
                for s in list(self._subs):
                    s.put(msg)
        self._tell("pending" if pending_only else "state", snap)

    def notice(
        self,
        text: str,
        level: str = "info",
        color: str | None = None,
        *,
        code: str = "message",
        params: Mapping[str, Any] | None = None,
    ) -> None:
        """Tell every screen. ``code`` + ``params``: the same message for the dashboard to
        translate (codes in API.md; ``message``: only the English ``text``)."""
        payload = {
            "level": level,
            "text": _sentence(text),
            "color": color,
            "code": code,
            "params": dict(params or {}),
        }
        data = json.dumps(payload, separators=(",", ":"))
        log.info("notice: %s", text)
        with self._lock:
            for s in list(self._subs):
                s.put(("notice", None, data))
        self._tell("notice", payload)

    def _tell(self, kind: str, data: dict[str, Any]) -> None:
        """Call the in-process listeners (e.g. the buttons' LED and buzzer).

        ``kind``: "state", "pending", "notice", "refused" (a 409: ``{"error", "rule"}``) or
        "vetoed" (a camera sighting that cannot be: ``{"text", "color"}``, and for a claim or
        station ``"kind"`` "claim"/"station", ``"key"`` its route/city, ``"owner"`` its owner if
        any) or "rejected" (a camera question answered no: ``{"kind", "key", "color"}``; the
        camera's watcher forgets that sighting). Listeners run on
        the loop thread (or the caller's for a refusal outside it): they must only queue.
        """
        for fn in list(self.listeners):
            try:
                fn(kind, data)
            except Exception:
                log.exception("a state listener failed")

    def subscribe(self, last_event_id: int | None = None) -> Subscription:
        """A new subscriber with its backlog queued (no gap, no duplicate)."""
        sub = Subscription(self)
        with self._lock:
            if self._closing:
                sub.closed = True  # shutting down: the stream ends at once
                return sub
            current = (self._snapshot["seq"], self._snapshot_json)
            if last_event_id is None or last_event_id > current[0]:
                backlog = [current]
            elif last_event_id == current[0]:
                backlog = []
            else:
                seqs = [s for s, _ in self._recent]
                if last_event_id in seqs:
                    backlog = [(s, j) for s, j in self._recent if s > last_event_id]
                else:
                    backlog = [current]
            for seq, text in backlog:
                sub.put((None, seq, text))
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subs)

    # --- actions --------------------------------------------------------------------
    def act(self, data: Any, actor: Actor) -> dict[str, Any]:
        """Validate, log and apply one action; returns the new public state."""
        fold = self.fold
        game = fold.kind if isinstance(fold, OtherFold) else None
        action = check_action_shape(data, self.map, game)
        self._authorize(action, actor)
        return self.call(lambda: self._act(action, actor, game))

    def _authorize(self, action: Mapping[str, Any], actor: Actor) -> None:
        if actor.role == "host" or actor.role == "device":
            return
        kind = action["type"]
        if kind in HOST_ONLY:
            raise Forbidden(f"Only the host can {describe(action).split(':')[0]}.")
        if action.get("player") is None:
            raise Forbidden("Only the host can enter this for the whole table.")
        if action.get("player") != actor.color:
            raise Forbidden(
                f"This phone is paired with {actor.color}; only the host can act for "
                f"{action.get('player')}."
            )

    def _act(
        self, action: dict[str, Any], actor: Actor, game: GameKind | None = None
    ) -> dict[str, Any]:
        # A player's pairing must belong to the game being played now.
        if actor.role == "player" and (
            self.fold is None or self.paired.get(actor.color or "") is None
        ):
            raise Forbidden("This phone's pairing is for another game.")
        kind = action["type"]
        now = self.fold.kind if isinstance(self.fold, OtherFold) else None
        if kind != "new_game" and now is not game:
            raise Conflict("A new game was started meanwhile: look again.", "game-changed")
        if kind == "new_game":
            self._new_game(action, actor)
        elif kind in CORRECTIONS:
            self._correct(action, actor)
        else:
            self._step(action, actor)
        return self._snapshot

    def _new_game(self, action: dict[str, Any], actor: Actor) -> None:
        game_id = "g" + secrets.token_hex(5)
        event = self.store.new_game(
            game_id,
            variant=action["variant"],
            mode=action["mode"],
            players=action["players"],
            actor=actor.name,
            action=action,
        )
        self.events = [event]
        self.fold = start_any_fold(event, self.map)
        self.pending = Pending()
        self.paired = {}
        self._refresh()

    def _require_game(self) -> AnyFold:
        if self.fold is None:
            raise Conflict("No game is running: start a new game first.", "no-game")
        return self.fold

    def _require_europe(self) -> GameFold:
        fold = self._require_game()
        if isinstance(fold, OtherFold):
            raise Conflict("This works in Ticket to Ride: Europe games only.", "not-europe")
        return fold

    def _fill_from_pending(self, action: dict[str, Any]) -> tuple[bool, bool]:
        """Use tapped cards/tickets for an action that names none. (used cards, used tickets)"""
        kind = action["type"]
        player = action.get("player")
        used_cards = used_tickets = False
        if (
            kind in ("claim", "build_station", "tunnel_pay")
            and "cards" not in action
            and self.pending.payment_player == player
            and self.pending.cards
        ):
            action["cards"] = list(self.pending.cards)
            used_cards = True
        if kind in ("claim", "build_station", "tunnel_pay") and "cards" in action:
            used_cards = used_cards or self.pending.payment_player == player
        if (
            kind == "keep_tickets"
            and not action.get("tickets")
            and self.pending.tickets_player == player
            and self.pending.tickets
        ):
            action["tickets"] = list(self.pending.tickets)
            used_tickets = True
        return used_cards, used_tickets

    def _step_other(self, fold: OtherFold, action: dict[str, Any], actor: Actor) -> None:
        trial = fold.table.copy()
        try:
            warnings = trial.apply(action)
        except RulesError as exc:
            raise conflict(exc) from None
        was_finished = fold.finished
        event = self.store.append(
            fold.game_id,
            actor.name,
            action,
            finished=True if trial.finished and not was_finished else None,
            winners=trial.winners if trial.finished else None,
        )
        self.events.append(event)
        new = OtherFold(
            fold.game_id,
            fold.game,
            fold.kind,
            trial,
            seq=event.seq,
            steps=[*fold.steps, Step(event.seq, actor.name, action, dict(action))],
            warnings=warnings,
            last=_last(event, fold.kind),
            skipped=fold.skipped,
            series=list(fold.series),
        )
        new.add_point()
        self.fold = new
        self._refresh()
        for w in warnings:
            player = action.get("player")
            params = {"player": player, "text": _sentence(w)}
            self.notice(w, "warning", player, code="payment.warning", params=params)
        before = fold.table.public()["final_round"]
        if new.table.public()["final_round"] and not before:
            ann = new.table.announcement()
            if ann:
                self.notice(ann[0], "info", code=ann[1], params=ann[2])

    def _step(self, action: dict[str, Any], actor: Actor) -> None:
        fold0 = self._require_game()
        if isinstance(fold0, OtherFold):
            self._step_other(fold0, action, actor)
            return
        fold = fold0
        action = dict(action)
        used_cards, used_tickets = self._fill_from_pending(action)
        if action["type"] == "keep_tickets" and not action.get("tickets"):
            raise BadRequest("Name the tickets to keep (or tap them on the reader first).")
        trial = GameFold(
            fold.game_id,
            fold.mode,
            fold.variant,
            fold.tracker.copy(),
            seq=fold.seq,
            steps=fold.steps,
            final=fold.final,
        )
        try:
            warnings = apply_step(trial, action)
        except RulesError as exc:
            raise conflict(exc) from None
        was_finished = fold.finished
        event = self.store.append(
            fold.game_id,
            actor.name,
            action,
            finished=True if trial.finished and not was_finished else None,
            winners=trial.final.winners if trial.final else None,
        )
        self.events.append(event)
        p = self.pending
        if (
            action["type"] == "end_turn"
            and not fold.tracker.acted
            and p.cards
            and p.payment_player == action.get("player")
        ):
            # Ended without an action: these taps may pay for a claim the camera reports late.
            p.ended = (event.seq, str(action["player"]), list(p.cards))
        else:
            p.ended = None
        trial.steps = [*fold.steps, Step(event.seq, actor.name, action, dict(action))]
        trial.seq = event.seq
        trial.warnings = warnings
        trial.last = _last(event)
        trial.skipped = fold.skipped
        self.fold = trial
        if trial.tracker.current != fold.tracker.current or trial.tracker.over:
            # A new turn: the reader follows the player whose turn it is; stray taps go.
            self.pending.reader_player = None
            self.pending.clear_payment()
        if used_cards:
            self.pending.clear_payment()
        if used_tickets:
            self.pending.clear_tickets()
        self._drop_stale_confirmations()
        self._refresh()
        for w in warnings:
            player = action.get("player")
            params = {"player": player, "text": _sentence(w)}
            self.notice(w, "warning", player, code="payment.warning", params=params)
        if trial.tracker.final_round and not fold.tracker.final_round:
            ann = _announcement_of(trial)
            if ann:
                self.notice(ann[0], "info", code=ann[1], params=ann[2])

    def _correct(self, action: dict[str, Any], actor: Actor) -> None:
        fold = self._require_game()
        kind = action["type"]
        seq = action.get("seq")
        if kind == "undo" and seq is None:
            live = [s for s in fold.steps if s.effective is not None]
            if not live:
                raise Conflict("There is nothing to undo in this game.", "nothing-to-undo")
            seq = live[-1].seq
            action = {**action, "seq": seq}
        target = fold.step(int(seq or 0))
        if target is None:
            raise NotFound(f"This game has no step #{seq} to {kind}.")
        if kind == "undo" and target.effective is None:
            raise Conflict(f"Step #{seq} is already undone.", "already-undone")
        if kind == "redo" and target.effective is not None:
            raise Conflict(f"Step #{seq} is not undone.", "not-undone")
        # Try the whole game with the correction; every later step must stay legal.
        probe = Event(0, fold.game_id, 0.0, actor.name, action)
        trial_events = [*self.events, probe]
        try:
            trial = self._strict_fold(trial_events)
        except RulesError as exc:
            raise conflict(exc) from None
        event = self.store.append(
            fold.game_id,
            actor.name,
            action,
            finished=trial.finished if trial.finished != fold.finished else None,
            winners=fold_winners(trial),
        )
        self.events.append(event)
        self.fold = fold_game(self.events, self.map)
        self._drop_stale_confirmations()
        self._refresh()

    def _strict_fold(self, events: Sequence[Event]) -> AnyFold:
        """Fold, raising IllegalActionError naming the first step that no longer applies."""
        fold = start_any_fold(events[0], self.map)
        kind = fold.kind if isinstance(fold, OtherFold) else None
        steps, _ = _effective_steps(events)
        for s in steps:
            if s.effective is None:
                continue
            try:
                if isinstance(fold, OtherFold):
                    fold.table.apply(s.effective)
                else:
                    apply_step(fold, s.effective)
            except RulesError as exc:
                text = describe_in(kind, s.effective)
                raise IllegalActionError(
                    f"that would make step #{s.seq} ({text}) illegal: {exc}",
                    rule=getattr(exc, "rule", "illegal"),
                ) from None
        return fold

    # --- observations ---------------------------------------------------------------
    def observe(self, data: Any, actor: Actor | None = None) -> dict[str, Any]:
        obs = check_observation(data)
        who = actor or Actor.host()
        return self.call(lambda: self._observe(obs, who))

    def observe_nowait(self, data: Mapping[str, Any], actor: Actor | None = None) -> Future[Any]:
        """For devices in the process: queue an observation (bad ones are logged)."""
        obs = check_observation(data)
        who = actor or Actor.device("camera")
        return self.post(lambda: self._observe(obs, who))

    def _observe(self, obs: dict[str, Any], actor: Actor, late: bool = True) -> dict[str, Any]:
        decision = reconcile(self.fold, self.pending, obs, late=late)
        seq = self.seq
        if decision.kind == "ignore":
            return {"result": "ignored", "text": _sentence(decision.reason), "seq": seq}
        if decision.kind == "veto":
            told: dict[str, Any] = {"text": _sentence(decision.reason), "color": obs.get("color")}
            if obs["kind"] in ("claim_seen", "station_seen"):
                told["kind"] = "claim" if obs["kind"] == "claim_seen" else "station"
                told["key"] = obs.get("route") or obs.get("city")
                told["owner"] = decision.params.get("owner")
            self._tell("vetoed", told)
            self.notice(
                decision.reason,
                "warning",
                obs.get("color"),
                code=decision.code or "message",
                params=decision.params,
            )
            return {"result": "vetoed", "text": _sentence(decision.reason), "seq": seq}
        if decision.kind == "tap":
            text = self._tap(obs)
            return {"result": "pending", "text": text, "seq": seq}
        if decision.kind == "button":
            return self._button(obs["name"], actor)
        assert decision.action is not None
        device = Actor("device", None, actor.name if actor.role == "device" else "camera")
        if decision.kind == "late":
            try:
                return self._late(decision, device)
            except ServiceError:
                # That turn already had its action (or the claim cannot be): as before.
                return self._observe(obs, actor, late=False)
        if decision.kind == "confirm":
            return self._ask(obs, decision)
        try:
            self._step(decision.action, device)
        except ServiceError as exc:
            # The loop state moved between the decision and the step: ask instead.
            params = {"color": obs.get("color"), "text": _sentence(exc.message)}
            code = f"rule.{exc.rule}" if exc.rule else "message"
            again = Decision("confirm", exc.message, decision.action, code, params)
            return self._ask(obs, again)
        return {"result": "applied", "text": _sentence(describe(decision.action)), "seq": self.seq}

    def _late(self, decision: Decision, device: Actor) -> dict[str, Any]:
        """A claim/station seen after its player ended a turn without an action, nobody having
        acted since: put it into that turn. Logged as two events, ``replace`` of the end_turn
        by the claim, then the end_turn again, so that replaying the log gives this state."""
        fold = self._require_europe()
        assert decision.action is not None
        action = dict(decision.action)
        seq = int(decision.params["seq"])
        end = fold.step(seq)
        if end is None or end.effective is None:
            raise Conflict("That turn is no longer the last one.", "late-claim")
        fix = {"type": "replace", "seq": seq, "action": action}
        again = dict(end.effective)
        probe = [
            Event(0, fold.game_id, 0.0, device.name, fix),
            Event(0, fold.game_id, 0.0, end.actor, again),
        ]
        try:
            trial = self._strict_fold([*self.events, *probe])
        except RulesError as exc:
            raise conflict(exc) from None
        assert isinstance(trial, GameFold)
        for actor_name, a in ((device.name, fix), (end.actor, again)):
            self.events.append(self.store.append(fold.game_id, actor_name, a))
        self.fold = fold_game(self.events, self.map)
        if self.pending.ended is not None and self.pending.ended[0] == seq:
            self.pending.ended = None
        self._drop_stale_confirmations()
        self._refresh()
        color = str(action.get("player"))
        where: dict[str, Any] = {k: action[k] for k in ("route", "city") if k in action}
        text = f"{describe(action)}: seen after {color}'s turn ended, entered into that turn"
        self.notice(text, "info", color, code="camera.late_claim", params={"color": color, **where})
        new = self.fold
        if isinstance(new, GameFold) and new.tracker.final_round and not fold.tracker.final_round:
            ann = _announcement_of(new)
            if ann:
                self.notice(ann[0], "info", code=ann[1], params=ann[2])
        return {"result": "applied", "text": _sentence(text), "seq": self.seq}

    def _ask(self, obs: Mapping[str, Any], decision: Decision) -> dict[str, Any]:
        assert decision.action is not None
        kind = "claim" if obs["kind"] == "claim_seen" else "station"
        key = obs.get("route") or obs.get("city") or ""
        for c in self.pending.confirmations:
            if c.kind == kind and c.key == key and c.color == obs["color"]:
                return {"result": "pending", "text": _sentence(c.reason), "seq": self.seq}
        self.pending.counter += 1
        reason: dict[str, Any] = {
            "code": decision.code or "message",
            "params": decision.params,
            "text": _sentence(decision.reason),
        }
        conf = Confirmation(
            f"c{self.pending.counter}",
            kind,
            key,
            obs["color"],
            decision.reason,
            decision.action,
            decision.code or "message",
            decision.params,
        )
        self.pending.confirmations.append(conf)
        self._refresh(pending_only=True)
        where = {"route": key} if kind == "claim" else {"city": key}
        self.notice(
            f"Please confirm: {describe(decision.action)}? {decision.reason}",
            "warning",
            code=f"camera.confirm_{kind}",
            params={"color": obs["color"], **where, "reason": reason},
        )
        return {"result": "pending", "text": _sentence(decision.reason), "seq": self.seq}

    def _tap(self, obs: Mapping[str, Any]) -> str:
        fold = self._require_europe()
        t = fold.tracker
        kind = obs["kind"]
        if kind == "reader_player":
            player = obs["player"]
            if player not in {p.color for p in t.players}:
                raise Conflict(f"No player plays {player} in this game.", "unknown-player")
            self.pending.reader_player = player
            self._refresh(pending_only=True)
            return f"The reader now takes {player}'s cards."
        who = self.pending.reader_player or t.current_player.color
        if kind == "card_tapped":
            if self.pending.payment_player != who:
                self.pending.clear_payment()
                self.pending.payment_player = who
            uid = obs.get("uid")
            if uid and uid in self.pending.uids:
                self.pending.duplicates += 1
                self._refresh(pending_only=True)
                self.notice(
                    f"That card was already tapped for this payment ({obs['card']}); "
                    "it counts once",
                    "warning",
                    who,
                    code="reader.duplicate_card",
                    params={"card": obs["card"], "player": who},
                )
                return "Duplicate card: it counts once."
            self.pending.cards.append(obs["card"])
            if uid:
                self.pending.uids.append(uid)
            self._refresh(pending_only=True)
            return f"{obs['card']} added to {who}'s payment ({len(self.pending.cards)} cards)."
        ticket = obs["ticket"]
        if ticket not in t.map.tickets:
            raise Conflict(f"Unknown ticket id {ticket!r}.", "unknown-ticket")
        if self.pending.tickets_player != who:
            self.pending.clear_tickets()
            self.pending.tickets_player = who
        if ticket in self.pending.tickets:
            return "That ticket was already tapped."
        holder = t.ticket_holder(ticket)
        if holder is not None:
            self.notice(
                "that ticket is already held by another player",
                "warning",
                who,
                code="reader.ticket_held",
                params={"player": who},
            )
            return "That ticket is already held."
        self.pending.tickets.append(ticket)
        self._refresh(pending_only=True)
        return f"Ticket added for {who} ({len(self.pending.tickets)} tapped)."

    def _button(self, name: str, actor: Actor) -> dict[str, Any]:
        fold = self._require_game()
        if isinstance(fold, OtherFold):
            return self._button_other(fold, name)
        if name == "end_turn":
            if fold.finished or fold.tracker.over:
                return {"result": "ignored", "text": "The game is over.", "seq": self.seq}
            color = fold.tracker.current_player.color
            self._step({"type": "end_turn", "player": color}, Actor.device("button"))
            return {"result": "applied", "text": f"{color}'s turn ended.", "seq": self.seq}
        if name == "undo":
            self._correct({"type": "undo"}, Actor.device("button"))
            return {"result": "applied", "text": "Undone.", "seq": self.seq}
        if not self.pending.confirmations:
            if name == "confirm":
                return self._confirm_taps(fold)
            return {"result": "ignored", "text": "Nothing to reject.", "seq": self.seq}
        cid = self.pending.confirmations[0].id
        self._confirm(cid, name == "confirm", Actor.device("button"), None)
        return {"result": "applied", "text": "Done.", "seq": self.seq}

    def _button_other(self, fold: OtherFold, name: str) -> dict[str, Any]:
        """Buttons in another game: undo, and end turn when the game follows turns."""
        if name == "undo":
            self._correct({"type": "undo"}, Actor.device("button"))
            return {"result": "applied", "text": "Undone.", "seq": self.seq}
        color = fold.table.current_color()
        if name == "end_turn" and color is not None:
            self._step({"type": "end_turn", "player": color}, Actor.device("button"))
            return {"result": "applied", "text": f"{color}'s turn ended.", "seq": self.seq}
        return {
            "result": "ignored",
            "text": f"Nothing to {name.replace('_', ' ')}.",
            "seq": self.seq,
        }

    def _confirm_taps(self, fold: GameFold) -> dict[str, Any]:
        """The confirm button with no camera question: settle what was tapped on the reader.

        A tunnel being built: its three revealed cards (tapped), then its surcharge (tapped
        cards, or none). Otherwise tapped tickets: keep them.
        """
        t = fold.tracker
        button = Actor.device("button")
        p = self.pending
        if fold.finished or fold.mode != "table":
            return {"result": "ignored", "text": "Nothing to confirm.", "seq": self.seq}
        if t.tunnel is not None:
            color = t.current_player.color
            tapped = list(p.cards) if p.payment_player == color else []
            if t.tunnel.revealed is None:
                if not tapped:
                    return {
                        "result": "ignored",
                        "text": "Tap the tunnel's revealed cards first.",
                        "seq": self.seq,
                    }
                self._step({"type": "tunnel_reveal", "player": color, "cards": tapped}, button)
                p.clear_payment()
                self._refresh(pending_only=True)
                return {"result": "applied", "text": "Tunnel cards revealed.", "seq": self.seq}
            self._step({"type": "tunnel_pay", "player": color}, button)
            return {"result": "applied", "text": f"{color} paid the tunnel.", "seq": self.seq}
        if p.tickets_player is not None and p.tickets:
            color = p.tickets_player
            self._step({"type": "keep_tickets", "player": color}, button)
            text = f"{color} kept the tapped tickets."
            return {"result": "applied", "text": text, "seq": self.seq}
        return {"result": "ignored", "text": "Nothing to confirm.", "seq": self.seq}

    def _drop_stale_confirmations(self) -> None:
        fold = self.fold
        if fold is None or isinstance(fold, OtherFold):
            self.pending.confirmations = [] if fold is not None else self.pending.confirmations
            return
        t = fold.tracker
        keep = []
        for c in self.pending.confirmations:
            taken = (t.route_owner if c.kind == "claim" else t.station_owner).get(c.key)
            if taken is None and not fold.finished:
                keep.append(c)
        self.pending.confirmations = keep

    # --- confirmations, pending, pairing ----------------------------------------------
    def confirm(
        self, cid: str, accept: bool, actor: Actor, cards: list[str] | None = None
    ) -> dict[str, Any]:
        return self.call(lambda: self._confirm(cid, accept, actor, cards))

    def _confirm(
        self, cid: str, accept: bool, actor: Actor, cards: list[str] | None
    ) -> dict[str, Any]:
        conf = next((c for c in self.pending.confirmations if c.id == cid), None)
        if conf is None:
            raise NotFound(f"There is no open question {cid!r}.")
        if actor.role == "player" and actor.color != conf.color:
            raise Forbidden(f"Only the host or {conf.color} can answer this question.")
        if accept:
            action = dict(conf.action)
            if cards is not None:
                action["cards"] = [c.value for c in _card_list(cards, '"cards"')]
            self._step(action, actor if actor.role != "player" else Actor.player(conf.color))
        self.pending.confirmations = [c for c in self.pending.confirmations if c.id != cid]
        self._refresh(pending_only=not accept)
        if not accept:
            self._tell("rejected", {"kind": conf.kind, "key": conf.key, "color": conf.color})
        return self._snapshot

    def clear_pending(self, actor: Actor) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            p = self.pending
            if actor.role == "player" and actor.color not in (p.payment_player, p.tickets_player):
                raise Forbidden("Only the host can clear another player's taps.")
            p.clear_payment()
            p.clear_tickets()
            self._refresh(pending_only=True)
            return {"cleared": True}

        return self.call(run)

    def tickets(self, color: str) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            fold = self.fold
            if fold is None or color not in fold_colors(fold):
                raise NotFound(f"No player plays {color} in the current game.")
            if isinstance(fold, OtherFold):
                return {
                    "game": fold.game,
                    "game_id": fold.game_id,
                    "pending": [],
                    **fold.table.private(color),
                }
            pend = self.pending.tickets if self.pending.tickets_player == color else []
            return ticket_progress(fold, color, pend)

        return self.call(run)

    def pair(self, color: str, rotate: bool = False) -> str:
        """The pairing token of a colour in the current game (created on first use)."""

        def run() -> str:
            fold = self.fold
            if fold is None or color not in fold_colors(fold):
                raise NotFound(f"No player plays {color} in the current game.")
            token = self.paired.get(color)
            if token is None or rotate:
                if rotate:
                    self.store.revoke_tokens(fold.game_id, color)
                token = secrets.token_urlsafe(24)
                self.store.add_token(token, fold.game_id, color)
                self.paired[color] = token
                self._refresh()
            return token

        return self.call(run)

    def player_of_token(self, token: str) -> str | None:
        """The colour a player token acts for in the current game (None if not valid now)."""
        fold = self.fold
        if fold is None:
            return None
        found = self.store.token(token)
        if found is None or found[0] != fold.game_id:
            return None
        if self.paired.get(found[1]) != token:
            return None
        return found[1]

    def token_owner(self, token: str) -> tuple[str, str] | None:
        return self.store.token(token)

    # --- history ------------------------------------------------------------------------
    def game_state(self, game_id: str, upto: int | None = None) -> dict[str, Any]:
        events = self.store.events(game_id, upto=upto)
        if not events:
            if self.store.game(game_id) is None:
                raise NotFound(f"There is no game {game_id!r}.")
            raise NotFound(f"Game {game_id} has no events up to #{upto}.")
        fold = fold_game(events, self.map)
        return public_state(fold, None, self.store.tokens_of(game_id))

    def game_events(self, game_id: str, *, reveal: bool) -> dict[str, Any]:
        game = self.store.game(game_id)
        if game is None:
            raise NotFound(f"There is no game {game_id!r}.")
        events = self.store.events(game_id)
        steps, _ = _effective_steps(events)
        undone = {s.seq for s in steps if s.effective is None}
        first = events[0].action if events else {}
        kind = None if first.get("game", EUROPE) == EUROPE else game_kind(first["game"])
        hide = not reveal and game.finished is None
        out = []
        for e in events:
            action = dict(e.action)
            if hide and action.get("type") == "keep_tickets":
                action["tickets"] = len(action.get("tickets", []))
            if hide and action.get("type") == "replace":
                inner = dict(action.get("action", {}))
                if inner.get("type") == "keep_tickets":
                    inner["tickets"] = len(inner.get("tickets", []))
                action["action"] = inner
            if hide and action.get("type") == "set_board" and "tickets" in action:
                action["tickets"] = {c: len(v) for c, v in action["tickets"].items()}
            out.append(
                {
                    "seq": e.seq,
                    "ts": e.ts,
                    "actor": e.actor,
                    "action": action,
                    "undone": e.seq in undone,
                    "text": describe_in(kind, e.action, secret=hide),
                }
            )
        return {"game_id": game_id, "events": out}

    def games(self) -> dict[str, Any]:
        out = []
        current = self.fold.game_id if self.fold else None
        for g in self.store.games():
            d = g.to_json()
            if g.id == current and self.fold is not None:
                d["phase"] = self._snapshot.get("phase")
            else:
                d["phase"] = "finished" if g.finished is not None else "abandoned"
            out.append(d)
        return {"games": out}

    # --- photo mode -----------------------------------------------------------------------
    def read_photo(self, data: bytes) -> PhotoJob:
        with self._lock:
            if self._photo_pool is None:
                self._photo_pool = ThreadPoolExecutor(1, thread_name_prefix="companion-photo")
            job = PhotoJob(f"p{len(self._photo_jobs) + 1}")
            self._photo_jobs[job.id] = job
            pool = self._photo_pool
        reader = self._photo_reader or read_photo_bytes
        pool.submit(self._photo_run, job, reader, data)
        return job

    def _photo_run(
        self, job: PhotoJob, reader: Callable[[bytes], dict[str, Any]], data: bytes
    ) -> None:
        try:
            reading = reader(data)
        except ValueError as exc:
            job.error = _sentence(str(exc))
            job.status = "failed"
            self.notice(
                f"The photo could not be read: {exc}",
                "error",
                code="photo.failed",
                params={"error": _sentence(str(exc))},
            )
            return
        except Exception as exc:
            log.exception("reading a photo failed")
            job.error = _sentence(f"the photo could not be read ({type(exc).__name__})")
            job.status = "failed"
            self.notice(
                job.error, "error", code="photo.failed", params={"error": type(exc).__name__}
            )
            return
        job.reading = reading
        job.status = "done"
        n = sum(1 for v in reading.get("routes", {}).values() if v)
        self.notice(
            f"The photo is read: {n} routes with trains. Check them on the map.",
            code="photo.read",
            params={"n": n},
        )

    def photo_job(self, job_id: str) -> PhotoJob:
        with self._lock:
            job = self._photo_jobs.get(job_id)
        if job is None:
            raise NotFound(f"There is no photo job {job_id!r}.")
        return job


def read_photo_bytes(data: bytes) -> dict[str, Any]:
    """Decode an uploaded image and read the board (ValueError with a sentence if not)."""
    import cv2
    import numpy as np

    from companion.vision.read import read_board

    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("the upload is not a JPEG or PNG image")
    reading = read_board(np.asarray(image, dtype=np.uint8))
    out = reading.to_json()
    return {
        "routes": out["routes"],
        "stations": out["stations"],
        "confidence": out["confidence"],
    }


def iter_sse(sub: Subscription, keepalive: float, lifetime: float | None = None) -> Iterator[str]:
    """Server-sent-event lines for one subscriber (ends when closed or after ``lifetime``)."""
    import time

    start = time.monotonic()
    try:
        yield "retry: 2000\n\n"
        while True:
            if lifetime is not None and time.monotonic() - start > lifetime:
                return
            try:
                item = sub.get(timeout=keepalive)
            except queue.Empty:
                yield ": keep-alive\n\n"
                continue
            if item is None:
                return
            event, seq, data = item
            lines = []
            if event is not None:
                lines.append(f"event: {event}")
            if seq is not None:
                lines.append(f"id: {seq}")
            lines.append(f"data: {data}")
            yield "\n".join(lines) + "\n\n"
    finally:
        sub.close()


__all__ = [
    "Actor",
    "BadRequest",
    "Conflict",
    "Decision",
    "Forbidden",
    "GameFold",
    "NotFound",
    "Pending",
    "Service",
    "ServiceError",
    "Subscription",
    "fold_game",
    "iter_sse",
    "public_state",
    "reconcile",
    "ticket_progress",
]
