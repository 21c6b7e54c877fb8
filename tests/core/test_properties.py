"""Random legal games played to the end never break an invariant.

Each game is played by seeded random bots; after every action the cards, trains and tickets are
conserved, the score track matches the routes, every action's text and JSON forms round-trip,
and the table tracker, fed only what a table would show, agrees with the simulation.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core.actions import Action, ClaimRoute, RevealTunnel, action_from_json, parse_action
from companion.core.board import GameMap
from companion.core.bots import RandomBot, TicketBot
from companion.core.cards import full_deck
from companion.core.game import Game
from companion.core.tracker import TableTracker
from companion.data import europe_map

from .playing import TableMirror, check_face_up, play_checked

EMAP = europe_map()
VARIANTS = ["europe", "1912", "mega_europe", "big_cities"]
# a random table, as hypothesis draws it: the game's seed, its number of players, its variant
A_TABLE = {
    "seed": st.integers(min_value=0, max_value=2**31),
    "n": st.integers(min_value=2, max_value=5),
    "variant": st.sampled_from(VARIANTS),
}


def new_game(seed: int, n: int, variant: str) -> Game:
    """A Europe game of ``n`` players (blue first), shuffled by ``seed``."""
    colors = ["blue", "red", "green", "yellow", "black"][:n]
    return Game.new(EMAP, [(c.title(), c) for c in colors], variant=variant, seed=seed)


def check_invariants(g: Game) -> None:
    m = g.map
    assert g.all_cards() == Counter(full_deck())
    check_face_up(g)
    owners: dict[str, str] = {}
    for p in g.players:
        lengths = [m.routes[r].length for r in p.routes]
        assert p.trains + sum(lengths) == m.trains_per_player
        assert p.score == sum(m.route_points[n] for n in lengths)
        assert len(p.stations) <= m.stations_per_player
        for r in p.routes:
            owners[r] = p.color
        assert all(v >= 0 for v in p.hand.values())
    assert owners == g.route_owner
    assert {c: o for o, p in ((p.color, p) for p in g.players) for c in p.stations} == (
        g.station_owner
    )
    longs, regular = m.tickets_of_variant(g.variant)
    everywhere = list(g.ticket_deck) + list(g.box)
    for p in g.players:
        everywhere += p.tickets + p.offered
    assert Counter(everywhere) == Counter(t.id for t in [*longs, *regular])


def tunnel_shown(g: Game, action: Action) -> list[Action]:
    """After a tunnel's claim the table shows the cards turned up for it."""
    if isinstance(action, ClaimRoute) and g.map.routes[action.route].tunnel:
        return [RevealTunnel(action.player, g.last_revealed)]
    return []


def table_mirror(g: Game) -> TableMirror:
    players = [(p.name, p.color) for p in g.players]
    t = TableTracker(g.map, players, variant=g.variant.id, payment_mode="strict")
    return TableMirror(t, tunnel_shown)


def play(
    seed: int,
    n: int,
    variant: str,
    max_actions: int = 4000,
    bot: RandomBot | TicketBot | None = None,
) -> tuple[Game, list[Action], TableMirror]:
    g = new_game(seed, n, variant)
    mirror = table_mirror(g)
    bot = bot or RandomBot(seed)
    notation = (parse_action, action_from_json)
    actions = play_checked(g, bot, mirror, max_actions, check_invariants, notation, 50)
    return g, actions, mirror


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**A_TABLE)
def test_random_games_keep_every_invariant(seed: int, n: int, variant: str) -> None:
    g, actions, mirror = play(seed, n, variant)
    assert g.over, f"seed {seed}: not over after {len(actions)} actions"
    final = g.final_score()
    for s, p in zip(final.players, g.players, strict=True):
        assert s.route_points == p.score
        assert s.total == s.route_points + s.ticket_points + s.station_points + s.express_points
        assert s.ticket_points == sum(t.points for t in s.tickets)
        assert s.station_points == 4 * (3 - len(p.stations))
    assert final.winners and all(s.rank >= 1 for s in final.players)
    # the tracker, which saw only the table, reached the same position and the same scores
    t = mirror.t
    assert t.over
    assert t.route_owner == g.route_owner and t.station_owner == g.station_owner
    assert [(p.trains, p.score, p.tickets) for p in t.players] == [
        (p.trains, p.score, p.tickets) for p in g.players
    ]
    assert t.final_score().to_json() == final.to_json()
    # the tracker's own state round-trips
    assert TableTracker.from_json(t.to_json(), EMAP).to_json() == t.to_json()


def test_replaying_the_actions_gives_the_same_game() -> None:
    g, actions, _ = play(99, 4, "europe")
    again = Game.new(EMAP, [(p.name, p.color) for p in g.players], variant="europe", seed=99)
    for a in actions:
        again.apply(parse_action(a.to_text()))
    assert again.to_json() == g.to_json()


def test_many_seeds_finish(emap: GameMap) -> None:
    finished = 0
    for seed in range(30):
        g, _, _ = play(seed, 2 + seed % 4, VARIANTS[seed % 4])
        finished += g.over
    assert finished == 30


def test_ticket_bots_play_real_looking_games() -> None:
    completed = held = 0
    for seed in range(6):
        g, _, mirror = play(seed, 2 + seed % 4, VARIANTS[seed % 4], bot=TicketBot(seed))
        assert g.over
        final = g.final_score()
        assert mirror.t.final_score().to_json() == final.to_json()
        completed += sum(p.tickets_completed for p in final.players)
        held += sum(len(p.tickets) for p in final.players)
    assert completed >= 0.75 * held  # they play for their tickets, and mostly make them
