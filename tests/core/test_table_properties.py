"""Random games through the table tracker as a real table plays them.

A seeded bot plays a full simulation; the table tracker (tickets tracked, a turn needs an
action) is fed only what the table shows, but the way a table shows it: each player's first
tickets are kept at a random moment before that player's first turn action - out of turn, after
others have played -, "end turn" is now and then tapped twice, and a player who has not kept
first tickets yet now and then tries to act. Every extra tap and premature action must be
refused and change nothing; after every turn the tracker's position (routes, stations, trains,
scores, whose turn, the final round, the tickets of those who kept) is the simulation's at the
end of that turn, and the game ends with the same final score. So the tracker reaches no state
the simulation would not reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core.actions import (
    Action,
    BuildStation,
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    DrewCards,
    EndTurn,
    KeepTickets,
    Pass,
    PayTunnel,
    RevealTunnel,
    WithdrawTunnel,
)
from companion.core.bots import RandomBot
from companion.core.errors import IllegalActionError
from companion.core.game import Game, Phase
from companion.core.tracker import TableTracker
from companion.data import europe_map

EMAP = europe_map()
VARIANTS = ["europe", "1912", "mega_europe", "big_cities"]


def position(x: Game | TableTracker) -> tuple[Any, ...]:
    """What the table shows of a game: the same for the simulation and the tracker."""
    return (
        dict(x.route_owner),
        dict(x.station_owner),
        [(p.color, list(p.routes), list(p.stations), p.trains, p.score) for p in x.players],
        x.current,
        x.turn,
        x.final.trigger,
        x.final.turns_left,
        x.over,
    )


@dataclass
class Step:
    action: Action
    after: tuple[Any, ...] | None = None  # an end of turn: the simulation's position then
    tickets: dict[str, list[str]] | None = None  # ... and everyone's tickets


def simulate(seed: int, n: int, variant: str) -> tuple[Game, dict[str, KeepTickets], list[Step]]:
    """A bot game; the first keeps, and every later thing the table shows, turn by turn."""
    colors = ["blue", "red", "green", "yellow", "black"][:n]
    g = Game.new(EMAP, [(c.title(), c) for c in colors], variant=variant, seed=seed)
    bot = RandomBot(seed)
    first: dict[str, KeepTickets] = {}
    steps: list[Step] = []
    drawn = 0
    while not g.over and len(steps) < 3000:
        action = bot.choose(g)
        turn_before, setup = g.turn, g.phase is Phase.SETUP
        g.apply(action)
        if setup:
            assert isinstance(action, KeepTickets)
            first[action.player] = action
            continue
        who = action.player
        if isinstance(action, DrawDeck | DrawFaceUp):
            drawn += 1
        elif isinstance(action, ClaimRoute):
            steps.append(Step(action))
            if g.map.routes[action.route].tunnel:
                steps.append(Step(RevealTunnel(who, g.last_revealed)))
        elif isinstance(action, PayTunnel | WithdrawTunnel | BuildStation | KeepTickets):
            steps.append(Step(action))
        elif isinstance(action, Pass):
            steps.append(Step(DrewCards(who, 0)))  # nothing could be taken: "drew 0"
        else:
            assert isinstance(action, DrawTickets)
            steps.append(Step(action))  # the deal the next keep answers
        if g.turn != turn_before:
            if drawn:
                steps.append(Step(DrewCards(who, drawn)))
                drawn = 0
            tickets = {p.color: list(p.tickets) for p in g.players}
            steps.append(Step(EndTurn(who), position(g), tickets))
    assert g.over
    return g, first, steps


def refused(t: TableTracker, action: Action) -> str:
    before = t.to_json()
    try:
        t.apply(action)
    except IllegalActionError as exc:
        assert t.to_json() == before  # a refusal changes nothing
        return exc.rule
    raise AssertionError(f"{action.to_text()} was accepted")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**31),
    n=st.integers(min_value=2, max_value=5),
    variant=st.sampled_from(VARIANTS),
    data=st.data(),
)
def test_a_table_keeping_first_tickets_out_of_turn_and_tapping_end_turn_twice_stays_in_the_game(
    seed: int, n: int, variant: str, data: st.DataObject
) -> None:
    g, first, steps = simulate(seed, n, variant)
    # each first keep comes at a random moment before that player's first turn action
    keep_at: dict[int, list[str]] = {}
    for color in first:
        mine = next((i for i, s in enumerate(steps) if s.action.player == color), len(steps))
        keep_at.setdefault(data.draw(st.integers(0, mine), label=f"keep {color}"), []).append(color)
    t = TableTracker(
        EMAP,
        [(p.name, p.color) for p in g.players],
        variant=variant,
        payment_mode="strict",
        tickets_tracked=True,
        turn_needs_action=True,
    )
    taps = 0
    for i, step in enumerate([*steps, None]):
        for color in keep_at.get(i, []):
            waiting = [p.color for p in t.players if not p.ready]
            if data.draw(st.booleans(), label="premature"):
                eager = data.draw(st.sampled_from(waiting), label="who")
                assert refused(t, DrewCards(eager)) == "first-tickets"
            t.apply(first[color])  # the first keep: not a turn action
        if step is None:
            break
        t.apply(step.action)
        if step.after is None:
            continue
        assert position(t) == step.after
        assert step.tickets is not None
        for p in t.players:
            assert p.tickets == (step.tickets[p.color] if p.ready else [])
        if data.draw(st.booleans(), label="double tap"):
            taps += 1
            # the host's second tap ends the turn of whoever plays now: nothing done yet
            rule = refused(t, EndTurn(t.current_player.color))
            assert rule in ("turn-needs-action", "first-tickets", "game-over")
            assert refused(t, EndTurn(step.action.player)) in ("not-your-turn", "game-over")
    assert all(p.ready for p in t.players) and t.over
    assert [p.tickets for p in t.players] == [p.tickets for p in g.players]
    assert t.final_score().to_json() == g.final_score().to_json()
    assert TableTracker.from_json(t.to_json(), EMAP).to_json() == t.to_json()
