"""Seeded random rounds and games never break an invariant."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.transeuropa import Match, Round, action_from_json, parse_action, trans_europa
from companion.transeuropa.rules import BLACK

from .play import choose

LAT = trans_europa()
COLORS = ["red", "blue", "green", "yellow", "purple", "white"]


def check(r: Round) -> None:
    black = sum(1 for o in r.tracks.values() if o == BLACK)
    assert black + r.stock == LAT.black_tracks
    for p in r.players:
        used = sum(1 for o in r.tracks.values() if o == p.color)
        assert used + p.colored_left <= LAT.colored_tracks_per_player
    assert Round.from_json(LAT, r.to_json()).to_json() == r.to_json()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 6), colored=st.booleans())
def test_random_rounds(seed: int, n: int, colored: bool) -> None:
    rng = random.Random(seed)
    r = Round.new(LAT, [(c, "") for c in COLORS[:n]], rng=rng, colored_variant=colored)
    fresh = Round.from_json(LAT, r.to_json())
    last: dict[str, int] = {}
    while r.phase != "over":
        a = choose(r, rng)
        assert parse_action(a.to_text()) == a and action_from_json(a.to_json()) == a
        before = r.current_player.color
        r.apply(a)
        check(r)
        if r.phase == "over" or r.current_player.color != before:
            # a turn ended: the round ends exactly when somebody's cities are joined (or no
            # track is left), and joined cities are exactly the zero penalties
            score = r.score()
            for p in score.players:
                assert p.complete == r.complete(p.color)
                cost = r.penalty(p.color).cost if p.complete else p.penalty
                assert cost is not None and (cost == 0) == p.complete
                if not colored:
                    # track only ever helps when nobody can block
                    assert cost <= last.get(p.color, cost)
                    last[p.color] = cost
            if r.phase == "over":
                assert r.end_reason in ("connected", "stock", "blocked")
                assert (r.end_reason == "connected") == any(p.complete for p in score.players)
            else:
                assert not any(p.complete for p in score.players) and r.stock > 0
    # the history replays to the same round
    for a in r.history:
        fresh.apply(a)
    assert fresh.to_json() == r.to_json()


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 4))
def test_random_games_end_in_the_red_area(seed: int, n: int) -> None:
    rng = random.Random(seed)
    m = Match(LAT, [(c, "") for c in COLORS[:n]], colored_variant=True)
    total: dict[str, int] = dict.fromkeys(m.colors, 0)
    rounds = 0
    while not m.over:
        r = m.new_round(rng=rng)
        assert r.start_player == rounds % n
        while r.phase != "over":
            r.apply(choose(r, rng, greed=0.95))
        used_before = dict(m.colored_left)
        result = m.finish_round(r)
        for p in result.players:
            assert p.penalty is not None
            total[p.color] += p.penalty
            assert m.colored_left[p.color] <= used_before[p.color]
        rounds += 1
        assert Match.from_json(LAT, m.to_json()).to_json() == m.to_json()
    assert all(m.scores[c] == LAT.start_points - total[c] for c in m.colors)
    assert min(m.scores.values()) <= LAT.red_at_or_below
    assert m.winners and all(m.scores[w] == max(m.scores.values()) for w in m.winners)
