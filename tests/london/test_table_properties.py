"""Random London games through the table tracker as a real table plays them: first tickets kept
at random moments out of turn (after others have played), "end turn" tapped twice, players
without first tickets trying to act. Refusals change nothing; after every turn the tracker's
position is the simulation's; the game ends with the same final score."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core.errors import IllegalActionError
from companion.london.actions import (
    Action,
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    DrewCards,
    EndTurn,
    KeepTickets,
    Pass,
)
from companion.london.board import london_map
from companion.london.bots import RandomBot
from companion.london.game import Game, Phase
from companion.london.tracker import TableTracker

LMAP = london_map()
COLORS = ["blue", "red", "green", "yellow"]
Step = tuple[Action, tuple[Any, ...] | None, dict[str, list[str]] | None]


def position(x: Game | TableTracker) -> tuple[Any, ...]:
    return (
        dict(x.route_owner),
        [(p.color, list(p.routes), p.buses, p.score) for p in x.players],
        x.current,
        x.turn,
        x.final.trigger,
        x.final.turns_left,
        x.over,
    )


def simulate(seed: int, n: int) -> tuple[Game, dict[str, KeepTickets], list[Step]]:
    g = Game.new(LMAP, [(c.title(), c) for c in COLORS[:n]], seed=seed)
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
        elif isinstance(action, ClaimRoute | KeepTickets):
            steps.append((action, None, None))
        elif isinstance(action, Pass):
            steps.append((DrewCards(who, 0), None, None))
        else:
            assert isinstance(action, DrawTickets)
            steps.append((action, None, None))  # the deal the next keep answers
        if g.turn != turn_before:
            if drawn:
                steps.append((DrewCards(who, drawn), None, None))
                drawn = 0
            tickets = {p.color: list(p.tickets) for p in g.players}
            steps.append((EndTurn(who), position(g), tickets))
    assert g.over
    return g, first, steps


def refused(t: TableTracker, action: Action) -> str:
    before = t.to_json()
    try:
        t.apply(action)
    except IllegalActionError as exc:
        assert t.to_json() == before
        return exc.rule
    raise AssertionError(f"{action.to_text()} was accepted")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), n=st.integers(2, 4), data=st.data())
def test_a_london_table_keeping_first_tickets_out_of_turn_stays_in_the_game(
    seed: int, n: int, data: st.DataObject
) -> None:
    g, first, steps = simulate(seed, n)
    keep_at: dict[int, list[str]] = {}
    for color in first:
        mine = next((i for i, s in enumerate(steps) if s[0].player == color), len(steps))
        keep_at.setdefault(data.draw(st.integers(0, mine), label=f"keep {color}"), []).append(color)
    t = TableTracker(
        LMAP,
        [(p.name, p.color) for p in g.players],
        payment_mode="strict",
        tickets_tracked=True,
        turn_needs_action=True,
    )
    for i in range(len(steps) + 1):
        for color in keep_at.get(i, []):
            if data.draw(st.booleans(), label="premature"):
                waiting = [p.color for p in t.players if not p.ready]
                eager = data.draw(st.sampled_from(waiting), label="who")
                assert refused(t, DrewCards(eager)) == "first-tickets"
            t.apply(first[color])
        if i == len(steps):
            break
        action, after, tickets = steps[i]
        t.apply(action)
        if after is None:
            continue
        assert position(t) == after and tickets is not None
        for p in t.players:
            assert p.tickets == (tickets[p.color] if p.ready else [])
        if data.draw(st.booleans(), label="double tap"):
            rule = refused(t, EndTurn(t.current_player.color))
            assert rule in ("turn-needs-action", "first-tickets", "game-over")
    assert t.over and [p.tickets for p in t.players] == [p.tickets for p in g.players]
    assert t.final_score().to_json() == g.final_score().to_json()
