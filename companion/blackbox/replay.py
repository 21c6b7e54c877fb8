"""Replay a recording: its frames through the live watcher and the service's camera decisions
again, and every difference against what happened (``companion replay``).

Each recorded frame (in camera order) is shown to a new
:class:`~companion.vision.live.live.LiveWatcher` as a steady board until the
watcher has read it once, as the camera did (frames
``replay_step_seconds`` apart, at most ``replay_hold_frames``: a frame the camera did not read,
the board lost, is held that long), read by the project's pixel reader with the camera's
recorded location (corners and local offsets) and the table profile of that moment. Sightings the
game refused are forgotten where the live watcher forgot them.

Then, compared with what the recording and the log say happened:

* ``missed``: a claim or station the camera saw then and does not see now;
* ``new``: one it sees now and did not see then (with what the service would decide);
* ``colour``: the same route or city, another colour;
* ``decision``: the service would decide another way (apply, ask a question, veto, ignore),
  decided as then: on the log at the same position, with the same pending payment and the
  camera's doubt of then;
* ``log``: a claim the camera made that the log records otherwise, or a camera step in the log
  that no recorded decision explains;
* ``event``: a veto, a watcher question, a piece removed or the board lost, then and not now
  (or now and not then).

A note, not a difference: the camera now sure of a claim it was unsure of then (or the other way:
``unsure``), and a claim it was unsure of then that it does not see now (``missed`` among the
notes). Its doubt comes from the reading's check list and the pixels' history, which depend
on what the reader saw before (its cache: the class means adapted on the last frame, the light's
shape, readings reused for unchanged frames) and on JPEG's noise; a replay of the kept frames
cannot have that history (``benchmarks/bench_blackbox.py`` counts how often the check list
changes with JPEG alone). The service's decision is then made with the doubt of then, so a
question the service would ask otherwise (another colour, the rules) is still a difference.

Pure but for reading the frames; the watcher, the reader and ``reconcile`` are the product's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.blackbox import layout
from companion.blackbox.source import BadRecording, Recording
from companion.core.records import fields_json
from companion.service.camera import sighting
from companion.store import Event

RESULTS = {
    "apply": "applied",
    "late": "applied",
    "confirm": "pending",
    "veto": "vetoed",
    "ignore": "ignored",
}
SIGHTINGS = ("claim", "station")


@dataclass
class Sighting:
    """A claim or station seen: by the live camera (``e``: its event) or by the replay."""

    kind: str  # "claim" | "station"
    key: str
    color: str
    unsure: bool = False
    listed: bool = False
    frame: int = -1  # the camera frame it was seen at (the replay: the recorded frame's)
    seq: int = 0  # the log position then
    e: int | None = None

    def obs(self) -> dict[str, Any]:
        return sighting(self.kind, self.key, self.color, unsure=self.unsure, listed=self.listed)

    def describe(self) -> str:
        mark = " (unsure)" if self.unsure or self.listed else ""
        what = "claim" if self.kind == "claim" else "station"
        return f"{what} {self.key} {self.color}{mark}"


@dataclass
class Difference:
    kind: str
    text: str
    frame: int | None = None
    seq: int | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass
class Outcome:
    game_id: str
    frames: int
    live: list[Sighting]
    replayed: list[Sighting]
    differences: list[Difference]
    others_live: Counter[tuple[str, str]]
    others_now: Counter[tuple[str, str]]
    notes: list[Difference] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "frames": self.frames,
            "seen_then": len(self.live),
            "seen_now": len(self.replayed),
            "identical": not self.differences,
            "differences": [d.to_json() for d in self.differences],
            "notes": [d.to_json() for d in self.notes],
        }


# --- what happened then ------------------------------------------------------------------------


def sighting_of(data: dict[str, Any], frame: int, seq: int, e: int | None) -> Sighting | None:
    kind = data.get("kind")
    if kind == "claim":
        return Sighting(
            "claim",
            str(data["route"]),
            str(data["color"]),
            bool(data.get("unsure")),
            bool(data.get("listed")),
            frame,
            seq,
            e,
        )
    if kind == "station":
        return Sighting("station", str(data["city"]), str(data["color"]), frame=frame, seq=seq, e=e)
    return None


def other_key(data: dict[str, Any]) -> tuple[str, str] | None:
    kind = str(data.get("kind"))
    if kind in SIGHTINGS:
        return None
    return (kind, str(data.get("id") or ""))


def live_sightings(rec: Recording) -> tuple[list[Sighting], Counter[tuple[str, str]]]:
    seen: list[Sighting] = []
    others: Counter[tuple[str, str]] = Counter()
    for r in rec.of_type("event"):
        data = r.get("event") or {}
        s = sighting_of(data, int(r.get("frame", -1)), int(r.get("seq", 0)), int(r["e"]))
        if s is not None:
            seen.append(s)
        else:
            key = other_key(data)
            if key is not None:
                others[key] += 1
    return seen, others


# --- the frames again ---------------------------------------------------------------------------


def _offsets(data: dict[str, Any] | None) -> Any:
    if not data:
        return None
    import numpy as np

    from companion.vision.locate.register import LocalOffsets

    return LocalOffsets(
        np.asarray(data["spaces"], np.float64),
        np.asarray(data["cities"], np.float64),
        int(data["measured"]),
    )


def _profiles(rec: Recording) -> dict[int, Any]:
    import json

    from companion.vision.decide.profile import TableProfile

    out: dict[int, Any] = {}
    for r in rec.of_type("profile"):
        name = str(r.get("file", ""))
        if name not in rec.names:
            raise BadRecording(f"the table profile {name} is missing from the recording")
        try:
            out[int(r["version"])] = TableProfile.from_json(json.loads(rec.read(name)))
        except (ValueError, KeyError, TypeError) as exc:
            raise BadRecording(f"the table profile {name} cannot be read: {exc}") from None
    return out


def players_of(rec: Recording) -> frozenset[str] | None:
    """The colours of the recorded game (its log's new game), which the live camera was told
    as the service's: the watcher guesses no other."""
    first = rec.events[0].action if rec.events else {}
    if first.get("type") != "new_game":
        return None
    colours = frozenset(str(p["color"]) for p in first.get("players") or [] if p.get("color"))
    return colours or None


def see_again(
    rec: Recording, progress: Callable[[int, int], None] | None = None
) -> tuple[list[Sighting], Counter[tuple[str, str]], int]:
    """Feed the recorded frames through a new watcher; its sightings and other events."""
    import numpy as np

    from companion.commands.devices import camera_observation
    from companion.vision.live.live import LiveWatcher, VisionReader, WatchState, as_questions
    from companion.vision.live.sources import Frame
    from companion.vision.types import NoBoardError

    cfg = layout.settings()
    hold = int(cfg["replay_hold_frames"])  # at most, for a frame the watcher does not read
    step = float(cfg["replay_step_seconds"])
    locations = {
        int(r["id"]): (np.asarray(r["corners"], np.float64).reshape(4, 2), _offsets(r["offsets"]))
        for r in rec.of_type("location")
    }
    profiles = _profiles(rec)
    frames = rec.frames()
    refusals = sorted(rec.of_type("refused"), key=lambda r: int(r.get("frame", -1)))

    class Reader(VisionReader):
        where: Any = None

        def locate(self, frame: Frame) -> Any:
            if self.where is None:
                raise NoBoardError("the camera did not see the board in this frame")
            return self.where

    reader = Reader()
    first = next((f for f in frames if f.get("location") in locations), None)
    watcher = LiveWatcher(
        reader, corners=None if first is None else locations[int(first["location"])][0]
    )
    watch = rec.start.get("watch") or {}
    watcher.state = WatchState(dict(watch.get("routes") or {}), dict(watch.get("stations") or {}))
    watcher.players = players_of(rec)  # as the live camera was told: the game's colours
    seen: list[Sighting] = []
    others: Counter[tuple[str, str]] = Counter()
    t = 0.0
    index = 0
    for i, record in enumerate(frames):
        image = rec.image(record)
        at = int(record["index"])
        while refusals and int(refusals[0].get("frame", -1)) < at:
            r = refusals.pop(0)
            watcher.forget(str(r["kind"]), str(r["key"]), str(r["color"]), r.get("owner"))
        loc = locations.get(int(record["location"])) if record.get("location") else None
        if loc is not None:
            reader.where = loc[0]
            watcher.corners = loc[0]
            if loc[1] is not None:
                reader.use_offsets(loc[0], loc[1])
        else:
            reader.where = None
        reader.profile = profiles.get(int(record.get("profile") or 0))
        reads = watcher.stats["reads"]
        for _ in range(hold):  # until the watcher read it once, as the camera did
            if watcher.stats["reads"] > reads:
                break
            events = as_questions(watcher, watcher.process(Frame(image, t, index)))
            t += step
            index += 1
            for event in events:
                what, data = camera_observation(event)
                if what == "observe":
                    assert isinstance(data, dict)
                    kind = "claim" if data["kind"] == "claim_seen" else "station"
                    s = sighting_of({**data, "kind": kind}, at, int(record.get("seq", 0)), None)
                    if s is not None:
                        seen.append(s)
                    continue
                from companion.blackbox.recorder import event_json

                key = other_key(event_json(event))
                if key is not None:
                    others[key] += 1
        if progress is not None:
            progress(i + 1, len(frames))
    return seen, others, len(frames)


# --- the decisions again ------------------------------------------------------------------------


class Decider:
    """``reconcile`` on the log as it was at a position, with a pending payment."""

    def __init__(self, events: list[Event]) -> None:
        from companion.data import europe_map

        self.events = events
        self.map = europe_map()
        self._folds: dict[int, Any] = {}

    def fold(self, seq: int) -> Any:
        if seq not in self._folds:
            from companion.service.fold import fold_game

            upto = [e for e in self.events if e.seq <= seq]
            self._folds[seq] = fold_game(upto, self.map) if upto else None
        return self._folds[seq]

    def decide(self, s: Sighting, seq: int, pending: dict[str, Any] | None) -> Any:
        from companion.service.camera import reconcile
        from companion.service.pending import Pending

        p = Pending()
        if pending:
            p.payment_player = pending.get("payment_player")
            p.cards = list(pending.get("cards") or [])
            ended = pending.get("ended")
            if ended:
                p.ended = (int(ended[0]), str(ended[1]), list(ended[2]))
        return reconcile(self.fold(seq), p, s.obs())


# --- comparing ------------------------------------------------------------------------------------


def step_target(action: dict[str, Any]) -> tuple[str, str, str] | None:
    """(kind, key, colour) of a claim or station step (or of the claim a ``replace`` puts)."""
    a = action
    if a.get("type") == "replace":
        a = dict(a.get("action") or {})
    if a.get("type") == "claim":
        return ("claim", str(a.get("route")), str(a.get("player")))
    if a.get("type") == "build_station":
        return ("station", str(a.get("city")), str(a.get("player")))
    return None


def pair_up(
    live: list[Sighting], unmatched: list[Sighting]
) -> list[tuple[Sighting, Sighting | None]]:
    """Each sighting of then with the replay's of the same route or city (taken out of
    ``unmatched``): of the same colour first, then any. A route seen twice then (a colour the
    game refused and the watcher forgot, then a player's trains) pairs each sighting with its
    own, not the first with the second's."""
    found: dict[int, Sighting] = {}
    for same_colour in (True, False):
        for i, s in enumerate(live):
            if i in found:
                continue
            match = next(
                (
                    n
                    for n in unmatched
                    if (n.kind, n.key) == (s.kind, s.key)
                    and (n.color == s.color or not same_colour)
                ),
                None,
            )
            if match is not None:
                unmatched.remove(match)
                found[i] = match
    return [(s, found.get(i)) for i, s in enumerate(live)]


def compare(
    rec: Recording,
    live: list[Sighting],
    now: list[Sighting],
    others_live: Counter[tuple[str, str]],
    others_now: Counter[tuple[str, str]],
    notes: list[Difference] | None = None,
) -> list[Difference]:
    """The differences (see the module note); ``notes`` receives the camera's doubt that
    changed (not a difference)."""
    diffs: list[Difference] = []
    if notes is None:
        notes = []
    decisions = {int(r["e"]): r for r in rec.of_type("decision") if r.get("e") is not None}
    decider = Decider(rec.events)
    unmatched = list(now)
    pairs = pair_up(live, unmatched)
    for s, n in pairs:
        where = {"kind": s.kind, "id": s.key, "color": s.color}
        if n is None:
            missed = Difference(
                "missed",
                f"the camera saw {s.describe()} then and does not see it now",
                s.frame,
                s.seq,
                where,
            )
            # a sighting the camera itself was unsure of then is within its own doubt: a note
            (notes if (s.unsure or s.listed) else diffs).append(missed)
            continue
        if n.color != s.color:
            diffs.append(
                Difference(
                    "colour",
                    f"{s.key}: the camera saw {s.color} then and sees {n.color} now",
                    n.frame,
                    s.seq,
                    {**where, "now": n.color},
                )
            )
        elif (n.unsure, n.listed) != (s.unsure, s.listed):
            asked = "would now be unsure" if (n.unsure or n.listed) else "would now be sure"
            notes.append(
                Difference(
                    "unsure",
                    f"{s.describe()}: the camera {asked} of it",
                    n.frame,
                    s.seq,
                    {**where, "unsure": n.unsure, "listed": n.listed},
                )
            )
        made = decisions.get(s.e) if s.e is not None else None
        if made is None or made.get("seq") is None:
            continue
        # decided with the camera's doubt of then (a note above when it changed)
        again = Sighting(n.kind, n.key, n.color, s.unsure, s.listed, n.frame, n.seq)
        decision = decider.decide(again, int(made["seq"]), made.get("pending"))
        result = RESULTS.get(decision.kind, decision.kind)
        then = str(made.get("result"))
        if result != then:
            diffs.append(
                Difference(
                    "decision",
                    f"{n.describe()}: the service decided {then} then and would decide "
                    f"{result} now",
                    n.frame,
                    int(made["seq"]),
                    {**where, "then": then, "now": result, "code": decision.code},
                )
            )
        if then == "applied":
            diffs.extend(_log_check(rec.events, n, made))
    for n in unmatched:
        decision = decider.decide(n, n.seq, None)
        result = RESULTS.get(decision.kind, decision.kind)
        diffs.append(
            Difference(
                "new",
                f"the camera sees {n.describe()} now and did not then (the service would "
                f"decide: {result})",
                n.frame,
                n.seq,
                {"kind": n.kind, "id": n.key, "color": n.color, "now": result},
            )
        )
    diffs.extend(_unexplained(rec.events, decisions))
    for key in sorted(set(others_live) | set(others_now)):
        a, b = others_live[key], others_now[key]
        if a != b:
            diffs.append(
                Difference(
                    "event",
                    f"{key[0]} {key[1]}".strip() + f": {a} then, {b} now",
                    params={"event": key[0], "id": key[1], "then": a, "now": b},
                )
            )
    return diffs


def _log_check(events: list[Event], n: Sighting, made: dict[str, Any]) -> list[Difference]:
    """The camera's claim applied then: the log holds it as the camera sees it now."""
    lo, hi = int(made["seq"]), int(made.get("after") or made["seq"])
    steps = [
        t
        for e in events
        if lo < e.seq <= hi and e.actor == "camera" and (t := step_target(e.action)) is not None
    ]
    want = (n.kind, n.key, n.color)
    if want in steps:
        return []
    if steps:
        kind, key, colour = steps[0]
        text = f"the log has {kind} {key} {colour} where the camera sees {n.key} {n.color}"
    else:
        text = f"the log does not have the camera's {n.describe()}, which was applied"
    return [Difference("log", text, n.frame, lo + 1, {"kind": n.kind, "id": n.key})]


def _unexplained(events: list[Event], decisions: dict[int, dict[str, Any]]) -> list[Difference]:
    """A camera step in the log that no recorded decision made."""
    windows = [
        (int(d["seq"]), int(d.get("after") or d["seq"]))
        for d in decisions.values()
        if d.get("result") == "applied" and d.get("seq") is not None
    ]
    out = []
    for e in events:
        target = step_target(e.action)
        if target is None or e.actor != "camera":
            continue
        if any(lo < e.seq <= hi for lo, hi in windows):
            continue
        kind, key, colour = target
        out.append(
            Difference(
                "log",
                f"the log has the camera's {kind} {key} {colour} (step {e.seq}), which the "
                f"recording does not show it deciding",
                seq=e.seq,
                params={"kind": kind, "id": key, "color": colour},
            )
        )
    return out


def replay(rec: Recording, progress: Callable[[int, int], None] | None = None) -> Outcome:
    """Replay ``rec`` (see the module note)."""
    if not rec.frames():
        raise BadRecording(f"the recording of game {rec.game_id} holds no frame")
    live, others_live = live_sightings(rec)
    now, others_now, n = see_again(rec, progress)
    notes: list[Difference] = []
    diffs = compare(rec, live, now, others_live, others_now, notes)
    return Outcome(rec.game_id, n, live, now, diffs, others_live, others_now, notes)
