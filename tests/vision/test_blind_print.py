"""A free route on the print of a colour this picture could not tell from its trains
(companion.vision.decide.blind_print) is listed by check.assess whatever its calibration."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from companion.vision.decide import check
from companion.vision.decide.blind_print import blind_routes, cannot_tell
from companion.vision.decide.calibrate import Calibration, Steps
from companion.vision.decide.check import (
    CheckConfig,
    assess,
    grade_routes,
    print_like,
    route_evidence,
    trains_read,
)
from companion.vision.decide.classify import HYPOTHESES
from companion.vision.decide.context import ReadContext
from companion.vision.types import PLAYER_COLORS


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


def test_only_free_routes_on_a_blind_colours_print_are_blind(ctx: ReadContext) -> None:
    info = ctx.info
    s, own, grey = _yellow_plays_beside_a_free_yellow_route(ctx)
    ev = route_evidence(s, info, ctx.model.route_temperature)
    like = print_like(ctx.model, CheckConfig.load().print_like_radius)
    kinds = grade_routes(ev, info, like, 45).kinds
    k, j = info.route_ids.index(own), info.route_ids.index(grey)
    assert kinds[k] == "free-own" and kinds[j] == "claim"
    yellow = np.array([c == "yellow" for c in PLAYER_COLORS])
    c = ev.choice
    u = trains_read(c, info)
    g = grade_routes(ev, info, like, 45).grade
    assert not blind_routes(kinds, g, u, info, None, (1000, 9, 99.0)).any()
    assert not blind_routes(kinds, g, u, info, ~yellow, (1000, 9, 99.0))[k]  # other colours blind
    got = blind_routes(kinds, g, u, info, yellow, (1000, 0, 99.0))
    assert got[k] and not got[j]  # yellow trains on grey print: not this case
    # every yellow-printed route read free is blind (yellow plays); nothing else
    printed = [info.printed_colors[int(a)] for a in info.route_starts]
    length = np.diff(np.r_[info.route_starts, len(info.printed_colors)])
    free_yellow = [p == "yellow" and c[i] == 0 for i, p in enumerate(printed)]
    assert got.tolist() == free_yellow
    # yellow seen on the grey route's spaces only: blind while under few_trains; else only the
    # routes at most ``short`` spaces long
    seen = int(length[j])
    assert blind_routes(kinds, g, u, info, yellow, (seen + 1, 0, 99.0)).tolist() == free_yellow
    assert not blind_routes(kinds, g, u, info, yellow, (seen, 0, 99.0)).any()
    short = blind_routes(kinds, g, u, info, yellow, (seen, 2, 99.0)).tolist()
    assert short == [f and int(n) <= 2 for f, n in zip(free_yellow, length, strict=True)]
    assert any(short) and not all(x for x, f in zip(short, free_yellow, strict=True) if f)
    # a free route whose print wins by more than the grade limit is not blind
    assert g[k] < 99.0
    assert not blind_routes(kinds, g, u, info, yellow, (1000, 9, float(g[k])))[k]
    assert blind_routes(kinds, g, u, info, yellow, (1000, 9, float(g[k]) + 0.01))[k]
    # a route the rules settle (free-full) and one not on its own colour's print are not blind
    settled = ["free-full" if i == k else x for i, x in enumerate(kinds)]
    assert not blind_routes(settled, g, u, info, yellow, (1000, 9, 99.0))[k]
    every = np.ones(5, dtype=bool)
    assert not blind_routes(["free"] * len(kinds), g, u, info, every, (1000, 9, 99.0)).any()


def test_assess_lists_a_blind_route_whatever_its_calibration(
    ctx: ReadContext, monkeypatch: pytest.MonkeyPatch, free_reading: Any
) -> None:
    g = ctx.geometry
    s, own, grey = _yellow_plays_beside_a_free_yellow_route(ctx)
    reading = free_reading(ctx)
    lengths = {r: g.routes[r].length for r in g.route_ids}
    sure = Steps((-30.0,), (0.999,), (1000,))
    kinds = ("free", "free-own", "claim", "no-station")
    monkeypatch.setattr(check, "load_calibration", lambda: Calibration(dict.fromkeys(kinds, sure)))
    yellow = PLAYER_COLORS.index("yellow")
    apart = np.ones(len(PLAYER_COLORS), dtype=bool)
    seeing = replace(ctx.model, own_print_weight=1.0, own_print_apart=apart)
    apart_not = apart.copy()
    apart_not[yellow] = False
    blind = replace(ctx.model, own_print_weight=1.0, own_print_apart=apart_not)
    ruled = CheckConfig.load({"sure": 0.95})
    assert ruled.list_blind and ruled.blind_few_trains > 3  # as shipped
    out = assess(reading, s, ctx.info, seeing, lengths, ruled)
    assert out.routes[own] is None and out.routes[grey] == "yellow"
    assert out.calibrated[own] >= 0.99 and own not in out.check  # told apart: as calibrated
    out = assess(reading, s, ctx.info, blind, lengths, ruled)
    assert out.routes[own] is None  # the reading is the same; it is listed
    assert out.calibrated[own] >= 0.99
    assert own in out.check and out.why[own] == ["blind-print"]
    assert grey not in out.check
    # yellow seen on more spaces than that, and the route longer: as calibrated
    many = CheckConfig.load({"sure": 0.95, "blind_few_trains": 1, "blind_short": 0})
    assert own not in assess(reading, s, ctx.info, blind, lengths, many).check
    off = assess(
        reading, s, ctx.info, blind, lengths, CheckConfig.load({"sure": 0.95, "list_blind": False})
    )
    assert own not in off.check
    # before calibration (the benchmarks' comparison) the rule is not used
    old = assess(reading, s, ctx.info, blind, lengths, CheckConfig.load({"sure": None}))
    assert "blind-print" not in old.why.get(own, [])
