"""Random legal London games played to the end never break an invariant.

Seeded bots play; after every action the 44 cards, the 20 tickets and every player's 17 buses
are conserved, the score track matches the routes, each action's text and JSON forms
round-trip, and the table tracker, fed only what a table shows, agrees with the simulation.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.london.actions import Action, action_from_json, parse_action
from companion.london.board import LondonMap, london_map
from companion.london.bots import RandomBot, TicketBot
from companion.london.cards import full_deck
from companion.london.game import Game, Phase
from companion.london.scoring import score_final
from companion.london.tracker import TableTracker

from ..core.playing import TableMirror, check_face_up, play_checked
from .brute import brute_score

LMAP = london_map()
COLORS = ["blue", "red", "green", "yellow"]


def check_invariants(g: Game) -> None:
    m = g.map
    assert g.all_cards() == Counter(full_deck(m.cards_per_color, m.bus_cards))
    assert g.all_tickets() == Counter(list(m.tickets))
    check_face_up(g)  # three face-up buses stay only when no new row could have fewer
    owners: dict[str, str] = {}
    for p in g.players:
        lengths = [m.routes[r].length for r in p.routes]
        assert p.buses + sum(lengths) == m.buses_per_player and p.buses >= 0
        assert p.score == sum(m.route_points[n] for n in lengths)
        for r in p.routes:
            owners[r] = p.color
        assert all(v >= 0 for v in p.hand.values())
    assert owners == g.route_owner
    if g.phase is Phase.PLAYING:
        assert all(p.ready and p.tickets for p in g.players)  # everyone kept at least one


def play(
    seed: int, n: int, bot: RandomBot | TicketBot | None = None, max_actions: int = 3000
) -> tuple[Game, list[Action], TableMirror]:
    g = Game.new(LMAP, [(c.title(), c) for c in COLORS[:n]], seed=seed)
    players = [(p.name, p.color) for p in g.players]
    mirror = TableMirror(TableTracker(LMAP, players, payment_mode="strict"))
    bot = bot or RandomBot(seed)
    notation = (parse_action, action_from_json)
    actions = play_checked(g, bot, mirror, max_actions, check_invariants, notation, 25)
    return g, actions, mirror


def check_end(g: Game, mirror: TableMirror) -> None:
    final = g.final_score()
    want = brute_score(LMAP, g.end_positions())
    for s, p, w in zip(final.players, g.players, want, strict=True):
        assert s.route_points == p.score
        assert s.total == s.route_points + s.ticket_points + s.district_points
        assert s.ticket_points == sum(t.points for t in s.tickets)
        assert s.district_points == sum(d.points for d in s.districts)
        assert (s.total, s.rank) == (w["total"], w["rank"])
    assert final.winners and all(s.rank >= 1 for s in final.players)
    # the game ended because someone got down to 2 buses, and everyone had a last turn
    assert g.final.trigger is not None
    assert g.players[g.final.trigger].buses <= LMAP.final_round_buses
    # the tracker saw only the table and reached the same position and the same scores
    t = mirror.t
    assert t.over and t.route_owner == g.route_owner
    assert [(p.buses, p.score, p.tickets) for p in t.players] == [
        (p.buses, p.score, p.tickets) for p in g.players
    ]
    assert t.final_score().to_json() == final.to_json()
    assert TableTracker.from_json(t.to_json(), LMAP).to_json() == t.to_json()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), n=st.integers(min_value=2, max_value=4))
def test_random_games_keep_every_invariant(seed: int, n: int) -> None:
    g, actions, mirror = play(seed, n)
    assert g.over, f"seed {seed}: not over after {len(actions)} actions"
    check_end(g, mirror)


def test_many_seeds_finish_and_the_end_is_reached_by_buses(lmap: LondonMap) -> None:
    finals = Counter()
    for seed in range(40):
        g, _, mirror = play(seed, 2 + seed % 3)
        assert g.over
        check_end(g, mirror)
        finals[g.n_players] += 1
    assert finals == {2: 14, 3: 13, 4: 13}


def test_ticket_bots_play_real_looking_games() -> None:
    completed = held = districts = 0
    for seed in range(9):
        g, _, mirror = play(seed, 2 + seed % 3, bot=TicketBot(seed))
        assert g.over
        check_end(g, mirror)
        final = g.final_score()
        completed += sum(p.tickets_completed for p in final.players)
        held += sum(len(p.tickets) for p in final.players)
        districts += sum(p.district_points > 0 for p in final.players)
    assert completed >= 0.6 * held  # they play for their tickets and mostly make them
    assert districts > 0


def test_replaying_the_text_of_a_game_gives_the_same_game() -> None:
    g, actions, _ = play(99, 4)
    again = Game.new(LMAP, [(p.name, p.color) for p in g.players], seed=99)
    for a in actions:
        again.apply(parse_action(a.to_text()))
    assert again.to_json() == g.to_json()
    assert score_final(LMAP, again.end_positions()).to_json() == g.final_score().to_json()
