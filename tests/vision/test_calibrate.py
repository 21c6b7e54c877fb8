"""Calibration of the reader's confidence (companion.vision.decide.calibrate) and the check list
decided from it (check.assess with ``sure``)."""

from __future__ import annotations

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
)
from companion.vision.decide.check import CheckConfig, assess
from companion.vision.decide.classify import HYPOTHESES
from companion.vision.decide.context import ReadContext
from companion.vision.types import BoardReading


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


def test_the_check_list_lists_what_the_calibration_calls_unsure(ctx: ReadContext) -> None:
    g = ctx.geometry
    reading = BoardReading(
        routes={r: None for r in g.route_ids},
        stations={c: None for c in g.city_ids},
        confidence={**{r: 1.0 for r in g.route_ids}, **{c: 0.999 for c in g.city_ids}},
        spaces={r: [None] * len(g.spaces[r]) for r in g.route_ids},
    )
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
