"""The reading as seen and its check list (companion.vision.decide.check), on hand-made scores."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np

from companion.vision.decide.check import CheckConfig, Problem, assess, print_like, route_evidence
from companion.vision.decide.classify import HYPOTHESES
from companion.vision.decide.context import ReadContext
from companion.vision.types import PLAYER_COLORS, BoardReading

ROOT = Path(__file__).resolve().parents[2]


def _free_scores(ctx: ReadContext) -> np.ndarray:
    """Every space plainly free (print 10 above every train)."""
    n = len(ctx.info.printed_colors)
    s = np.zeros((n, len(HYPOTHESES)))
    s[:, 0] = 10.0
    return s


def _set(ctx: ReadContext, s: np.ndarray, route: str, colour: str | None, sure: float = 10.0):
    sl = ctx.info.route_slices[route]
    s[sl] = 0.0
    s[sl, HYPOTHESES.index(colour)] = sure


def _reading(ctx: ReadContext, conf: float = 0.99) -> BoardReading:
    g = ctx.geometry
    return BoardReading(
        routes={r: None for r in g.route_ids},
        stations={c: None for c in g.city_ids},
        confidence={**{r: 1.0 for r in g.route_ids}, **{c: conf for c in g.city_ids}},
        spaces={r: [None] * len(g.spaces[r]) for r in g.route_ids},
    )


def _assess(ctx: ReadContext, s: np.ndarray, reading: BoardReading | None = None) -> BoardReading:
    g = ctx.geometry
    lengths = {r: g.routes[r].length for r in g.route_ids}
    return assess(reading or _reading(ctx), s, ctx.info, ctx.model, lengths, CheckConfig.load())


def test_an_empty_board_reads_empty_with_nothing_to_check(ctx: ReadContext) -> None:
    out = _assess(ctx, _free_scores(ctx))
    assert all(v is None for v in out.routes.values())
    assert out.check == [] and out.problems == []
    assert out.to_json()["check"] == []


def test_one_colour_on_both_lanes_is_reported_as_seen(ctx: ReadContext) -> None:
    a, b = ctx.info.lane_pairs[0]
    s = _free_scores(ctx)
    _set(ctx, s, a, "red", 12.0)
    _set(ctx, s, b, "red", 9.0)
    sl = ctx.info.route_slices[b]
    s[sl, HYPOTHESES.index("green")] = 6.0  # the joint decision used to pick this lane's runner-up
    out = _assess(ctx, s)
    assert out.routes[a] == "red" and out.routes[b] == "red"
    assert [p["code"] for p in out.problems] == ["double-same-color"]
    assert out.problems[0]["ids"] == [a, b] and out.problems[0]["color"] == "red"
    assert "red trains on both routes" in out.problems[0]["text"]
    assert a in out.check and b in out.check
    assert "green" not in out.routes.values()


def test_a_colour_no_space_shows_is_never_reported(ctx: ReadContext) -> None:
    # a 3-space route: two spaces look blue, one yellow, and every space gives green a good
    # second place, so that the spaces' votes summed would make it green
    route = next(r for r, sl in ctx.info.route_slices.items() if sl.stop - sl.start == 3)
    sl = ctx.info.route_slices[route]
    s = _free_scores(ctx)
    s[sl] = 0.0
    blue, yellow, green = (HYPOTHESES.index(c) for c in ("blue", "yellow", "green"))
    s[sl.start, [blue, green]] = [8.0, 7.9]
    s[sl.start + 1, [yellow, green]] = [8.0, 7.9]
    s[sl.start + 2, [blue, green]] = [8.0, 7.9]
    ev = route_evidence(s, ctx.info, ctx.model.route_temperature)
    k = ctx.info.route_ids.index(route)
    assert HYPOTHESES[int(ev.choice[k])] == "blue" and bool(ev.mixed[k])
    out = _assess(ctx, s)
    assert out.routes[route] == "blue"
    assert route in out.check  # its spaces disagree


def test_too_many_trains_and_stations_are_named(ctx: ReadContext) -> None:
    g = ctx.geometry
    s = _free_scores(ctx)
    second_lanes = {b for _, b in ctx.info.lane_pairs}
    total, taken = 0, []
    for r in g.route_ids:
        if total > 45:
            break
        if r in second_lanes:
            continue
        _set(ctx, s, r, "black")
        taken.append(r)
        total += g.routes[r].length
    reading = _reading(ctx)
    for c in g.city_ids[:4]:
        reading.stations[c] = "yellow"
    out = _assess(ctx, s, reading)
    assert all(out.routes[r] == "black" for r in taken)  # as seen, none dropped
    codes = {p["code"]: p for p in out.problems}
    assert (
        codes["too-many-trains"]["count"] == total and codes["too-many-trains"]["color"] == "black"
    )
    assert set(codes["too-many-trains"]["ids"]) <= set(out.check)
    assert codes["too-many-stations"]["ids"] == list(g.city_ids[:4])
    assert set(g.city_ids[:4]) <= set(out.check)


def test_low_confidence_and_same_colour_claims_are_listed(ctx: ReadContext) -> None:
    g = ctx.geometry
    own = next(r for r in g.route_ids if g.routes[r].color == "yellow")
    grey = next(r for r in g.route_ids if g.routes[r].color == "grey" and g.routes[r].length > 1)
    s = _free_scores(ctx)
    _set(ctx, s, own, "yellow", 30.0)  # sure, but on a route printed yellow: a weak space?
    sl = ctx.info.route_slices[own]
    s[sl.start, 0] = 33.0  # one space more yellow print than yellow trains
    s[ctx.info.route_slices[grey], HYPOTHESES.index("red")] = 10.2  # red and print 50/50
    reading = _reading(ctx)
    reading.stations[g.city_ids[0]] = "red"
    reading.confidence[g.city_ids[0]] = 0.3  # under any station grade the calibration saw
    reading.stations[g.city_ids[1]] = "green"  # a colour no route is read in
    reading.confidence[g.city_ids[1]] = 0.999
    out = _assess(ctx, s, reading)
    assert out.routes[own] == "yellow" and own in out.check
    # a space's margin of the trains over their own print: listed while the calibration says
    # such claims are not sure enough, and surer as the margin grows
    sure = CheckConfig.load().sure
    assert sure is not None
    last = 0.0
    for margin in (-1.0, 0.0, 0.5, 1.0, 3.0, 8.0, 20.0):
        s[sl.start, 0] = 30.0 - margin
        out_m = _assess(ctx, s, reading)
        assert out_m.routes[own] == "yellow"
        assert (own in out_m.check) == (out_m.calibrated[own] < sure)
        if margin > 0:  # one kind of reading (the space shows the trains)
            assert out_m.calibrated[own] >= last
            last = out_m.calibrated[own]
    assert own not in out_m.check
    s[sl.start, 0] = 33.0
    assert grey in out.check
    assert g.city_ids[0] in out.check
    # a sure station of a colour no route is read in: a kind the fitting sets seldom show
    assert "green" not in out.routes.values() and g.city_ids[1] in out.check
    assert out.why[g.city_ids[1]] == ["station-unsure"]
    # printed in a player colour and free, while that colour plays: checked when the trains of
    # that colour come close on one space
    free_own = next(
        r
        for r in g.route_ids
        if g.routes[r].color == "yellow" and r != own and out.routes[r] is None
    )
    fs = ctx.info.route_slices[free_own]
    s[fs.start, HYPOTHESES.index("yellow")] = 9.5
    assert free_own in _assess(ctx, s, reading).check
    s[fs.start, HYPOTHESES.index("yellow")] = 0.0
    assert free_own not in _assess(ctx, s, reading).check


def test_print_like_pairs_include_each_colour_itself(ctx: ReadContext) -> None:
    like = print_like(ctx.model, CheckConfig.load().print_like_radius)
    for c in PLAYER_COLORS:
        assert c in like[c]
    assert "red" not in like["yellow"] and "blue" not in like["yellow"]


def test_problem_json() -> None:
    p = Problem(("a-b-1", "a-b-2"), "double-same-color", "blue")
    assert p.to_json() == {
        "ids": ["a-b-1", "a-b-2"],
        "code": "double-same-color",
        "color": "blue",
        "text": "blue trains on both routes of a double",
    }
    assert "47 red trains" in Problem(("x",), "too-many-trains", "red", 47).text


def test_cli_json_has_the_check_list_and_problems(tmp_path, capsys) -> None:
    import json

    import cv2

    from companion.cli import main
    from companion.sim.render import BoardRenderer, Scene

    renderer = BoardRenderer()
    # one colour on both lanes of a double, on a board drawn straight from above
    a, b = "berlin-frankfurt-1", "berlin-frankfurt-2"
    board = renderer.render_board(Scene(routes={a: "blue", b: "blue"}, seed=3), 1500)
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), board)
    assert main(["vision", "read", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["routes"][a] == "blue" and out["routes"][b] == "blue"
    assert {a, b} <= set(out["check"])
    assert [p["code"] for p in out["problems"]] == ["double-same-color"]
    assert set(out["check"]) <= set(out["routes"]) | set(out["stations"])
    # every reading's calibrated confidence
    assert set(out["calibrated"]) == set(out["routes"]) | set(out["stations"])
    assert all(0.0 <= v <= 1.0 for v in out["calibrated"].values())


def test_cli_table_names_the_problems_and_the_check_list(tmp_path, capsys) -> None:
    import cv2

    from companion.cli import main
    from companion.sim.render import BoardRenderer, Scene

    a, b = "berlin-frankfurt-1", "berlin-frankfurt-2"
    board = BoardRenderer().render_board(Scene(routes={a: "green", b: "green"}, seed=3), 1500)
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), board)
    assert main(["vision", "read", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"problem: green trains on both routes of a double ({a}, {b})" in out
    assert "check before use:" in out and a in out.split("check before use:")[1]


def _problem_codes() -> set[str]:
    """The codes the vision code can give a ``Problem`` (string literals in its calls)."""
    codes: set[str] = set()
    for path in sorted((ROOT / "companion" / "vision").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or getattr(node.func, "id", None) != "Problem":
                continue
            args = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "code")]
            for a in args:
                assert isinstance(a, ast.Constant) and isinstance(a.value, str), (
                    f"{path.name}:{node.lineno}: a problem's code must be a literal"
                )
                codes.add(a.value)
    return codes


def test_every_problem_code_has_its_words_in_both_catalogues() -> None:
    """The photo page shows a reading's problems as ``photo.problem.<code>`` with the colour and
    the count: each code the reader can emit has that string in ja and en, filling both."""
    codes = _problem_codes()
    assert {"double-same-color", "too-many-trains", "too-many-stations"} <= codes
    page = (ROOT / "web" / "static" / "js" / "photo.js").read_text(encoding="utf-8")
    assert "i18n.t(`photo.problem.${pr.code}`, { color:" in page
    for lang in ("ja", "en"):
        catalogue = json.loads(
            (ROOT / "web" / "static" / "i18n" / f"{lang}.json").read_text("utf-8")
        )
        for code in sorted(codes):
            text = catalogue.get(f"photo.problem.{code}")
            assert isinstance(text, str) and "{color}" in text, (lang, code)
            if code.startswith("too-many-"):
                assert "{n}" in text, (lang, code)


def test_a_free_reading_its_print_does_not_explain_is_listed(ctx: ReadContext) -> None:
    """A route read free where at least half of its spaces are far from their print (neither
    the print nor any plastic explains them) is listed; one odd space out of three is not."""
    g = ctx.geometry
    route = next(r for r in g.route_ids if len(g.spaces[r]) == 3)
    sl = ctx.info.route_slices[route]
    far = CheckConfig.load().unexplained + 5.0
    dist = np.zeros(len(ctx.info.printed_colors))
    lengths = {r: g.routes[r].length for r in g.route_ids}

    def listed() -> bool:
        out = assess(
            _reading(ctx), _free_scores(ctx), ctx.info, ctx.model, lengths, print_distance=dist
        )
        assert out.routes[route] is None
        return route in out.check

    assert not listed()
    dist[sl.start] = far
    assert not listed()
    dist[sl.start + 1] = far
    assert listed()


def test_dull_colour_processing_reads_the_trains_or_lists_them(ctx: ReadContext) -> None:
    """Trains of all five colours on grey routes in a picture with dull colour processing
    (saturation x0.6, seeded render): each plastic's prior moves with its own print's shift, so
    the trains are read (two mistakes at most; before that, 8 of 12), every mistake is on the
    check list, and the list stays short."""
    from companion.sim.perturb import saturation
    from companion.sim.render import BoardRenderer, Scene
    from companion.vision.decide.context import take_samples
    from companion.vision.locate.locate import BoardLocation
    from companion.vision.reading.read import read_samples

    renderer = BoardRenderer()
    gb = renderer.geometry
    grey = [r for r in gb.drawable_routes() if gb.routes[r].color == "grey"][:12]
    scene = Scene(routes={r: PLAYER_COLORS[i % 5] for i, r in enumerate(grey)}, seed=5)
    board = saturation(renderer.render_board(scene, 2000), 0.6)
    h, w = board.shape[:2]
    loc = BoardLocation.from_corners(np.array([[0, 0], [w, 0], [w, h], [0, h]], float), (w, h))
    reading, _ = read_samples(take_samples(board, loc.homography, ctx), ctx)
    wrong = [r for r, c in reading.routes.items() if c != scene.routes.get(r)]
    assert len(wrong) <= 2, wrong
    assert set(wrong) <= set(reading.check), [r for r in wrong if r not in reading.check]
    assert len(reading.check) <= 12, reading.check
