"""The table's profile on the service side: learnt, kept and used for the table's own camera.

One profile per camera (``vision.profile.TableProfile``, a file per camera in the state
directory: ``profile.profile_path``), loaded when the camera is attached (a broken file is
logged and ignored, and the host is told: code ``camera.profile_broken``) and saved atomically
after every change.

* **The empty board** (:meth:`TableProfiles.learn_empty`, the host's guided set-up): the last
  few clean frames the live reader read (:meth:`TableProfiles.seen`, called from the camera's
  thread) are averaged into every space's empty look; refused (409) with no camera, with no
  recent clean frame (the board not found, or covered) and when the reading shows trains or
  stations (how many). A profile learnt again keeps the colours already learnt.
* **The colours** (:meth:`TableProfiles.heard`, a listener of the service): every claim the
  game takes (the camera's, a question answered yes, one the host enters or corrects) becomes a
  lesson: its owner's colour is learnt from the first clean frame after it in which the route's
  spaces all changed from their empty look; a camera question on a free route that the host
  answers no teaches that route's empty look (when it still looks empty enough).
* **Corrections**: the public state says when the host corrected a claim (``replace``: another
  owner) or undid it: a route whose owner changed or that is free again has its lesson of this
  game taken out of the profile (exactly: the profile keeps each lesson's sums per route); a
  corrected claim then teaches its new owner's colour from the next clean frame, a freed route
  nothing. A lesson still waiting for its frame is dropped.
* **A bad lesson**: a lesson far from its colour's learnt cluster and nearer another colour or
  the empty board is set aside (``profile.Guard``, table_profile.json "guard"): logged, counted
  per colour, shown to the host (``set_aside``).
* **Using it**: :class:`TappedReader` hands the profile to the live reader and the clean frames
  to the store; :meth:`TableProfiles.read_frame` reads the camera's last clean frame for photo
  mode with the profile.

Everything heavy runs on the store's own worker thread (never the game loop's); every change to
the profile is made there, on a copy that then replaces the profile in one assignment, so a
reader on another thread always holds a whole profile. A vision error while learning is logged
and the lesson skipped: learning never stops a game.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from companion.service.errors import Conflict, Unavailable
from companion.service.photos import Notify

log = logging.getLogger(__name__)

COLOURS = ("blue", "red", "green", "yellow", "black")  # = companion.vision.types.PLAYER_COLORS


@cache
def settings() -> dict[str, Any]:
    """companion/data/table_profile.json (what each number means is told there)."""
    from companion.data import load_json

    data: dict[str, Any] = load_json("table_profile.json")
    return data


@dataclass(frozen=True)
class Look:
    """A clean frame the live reader read: the picture, the board's corners, when (monotonic)."""

    image: Any
    corners: Any
    at: float


@dataclass(frozen=True)
class Lesson:
    """What the table confirmed: ``route`` holds ``colour``'s trains (None: it is free)."""

    route: str
    colour: str | None
    at: float


def no_camera() -> Conflict:
    return Conflict("There is no camera at this table.", code="camera.table_no_camera")


def no_board() -> Conflict:
    return Conflict(
        "The camera does not see the board clearly: it is not found, or something covers it.",
        code="camera.table_no_board",
    )


def verdict(entry: Mapping[str, Any], q: Mapping[str, Any]) -> str:
    """A colour's quality in a word: ``learning`` (not enough trains yet), ``close`` (may be
    confused with its nearest colour), ``board`` (may be confused with the empty board) or
    ``good`` (thresholds: table_profile.json "quality")."""
    if int(entry["learnt_from"]) < int(q["trains_learnt"]):
        return "learning"
    if float(entry["to_nearest_colour"]) < float(q["colour_close"]):
        return "close"
    if float(entry["to_empty_board"]) < float(q["board_close"]):
        return "board"
    return "good"


def owners_of(state: Mapping[str, Any]) -> dict[str, str]:
    """Route -> owner colour in a public state of a Europe game (empty for other games)."""
    if state.get("game") not in (None, "europe"):
        return {}
    return {r: str(p["color"]) for p in state.get("players") or [] for r in p.get("routes") or []}


def quality_of(profile: Any, shown: list[str]) -> dict[str, Any]:
    """The status's quality part (:meth:`TableProfiles.status`): the empty looks, the lessons set
    aside, and a row per colour in ``shown`` (its quality, nearest colour and verdict)."""
    from companion.vision.decide.context import default_context

    base = default_context().model
    quality = profile.quality(base)
    nearest = nearest_colours(profile, base)
    rows = []
    for c in shown:
        entry = dict(quality["colours"][c])
        entry["color"] = c
        entry["nearest"] = nearest[c]
        entry["verdict"] = verdict(entry, settings()["quality"])
        rows.append(entry)
    return {
        "empty_looks": int(quality["empty_looks"]),
        "set_aside": sum(int(v["set_aside"]) for v in quality["colours"].values()),
        "colours": rows,
    }


def nearest_colours(profile: Any, base: Any) -> dict[str, str]:
    """Each colour's nearest other colour (as ``TableProfile.quality`` measures)."""
    import numpy as np

    plastic = profile.model(base).plastic
    out = {}
    for c in COLOURS:
        d = {
            o: float(np.sum(((plastic[c] - plastic[o]) / base.scale) ** 2))
            for o in COLOURS
            if o != c
        }
        out[c] = min(d, key=lambda o: d[o])
    return out


def look_location(look: Look, kept: tuple[bytes, Any] | None) -> tuple[Any, tuple[bytes, Any]]:
    """The board's place in ``look`` with its local offsets (as the live reader has them), and
    the offsets to keep (``kept``: those measured last, used again while the corners stay)."""
    import numpy as np

    from companion.vision.decide.context import default_context
    from companion.vision.locate import register
    from companion.vision.locate.locate import BoardLocation

    corners = np.asarray(look.corners, np.float64).reshape(4, 2)
    h, w = look.image.shape[:2]
    loc = BoardLocation.from_corners(corners, (w, h), method="live")
    key = corners.tobytes() + bytes(str((w, h)), "ascii")
    if kept is None or kept[0] != key:
        kept = (key, register.local_offsets(look.image, loc.homography, default_context()))
    return replace(loc, offsets=kept[1]), kept


class TableProfiles:
    """The profile of the table's camera (see the module note). Without :meth:`attach` there is
    no camera: the set-up is refused, nothing is learnt."""

    def __init__(
        self,
        notice: Notify,
        state_dir: Path | None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._notice = notice
        self.state_dir = state_dir
        self._clock = clock
        self.camera: str | None = None
        self.profile: Any = None  # a vision.profile.TableProfile, replaced whole, never changed
        self.problem: str | None = None  # the code of what went wrong loading it
        self.learnt = 0  # lessons learnt since the start
        self.skipped = 0  # lessons given up (never changed, vision errors)
        self.taken_out = 0  # lessons taken out of the profile (claims corrected or undone)
        self._undo: set[str] = set()  # routes whose lesson is to be taken out (this game's)
        self._lock = threading.Lock()
        self._looks: deque[Look] = deque(maxlen=int(settings()["empty"]["looks"]))
        self._newest: Look | None = None  # the newest clean frame (lessons, photo mode)
        self._lessons: list[Lesson] = []
        self._busy = False  # a lesson job is queued or running
        self._pool: ThreadPoolExecutor | None = None
        self._game: str | None = None
        self._owners: dict[str, str] = {}
        self._offsets: tuple[bytes, Any] | None = None

    # -- the camera ----------------------------------------------------------------------------

    def attach(self, camera: str, state: Mapping[str, Any] | None = None) -> None:
        """The table's camera is ``camera`` (its id): load its profile. ``state``: the public
        state now (claims already in it are not lessons)."""
        from companion.vision.decide import profile as prof
        from companion.vision.decide.context import default_context

        self.camera = camera
        if state is not None:
            self._game, self._owners = state.get("game_id"), owners_of(state)
        if self.state_dir is None:
            return
        path = prof.profile_path(self.state_dir, camera)
        if not path.exists():
            return
        try:
            loaded = prof.load(path)
            spaces = len(default_context().info.printed_index[1])
            if loaded.empty.shape[0] != spaces:
                raise ValueError(f"{loaded.empty.shape[0]} spaces, the board has {spaces}")
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("the table profile %s cannot be used (%s): ignored", path, exc)
            self.problem = "camera.profile_broken"
            self._notice(
                "The camera's table profile could not be read; learn the empty board again.",
                "warning",
                code="camera.profile_broken",
                audience="host",
            )
            return
        self.profile = loaded
        log.info("table profile of camera %s loaded (%s)", camera, path)

    def seen(self, image: Any, corners: Any) -> None:
        """The live reader read a clean frame (the camera's thread): keep it as the newest look
        (and as one of the set-up's looks when ``spacing`` seconds after the last of those), and
        learn what waits for a frame like it (on the worker thread)."""
        now = self._clock()
        look = Look(image, corners, now)
        spacing = float(settings()["empty"]["spacing"])
        with self._lock:
            self._newest = look
            if not self._looks or now - self._looks[-1].at >= spacing:
                self._looks.append(look)
            start = bool(self._lessons) and not self._busy and self.profile is not None
            if start:
                self._busy = True
        if start:
            self._worker().submit(self._learn_lessons)

    def fresh_looks(self) -> list[Look]:
        fresh = float(settings()["empty"]["fresh"])
        now = self._clock()
        with self._lock:
            return [lk for lk in self._looks if now - lk.at <= fresh]

    # -- lessons from the game -------------------------------------------------------------------

    def heard(self, kind: str, data: dict[str, Any]) -> None:
        """A service listener (on the loop thread: it only queues). A new owner of a route in
        the public state is a lesson of its colour; a camera question on a free route answered
        no, a lesson of its empty look."""
        if self.camera is None:
            return
        now = self._clock()
        if kind == "state":
            owners = owners_of(data)
            game = data.get("game_id")
            with self._lock:
                if game != self._game:
                    self._game, self._owners = game, owners
                    self._lessons.clear()
                    self._undo.clear()
                    return
                new = [
                    (r, c) for r, c in owners.items() if self._owners.get(r) != c and c in COLOURS
                ]
                # corrected (another owner) or undone (free again): its lesson comes out
                gone = {r for r, c in self._owners.items() if owners.get(r) != c}
                self._owners = owners
                if gone:
                    self._lessons = [ls for ls in self._lessons if ls.route not in gone]
                    self._undo |= gone
                if self.profile is not None:
                    self._lessons.extend(Lesson(r, c, now) for r, c in new)
            if gone:
                self._worker().submit(self._learn_lessons, True)
        elif kind == "rejected" and data.get("kind") == "claim" and data.get("key"):
            route = str(data["key"])
            with self._lock:
                if self.profile is not None and route not in self._owners:
                    self._lessons.append(Lesson(route, None, now))

    def _learn_lessons(self, undo_only: bool = False) -> None:
        """Worker: the lessons of corrected or undone claims taken out; then (unless
        ``undo_only``) the lessons due at the newest look learnt (or kept for a later look)."""
        try:
            with self._lock:
                undo, self._undo = self._undo, set()
                look = self._newest
                due = [
                    ls
                    for ls in self._lessons
                    if look is not None and ls.at < look.at and not undo_only
                ]
                game = self._game
            if undo and self.profile is not None:
                self._take_out(self.profile, sorted(undo), game)
            profile = self.profile
            if look is None or not due or profile is None:
                return
            try:
                keep = self._learn(profile, look, due)
            except Exception:
                log.exception("learning the table from the camera failed: lessons skipped")
                self.skipped += len(due)
                keep = []
            with self._lock:
                self._lessons = [ls for ls in self._lessons if ls not in due] + keep
        finally:
            if not undo_only:
                with self._lock:
                    self._busy = False

    def _take_out(self, profile: Any, routes: list[str], game: str | None) -> None:
        """Worker: the lessons of ``routes`` in ``game`` taken out of a copy of ``profile``."""
        new = copy.deepcopy(profile)
        out = {r: c for r in routes if (c := new.unlearn(r, game)) is not None}
        if not out:
            return
        for r, c in out.items():
            log.info(
                "table profile: the claim of %s was corrected or undone: %s's lesson out", r, c
            )
        self.taken_out += len(out)
        self._keep(new)

    def _learn(self, profile: Any, look: Look, due: list[Lesson]) -> list[Lesson]:
        """Learn ``due`` from ``look`` on a copy of ``profile``; the lessons to try again."""
        import numpy as np

        from companion.vision.decide.profile import Guard, learn_claims

        ctx, feats, _ = self._features(look)
        changed = profile.changed(feats, ctx.info.printed_index[1])
        cfg = settings()["learn"]
        claims: dict[str, str | None] = {}
        keep: list[Lesson] = []
        for ls in due:
            sl = ctx.info.route_slices.get(ls.route)
            if sl is None:
                continue
            if ls.colour is None:
                if float(np.max(changed[sl])) <= float(cfg["free_change"]):
                    claims[ls.route] = None
                else:
                    self.skipped += 1
            elif float(np.min(changed[sl])) > float(cfg["trains_change"]):
                claims[ls.route] = ls.colour
            elif look.at - ls.at <= float(cfg["lesson_seconds"]):
                keep.append(ls)
            else:
                log.info("table profile: %s never looked claimed; not learnt", ls.route)
                self.skipped += 1
        if claims:
            new = copy.deepcopy(profile)
            guard = Guard.from_json(settings()["guard"])
            with self._lock:
                game = self._game
            aside = learn_claims(
                new, feats, ctx.info, ctx.windows, ctx.model, claims, game=game, guard=guard
            )
            for r, near in aside.items():
                log.warning(
                    "table profile: %s's trains on %s look nearer %s than %s: lesson set aside",
                    claims[r],
                    r,
                    "the empty board" if near == "board" else near,
                    claims[r],
                )
            self._keep(new)
            self.learnt += len(claims) - len(aside)
            need = int(settings()["quality"]["trains_learnt"])
            for c in sorted({c for c in claims.values() if c is not None}):
                before, after = profile.plastic_count.get(c, 0), new.plastic_count.get(c, 0)
                if before < need <= after:
                    self._notice(
                        f"The camera has learnt {c}'s trains.",
                        color=c,
                        code="camera.colour_learnt",
                        params={"color": c, "n": after},
                        audience="host",
                    )
        return keep

    # -- the guided set-up (the host) ----------------------------------------------------------

    def learn_empty(self) -> None:
        """Learn the empty board from the camera's last clean frames (waits for them a few
        seconds); 409 when there is no camera, no clean frame, or the board is not empty."""
        if self.camera is None:
            raise no_camera()
        cfg = settings()["empty"]
        deadline = time.monotonic() + float(cfg["wait"])
        looks = self.fresh_looks()
        while len(looks) < int(cfg["looks"]) and time.monotonic() < deadline:
            time.sleep(0.1)
            looks = self.fresh_looks()
        if not looks:
            raise no_board()
        self._wait(self._worker().submit(self._learn_empty, looks))

    def _learn_empty(self, looks: list[Look]) -> None:
        from companion.vision.decide import profile as prof
        from companion.vision.types import NoBoardError

        assert self.camera is not None
        cfg = settings()["empty"]
        new: Any = None
        for look in looks:
            try:
                _, feats, reading = self._features(look, read=True)
            except (NoBoardError, ValueError) as exc:
                log.info("the empty board could not be read: %s", exc)
                raise no_board() from None
            routes = sum(1 for v in reading.routes.values() if v)
            stations = sum(1 for v in reading.stations.values() if v)
            if routes > int(cfg["routes_seen"]) or stations > int(cfg["stations_seen"]):
                raise Conflict(
                    f"The board is not empty: the camera sees trains on {routes} routes and "
                    f"{stations} stations.",
                    code="camera.table_not_empty",
                    params={"routes": routes, "stations": stations},
                )
            if new is None:
                new = prof.TableProfile.from_empty(self.camera, feats)
            else:
                new.add_empty(feats)
        old = self.profile
        if old is not None:  # the colours learnt stay
            new.take_colours(old)
        self._keep(new)
        self.problem = None

    def forget(self) -> None:
        """Forget the camera's profile (and its file)."""
        self._wait(self._worker().submit(self._forget))

    def _forget(self) -> None:
        from companion.vision.decide.profile import profile_path

        self.profile = None
        self.problem = None
        with self._lock:
            self._lessons.clear()
        if self.state_dir is not None and self.camera is not None:
            profile_path(self.state_dir, self.camera).unlink(missing_ok=True)

    # -- photo mode: a photo from the table's own camera -------------------------------------------

    def newest_look(self) -> Look:
        """The camera's newest clean frame; 409 when there is no camera or no recent one."""
        if self.camera is None:
            raise no_camera()
        with self._lock:
            look = self._newest
        if look is None or self._clock() - look.at > float(settings()["empty"]["fresh"]):
            raise no_board()
        return look

    def read_look(self, look: Look) -> dict[str, Any]:
        """A clean frame of the table's camera read as a photo is, with the profile (a photo
        job's reader: see ``photos.reading_json``)."""
        from companion.service.photos import reading_json
        from companion.vision.reading.read import read_board

        return reading_json(
            read_board(look.image, location=self._location(look), profile=self.profile)
        )

    # -- what the host sees ------------------------------------------------------------------------

    def status(self, colours: list[str] | None = None) -> dict[str, Any]:
        """The set-up's progress and the profile's quality (API.md: GET /api/table/profile).
        ``colours``: the players' colours (None or empty: every colour)."""
        shown = [c for c in (colours or COLOURS) if c in COLOURS] or list(COLOURS)
        profile = self.profile
        out: dict[str, Any] = {
            "camera": self.camera is not None,
            "problem": self.problem,
            "step": "no_camera",
            "empty_looks": 0,
            "learnt": self.learnt,
            "taken_out": self.taken_out,
            "set_aside": 0,
            "colours": [],
        }
        if self.camera is None:
            return out
        if profile is None:
            out["step"] = "empty"
            return out
        out.update(quality_of(profile, shown))
        out["step"] = (
            "colours" if any(r["verdict"] == "learning" for r in out["colours"]) else "ready"
        )
        return out

    # -- parts -----------------------------------------------------------------------------------

    def _worker(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="companion-profile")
            return self._pool

    def _wait(self, fut: Future[Any]) -> Any:
        try:
            return fut.result(timeout=float(settings()["empty"]["wait"]) * 4)
        except FutureTimeout:
            raise Unavailable(
                "The camera is still learning; try again in a moment.", code="service.busy"
            ) from None

    def _location(self, look: Look) -> Any:
        """The board's place in ``look``, with its local offsets (as the live reader has)."""
        loc, self._offsets = look_location(look, self._offsets)
        return loc

    def _features(self, look: Look, *, read: bool = False) -> tuple[Any, Any, Any]:
        """(context, space features, the reading without a profile when ``read``) of a look."""
        import numpy as np

        from companion.vision.decide.classify import space_features_lab8
        from companion.vision.decide.context import default_context, take_samples
        from companion.vision.reading.read import read_samples

        ctx = default_context()
        loc = self._location(look)
        h = np.asarray(loc.homography, dtype=np.float64)
        samples = take_samples(look.image, h, ctx, offsets=loc.offsets)
        assert samples.spaces_lab is not None
        feats = space_features_lab8(
            samples.spaces_lab, ctx.layout, ctx.windows, ctx.info.tunnel, ctx.info.lane_side
        )
        reading = read_samples(samples, ctx)[0] if read else None
        return ctx, feats, reading

    def _keep(self, profile: Any) -> None:
        """Worker: ``profile`` replaces the current one, and is saved (atomically)."""
        from companion.vision.decide.profile import profile_path, save

        self.profile = profile
        if self.state_dir is not None and self.camera is not None:
            try:
                save(profile, profile_path(self.state_dir, self.camera))
            except OSError as exc:
                log.error("the table profile could not be saved: %s", exc)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


class TappedReader:
    """The live reader of the table's camera, reading with its profile and showing the store
    every clean frame it reads. ``inner``: a ``vision.readers.FrameReader`` (one with a
    ``profile`` attribute, like ``VisionReader``, reads with the profile)."""

    def __init__(self, inner: Any, profiles: TableProfiles) -> None:
        self.inner = inner
        self.profiles = profiles

    def locate(self, frame: Any) -> Any:
        return self.inner.locate(frame)

    def read(self, frame: Any, corners: Any) -> Any:
        if hasattr(self.inner, "profile"):
            self.inner.profile = self.profiles.profile
        reading = self.inner.read(frame, corners)
        self.profiles.seen(frame.image, corners)
        return reading
