"""Events -> game: a game's state is the fold of its logged events.

``new_game`` starts it; table actions, ``set_payment_mode``, ``set_board`` and ``finish`` are
*steps*; ``undo``, ``redo`` and ``replace`` are *corrections* that change which steps count. The
fold replays the effective steps in order, so a restart, a replay and the history all agree.
Pure: no thread, no store (only its :class:`Event` records), no Flask.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.core.actions import EndTurn, KeepTickets, action_from_json
from companion.core.board import GameMap
from companion.core.errors import IllegalActionError, RulesError
from companion.core.scoring import FinalScore, PlayerEnd, validate_end_state
from companion.core.tracker import TableTracker
from companion.core.tracking import Tracker, check_new_tickets, check_no_clash
from companion.games import EUROPE, GameKind, GameTable, Seat, game_kind
from companion.service.describe import describe_in, public_action
from companion.service.shapes import CORRECTIONS

if TYPE_CHECKING:
    from companion.store import Event

log = logging.getLogger(__name__)


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

    def copy_with(self, **fields: Any) -> GameFold:
        """The fold at the same point with its own copy of the tracker; ``fields`` set the
        rest (the steps, warnings, ... are new and empty unless given)."""
        return GameFold(
            self.game_id,
            self.mode,
            self.variant,
            self.tracker.copy(),
            seq=self.seq,
            final=self.final,
            **fields,
        )

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


def tracker_of(fold: AnyFold | None) -> Tracker[Any, Any] | None:
    """The table tracker of a game that tracks tickets (Europe, London), else None."""
    if isinstance(fold, GameFold):
        return fold.tracker
    tracker = getattr(fold.table, "tracker", None) if fold is not None else None
    return tracker if isinstance(tracker, Tracker) else None


def fold_clashes(fold: AnyFold | None) -> dict[str, list[str]]:
    """The open ticket clashes (ticket -> its holders' colours): the host's business only."""
    tracker = tracker_of(fold)
    return tracker.clashes() if tracker is not None else {}


def fold_holders(fold: AnyFold | None) -> dict[str, list[str]]:
    """Every ticket kept -> its holders' colours (seat order)."""
    tracker = tracker_of(fold)
    out: dict[str, list[str]] = {}
    for p in tracker.players if tracker is not None else ():
        for t in p.tickets:
            out.setdefault(t, []).append(p.color)
    return out


def fold_winners(fold: AnyFold) -> list[str]:
    if isinstance(fold, OtherFold):
        return fold.table.winners
    return list(fold.final.winners) if fold.final else []


def fold_names(fold: AnyFold) -> list[str]:
    """The players' names, in seat order."""
    if isinstance(fold, OtherFold):
        return [str(p.get("name") or p["color"]) for p in fold.table.public()["players"]]
    return [p.name for p in fold.tracker.players]


def turn_key(fold: AnyFold) -> tuple[Any, ...]:
    """Whose turn it is: (turn number, current player); it changes when a turn ends."""
    if isinstance(fold, OtherFold):
        pub = fold.table.public()
        return (pub.get("turn"), pub.get("current"))
    t = fold.tracker
    return (t.turn, t.current)


def fold_tracker(fold: AnyFold) -> Tracker[Any, Any] | None:
    """The game's table tracker (Europe's, London's), None for a game without one."""
    if isinstance(fold, GameFold):
        return fold.tracker
    tracker = getattr(fold.table, "tracker", None)
    return tracker if isinstance(tracker, Tracker) else None


# What a player does in a turn (and may take back from their own phone, see own_undo).
TURN_STEPS = frozenset(
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


def own_undo(fold: AnyFold | None) -> dict[str, Any] | None:
    """The step a player may undo from their own phone: their latest action, while it is the
    game's last effective step and the next player has not acted (``{"player", "seq"}``)."""
    if fold is None or fold.finished or fold.mode != "table":
        return None
    tracker = fold_tracker(fold)
    last = next((s for s in reversed(fold.steps) if s.effective is not None), None)
    if tracker is None or last is None or last.effective is None:
        return None
    if last.effective.get("type") not in TURN_STEPS:
        return None
    player = last.effective.get("player")
    ended = tracker.ended_by
    theirs = (ended is not None and tracker.players[ended].color == player) or (
        not tracker.over and tracker.current_player.color == player
    )
    return {"player": player, "seq": last.seq} if theirs else None


def turn_ended_already(fold: AnyFold | None, player: Any) -> bool:
    """An "end turn" for a player whose turn ended by itself, the next player not having acted
    yet: accepted, and nothing happens (nothing is logged)."""
    if fold is None or fold.finished:
        return False
    tracker = fold_tracker(fold)
    return tracker is not None and tracker.ended_already(str(player))


def fold_game_name(fold: AnyFold | None) -> str | None:
    if fold is None:
        return None
    return fold.game if isinstance(fold, OtherFold) else EUROPE


def start_other_fold(event: Event) -> OtherFold:
    a = event.action
    kind = game_kind(a["game"])
    seats = [Seat(p["name"], p["color"]) for p in a["players"]]
    table = kind.start(seats, a)
    tracker = getattr(table, "tracker", None)
    if isinstance(tracker, Tracker):  # London: the table's setup rules, as the game was started
        tracker.tickets_tracked = bool(a.get("tickets_tracked", False))
        tracker.turn_needs_action = bool(a.get("turn_needs_action", False))
        tracker.auto_end = bool(a.get("auto_end", False))
    fold = OtherFold(event.game_id, kind.name, kind, table, seq=event.seq)
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
        # a game logged before these flags plays as it did then (both off)
        tickets_tracked=bool(a.get("tickets_tracked", False)),
        turn_needs_action=bool(a.get("turn_needs_action", False)),
    )
    tracker.auto_end = bool(a.get("auto_end", False))  # a turn ends by itself after its action
    fold = GameFold(event.game_id, a["mode"], a["variant"], tracker, seq=event.seq)
    fold.last = {"seq": event.seq, "type": "new_game", "player": None, "text": "new game"}
    return fold


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
    """Photo mode: tickets are entered after the game, in any order. As at a live table, a
    ticket another player holds is kept (a clash for the host), never refused."""
    p = tracker.player(action.player)
    check_new_tickets(p, action.tickets, tracker.map.tickets)
    p.tickets.extend(action.tickets)
    p.ready = True


def settle_named(tracker: Tracker[Any, Any], a: Mapping[str, Any]) -> None:
    """Replay a ``settle_clash``: nothing when a correction took the clash away (live, the
    ledger refuses one that is not open)."""
    ticket = str(a["ticket"])
    keeps = a.get("keeps")
    holders = tracker.clashes().get(ticket)
    if holders is not None and (keeps is None or keeps in holders):
        tracker.settle_clash(ticket, keeps)


def check_clash(tracker: Tracker[Any, Any], a: Mapping[str, Any]) -> None:
    """Refuse settling a clash that is not open, or for a player who does not hold it."""
    trial = tracker.copy()
    trial.settle_clash(str(a["ticket"]), a.get("keeps"))


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
        check_no_clash(t.players)
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
    if kind == "accept_problem":
        # checked when asked (see check_problem); in a replay where a correction took the
        # claim away, accepting its problem is nothing
        accept_named(fold.tracker, a)
        return []
    if kind == "settle_clash":
        settle_named(fold.tracker, a)
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
    if a.get("early") and isinstance(action, EndTurn):
        # the end-turn button pressed before the camera read the turn's trains: that turn may
        # end empty (its claim comes late, see observe.late); a tap on a screen may not
        t = fold.tracker
        needs, t.turn_needs_action = t.turn_needs_action, False
        try:
            return t.apply(action)
        finally:
            t.turn_needs_action = needs
    return fold.tracker.apply(action)


def problem_key(p: Mapping[str, Any]) -> tuple[str, int, str, str]:
    """A payment problem's identity that a correction cannot renumber: whose, which turn, what
    was paid for and where (its ``id`` is only its place in the tracker's list)."""
    return (str(p.get("player")), int(p.get("turn") or 0), str(p.get("kind")), str(p.get("place")))


def accept_named(tracker: TableTracker, a: Mapping[str, Any]) -> None:
    """Replay an ``accept_problem``: the open problem its logged ``what`` names (older logs: its
    id); nothing when a correction took that claim away."""
    what = a.get("what")
    for p in tracker.open_problems():
        if isinstance(what, Mapping):
            named = problem_key(p.to_json()) == problem_key(what)
        else:
            named = p.id == int(a["problem"])
        if named:
            tracker.accept_problem(p.id)
            return


def check_problem(tracker: TableTracker, problem_id: int) -> None:
    """Refuse accepting a payment problem that is not open (IllegalActionError)."""
    if problem_id not in {p.id for p in tracker.open_problems()}:
        raise IllegalActionError(
            f"there is no open payment problem {problem_id}",
            rule="no-payment-problem",
            params={"id": problem_id},
        )


def apply_other(table: GameTable, a: Mapping[str, Any]) -> list[str]:
    """Apply one step to another game's table; an ``early`` end of turn (the button, see
    :func:`apply_step`) may end an empty turn in a game whose turns need an action."""
    tracker = getattr(table, "tracker", None)
    if not (a.get("early") and a.get("type") == "end_turn" and isinstance(tracker, Tracker)):
        return table.apply(a)
    needs, tracker.turn_needs_action = tracker.turn_needs_action, False
    try:
        return table.apply(a)
    finally:
        tracker.turn_needs_action = needs


def effective_steps(events: Sequence[Event]) -> tuple[list[Step], list[str]]:
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


def replay(
    fold: AnyFold, events: Sequence[Event], apply: Callable[[Mapping[str, Any]], list[str]]
) -> None:
    """Replay a game's effective steps onto ``fold`` with ``apply``; a step that no longer
    applies (only a log written by another version of the rules gets there) is skipped and
    said so. The fold's seq and the last step's warnings follow."""
    steps, problems = effective_steps(events)
    fold.steps = steps
    fold.skipped = problems
    warnings: list[str] = []
    for s in steps:
        if s.effective is None:
            continue
        try:
            warnings = apply(s.effective)
        except (RulesError, KeyError, TypeError, ValueError) as exc:
            log.warning("event %d no longer applies (%s); skipped", s.seq, exc)
            fold.skipped.append(f"event {s.seq} was skipped: {exc}")
            s.effective = None
            warnings = []
    last = events[-1]
    fold.seq = last.seq
    fold.warnings = warnings if last.action.get("type") not in CORRECTIONS else []


def fold_other(events: Sequence[Event]) -> OtherFold:
    """The state of a game other than Europe: replay its effective steps onto its table."""
    fold = start_other_fold(events[0])

    def apply(a: Mapping[str, Any]) -> list[str]:
        trial = fold.table.copy()
        warnings = apply_other(trial, a)
        fold.table = trial
        fold.add_point()
        return warnings

    replay(fold, events, apply)
    fold.last = last_of(events[-1], fold.kind)
    name_target(fold, fold.kind, events)
    return fold


def fold_game(events: Sequence[Event], game_map: GameMap) -> AnyFold:
    """The state of one game: replay its effective steps in order."""
    if not events or events[0].action.get("type") != "new_game":
        raise ValueError("a game's events must start with new_game")
    if events[0].action.get("game", EUROPE) != EUROPE:
        return fold_other(events)
    fold = start_fold(events[0], game_map)
    replay(fold, events, lambda a: apply_step(fold, a))
    fold.last = last_of(events[-1])
    name_target(fold, None, events)
    return fold


def name_target(fold: AnyFold, kind: GameKind | None, events: Sequence[Event]) -> None:
    """A correction names what it changed: ``last["target"]`` is the step (its seq, its move
    number in the game - as the history counts them, from 1 after the new game - and its
    line), so an undo says what it undid."""
    last = fold.last
    if last is None or last.get("type") not in CORRECTIONS:
        return
    seq = int((last.get("action") or {}).get("seq") or 0)
    target = fold.step(seq)
    if target is None:
        return
    move = next((i for i, e in enumerate(events) if e.seq == seq), 0)
    last["target"] = {
        "seq": seq,
        "move": move,
        "player": target.action.get("player"),
        "text": describe_in(kind, target.action),
        "action": public_action(target.action),  # what was undone, for the screens' words
    }


def last_of(e: Event, kind: GameKind | None = None) -> dict[str, Any]:
    a = e.action
    return {
        "seq": e.seq,
        "type": a.get("type"),
        "player": a.get("player"),
        "actor": e.actor,
        "text": describe_in(kind, a),
        "action": public_action(a),
    }


def strict_fold(events: Sequence[Event], game_map: GameMap) -> AnyFold:
    """Fold, raising IllegalActionError naming the first step that no longer applies."""
    fold = start_any_fold(events[0], game_map)
    kind = fold.kind if isinstance(fold, OtherFold) else None
    steps, _ = effective_steps(events)
    for s in steps:
        if s.effective is None:
            continue
        try:
            if isinstance(fold, OtherFold):
                apply_other(fold.table, s.effective)
            else:
                apply_step(fold, s.effective)
        except RulesError as exc:
            text = describe_in(kind, s.effective)
            raise IllegalActionError(
                f"that would make step #{s.seq} ({text}) illegal: {exc}",
                rule=getattr(exc, "rule", "illegal"),
            ) from None
    return fold
