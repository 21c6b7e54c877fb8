"""A table's profile: what this camera, under this light, sees of the empty board and of each
player's plastic.

Learnt in a guided set-up (the host's phone drives it through the service): first the camera looks
at the empty board and every space's empty look is kept (its printed core: median L, a, b, L
spread, and the four colour-free cues of print against plastic); then each player's colour is
learnt from their first trains (the train windows' L, a, b, L spread); afterwards every claim the
table confirms or corrects refines it (a confirmed claim teaches its colour, a route confirmed free
its empty look). One profile per camera (``save``/``load``; the service keeps them in its state
directory).

A colour is kept as sums (count, sum and sum of squares of its train windows), so a lesson can be
taken out exactly: each claim's lesson of the current game is kept per route (``learn_route`` /
``unlearn``; a host's correction or undo takes it out), the lessons of earlier games are settled
into the colour's sums. A lesson far from its colour's learnt cluster and nearer another colour or
the empty board is set aside, not learnt (``odd_lesson``; a camera reading blue trains as black must
not teach black blue).

What it gives a reading:

* ``changed(feats)``: per space, how far it is from its empty look (squared, scaled, capped); a
  route none of whose spaces changed holds no trains, whatever colour its print looks like, and a
  route all of whose spaces changed holds something, even trains of its own printed colour (the
  case a reader without a profile cannot tell);
* ``model(base)``: the reader's class means with this table's plastic colours.

``quality()`` is what the host is shown: per player colour, how far its cluster sits from the
nearest other colour and from the empty board (in the reader's scaled units; under ~4 the two
are easily confused), and how many spaces and trains it was learnt from.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from companion.durable import write_atomic
from companion.vision.decide.classify import (
    FloatArray,
    SpaceFeatures,
    SpaceLayoutInfo,
    SpaceModel,
    WindowSet,
    distances,
    window_penalty,
)
from companion.vision.types import PLAYER_COLORS

FEATURES = ("L", "a", "b", "L_std", "end_outline", "asymmetry", "dark_lines", "highlight")
# Smallest spread of each feature between two looks of the same empty space (the camera's noise,
# a little light): below it a difference is not a change.
NOISE_FLOOR = 1.0
CHANGE_CAP = 25.0  # one feature's squared z is capped (a glint must not decide alone)
VERSION = 2  # 1: colours as means and counts (loaded: sums with no spread; see from_json)
CALM = 40.0  # a space this close to its empty look (after a first shift) measures the light
MIN_CALM = 8  # spaces needed to measure a shift


def empty_look(feats: SpaceFeatures) -> FloatArray:
    """(n_spaces, 8): the printed core's L, a, b, L spread and the four cues of every space."""
    return np.asarray(np.concatenate([feats.printed, feats.cues], axis=1), dtype=np.float64)


def column_median(x: FloatArray) -> FloatArray:
    """``np.median(x, axis=0)`` of a 2-D array by one sort (the same numbers; faster on the
    small arrays read every frame). A column with NaN: numpy's own."""
    m = x.shape[0]
    s = np.sort(x, axis=0)
    if m == 0 or np.isnan(s[-1]).any():
        return np.asarray(np.median(x, axis=0), dtype=np.float64)
    h = m // 2
    if m % 2:
        return np.asarray(s[h] + 0.0, dtype=np.float64)
    return np.asarray((s[h - 1] + s[h]) / 2.0, dtype=np.float64)


def stats_of(windows: FloatArray) -> FloatArray:
    """(9,) a lesson's sums: count, sum of L, a, b, L spread, and of their squares."""
    w = np.asarray(windows, dtype=np.float64).reshape(-1, 4)
    return np.concatenate([[float(len(w))], w.sum(axis=0), (w * w).sum(axis=0)])


@dataclass(frozen=True)
class Guard:
    """When a lesson is set aside (``companion/data/table_profile.json`` "guard"): its colour has
    been learnt from at least ``min_spaces`` spaces, the lesson's windows sit further than
    ``spread_times`` times the colour's spread (at least ``spread_floor``, scaled units) from it,
    and nearer another colour's plastic or the route's empty look than to it."""

    min_spaces: int = 6
    spread_times: float = 3.0
    spread_floor: float = 1.0

    @staticmethod
    def from_json(data: dict[str, Any]) -> Guard:
        return Guard(
            int(data["min_spaces"]), float(data["spread_times"]), float(data["spread_floor"])
        )


@dataclass
class TableProfile:
    """One camera's profile of one table (see the module note)."""

    camera: str
    empty: FloatArray  # (n_spaces, 8) mean empty look
    empty_sq: FloatArray  # (n_spaces, 8) mean square (for the spread between looks)
    empty_count: int = 0  # looks of the empty board averaged
    # Each colour's sums (``stats_of``) settled from earlier games and ``add_trains``
    settled: dict[str, FloatArray] = field(default_factory=dict)
    # The current game's lessons: route -> (colour, its sums); ``game`` names that game
    lessons: dict[str, tuple[str, FloatArray]] = field(default_factory=dict)
    game: str | None = None
    set_aside: dict[str, int] = field(default_factory=dict)  # colour -> lessons set aside
    # Derived from the sums (``_update``): colour -> L, a, b, L_std; train spaces learnt from
    plastic: dict[str, FloatArray] = field(default_factory=dict)
    plastic_count: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._update()

    # -- learning ------------------------------------------------------------------------------

    @staticmethod
    def from_empty(camera: str, feats: SpaceFeatures) -> TableProfile:
        look = empty_look(feats)
        return TableProfile(camera, look.copy(), look * look, 1)

    def add_empty(self, feats: SpaceFeatures, spaces: Any = None) -> None:
        """Average another look of the empty board (or of the ``spaces`` known empty) in."""
        look = empty_look(feats)
        idx = np.arange(len(look)) if spaces is None else np.asarray(spaces, dtype=np.int64)
        n = float(self.empty_count)
        self.empty[idx] = (self.empty[idx] * n + look[idx]) / (n + 1)
        self.empty_sq[idx] = (self.empty_sq[idx] * n + look[idx] ** 2) / (n + 1)
        if spaces is None:
            self.empty_count += 1

    def add_trains(self, colour: str, windows: FloatArray) -> None:
        """Learn (or refine) a player's colour from train windows (m, 4): L, a, b, L spread of
        the best window of that colour on each of the trains' spaces (settled at once: no route
        to take it out by)."""
        if colour not in PLAYER_COLORS:
            raise ValueError(f"not a player colour: {colour!r}")
        st = stats_of(windows)
        if st[0]:
            self.settled[colour] = self.settled.get(colour, np.zeros(9)) + st
            self._update()

    def learn_route(
        self, route: str, colour: str, windows: FloatArray, game: str | None = None
    ) -> None:
        """The lesson of a claim of ``game``: ``route`` holds ``colour``'s trains, whose
        windows are these. Kept per route until the next game (a lesson of a new game settles
        the old ones first); a route learnt again replaces its lesson."""
        if colour not in PLAYER_COLORS:
            raise ValueError(f"not a player colour: {colour!r}")
        if game != self.game:
            self.settle()
            self.game = game
        st = stats_of(windows)
        self.lessons.pop(route, None)
        if st[0]:
            self.lessons[route] = (colour, st)
        self._update()

    def unlearn(self, route: str, game: str | None = None) -> str | None:
        """Take ``route``'s lesson of ``game`` out (the claim was corrected or undone): the
        colour it taught, None when there was none."""
        if game != self.game or route not in self.lessons:
            return None
        colour, _ = self.lessons.pop(route)
        self._update()
        return colour

    def settle(self) -> None:
        """The lessons kept per route go into their colours' settled sums."""
        for colour, st in self.lessons.values():
            self.settled[colour] = self.settled.get(colour, np.zeros(9)) + st
        self.lessons = {}
        self._update()

    def take_colours(self, other: TableProfile) -> None:
        """Keep ``other``'s colours (a profile whose empty board is learnt again)."""
        self.settled = {c: v.copy() for c, v in other.settled.items()}
        self.lessons = {r: (c, v.copy()) for r, (c, v) in other.lessons.items()}
        self.game = other.game
        self.set_aside = dict(other.set_aside)
        self._update()

    def sums(self, colour: str) -> FloatArray:
        """(9,) every lesson of ``colour`` summed (``stats_of``)."""
        total = self.settled.get(colour, np.zeros(9)).copy()
        for c, st in self.lessons.values():
            if c == colour:
                total += st
        return total

    def _update(self) -> None:
        self.plastic, self.plastic_count = {}, {}
        for c in PLAYER_COLORS:
            total = self.sums(c)
            if total[0] > 0:
                self.plastic[c] = total[1:5] / total[0]
                self.plastic_count[c] = round(float(total[0]))

    def spread(self, colour: str, scale: FloatArray) -> float:
        """A learnt colour's spread in scaled units: the root of its windows' summed variance
        (0 when never learnt or learnt with no spread)."""
        total = self.sums(colour)
        if total[0] <= 0:
            return 0.0
        mean = total[1:5] / total[0]
        var = np.maximum(total[5:9] / total[0] - mean * mean, 0.0)
        return float(np.sqrt(np.sum(var / np.asarray(scale, np.float64) ** 2)))

    def odd_lesson(
        self, colour: str, windows: FloatArray, empty: FloatArray, base: SpaceModel, guard: Guard
    ) -> str | None:
        """Whether a lesson of ``colour`` (train windows (m, 4) on spaces whose empty looks
        are ``empty`` (m, 4+)) is to be set aside (see :class:`Guard`): what it sits nearer to
        (another colour, or ``"board"``: the empty look), None when it is learnt."""
        w = np.asarray(windows, dtype=np.float64).reshape(-1, 4)
        if not len(w) or self.plastic_count.get(colour, 0) < guard.min_spaces:
            return None
        scale = np.asarray(base.scale, dtype=np.float64)
        plastic = self.model(base).plastic

        def far(to: FloatArray) -> float:
            return float(np.mean(np.sqrt((((w - to) / scale) ** 2).sum(axis=1))))

        own = far(plastic[colour])
        if own <= guard.spread_times * max(self.spread(colour, scale), guard.spread_floor):
            return None
        near = {o: far(plastic[o]) for o in PLAYER_COLORS if o != colour}
        near["board"] = far(np.asarray(empty, dtype=np.float64)[:, :4])
        best = min(near, key=lambda k: near[k])
        return best if near[best] < own else None

    # -- using -----------------------------------------------------------------------------------

    def noise(self) -> FloatArray:
        """(8,) spread of an empty space's look between looks (at least ``NOISE_FLOOR``)."""
        if self.empty_count < 2:
            return np.full(len(FEATURES), NOISE_FLOOR)
        var = np.maximum(self.empty_sq - self.empty**2, 0.0)
        return np.asarray(np.maximum(np.sqrt(column_median(var)), NOISE_FLOOR), np.float64)

    def changed(self, feats: SpaceFeatures, groups: Any = None) -> FloatArray:
        """(n_spaces,) squared scaled distance of every space from its empty look (capped).

        A change of light moves every look a little: the median shift of the spaces that
        barely changed (per printed colour when ``groups``, each space's printed colour
        index, is given and a group has enough of them) is taken off first."""
        diff = empty_look(feats) - self.empty
        noise = self.noise()

        def z2(d: FloatArray) -> FloatArray:
            z = d / noise
            return np.asarray(np.minimum(z * z, CHANGE_CAP).sum(axis=1), dtype=np.float64)

        calm = z2(diff - column_median(diff)) < CALM
        if int(calm.sum()) < MIN_CALM:
            return z2(diff)
        calm_diff = diff[calm]
        shift = np.broadcast_to(column_median(calm_diff), diff.shape).copy()
        if groups is not None:
            g = np.asarray(groups, dtype=np.int64)
            g_calm = g[calm]
            ks, counts = np.unique(g_calm, return_counts=True)
            for k in ks[counts >= MIN_CALM].tolist():  # the groups with enough calm spaces
                shift[g == k] = column_median(calm_diff[g_calm == k])
        return z2(diff - shift)

    def model(self, base: SpaceModel) -> SpaceModel:
        """The reader's class means with this table's plastic colours (where learnt). A learnt
        colour is this camera's own: the reader does not also move it with the print's shift
        on the picture (``adapt.plastic_offsets``), or the camera's shift would count twice."""
        if not self.plastic:
            return base
        plastic = dict(base.plastic)
        plastic.update({c: np.asarray(v, dtype=np.float64) for c, v in self.plastic.items()})
        return replace(base, plastic=plastic, camera_plastic=frozenset(self.plastic))

    def quality(self, base: SpaceModel) -> dict[str, Any]:
        """Per player colour: distance (scaled units, root of the squared sum) of its plastic
        to the nearest other colour and to the empty board's nearest printed look; counts."""
        plastic = self.model(base).plastic
        scale = base.scale
        looks = self.empty[:, :4]
        colours: dict[str, Any] = {}
        for c in PLAYER_COLORS:
            mu = plastic[c]
            others = [
                float(np.sqrt(np.sum(((mu - plastic[o]) / scale) ** 2)))
                for o in PLAYER_COLORS
                if o != c
            ]
            to_empty = np.sqrt((((looks - mu) / scale) ** 2).sum(axis=1))
            colours[c] = {
                "learnt_from": int(self.plastic_count.get(c, 0)),
                "set_aside": int(self.set_aside.get(c, 0)),
                "to_nearest_colour": round(min(others), 2),
                "to_empty_board": round(float(np.percentile(to_empty, 1)), 2),
            }
        return {
            "camera": self.camera,
            "empty_looks": self.empty_count,
            "noise": [round(float(v), 3) for v in self.noise()],
            "colours": colours,
        }

    # -- storage -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        def r(a: FloatArray) -> list[Any]:
            out: list[Any] = np.round(np.asarray(a, dtype=np.float64), 4).tolist()
            return out

        return {
            "version": VERSION,
            "camera": self.camera,
            "features": list(FEATURES),
            "empty": r(self.empty),
            "empty_sq": r(self.empty_sq),
            "empty_count": self.empty_count,
            # sums unrounded (a float goes through JSON exactly): a lesson is taken out exactly
            "settled": {c: v.tolist() for c, v in sorted(self.settled.items())},
            "game": self.game,
            "lessons": {r: [c, v.tolist()] for r, (c, v) in sorted(self.lessons.items())},
            "set_aside": dict(sorted(self.set_aside.items())),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> TableProfile:
        """A saved profile; one of version 1 (colours as means and counts) has its colours
        settled as sums with no spread (the guard's spread floor stands in for it)."""
        version = data.get("version")
        if version not in (1, VERSION) or tuple(data.get("features", ())) != FEATURES:
            raise ValueError("not a table profile of this version")
        empty = np.asarray(data["empty"], dtype=np.float64)
        empty_sq = np.asarray(data["empty_sq"], dtype=np.float64)
        if empty.ndim != 2 or empty.shape[1] != len(FEATURES) or empty_sq.shape != empty.shape:
            raise ValueError("table profile: empty looks of the wrong shape")
        lessons: dict[str, tuple[str, FloatArray]] = {}
        if version == 1:
            settled = {}
            for c, v in data["plastic"].items():
                mean, n = np.asarray(v, dtype=np.float64), float(data["plastic_count"][c])
                settled[str(c)] = np.concatenate([[n], mean * n, mean * mean * n])
        else:
            settled = {str(c): np.asarray(v, np.float64) for c, v in data["settled"].items()}
            lessons = {
                str(r): (str(c), np.asarray(v, np.float64)) for r, (c, v) in data["lessons"].items()
            }
        sums = list(settled.items()) + list(lessons.values())
        if any(c not in PLAYER_COLORS or v.shape != (9,) for c, v in sums):
            raise ValueError("table profile: bad plastic colours")
        game = data.get("game")
        return TableProfile(
            camera=str(data["camera"]),
            empty=empty,
            empty_sq=empty_sq,
            empty_count=int(data["empty_count"]),
            settled=settled,
            lessons=lessons,
            game=None if game is None else str(game),
            set_aside={str(c): int(n) for c, n in (data.get("set_aside") or {}).items()},
        )


def train_windows(
    feats: SpaceFeatures,
    info: SpaceLayoutInfo,
    windows: WindowSet,
    model: SpaceModel,
    route: str,
    colour: str,
) -> FloatArray:
    """(m, 4) the best window of ``colour`` on each space of ``route`` (where its trains are)."""
    idx = np.arange(info.route_slices[route].start, info.route_slices[route].stop)
    _, best = distances(feats, info, model, window_penalty(model, windows, info.lane_side))
    j = best[idx, PLAYER_COLORS.index(colour)]
    return np.asarray(feats.windows[idx, j], dtype=np.float64)


def learn_claims(
    profile: TableProfile,
    feats: SpaceFeatures,
    info: SpaceLayoutInfo,
    windows: WindowSet,
    base: SpaceModel,
    claims: dict[str, str | None],
    *,
    game: str | None = None,
    guard: Guard | None = None,
) -> dict[str, str]:
    """What the table confirmed or corrected (route -> its owner's colour, or None when it is
    free) refines the profile: a colour from its trains (a lesson of ``game`` kept per route),
    an empty look from a free route. With a ``guard``, a lesson far from its colour and nearer
    something else is set aside (counted in ``set_aside``): returned, route -> what it sat
    nearer to."""
    model = profile.model(base)
    aside: dict[str, str] = {}
    for route, colour in claims.items():
        if route not in info.route_slices:
            raise ValueError(f"unknown route {route!r}")
        sl = info.route_slices[route]
        if colour is None:
            profile.add_empty(feats, np.arange(sl.start, sl.stop))
            continue
        w = train_windows(feats, info, windows, model, route, colour)
        odd = (
            None if guard is None else profile.odd_lesson(colour, w, profile.empty[sl], base, guard)
        )
        if odd is not None:
            aside[route] = odd
            profile.set_aside[colour] = profile.set_aside.get(colour, 0) + 1
            continue
        profile.learn_route(route, colour, w, game)
    return aside


def profile_path(state_dir: Path, camera: str) -> Path:
    """Where a camera's profile is kept: one file per camera in the state directory."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", camera).strip("._") or "camera"
    return state_dir / f"vision_profile_{safe}.json"


def save(profile: TableProfile, path: Path) -> None:
    """Written whole or not at all (``durable.write_atomic``), 0644 and its folder's owner's
    like the state directory's other records that are not secrets (``last-backup.json``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = (json.dumps(profile.to_json()) + "\n").encode("utf-8")
    write_atomic(path, body, mode=0o644, owner_of=path.parent)


def load(path: Path) -> TableProfile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read the table profile {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a table profile")
    return TableProfile.from_json(data)
