"""The live watcher's same-colour guess (trains on a route printed in their own colour, which the
reader cannot see): one look never guesses several routes, never a colour nobody plays, and a
change of the room's light is no guess at all. A real claim of that kind is still guessed.

Frames come from the simulated camera (the project's renderer); the reader is the simulator's
truth, blind to trains on a route printed in their colour (the real reader's weak spot)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
import pytest

from companion.sim.camera import SimulatedCamera
from companion.sim.live_oracle import BlindToTheirOwnColour
from companion.sim.render import BoardRenderer
from companion.vision.live.live import ClaimSeen, Event, LiveConfig, LiveWatcher, LookChanged
from companion.vision.live.live_board import Patches
from companion.vision.live.live_hints import HintRuling, SameColourHints
from companion.vision.live.sources import Frame
from companion.vision.types import BoardReading

SIZE = (480, 270)
FPS = 5.0
YELLOW = ["amsterdam-essen", "barcelona-madrid", "munchen-zurich", "smolensk-wilno"]


def _run(
    renderer: BoardRenderer,
    script: Sequence[dict[str, Any]],
    *,
    players: Sequence[str] | None = None,
    light: Callable[[float], float | np.ndarray] | None = None,
    until: float = 14.0,
    seen: list[Event] | None = None,
) -> tuple[list[ClaimSeen], LiveWatcher]:
    """The script before the camera; ``light(t)``: the room's brightness (1: as rendered), or
    an array of it over the frame (rows, columns, 1); ``seen``: gets every event."""
    cam = SimulatedCamera(
        [*script, {"t": until - 0.5, "until": until, "shadow": [0.9, 0.9]}],
        seed=5,
        fps=FPS,
        size=SIZE,
        renderer=renderer,
        flicker=0.01,
    )
    reader = BlindToTheirOwnColour(renderer.geometry, flip=0.0, seed=5)
    watcher = LiveWatcher(reader, geometry=renderer.geometry, players=players)
    claims: list[ClaimSeen] = []
    with cam:
        for f in cam:
            gain = 1.0 if light is None else light(f.timestamp)
            if isinstance(gain, np.ndarray):
                lit = np.clip(f.image.astype(np.float32) * gain, 0, 255).astype(np.uint8)
                f = Frame(lit, f.timestamp, f.index, f.truth)
            elif gain != 1.0:
                f = Frame(cv2.convertScaleAbs(f.image, alpha=gain), f.timestamp, f.index, f.truth)
            events = watcher.process(f)
            claims.extend(e for e in events if isinstance(e, ClaimSeen))
            if seen is not None:
                seen.extend(events)
    return claims, watcher


def test_a_lamp_switched_off_guesses_nothing(renderer: BoardRenderer) -> None:
    """The room gets 6 % darker at 4 s and stays so. Before the evidence took the board's
    brightness into account, 16 free routes printed in a player colour became claims of their
    print's colour in the same read (5 yellow, 5 blue, 3 green, 3 red), whoever played; at
    4.5 % darker, 8 (7 yellow: the brightest player print, where a few per cent is over the
    evidence's 8 grey levels first)."""
    claims, watcher = _run(renderer, [], light=lambda t: 0.94 if t >= 4.0 else 1.0)
    assert claims == []
    assert watcher.stats["reads"] > 20
    assert watcher.stats["hints"] == watcher.stats["hints_held"] == 0


def _lamp_aside(darkest: float, t0: float, *, across: bool = True) -> Callable[[float], Any]:
    """A lamp on one side of the table switched off at ``t0``: the frame darkens towards the
    far side, to ``darkest`` of its light (``across``: from right to left, else bottom to top)."""
    w, h = SIZE
    ramp = np.linspace(darkest, 1.0, w if across else h, dtype=np.float32)
    gain = ramp[None, :, None] if across else ramp[:, None, None]
    return lambda t: gain if t >= t0 else 1.0


@pytest.mark.parametrize(
    ("darkest", "across", "route"),
    [(0.7, True, YELLOW[0]), (0.8, True, YELLOW[0]), (0.75, False, YELLOW[3])],
)
def test_a_claim_in_the_same_look_as_a_lamp_switched_off_is_still_asked(
    renderer: BoardRenderer, darkest: float, across: bool, route: str
) -> None:
    """A lamp on one side goes off in the same moment as yellow trains go down on a yellow
    route. Before, the lamp's residue made 7 to 17 yellow, blue, red and green routes candidates
    in that read (the brightness scale is the whole board's, the lamp's is not): the claim was
    held with them, settled as the board's new look and lost, and a route at the edge of the
    lamp's reach, a candidate in some reads only, was later asked about alone (a wrong
    question). Now a change each space's own brightness explains is no candidate: the claim is
    asked, once, and nothing else; the lamp alone asks nothing."""
    lamp = _lamp_aside(darkest, 4.0, across=across)
    claims, watcher = _run(renderer, [{"t": 4.0, "claim": route, "color": "yellow"}], light=lamp)
    assert [(c.route, c.color, c.unsure) for c in claims] == [(route, "yellow", True)]
    assert 4.0 <= claims[0].t <= 6.0
    assert watcher.stats["hints_held"] == watcher.stats["hints_settled"] == 0

    seen: list[Event] = []
    claims, watcher = _run(renderer, [], light=lamp, seen=seen)
    assert claims == [] and watcher.stats["reads"] > 20
    assert not [e for e in seen if isinstance(e, LookChanged)]  # nothing for the host either
    assert watcher.stats["hints"] == watcher.stats["hints_held"] == 0


def test_the_residue_a_light_leaves_and_trains_leave() -> None:
    """Each space's own brightness (per colour channel) taken out: a lamp, a gradient and a
    colder light leave nothing; a new pattern (trains hiding the print) stays changed."""
    rng = np.random.default_rng(11)
    key = ("route", "a")
    idx = np.arange(40)
    spaces = np.repeat(np.arange(4), 10)
    patches = Patches({key: idx}, {key: spaces})
    before = rng.uniform(60.0, 220.0, (40, 3))
    patches.adopt(before, 150.0, first=True)
    lamp = before * np.repeat(np.linspace(0.7, 0.85, 4), 10)[:, None]
    colder = before * np.array([1.1, 1.0, 0.85])
    assert patches.residue(key, lamp, 8.0) == patches.residue(key, colder, 8.0) == 0.0
    trains = rng.uniform(60.0, 220.0, (40, 3))
    assert patches.residue(key, trains, 8.0) > 0.5
    assert patches.evidence(key, lamp, 150.0, 8.0) > 0.5  # the board's scale alone: changed
    assert patches.residue(("route", "b"), trains, 8.0) == 1.0  # no reference: all changed


def test_several_routes_at_once_are_held_then_taken_as_they_look(
    renderer: BoardRenderer,
) -> None:
    """Two yellow-printed routes change in the same look (no turn does that: the board's look
    changed): neither is guessed, and once that lasts they are the board's new look. Before,
    nothing more was said (a claim among them was lost unseen); now the host is told, once, to
    check them. A real yellow claim on yellow print later is guessed, once."""
    script = [
        {"t": 2.0, "claim": YELLOW[0], "color": "yellow"},
        {"t": 2.0, "claim": YELLOW[1], "color": "yellow"},
        {"t": 8.0, "claim": YELLOW[2], "color": "yellow"},
    ]
    seen: list[Event] = []
    claims, watcher = _run(renderer, script, seen=seen)
    assert [(c.route, c.color, c.unsure) for c in claims] == [(YELLOW[2], "yellow", True)]
    cfg = watcher.config
    assert watcher.stats["hints_held"] == cfg.same_colour_hold_reads
    assert watcher.stats["hints_settled"] == 2 and watcher.stats["hints"] == 1
    assert claims[0].t >= 8.0
    looks = [e for e in seen if isinstance(e, LookChanged)]
    assert [e.routes for e in looks] == [tuple(sorted(YELLOW[:2]))]
    assert 2.0 < looks[0].t < claims[0].t
    assert looks[0].to_json()["routes"] == sorted(YELLOW[:2])


def test_a_colour_nobody_plays_is_never_guessed(renderer: BoardRenderer) -> None:
    """Yellow trains on yellow print with yellow not playing: no guess; the same with yellow
    playing is one unsure claim. The colours can change while the watcher runs (the service
    starts another game)."""
    script = [{"t": 2.0, "claim": YELLOW[3], "color": "yellow"}]
    claims, watcher = _run(renderer, script, players=["blue", "red"])
    assert claims == [] and watcher.players == frozenset({"blue", "red"})
    assert watcher.stats["hints"] == watcher.stats["hints_held"] == 0

    claims, watcher = _run(renderer, script, players=["blue", "yellow"])
    assert [(c.route, c.color, c.unsure) for c in claims] == [(YELLOW[3], "yellow", True)]

    watcher.players = None  # no game known: any player colour may be guessed
    assert watcher.players is None


class _LateOn(BlindToTheirOwnColour):
    """Also misses every train on ``route`` until ``until`` seconds (read free)."""

    def __init__(self, renderer: BoardRenderer, route: str, until: float) -> None:
        super().__init__(renderer.geometry, flip=0.0, seed=5)
        self.route, self.until = route, until

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        r = super().read(frame, corners)
        if frame.timestamp < self.until:
            r.routes[self.route] = None
        return r


def test_trains_on_the_print_of_a_colour_nobody_plays_are_theirs(
    renderer: BoardRenderer,
) -> None:
    """Blue trains on a yellow-printed route, read free at first (the camera's first reads
    missed them), yellow not playing. Before, the guess made them yellow (an unsure claim the
    game vetoes) and took the route's look as reported: the blue read later had no change left
    to show and was never reported. Now: nothing until the reader sees them, then blue."""
    route = YELLOW[1]
    script = [{"t": 2.0, "claim": route, "color": "blue"}]
    cam = SimulatedCamera(
        [*script, {"t": 9.5, "until": 10.0, "shadow": [0.9, 0.9]}],
        seed=5,
        fps=FPS,
        size=SIZE,
        renderer=renderer,
        flicker=0.01,
    )
    reader = _LateOn(renderer, route, until=6.0)
    watcher = LiveWatcher(reader, geometry=renderer.geometry, players=["blue", "red"])
    claims: list[ClaimSeen] = []
    with cam:
        for f in cam:
            claims.extend(e for e in watcher.process(f) if isinstance(e, ClaimSeen))
    assert [(c.route, c.color, c.unsure) for c in claims] == [(route, "blue", False)]
    assert claims[0].t >= 6.0 and watcher.stats["vetoes"] == 0


def test_the_rulings_one_read_at_a_time() -> None:
    cfg = LiveConfig.load({"confirm_reads": 2, "same_colour_burst": 2, "same_colour_hold_reads": 3})
    hints = SameColourHints(cfg)
    hints.follow(["red", "yellow"])
    assert hints.judge({"a": "red"}).guess is None  # one read: not yet
    assert hints.judge({"a": "red"}).guess == "a"
    # two at once: held; one goes away, the other is then guessed when due
    assert hints.judge({"b": "red", "c": "yellow"}).held
    ruling = hints.judge({"b": "red"})
    assert not ruling.held and ruling.guess == "b"
    # a lasting burst is settled after hold reads, and counts start again
    assert hints.judge({"d": "red", "e": "yellow"}).held
    assert hints.judge({"d": "red", "e": "yellow"}).settle == ()
    assert hints.judge({"d": "red", "e": "yellow"}).settle == ("d", "e")
    assert hints.counts == {} and hints.held_reads == 0
    # a colour nobody plays: never guessed, never held, left as it is
    assert hints.judge({"f": "green"}) == hints.judge({"f": "green"}) == HintRuling()
    assert hints.judge({"f": "green", "h": "blue"}) == HintRuling()
    assert hints.counts == {}
    # refused by the rules: not counted again
    hints.refuse("g")
    assert hints.judge({"g": "red"}) == hints.judge({"g": "red"})
    assert hints.counts == {}


def test_the_camera_loops_take_the_services_colours() -> None:
    from companion.commands.devices import playing_colours

    class _Service:
        def __init__(self, players: list[dict[str, Any]]) -> None:
            self.players = players

        def state(self) -> dict[str, Any]:
            return {"players": self.players}

    assert playing_colours(_Service([])) is None  # no game: not known
    two = [{"name": "アキ", "color": "red"}, {"name": "Bo", "color": "blue"}]
    assert playing_colours(_Service(two)) == frozenset({"red", "blue"})


def test_the_boards_brightness_is_the_papers_where_no_piece_goes(
    renderer: BoardRenderer,
) -> None:
    """Pieces darken the route spaces and city spots; the brightness the evidence is scaled by
    is measured on the paper elsewhere, so a board filling up with trains is not a dimmer room."""
    from companion.vision.live.live_board import WorkBoard

    board = WorkBoard(renderer.geometry, LiveConfig.load())
    rng = np.random.default_rng(3)
    gray = rng.uniform(120.0, 220.0, board.zone.shape).astype(np.float32)
    full = gray.copy()
    full[board.zone] = 20.0  # every space and city covered by dark pieces
    assert board.level(full) == board.level(gray)
    assert board.level(gray * 0.9) == pytest.approx(0.9 * board.level(gray), rel=1e-4)
