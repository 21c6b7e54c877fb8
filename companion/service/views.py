"""What screens see: the public state, a player's ticket progress, the routes a ticket misses.

Pure functions of a fold (and the pending taps): no thread, no store, no Flask.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from companion.core.board import Route
from companion.core.scoring import score_final
from companion.core.tracker import TableTracker
from companion.games import EUROPE, GameKind, game_kind
from companion.games.base import game_over, tracked_announcement
from companion.service.describe import describe_in
from companion.service.fold import (
    AnyFold,
    GameFold,
    OtherFold,
    Step,
    effective_steps,
    fold_clashes,
    fold_colors,
    fold_names,
    own_undo,
    problem_key,
)
from companion.service.pending import Pending

if TYPE_CHECKING:
    from companion.store import Event


def clash_notices(
    fold: AnyFold | None, before: Mapping[str, Sequence[str]]
) -> list[tuple[str, dict[str, Any]]]:
    """The host's notices (sentence, params) of the clashes opened since ``before`` (every
    ticket -> its holders then): a keep named a ticket another player holds. The keeper's own
    answer was that of any other keep; only the host hears of it, naming both players."""
    if fold is None:
        return []
    names = dict(zip(fold_colors(fold), fold_names(fold), strict=True))
    out = []
    for ticket, holders in fold_clashes(fold).items():
        new = [c for c in holders if c not in before.get(ticket, ())]
        if not new:
            continue
        keeper = new[-1]
        params: dict[str, Any] = {
            "ticket": ticket,
            "keeper": names.get(keeper, keeper),
            "holders": ", ".join(names.get(c, c) for c in holders if c != keeper),
            "colors": list(holders),
        }
        text = (
            f"{params['keeper']} kept {ticket}, which {params['holders']} also holds: "
            "settle it on the host page"
        )
        out.append((text, params))
    return out


def open_clashes(fold: AnyFold | None) -> list[dict[str, Any]]:
    """The host's view of the open clashes: each ticket with its holders (colour and name)."""
    if fold is None:
        return []
    names = dict(zip(fold_colors(fold), fold_names(fold), strict=True))
    return [
        {"ticket": t, "holders": [{"color": c, "name": names.get(c, c)} for c in holders]}
        for t, holders in fold_clashes(fold).items()
    ]


def announcement_of(fold: GameFold) -> tuple[str, str, dict[str, Any]] | None:
    """The announcement as (sentence, code, params); None when there is nothing to announce."""
    t = fold.tracker
    if fold.finished:
        return game_over([p.name for p in fold.final.players if p.rank == 1] if fold.final else [])
    return tracked_announcement(t, ("train", "trains"), "final.round")


def final_round_announcement(
    before: AnyFold, new: AnyFold | None
) -> tuple[str, str, dict[str, Any]] | None:
    """The final round's announcement when the change from ``before`` to ``new`` began it."""
    if isinstance(before, OtherFold) and isinstance(new, OtherFold):
        if new.table.public()["final_round"] and not before.table.public()["final_round"]:
            return new.table.announcement()
        return None
    if (
        isinstance(before, GameFold)
        and isinstance(new, GameFold)
        and new.tracker.final_round
        and not before.tracker.final_round
    ):
        return announcement_of(new)
    return None


def other_public_state(
    fold: OtherFold,
    pend: dict[str, Any],
    paired: Mapping[str, str] | None,
    *,
    seq: int = 0,
    seen: Collection[str] = (),
) -> dict[str, Any]:
    """The public state of a game other than Europe: the same fields, filled by its table."""
    pub = fold.table.public()
    for p in pub["players"]:
        p["paired"] = bool(paired and p["color"] in paired)
        p["phone_seen"] = bool(paired and paired.get(p["color"]) in seen)
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
        # a game with lenient payments (London): its open problems, as Europe's
        "problems": pub.get("problems", []),
        "last": fold.last,
        "can_undo": any(s.effective is not None for s in fold.steps),
        "undo_seq": undo_target(fold),
        "own_undo": own_undo(fold),
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
    seen: Collection[str] = (),
) -> dict[str, Any]:
    """The public state (no ticket ids until the game is finished). ``seen``: the pairing
    tokens a phone has opened (``phone_seen``; ``paired`` alone: a code was made)."""
    pend = (pending or Pending()).to_json()
    if isinstance(fold, OtherFold):
        return other_public_state(fold, pend, paired, seq=seq, seen=seen)
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
            "undo_seq": None,
            "own_undo": None,
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
                "phone_seen": bool(paired and paired.get(p.color) in seen),
                "final": final[p.color].to_json() if p.color in final else None,
            }
        )
    tunnel = None
    if t.tunnel is not None:
        tunnel = {"player": t.current_player.color, **t.tunnel.to_json()}
    live = not fold.finished and fold.mode == "table" and not t.over
    ann = announcement_of(fold)
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
        # lenient payments: the wrong ones not yet accepted, each with its code (a mark on the
        # claim until the host settles it)
        "problems": [p.to_json() for p in t.problems if not p.accepted],
        "last": fold.last,
        "can_undo": any(s.effective is not None for s in fold.steps),
        "undo_seq": undo_target(fold),
        # the step the player who just acted may take back from their own phone
        "own_undo": own_undo(fold),
        "pending": pend,
    }


def undo_target(fold: AnyFold) -> int | None:
    """The step an undo now would undo: the dashboard sends it with the undo, so that a retried
    request cannot undo a second step (409 already-undone)."""
    for s in reversed(fold.steps):
        if s.effective is not None:
            return s.seq
    return None


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
        # scored with only this player's tickets: the answer never depends on what another
        # player holds (nor fails while two players hold the same ticket, a clash)
        ends = [e if e.color == color else replace(e, tickets=()) for e in t.end_positions()]
        score = score_final(m, ends)
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
        "deal": deal_json(t.deal_of(color)),
        "tickets": tickets,
        "points_if_ended_now": points,
    }


def deal_json(deal: tuple[str, int] | None) -> dict[str, Any] | None:
    """The deal a keep of this player answers now (their own business): ``{"kind": "setup" |
    "draw" | "reenter", "n": tickets dealt, drawn or to enter again}``, or None."""
    return None if deal is None else {"kind": deal[0], "n": deal[1]}


def event_list(events: Sequence[Event], *, hide: bool) -> list[dict[str, Any]]:
    """A game's log for the history page: each event with its line and whether it is undone
    (``hide``: kept ticket ids become their number, as long as the game is not finished)."""
    steps, _ = effective_steps(events)
    undone = {s.seq for s in steps if s.effective is None}
    kind = log_kind(events)
    settled = problems_settled(steps)
    return [
        log_entry(e, kind, hide=hide, undone=e.seq in undone, move=i, settled=settled)
        for i, e in enumerate(events)
    ]


def problems_settled(steps: Sequence[Step]) -> tuple[frozenset[Any], frozenset[int]]:
    """(the payment problems a live ``accept_problem`` accepted — by identity, see
    :func:`problem_key`, or by id in logs from before it named them —, the seqs of the steps the
    host corrected with ``replace``): a claim's logged problem is marked until one says so."""
    accepted = frozenset(
        problem_key(s.effective["what"])
        if isinstance(s.effective.get("what"), Mapping)
        else int(s.effective.get("problem", -1))
        for s in steps
        if s.effective is not None and s.effective.get("type") == "accept_problem"
    )
    corrected = frozenset(
        s.seq for s in steps if s.effective is not None and s.effective != s.action
    )
    return accepted, corrected


def log_kind(events: Sequence[Event]) -> GameKind | None:
    """The game of a log (None: Europe), from its first event."""
    first = events[0].action if events else {}
    return None if first.get("game", EUROPE) == EUROPE else game_kind(first["game"])


def log_entry(
    e: Event,
    kind: GameKind | None,
    *,
    hide: bool,
    undone: bool,
    move: int | None = None,
    settled: tuple[frozenset[Any], frozenset[int]] | None = None,
) -> dict[str, Any]:
    """One line of :func:`event_list`. ``move``: the event's place in its game (0 the new game,
    the moves count from 1 in each game; ``seq`` is the log's, counted over all games)."""
    action = dict(e.action)
    if hide and action.get("type") == "keep_tickets":
        action["tickets"] = len(action.get("tickets", []))
    if hide and action.get("type") == "replace":
        inner = dict(action.get("action", {}))
        if inner.get("type") == "keep_tickets":
            inner["tickets"] = len(inner.get("tickets", []))
        action["action"] = inner
    if hide and action.get("type") == "settle_clash":
        action = {"type": "settle_clash"}
    if hide and action.get("type") == "set_board" and "tickets" in action:
        action["tickets"] = {c: len(v) for c, v in action["tickets"].items()}
    out: dict[str, Any] = {"seq": e.seq}
    if move is not None:
        out["move"] = move
    out.update(
        {
            "ts": e.ts,
            "actor": e.actor,
            "action": action,
            "undone": undone,
            "text": describe_in(kind, e.action, secret=hide),
        }
    )
    problems = e.action.get("problems")
    if settled is not None and isinstance(problems, list) and problems:
        # a wrong payment accepted in lenient mode: marked until the host accepts it
        # (accept_problem) or corrects the claim (replace; an undone claim is no claim)
        accepted, corrected = settled
        fixed = e.seq in corrected
        out["problems"] = [
            {
                **p,
                "accepted": bool(p.get("accepted"))
                or problem_key(p) in accepted
                or p.get("id") in accepted,
                "corrected": fixed,
            }
            for p in problems
            if isinstance(p, Mapping)
        ]
    return out
