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

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core.actions import KeepTickets
from companion.core.bots import RandomBot
from companion.core.game import Game
from companion.core.tracker import TableTracker

from .playing import Step, replay_at_table, table_steps, turn_position
from .test_properties import A_TABLE, EMAP, new_game, tunnel_shown


def position(x: Game | TableTracker) -> tuple[Any, ...]:
    """What the table shows of a game: the same for the simulation and the tracker."""
    return (
        dict(x.route_owner),
        dict(x.station_owner),
        [(p.color, list(p.routes), list(p.stations), p.trains, p.score) for p in x.players],
        *turn_position(x),
    )


def simulate(seed: int, n: int, variant: str) -> tuple[Game, dict[str, KeepTickets], list[Step]]:
    """A bot game; the first keeps, and every later thing the table shows, turn by turn."""
    g = new_game(seed, n, variant)
    first, steps = table_steps(g, RandomBot(seed), position, tunnel_shown)
    return g, first, steps


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**A_TABLE, data=st.data())
def test_a_table_keeping_first_tickets_out_of_turn_and_tapping_end_turn_twice_stays_in_the_game(
    seed: int, n: int, variant: str, data: st.DataObject
) -> None:
    g, first, steps = simulate(seed, n, variant)
    t = TableTracker(
        EMAP,
        [(p.name, p.color) for p in g.players],
        variant=variant,
        payment_mode="strict",
        tickets_tracked=True,
        turn_needs_action=True,
    )
    replay_at_table(g, t, first, steps, position, data)
