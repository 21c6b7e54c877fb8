"""Calibration of the reader's confidence (companion.vision.decide.calibrate) and the check list
decided from it (check.assess with ``sure``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.vision.decide.calibrate import (
    KINDS,
    Calibration,
    Steps,
    fit_steps,
    load_calibration,
    logit,
    route_grades,
    route_kind,
    station_kind,
)
from companion.vision.decide.check import (
    CheckConfig,
    assess,
    grade_routes,
    print_like,
    room_left,
    route_evidence,
)
from companion.vision.decide.classify import HYPOTHESES
from companion.vision.decide.context import ReadContext


def test_fitted_steps_rise_with_the_grade_and_match_the_shares() -> None:
    rng = np.random.default_rng(5)
    grades = rng.uniform(-5, 10, 20000)
    truth = 1.0 / (1.0 + np.exp(-grades))  # right with the probability the grade says
    right = rng.random(20000) < truth
    steps = fit_steps(grades, right, min_count=200)
    assert len(steps.edges) >= 5
    assert list(steps.edges) == sorted(steps.edges)
    assert all(b > a for a, b in zip(steps.values, steps.values[1:], strict=False))
    assert sum(steps.counts) == 20000
    for g in (-2.0, 0.0, 2.0, 5.0):  # each step's share is the share right around it
        near = np.abs(grades - g) < 0.5
        assert abs(float(steps(g)) - float(right[near].mean())) < 0.12


def test_a_sparse_pool_is_never_called_sure() -> None:
    # 30 readings, all right: with a wrong one more assumed, 30/31 < 0.99
    steps = fit_steps(np.linspace(0, 10, 30), np.ones(30, dtype=bool), min_count=10)
    assert float(steps(10.0)) < 0.99
    steps = fit_steps(np.linspace(0, 10, 500), np.ones(500, dtype=bool), min_count=10)
    assert float(steps(10.0)) > 0.99


def test_below_the_lowest_grade_and_unknown_kinds_are_unsure() -> None:
    steps = fit_steps([1.0, 2.0, 3.0, 4.0] * 50, [False, True, True, True] * 50, min_count=50)
    assert float(steps(1.0)) < 0.5
    assert float(steps(0.5)) == 0.0  # below any grade fitted
    cal = Calibration({"claim": steps})
    assert float(cal("free-own", 30.0)) == 0.0
    back = Calibration.from_json(cal.to_json())
    assert abs(float(back("claim", 4.0)) - float(steps(4.0))) < 1e-5
    assert Steps((), (), ())(3.0) == 0.0


def test_the_grade_is_held_down_by_the_weakest_space() -> None:
    conf = np.array([0.999999, 0.999999, 0.999999, 0.5])
    claim = np.array([True, False, False, False])
    own = np.array([True, True, False, False])
    weakest = np.array([1.5, np.inf, np.inf, np.inf])
    hidden = np.array([-np.inf, -2.0, -1.0, -np.inf])
    g = route_grades(conf, claim, own, weakest, hidden)
    assert g[0] == 1.5  # the claim's weakest space
    assert g[1] == 2.0  # a free route on its own colour's print: minus the case for trains
    assert g[2] == float(logit(0.999999))  # not on its own colour's print: the confidence
    assert abs(g[3]) < 1e-9
    assert route_kind(True, True, False) == "claim-own"
    assert route_kind(False, True, True) == "free-own-mixed"
    assert {route_kind(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)} <= set(KINDS)


def test_the_shipped_calibration_covers_every_common_kind() -> None:
    cal = load_calibration()
    for kind in ("free", "free-own", "claim", "claim-own", "station", "no-station"):
        steps = cal.steps[kind]
        assert sum(steps.counts) >= 500  # fitted on enough readings to mean something
        assert all(b > a for a, b in zip(steps.values, steps.values[1:], strict=False))


def _scores(ctx: ReadContext) -> np.ndarray:
    s = np.zeros((len(ctx.info.printed_colors), len(HYPOTHESES)))
    s[:, 0] = 12.0
    return s


def test_the_check_list_lists_what_the_calibration_calls_unsure(
    ctx: ReadContext, free_reading: Any
) -> None:
    g = ctx.geometry
    reading = free_reading(ctx)
    lengths = {r: g.routes[r].length for r in g.route_ids}
    own = next(r for r in g.route_ids if g.routes[r].color == "yellow")
    grey = next(r for r in g.route_ids if g.routes[r].color == "grey")
    s = _scores(ctx)
    s[ctx.info.route_slices[grey], HYPOTHESES.index("yellow")] = 30.0  # yellow plays
    sl = ctx.info.route_slices[own]
    s[sl.start, HYPOTHESES.index("yellow")] = 11.5  # a case for yellow trains on their print
    cfg = CheckConfig.load({"sure": 0.99})
    out = assess(reading, s, ctx.info, ctx.model, lengths, cfg)
    assert out.routes[own] is None and out.routes[grey] == "yellow"
    assert own in out.check and out.why[own] == ["unsure"]
    assert out.calibrated[own] < 0.99 <= out.calibrated[grey]
    assert grey not in out.check
    s[sl.start, HYPOTHESES.index("yellow")] = -20.0  # nothing like trains there
    out = assess(reading, s, ctx.info, ctx.model, lengths, cfg)
    assert own not in out.check and out.calibrated[own] >= 0.99
    # everything on the list has its reason; nothing listed without one
    assert set(out.check) == set(out.why)
    loose = assess(reading, s, ctx.info, ctx.model, lengths, CheckConfig.load({"sure": 0.0}))
    assert own not in loose.check and grey not in loose.check


def test_a_free_route_its_colour_has_no_trains_left_for_is_its_own_kind(ctx: ReadContext) -> None:
    info = ctx.info
    g = ctx.geometry
    own = next(r for r in g.route_ids if g.routes[r].color == "yellow")
    others = [r for r in g.route_ids if g.routes[r].color != "yellow"]
    choice = np.zeros(len(info.route_ids), dtype=np.int64)
    index = {r: k for k, r in enumerate(info.route_ids)}
    yellow = HYPOTHESES.index("yellow")
    used = 0
    for r in others:  # yellow trains read on other routes, up to 45 - 1
        n = len(g.spaces[r])
        if used + n <= 44:
            choice[index[r]] = yellow
            used += n
    assert used == 44
    left = room_left(choice, info, 45)
    n_own = len(g.spaces[own])
    assert left[index[own]] == 45 - 44 - n_own
    grey = next(r for r in g.route_ids if g.routes[r].color == "grey")
    assert left[index[grey]] > 1000  # not printed in a player colour: no limit
    assert route_kind(False, True, False, True) == "free-full"
    assert route_kind(False, True, True, True) == "free-full-mixed"
    assert route_kind(True, True, False, True) == "claim-own"  # a claim is never "full"
    assert route_kind(False, False, False, True) == "free"  # nor a route on another print
    assert {
        route_kind(a, b, c, d) for a in (0, 1) for b in (0, 1) for c in (0, 1) for d in (0, 1)
    } <= set(KINDS)


def test_a_station_of_a_colour_no_route_is_read_in_is_its_own_kind() -> None:
    assert station_kind(None, {"black"}) == "no-station"
    assert station_kind("black", {"black", "red"}) == "station"
    assert station_kind("black", {"red"}) == "station-alone"
    assert station_kind("black", set()) == "station-alone"
    assert {"station", "station-alone", "no-station"} <= set(KINDS)


def test_the_trains_a_colour_has_left_settle_a_free_route_on_its_print(ctx: ReadContext) -> None:
    g = ctx.geometry
    info = ctx.info
    yellow = HYPOTHESES.index("yellow")
    own = next(r for r in g.route_ids if g.routes[r].color == "yellow")
    s = _scores(ctx)
    sl = info.route_slices[own]
    s[sl, yellow] = 10.0  # a case for yellow trains on their print, read free all the same
    fill = [r for r in g.route_ids if g.routes[r].color not in ("yellow", "grey")]
    used = 0
    for r in fill:  # yellow trains read elsewhere: exactly a player's 45
        n = len(g.spaces[r])
        if used + n <= 45:
            s[info.route_slices[r], yellow] = 30.0
            used += n
    assert used == 45
    ev = route_evidence(s, info, ctx.model.route_temperature)
    like = print_like(ctx.model, CheckConfig.load().print_like_radius)
    k = info.route_ids.index(own)
    assert ev.choice[k] == 0
    assert grade_routes(ev, info, like).kinds[k] == "free-own"  # without the rule
    assert grade_routes(ev, info, like, 45).kinds[k] == "free-full"
    assert grade_routes(ev, info, like, 45 + len(g.spaces[own])).kinds[k] == "free-own"
    # a colour read over its 45 breaks the rule and proves nothing
    extra = next(r for r in fill if int(s[info.route_slices[r].start, yellow]) == 0)
    s[info.route_slices[extra], yellow] = 30.0
    ev = route_evidence(s, info, ctx.model.route_temperature)
    assert grade_routes(ev, info, like, 45).kinds[k] == "free-own"


def test_a_step_less_its_standard_errors_is_the_evidence_for_it() -> None:
    """``z`` standard errors of a step's share off its value: 141 right of 147 is 0.953, at one
    error 0.935 (under the check list's ``sure`` 0.95, so such a reading is listed); a step of
    30,000 readings barely moves, and ``z`` 0 is the share itself."""
    steps = Steps((0.0, 5.0), (141 / 148, 0.9999), (147, 30000))
    assert steps([1.0, 6.0]).tolist() == [141 / 148, 0.9999]
    low = steps([1.0, 6.0], 1.0)
    assert abs(low[0] - 0.9352) < 5e-4 and low[0] < 0.95 < steps(1.0)
    assert 0.9999 - 1e-4 < low[1] < 0.9999
    assert steps(-1.0, 1.0) == 0.0  # below any grade fitted: still unknown
