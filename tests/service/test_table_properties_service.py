"""Random games through the service as phones play them: the seeded bot games of
tests/core/test_table_properties.py, sent to a Service (tickets tracked, a turn needs an action)
with each player's first keep at a random moment before that player's first turn action (out
of turn, after others played), "end turn" now and then tapped twice, actions now and then sent
from a stale view (``after`` from before a turn change: refused and nothing changes) or from an
old view that does not matter (``after`` from before another player's first keep: applied).
After every turn the service's position is the simulation's; the game ends with the same final
score: the service reaches no state the simulation would not reach."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.core.actions import EndTurn
from companion.core.tracker import TableTracker
from companion.service import Actor, Conflict, Service
from companion.store import EventStore
from tests.core.test_table_properties import position, simulate

HOST = Actor.host()


def tracker(s: Service) -> TableTracker:
    assert s.fold is not None
    t = s.fold.tracker  # type: ignore[union-attr]
    assert isinstance(t, TableTracker)
    return t


def refused(s: Service, body: dict[str, Any]) -> tuple[str, str]:
    before, seq = tracker(s).to_json(), s.seq
    with pytest.raises(Conflict) as info:
        s.act(body, HOST)
    assert tracker(s).to_json() == before and s.seq == seq  # a refusal changes nothing
    return info.value.code, info.value.rule or ""


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**31),
    n=st.integers(min_value=2, max_value=4),
    data=st.data(),
)
def test_first_keeps_out_of_turn_double_taps_and_stale_views_stay_in_the_simulated_game(
    seed: int, n: int, data: st.DataObject
) -> None:
    g, first, steps = simulate(seed, n, "europe")
    keep_at: dict[int, list[str]] = {}
    for color in first:
        mine = next((i for i, s in enumerate(steps) if s.action.player == color), len(steps))
        keep_at.setdefault(data.draw(st.integers(0, mine), label=f"keep {color}"), []).append(color)
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp))
        s = Service(store)  # no loop thread: each call runs at once, in order
        try:
            players = [{"name": p.name, "color": p.color} for p in g.players]
            body = {
                "type": "new_game",
                "players": players,
                "payment_mode": "strict",
                "auto_end": False,  # the simulated game ends each turn itself
            }
            s.act(body, HOST)
            before_turn = s.seq  # a log position from before the latest turn change
            for i, step in enumerate([*steps, None]):
                kept: set[str] = set()
                old = s.seq
                for color in keep_at.get(i, []):
                    keep = first[color].to_json()
                    if data.draw(st.booleans(), label="premature"):
                        waiting = [p.color for p in tracker(s).players if not p.ready]
                        eager = data.draw(st.sampled_from(waiting), label="who")
                        code, _ = refused(s, {"type": "drew_cards", "player": eager})
                        assert code == "rule.first-tickets"
                    s.act({**keep, "after": s.seq}, HOST)  # the first keep: not a turn action
                    kept.add(color)
                if step is None:
                    break
                body = step.action.to_json()
                who = step.action.player
                if before_turn < s.seq and data.draw(st.booleans(), label="stale"):
                    code, rule = refused(s, {**body, "after": before_turn})
                    assert (code, rule) == ("action.stale", "stale")
                    event("a stale view refused")
                if kept and who not in kept and data.draw(st.booleans(), label="old view"):
                    after = old  # from before another player's first keep: still applies
                    event("an old view that does not matter applied")
                else:
                    after = s.seq
                turn = tracker(s).turn
                s.act({**body, "after": after}, HOST)
                if tracker(s).turn != turn:
                    before_turn = after
                if step.after is None:
                    continue
                assert isinstance(step.action, EndTurn)
                assert position(tracker(s)) == step.after
                if data.draw(st.booleans(), label="double tap"):
                    # the same tap again, from the same view: stale; without a view: the new
                    # turn has no action yet
                    code, _ = refused(s, {**body, "after": after})
                    assert code == "action.stale"
                    event("a double tap refused")
                    if not tracker(s).over:
                        now = tracker(s).current_player.color
                        code, _ = refused(s, {"type": "end_turn", "player": now})
                        assert code in ("rule.turn-needs-action", "rule.first-tickets")
            t = tracker(s)
            assert all(p.ready for p in t.players) and t.over
            assert [p.tickets for p in t.players] == [p.tickets for p in g.players]
            assert t.final_score().to_json() == g.final_score().to_json()
        finally:
            store.close()
