"""The calibration's context term ``free-blind`` (companion.vision.decide.calibrate): a route read
free on the print of a colour seen playing, on a picture that could not tell that colour's trains
from its print, is calibrated on its own, and listed when its own steps call it unsure."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.vision.decide import check
from companion.vision.decide.calibrate import KINDS, Calibration, Steps, route_kind
from companion.vision.decide.check import (
    CheckConfig,
    assess,
    cannot_tell,
    grade_routes,
    print_like,
    route_evidence,
)
from companion.vision.decide.classify import HYPOTHESES
from companion.vision.decide.context import ReadContext
from companion.vision.types import PLAYER_COLORS, BoardReading


def test_blind_is_a_kind_of_free_route_on_its_own_colours_print() -> None:
    assert route_kind(False, True, False, blind=True) == "free-blind"
    assert route_kind(False, True, True, blind=True) == "free-blind-mixed"
    assert route_kind(False, True, False, True, True) == "free-full"  # the rules first
    assert route_kind(True, True, False, blind=True) == "claim-own"  # a claim is never blind
    assert route_kind(False, False, False, blind=True) == "free"  # nor another print
    assert route_kind(False, True, False) == "free-own"
    every = {
        route_kind(a, b, c, d, e)
        for a in (0, 1)
        for b in (0, 1)
        for c in (0, 1)
        for d in (0, 1)
        for e in (0, 1)
    }
    assert {"free-blind", "free-blind-mixed"} <= every <= set(KINDS)


def test_cannot_tell_is_the_colours_the_discriminant_left_out(ctx: ReadContext) -> None:
    m = ctx.model
    apart = np.array([True, False, True, True, False])
    assert cannot_tell(replace(m, own_print_weight=0.0, own_print_apart=apart)) is None
    assert cannot_tell(replace(m, own_print_weight=1.0, own_print_apart=None)) is None
    got = cannot_tell(replace(m, own_print_weight=1.0, own_print_apart=apart))
    assert got is not None and got.tolist() == [False, True, False, False, True]


def _yellow_plays_beside_a_free_yellow_route(ctx: ReadContext) -> tuple[np.ndarray, str, str]:
    """Scores: yellow trains on a grey route, and a route printed yellow read free (with a case
    for yellow trains on one of its spaces)."""
    g = ctx.geometry
    own = next(r for r in g.route_ids if g.routes[r].color == "yellow")
    grey = next(r for r in g.route_ids if g.routes[r].color == "grey")
    s = np.zeros((len(ctx.info.printed_colors), len(HYPOTHESES)))
    s[:, 0] = 12.0
    s[ctx.info.route_slices[grey], HYPOTHESES.index("yellow")] = 30.0  # yellow plays
    s[ctx.info.route_slices[own].start, HYPOTHESES.index("yellow")] = 4.0
    return s, own, grey


def test_a_free_route_is_blind_only_where_its_printed_colour_is(ctx: ReadContext) -> None:
    info = ctx.info
    s, own, grey = _yellow_plays_beside_a_free_yellow_route(ctx)
    ev = route_evidence(s, info, ctx.model.route_temperature)
    like = print_like(ctx.model, CheckConfig.load().print_like_radius)
    k, j = info.route_ids.index(own), info.route_ids.index(grey)
    yellow = np.array([c == "yellow" for c in PLAYER_COLORS])
    assert grade_routes(ev, info, like, 45).kinds[k] == "free-own"
    assert grade_routes(ev, info, like, 45, ~yellow).kinds[k] == "free-own"  # others blind
    blind = grade_routes(ev, info, like, 45, yellow)
    assert blind.kinds[k] == "free-blind"
    assert blind.kinds[j] == "claim"  # yellow trains on grey print stay what they were
    free = [
        i
        for i, rid in enumerate(info.route_ids)
        if ev.choice[i] == 0 and info.printed_colors[info.route_starts[i]] != "yellow"
    ]
    assert free and all(not blind.kinds[i].startswith("free-blind") for i in free)


def test_assess_calibrates_a_blind_route_by_its_own_steps(
    ctx: ReadContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = ctx.geometry
    s, own, grey = _yellow_plays_beside_a_free_yellow_route(ctx)
    reading = BoardReading(
        routes={r: None for r in g.route_ids},
        stations={c: None for c in g.city_ids},
        confidence={**{r: 1.0 for r in g.route_ids}, **{c: 0.999 for c in g.city_ids}},
        spaces={r: [None] * len(g.spaces[r]) for r in g.route_ids},
    )
    lengths = {r: g.routes[r].length for r in g.route_ids}
    sure = Steps((-30.0,), (0.999,), (1000,))
    cal = Calibration(
        {
            "free": sure,
            "free-own": sure,
            "claim": sure,
            "no-station": sure,
            "free-blind": Steps((-30.0, 10.0), (0.9, 0.999), (100, 100)),
        }
    )
    cfg = CheckConfig.load({"sure": 0.95})
    yellow = PLAYER_COLORS.index("yellow")
    apart = np.ones(len(PLAYER_COLORS), dtype=bool)
    seeing = replace(ctx.model, own_print_weight=1.0, own_print_apart=apart)
    apart_not = apart.copy()
    apart_not[yellow] = False
    blind = replace(ctx.model, own_print_weight=1.0, own_print_apart=apart_not)
    monkeypatch.setattr(check, "load_calibration", lambda: cal)
    out = assess(reading, s, ctx.info, seeing, lengths, cfg)
    assert out.routes[own] is None and out.routes[grey] == "yellow"
    assert out.calibrated[own] >= 0.99 and own not in out.check
    out = assess(reading, s, ctx.info, blind, lengths, cfg)
    assert out.routes[own] is None  # the reading is the same; only its confidence
    assert abs(out.calibrated[own] - 0.9) < 1e-9
    assert own in out.check and out.why[own] == ["unsure"]
    assert grey not in out.check
