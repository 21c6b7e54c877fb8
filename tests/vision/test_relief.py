"""Relief (companion.vision.features.relief, companion.vision.decide.own_relief): a raised plastic
car is told from a flat printed fill of the same colour, and a colour's trains on its own print
are read where their relief alone sets them apart; on the shared photo "trainning" (skipped when
absent), yellow trains on yellow smolensk-wilno read yellow."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.sim.perturb import jpeg, resize_width
from companion.vision.decide.context import ReadContext, take_samples
from companion.vision.decide.own_print import Groups, unlikeness
from companion.vision.decide.own_relief import learn_with_relief, relief_only
from companion.vision.features.relief import (
    RELIEF_FEATURES,
    own_print_columns,
    relief_config,
    relief_cues,
    with_relief,
)
from companion.vision.locate.locate import locate_board
from companion.vision.reading.read import read_samples
from companion.vision.types import PLAYER_COLORS

YELLOW = PLAYER_COLORS.index("yellow")
ARGS = (3, 0.5, 3.0)  # min spaces, variance floor, shrink (as vision.json)
GATE = (3.0, 0.03, False, 20)  # min separation, max error share, recheck, min trains
DETAIL, DOME = RELIEF_FEATURES.index("fine_detail"), RELIEF_FEATURES.index("dome")


def _grid(ctx: ReadContext) -> tuple[np.ndarray, np.ndarray]:
    """Each sample's place in box lengths (along) and widths (across) from the box's centre."""
    lo = ctx.layout
    along = (np.arange(lo.nx) + 0.5 - lo.nx / 2) * lo.scale_len / lo.nx
    across = (np.arange(lo.ny) + 0.5 - lo.ny / 2) * lo.scale_wid / lo.ny
    return np.meshgrid(along, across)


def _printed(ctx: ReadContext, rng: np.random.Generator) -> np.ndarray:
    """A printed space (L): paper around a flat fill with a thin dark outline, a small car
    symbol in its middle and the print's grain."""
    x, y = _grid(ctx)
    out = np.full(x.shape, 86.0) + rng.normal(0, 1.5, x.shape)
    inside = (np.abs(x) < 0.47) & (np.abs(y) < 0.45)
    out[inside] = 82.0 + rng.normal(0, 2.5, int(inside.sum()))
    rim = inside & ((np.abs(x) > 0.42) | (np.abs(y) > 0.36))
    out[rim] = 40.0
    mark = (np.abs(x) < 0.06) & (np.abs(y) < 0.12)
    out[mark] = 62.0
    return np.asarray(out, dtype=np.float32)


def _raised(ctx: ReadContext, rng: np.random.Generator) -> np.ndarray:
    """A plastic car (L) on the same space: a smooth rounded top lit from one side, its shadow
    on the other, dark gaps at the ends between cars."""
    x, y = _grid(ctx)
    out = np.full(x.shape, 86.0) + rng.normal(0, 1.5, x.shape)
    body = (np.abs(x) < 0.46) & (np.abs(y) < 0.48)
    top = 60.0 + 30.0 * np.cos(np.clip(y + 0.08, -0.5, 0.5) * np.pi)
    out[body] = top[body] + rng.normal(0, 0.6, int(body.sum()))
    out[(y > 0.48) & (y < 0.7) & (np.abs(x) < 0.5)] = 45.0  # its shadow
    out[(np.abs(x) >= 0.46) & (np.abs(x) < 0.52) & (np.abs(y) < 0.48)] = 30.0  # gaps
    return np.asarray(out, dtype=np.float32)


def test_a_raised_car_is_smooth_and_domed_and_a_printed_fill_is_not(ctx: ReadContext) -> None:
    rng = np.random.default_rng(25)
    printed = np.stack([_printed(ctx, rng) for _ in range(12)])
    raised = np.stack([_raised(ctx, rng) for _ in range(12)])
    p, r = relief_cues(printed, ctx.layout), relief_cues(raised, ctx.layout)
    assert p.shape == r.shape == (12, len(RELIEF_FEATURES))
    assert p[:, DETAIL].min() > r[:, DETAIL].max() + 2.0, (p[:, DETAIL], r[:, DETAIL])
    assert r[:, DOME].min() > p[:, DOME].max() + 5.0, (r[:, DOME], p[:, DOME])
    flat = np.full_like(printed[:1], 80.0)  # nothing at all: no detail, no dome
    assert np.allclose(relief_cues(flat, ctx.layout), 0.0, atol=1e-4)


def test_the_relief_joins_the_cues_clipped_and_after_the_named_columns() -> None:
    cues = np.zeros((2, 4))
    relief = np.array([[1e6, -1e6], [5.0, 1.0]])
    both = with_relief(cues, relief)
    lo, hi = np.asarray(relief_config()["range"], dtype=np.float64).T
    assert both.shape == (2, 6) and np.array_equal(both[:, :4], cues)
    assert np.array_equal(both[0, 4:], [hi[0], lo[1]]) and np.array_equal(both[1, 4:], [5.0, 1.0])
    assert with_relief(cues, None) is cues
    names = ("L", "a", "b", "L_std", "end_outline", "asymmetry", "dark_lines", "highlight")
    cols = own_print_columns(names, ["L", "highlight"])
    extra = relief_config()["own_print_features"]
    assert cols[:2] == (0, 7) and len(cols) == 2 + len(extra)
    assert [RELIEF_FEATURES[c - len(names)] for c in cols[2:]] == extra
    assert own_print_columns(names, ["L", *extra]) == cols[:1] + cols[2:]  # not twice


def _yellow_groups(rng: np.random.Generator, own_print: int) -> tuple[np.ndarray, Groups]:
    """Columns: a cue that does not tell yellow's trains from its print, the relief that does;
    30 yellow trains on other prints, ``own_print`` spaces of free yellow print."""
    trains = np.c_[rng.normal(0.0, 1.0, 30), rng.normal(2.0, 0.4, 30)]
    prints = np.c_[rng.normal(0.0, 1.0, own_print), rng.normal(-2.0, 0.4, own_print)]
    x = np.vstack([trains, prints])
    n = len(x)
    t = np.r_[np.full(30, YELLOW), np.full(own_print, -1)]
    p = np.r_[np.full(30, -1), np.full(own_print, YELLOW)]
    g = Groups(t, p, p, p >= 0, np.arange(n), np.zeros((n, 2)), np.zeros((len(PLAYER_COLORS), 2)))
    return x, g


def _not_apart(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A whole discriminant that failed its gate for every colour (all weight on column 0)."""
    terms = np.zeros((len(PLAYER_COLORS), 4))
    terms[:, 0], terms[:, 2] = 0.9, 1.0
    return terms, np.zeros(len(PLAYER_COLORS), dtype=bool), np.full(k, YELLOW)


def test_a_colour_the_whole_discriminant_leaves_out_is_read_on_its_relief() -> None:
    rng = np.random.default_rng(7)
    x, g = _yellow_groups(rng, 10)
    settings = (ARGS, (0.0, 0.1), 6)
    terms, apart, _ = relief_only(x, g, settings, _not_apart(len(x)), [1], unlikeness, GATE)
    assert apart[YELLOW] and not apart[np.arange(len(apart)) != YELLOW].any()
    assert terms[YELLOW, 2] == 0.0 and terms[YELLOW, 3] > 0.0  # the relief alone
    llr = x @ terms[YELLOW, 2:] + terms[YELLOW, 1]
    assert (llr[:30] > 0).all() and (llr[30:] < 0).all()
    # off, its trains seen too little elsewhere, too little of its own print (the stand-ins'
    # colour), or no relief: as learnt
    off, few = (0.0, 0.03, True, 20), (3.0, 0.03, True, 31)
    for kw in ({"gate": off}, {"gate": few}, {"settings": (ARGS, (0.0, 0.1), 11)}, {"relief": []}):
        call = {"settings": settings, "relief": [1], "gate": GATE, **kw}
        _, same, _ = relief_only(x, g, learnt=_not_apart(len(x)), unlike=unlikeness, **call)
        assert not same.any(), kw
    alike = x.copy()
    alike[30:, 1] = rng.normal(2.0, 0.4, 10)  # the print as smooth and domed as the trains
    _, same, _ = relief_only(alike, g, settings, _not_apart(len(x)), [1], unlikeness, GATE)
    assert not same[YELLOW]


def test_a_whole_discriminant_not_apart_on_the_relief_groups_gives_way_where_asked() -> None:
    """Yellow passed the whole discriminant's gate, but on the groups the relief clears it
    barely tells yellow's trains from its print (a cue half a standard deviation apart): with
    ``recheck`` the relief alone replaces it; without, it stays; a whole discriminant well
    apart there stays either way."""
    rng = np.random.default_rng(11)
    x, g = _yellow_groups(rng, 10)
    x[:30, 0] += 0.5  # the cue: a little apart
    terms, apart, where = _not_apart(len(x))
    apart[YELLOW] = True
    settings = (ARGS, (0.0, 0.1), 6)
    kept, _, _ = relief_only(x, g, settings, (terms, apart, where), [1], unlikeness, GATE)
    assert np.array_equal(kept, terms)
    ask = (*GATE[:2], True, GATE[3])
    got, now, _ = relief_only(x, g, settings, (terms, apart, where), [1], unlikeness, ask)
    assert now[YELLOW] and got[YELLOW, 2] == 0.0 and got[YELLOW, 3] > 0.0
    others = np.arange(len(PLAYER_COLORS)) != YELLOW
    assert np.array_equal(got[others], terms[others]) and not now[others].any()
    x[:30, 0] += 8.0  # the cue: well apart
    got, now, _ = relief_only(x, g, settings, (terms, apart, where), [1], unlikeness, ask)
    assert now[YELLOW] and np.array_equal(got, terms)


def test_relief_kept_out_of_the_whole_discriminant_gets_zero_weight_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``learn_with_relief`` learns the whole discriminant without the relief columns not in
    ``full_discriminant``, pads them with zero weight, and adds the relief-only one."""
    import companion.vision.decide.own_relief as own_relief

    rng = np.random.default_rng(3)
    x, g = _yellow_groups(rng, 10)
    seen: list[int] = []

    def learn(xm: np.ndarray, gm: Groups, *_: object) -> tuple[np.ndarray, ...]:
        seen.append(xm.shape[1])
        assert gm.centre.shape[1] == xm.shape[1] == gm.own_centre.shape[1]
        return _not_apart(len(xm))[0][:, :3], np.zeros(5, dtype=bool), np.full(len(xm), YELLOW)

    monkeypatch.setattr(own_relief, "in_full", lambda: frozenset())
    monkeypatch.setattr(own_relief, "relief_gate", lambda: GATE)  # (30 trains: enough)
    opt = ((3.0, 0.03), (0.0, 0.1), (0.0, 6, 0.0))
    columns = (0, own_relief.FIRST_RELIEF + DETAIL)
    terms, apart, _ = learn_with_relief(x, g, ARGS, opt, columns, learn, unlikeness)
    assert seen == [1] and terms.shape == (len(PLAYER_COLORS), 4)
    assert apart[YELLOW] and terms[YELLOW, 2] == 0.0 and terms[YELLOW, 3] > 0.0
    others = np.arange(len(PLAYER_COLORS)) != YELLOW
    assert np.array_equal(terms[others, 2], np.ones(4)) and not terms[others, 3].any()


@pytest.mark.photos
@pytest.mark.parametrize("width", [0, 1000, 1300])
def test_yellow_trains_on_yellow_print_read_yellow_on_the_photo(
    ctx: ReadContext, photos_dir: Path, width: int
) -> None:
    """The shared photo "trainning" scaled as a phone sends it: the yellow trains standing on
    yellow-printed smolensk-wilno are read as yellow's (they were read free). At full size
    (0) the whole discriminant, apart for yellow there, still takes the route's one space
    beside a green train for print: read yellow or listed."""
    image = cv2.imread(str(photos_dir / "ttreu_jsoeder20_cropped_trainning.jpg"))
    if width:
        image = jpeg(resize_width(image, width), 85)
    store: dict[int, np.ndarray] = {}
    loc = locate_board(image, context=ctx, store=store)
    samples = take_samples(image, loc.homography, ctx, store=store, offsets=loc.offsets)
    reading, _ = read_samples(samples, ctx)
    got = reading.routes["smolensk-wilno"]
    assert got == "yellow" or (width == 0 and "smolensk-wilno" in reading.check), got
