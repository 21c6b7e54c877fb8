"""Random London games through the table tracker as a real table plays them: first tickets kept
at random moments out of turn (after others have played), "end turn" tapped twice, players
without first tickets trying to act. Refusals change nothing; after every turn the tracker's
position is the simulation's; the game ends with the same final score."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.london.board import london_map
from companion.london.bots import RandomBot
from companion.london.game import Game
from companion.london.tracker import TableTracker

from ..core.playing import replay_at_table, table_steps, turn_position

LMAP = london_map()
COLORS = ["blue", "red", "green", "yellow"]


def position(x: Game | TableTracker) -> tuple[Any, ...]:
    return (
        dict(x.route_owner),
        [(p.color, list(p.routes), p.buses, p.score) for p in x.players],
        *turn_position(x),
    )


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), n=st.integers(2, 4), data=st.data())
def test_a_london_table_keeping_first_tickets_out_of_turn_stays_in_the_game(
    seed: int, n: int, data: st.DataObject
) -> None:
    g = Game.new(LMAP, [(c.title(), c) for c in COLORS[:n]], seed=seed)
    first, steps = table_steps(g, RandomBot(seed), position)
    t = TableTracker(
        LMAP,
        [(p.name, p.color) for p in g.players],
        payment_mode="strict",
        tickets_tracked=True,
        turn_needs_action=True,
    )
    replay_at_table(g, t, first, steps, position, data)
