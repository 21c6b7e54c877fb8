"""Ticket to Ride: London on the dashboard: the London table tracker, entered by tapping.

Claims (with or without the cards paid), kept tickets, drawn cards and turn ends go to
:class:`companion.london.TableTracker`; ``finish`` scores the end position with
:func:`companion.london.score_final` (routes, tickets, districts).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.core.errors import IllegalActionError, NotationError
from companion.core.tracking import check_no_clash
from companion.london import FinalScore, LondonMap, TableTracker, london_map, score_final
from companion.london.actions import action_from_json
from companion.london.tracker import PAYMENT_MODES

from .base import (
    Announcement,
    GameKind,
    GameTable,
    Seat,
    action_line,
    base_player,
    tracked_announcement,
)

ACTIONS = (
    "claim",
    "draw_tickets",
    "keep_tickets",
    "drew_cards",
    "end_turn",
    "settle_clash",
    "accept_problem",
)
# what names a payment problem across corrections (its id is its place in the tracker's list)
PROBLEM_KEYS = ("player", "turn", "kind", "place")


class LondonTable(GameTable):
    def __init__(self, seats: Sequence[Seat], payment_mode: str, game_map: LondonMap) -> None:
        super().__init__(seats)
        self.map = game_map
        self.tracker = TableTracker(
            game_map, [(s.name, s.color) for s in seats], payment_mode=payment_mode
        )
        self.final: FinalScore | None = None

    def copy(self) -> LondonTable:
        return copy.deepcopy(self, {id(self.map): self.map})

    def apply(self, action: Mapping[str, Any]) -> list[str]:
        if action["type"] == "finish":
            if self.final is not None:
                raise IllegalActionError("the game is already finished", rule="finished")
            check_no_clash(self.tracker.players)
            self.final = self.tracker.final_score()
            return []
        if self.final is not None:
            raise IllegalActionError(
                "the game is finished; undo the finish to change it", rule="finished"
            )
        if action["type"] == "settle_clash":  # the host's (checked live by the service)
            ticket, keeps = str(action["ticket"]), action.get("keeps")
            holders = self.tracker.clashes().get(ticket)
            if holders is not None and (keeps is None or keeps in holders):
                self.tracker.settle_clash(ticket, keeps)
            return []
        if action["type"] == "accept_problem":  # the host's, as in Europe
            self._accept_problem(action)
            return []
        self.check_player(action.get("player"))
        try:
            act = action_from_json(action)
        except NotationError as exc:
            raise IllegalActionError(str(exc), rule="illegal") from None
        return self.tracker.apply(act)

    @property
    def finished(self) -> bool:
        return self.final is not None

    @property
    def winners(self) -> list[str]:
        return list(self.final.winners) if self.final else []

    def scores(self) -> dict[str, int]:
        final = {p.color: p.total for p in self.final.players} if self.final else {}
        return {p.color: final.get(p.color, p.score) for p in self.tracker.players}

    def progress(self) -> int:
        return self.tracker.turn

    def current_color(self) -> str | None:
        t = self.tracker
        return None if self.finished or t.over else t.current_player.color

    def _accept_problem(self, action: Mapping[str, Any]) -> None:
        """An open payment problem accepted: the one the logged ``what`` names (a correction
        may have renumbered ids; nothing when it took that claim away), else by its id."""
        what = action.get("what")
        for p in self.tracker.open_problems():
            j = p.to_json()
            if isinstance(what, Mapping):
                named = all(str(j.get(k)) == str(what.get(k)) for k in PROBLEM_KEYS)
            else:
                named = p.id == action.get("problem")
            if named:
                self.tracker.accept_problem(p.id)
                return
        if not isinstance(what, Mapping):
            raise IllegalActionError(
                f"there is no open payment problem {action.get('problem')}",
                rule="no-payment-problem",
                params={"id": action.get("problem")},
            )

    def problem_named(self, problem: int) -> dict[str, Any]:
        """The identity of open payment problem ``problem``, logged with its acceptance."""
        for p in self.tracker.open_problems():
            if p.id == problem:
                j = p.to_json()
                return {k: j.get(k) for k in PROBLEM_KEYS}
        raise IllegalActionError(
            f"there is no open payment problem {problem}",
            rule="no-payment-problem",
            params={"id": problem},
        )

    def public(self) -> dict[str, Any]:
        t = self.tracker
        live = not self.finished and not t.over
        final = {p.color: p for p in self.final.players} if self.final else {}
        scores = self.scores()
        players = []
        for seat, p in zip(self.seats, t.players, strict=True):
            d = base_player(seat, scores[p.color])
            d.update(
                trains_left=p.buses,
                buses_left=p.buses,
                routes=list(p.routes),
                tickets_held=len(p.tickets),
                ready=p.ready,
                final=final[p.color].to_json() if p.color in final else None,
            )
            players.append(d)
        return {
            "phase": "finished" if self.finished else t.phase,
            "turn": t.turn,
            "current": t.current_player.color if live else None,
            "acted": t.acted if live else False,
            "final_round": t.final_round and not self.finished,
            "turns_left": t.final.turns_left if live else None,
            "payment_mode": t.payment_mode,
            "players": players,
            # lenient payments: the wrong ones not yet accepted (the host's panel, as Europe's)
            "problems": [p.to_json() for p in t.open_problems()],
            "table": {"buses_per_player": self.map.buses_per_player},
        }

    def announcement(self) -> Announcement | None:
        t = self.tracker
        if self.finished:
            return self.game_over_announcement()
        return tracked_announcement(t, ("bus", "buses"), "london.final_round")

    def private(self, color: str) -> dict[str, Any]:
        self.check_player(color)
        t = self.tracker
        # only this player's tickets: the answer never depends on what another player holds
        ends = [e if e.color == color else replace(e, tickets=()) for e in t.end_positions()]
        score = self.final or score_final(self.map, ends)
        mine = score.by_color(color)
        tickets = []
        for r in mine.tickets:
            tk = self.map.tickets[r.id]
            tickets.append(
                {
                    "id": r.id,
                    "a": tk.a,
                    "b": tk.b,
                    "points": tk.points,
                    "completed": r.completed,
                    "path": list(r.path),
                }
            )
        deal = t.deal_of(color)
        return {
            "color": color,
            "deal": None if deal is None else {"kind": deal[0], "n": deal[1]},
            "tickets": tickets,
            "points_if_ended_now": mine.ticket_points,
            "districts": [d.to_json() for d in mine.districts],
        }


class London(GameKind):
    name = "london"
    title = "Ticket to Ride: London"
    min_players = 2
    max_players = 4
    colors = ("blue", "red", "green", "yellow", "black")
    action_types = ACTIONS

    def __init__(self, game_map: LondonMap | None = None) -> None:
        self.map = game_map or london_map()
        self.min_players = self.map.min_players
        self.max_players = self.map.max_players

    def parse_options(self, data: Mapping[str, Any]) -> dict[str, Any]:
        payment = data.get("payment_mode", "lenient")
        if payment not in PAYMENT_MODES:
            raise NotationError(f'"payment_mode" must be one of {", ".join(PAYMENT_MODES)}')
        return {"payment_mode": payment}

    def start(self, seats: Sequence[Seat], options: Mapping[str, Any]) -> LondonTable:
        return LondonTable(seats, str(options.get("payment_mode", "lenient")), self.map)

    def check_action(self, data: Mapping[str, Any]) -> dict[str, Any]:
        if data.get("type") not in ACTIONS:
            raise NotationError(
                f"unknown London action {data.get('type')!r}: expected one of {', '.join(ACTIONS)}"
            )
        out = action_from_json(data).to_json()
        if out["type"] == "claim" and out["route"] not in self.map.routes:
            raise NotationError(f"unknown London route id {out['route']!r}")
        if out["type"] == "keep_tickets":
            for t in out["tickets"]:
                if t not in self.map.tickets:
                    raise NotationError(f"unknown London ticket id {t!r}")
        return dict(out)

    def describe(self, action: Mapping[str, Any], *, secret: bool = True) -> str:
        line = action_line(action, secret, action_from_json, ACTIONS)
        return super().describe(action, secret=secret) if line is None else line

    def board_json(self) -> dict[str, Any]:
        m = self.map
        return {
            "game": self.name,
            "locations": {
                loc.id: {"name": loc.name, "district": loc.district} for loc in m.locations.values()
            },
            "districts": [
                {"district": d.number, "points": d.points, "locations": list(d.locations)}
                for d in m.districts
            ],
            "routes": {
                r.id: {
                    "a": r.a,
                    "b": r.b,
                    "length": r.length,
                    "color": r.color_name,
                    "twin": r.twin,
                    "points": m.points_for(r),
                }
                for r in m.routes.values()
            },
            "tickets": {t.id: {"a": t.a, "b": t.b, "points": t.points} for t in m.tickets.values()},
            "cards": ["black", "blue", "green", "orange", "pink", "yellow", "bus"],
            "buses_per_player": m.buses_per_player,
            "tickets_dealt": m.tickets_dealt,
        }
