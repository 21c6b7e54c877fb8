"""The referee box's buttons, LED and buzzer wired to the game service.

:class:`TableControls` sits between a :class:`~companion.controls.StatusPanel` (the real
``Controls`` or the ``FakeControls`` twin) and a running :class:`~companion.service.Service`:

- a button press is queued by gpiozero's thread and handled on this module's own thread, which
  hands it to the service as an observation (``{"kind": "button", ...}``) or an action of the
  device actor ``button``; the service runs it on its loop, like every other input;
- the service tells its listeners about every new state, pending change, refusal (409) and
  camera veto; those are queued too, and the same thread sets the LED and sounds the buzzer.

Nothing here runs on the service's loop thread or on gpiozero's thread beyond putting an item
on a queue. The service imports nothing from here (the controls are optional).

Holding undo opens the *host menu* for ``menu_seconds``: the next press picks one entry (end
turn: next payment mode; confirm: reject the camera's question, or with no question open, open a
host-claim window; undo: clear the tapped cards; holding undo again closes it). With no host
device yet, confirm with nothing to confirm opens the host-claim window too (``claims``: the
server's companion.hosts.HostAccess); the LED shows the window (``host_claim``). See
companion/controls/README.md.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.controls.controls import ButtonPressed, StatusPanel

logger = logging.getLogger(__name__)

PAYMENT_CYCLE: tuple[str, ...] = ("strict", "lenient", "off")
LIVE_PHASES = frozenset({"setup", "playing", "over"})

MENU_TEXT = (
    "Host menu (from the referee box): end turn = next payment check ({mode} now), "
    "confirm = reject the camera's question (none open: let another phone become host), "
    "undo = clear the tapped cards; hold undo again to close. Closes by itself in {seconds:g} s."
)
CLAIM_TEXT = (
    "A phone may become host now: open /host/claim on it and tap the button within {seconds:g} s."
)


def next_payment_mode(mode: str | None) -> str:
    """strict -> lenient -> off -> strict (an unknown or missing mode starts at strict)."""
    if mode not in PAYMENT_CYCLE:
        return PAYMENT_CYCLE[0]
    return PAYMENT_CYCLE[(PAYMENT_CYCLE.index(mode) + 1) % len(PAYMENT_CYCLE)]


def led_status(state: Mapping[str, Any]) -> str:
    """What the LED shows for a public state (without the illegal flash and the host menu).

    ``waiting_for_tap`` while a payment, tickets, a tunnel or a camera question waits for
    someone at the table; else ``final_round`` in the final round; else ``ready``.
    """
    pending = state.get("pending") or {}
    if state.get("phase") in LIVE_PHASES and (
        pending.get("payment")
        or pending.get("tickets")
        or pending.get("confirmations")
        or state.get("tunnel")
    ):
        return "waiting_for_tap"
    if state.get("final_round"):
        return "final_round"
    return "ready"


class TableControls:
    """Buttons in, LED and buzzer out, for one running Service.

    ``start(panel)`` begins (the panel must have been made with :meth:`on_button` as its
    callback); ``stop()`` ends it and closes the panel.
    """

    def __init__(
        self,
        service: Any,
        *,
        illegal_seconds: float = 2.0,
        menu_seconds: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        claims: Any = None,
    ) -> None:
        self.service = service
        self.claims = claims  # companion.hosts.HostAccess (None: no host claim from the box)
        self._claim_until: float | None = None
        self.illegal_seconds = illegal_seconds
        self.menu_seconds = menu_seconds
        self._clock = clock
        self.panel: StatusPanel | None = None
        self._queue: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._state: dict[str, Any] = {}
        self._seq = 0
        self._questions = 0
        self._illegal_until = 0.0
        self._menu_until: float | None = None
        # the set-up check (companion.doctor.live): presses it takes (True) are not played;
        # the colours it shows, each with its sound, one a second
        self.divert: Callable[[str], bool] | None = None
        self._shows: list[tuple[str, str | None]] = []
        self._show_until = 0.0
        self.show_seconds = 1.0

    # --- the two doors in: gpiozero's thread and the service's listeners --------------------
    def on_button(self, event: ButtonPressed) -> None:
        """The panel's callback (gpiozero's thread): only queues (a press the set-up check
        takes goes no further)."""
        divert = self.divert
        if divert is not None and divert(event.button):
            return
        self._queue.put(("button", event))

    def demonstrate(self, shows: Sequence[tuple[str, str | None]]) -> None:
        """Show each (LED status, sound) for ``show_seconds`` in turn (the set-up check:
        the host sees each colour and hears each beep)."""
        self._queue.put(("show", list(shows)))

    def _on_service(self, kind: str, data: dict[str, Any]) -> None:
        """The service's listener (its loop thread): only queues."""
        self._queue.put((kind, data))

    def _on_claim(self, kind: str, seconds: float) -> None:
        """The host access's listener (a web or watcher thread): only queues."""
        self._queue.put(("claim", (kind, seconds)))

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self, panel: StatusPanel) -> TableControls:
        if self._thread is not None:
            return self
        self.panel = panel
        self._state = dict(self.service.state())
        self._seq = int(self._state.get("seq") or 0)
        self._questions = len((self._state.get("pending") or {}).get("confirmations") or [])
        self.service.listeners.append(self._on_service)
        if self.claims is not None:
            self.claims.listeners.append(self._on_claim)
            left = float(self.claims.window_left())
            self._claim_until = self._clock() + left if left > 0 else None
        self._thread = threading.Thread(target=self._run, name="companion-controls", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop listening, turn the LED off and release the pins. Safe to call twice."""
        with contextlib.suppress(ValueError):
            self.service.listeners.remove(self._on_service)
        if self.claims is not None:
            with contextlib.suppress(ValueError):
                self.claims.listeners.remove(self._on_claim)
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None
        if self.panel is not None:
            try:
                self.panel.show("off")
            except Exception:
                logger.exception("turning the LED off failed")
            self.panel.close()

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued before this call has been handled (False: timed out)."""
        if self._thread is None:
            return True
        done = threading.Event()
        self._queue.put(("drain", done))
        return done.wait(timeout)

    @property
    def menu_open(self) -> bool:
        return self._menu_until is not None and self._clock() < self._menu_until

    # --- the worker --------------------------------------------------------------------------
    def _run(self) -> None:
        self._update_led()
        while True:
            try:
                item = self._queue.get(timeout=self._wait())
            except queue.Empty:
                item = ("tick", None)
            if item is None:
                return
            kind, data = item
            try:
                self._handle(kind, data)
            except Exception:  # a bug here must not stop the buttons
                logger.exception("the controls failed on %s", kind)
            self._update_led()

    def _wait(self) -> float | None:
        """Seconds until the next timed change of the LED (None: nothing timed)."""
        now = self._clock()
        timed = (self._illegal_until, self._menu_until, self._show_until, self._claim_until)
        deadlines = [t for t in timed if t and t > now]
        if not deadlines:
            return None
        return max(0.01, min(deadlines) - now)

    def _handle(self, kind: str, data: Any) -> None:
        if kind == "drain":
            data.set()
        elif kind == "show":
            self._shows = list(data)
            self._show_until = 0.0
        elif kind == "button":
            self._button(data.button)
        elif kind in ("state", "pending"):
            # Both carry the whole public state; "pending" changed only the taps/questions.
            self._state = dict(data)
            seq = int(data.get("seq") or 0)
            if seq > self._seq:
                self._sound("accepted")  # a new step (or correction) is in the log
            self._seq = max(self._seq, seq)
            self._count_questions(data.get("pending") or {})
        elif kind in ("refused", "vetoed"):
            self._illegal()
        elif kind == "claim":
            what, seconds = data
            if what == "claim_open":
                self._claim_until = self._clock() + float(seconds)
                self._sound("attention")
            else:
                self._claim_until = None

    def _count_questions(self, pending: Mapping[str, Any]) -> None:
        n = len(pending.get("confirmations") or [])
        if n > self._questions:
            self._sound("attention")  # the camera asks: press confirm (or reject in the menu)
        self._questions = n

    def _illegal(self) -> None:
        self._illegal_until = self._clock() + self.illegal_seconds
        self._sound("illegal")

    def _sound(self, kind: str) -> None:
        if self.panel is not None:
            self.panel.sound(kind)

    def _update_led(self) -> None:
        now = self._clock()
        if self._menu_until is not None and now >= self._menu_until:
            self._menu_until = None
        if self._claim_until is not None and now >= self._claim_until:
            self._claim_until = None
        if self._shows and now >= self._show_until:  # the set-up check's next colour
            status, sound = self._shows.pop(0)
            self._show_until = now + self.show_seconds
            if self.panel is not None:
                self.panel.show(status)
            if sound:
                self._sound(sound)
            return
        if now < self._show_until:
            return
        if now < self._illegal_until:
            status = "illegal"
        elif self._menu_until is not None:
            status = "host_menu"
        elif self._claim_until is not None:
            status = "host_claim"
        else:
            status = led_status(self._state)
        if self.panel is not None and self.panel.status != status:
            self.panel.show(status)

    # --- buttons -----------------------------------------------------------------------------
    def _button(self, name: str) -> None:
        from companion.service import Actor

        device = Actor.device("button")
        if self.menu_open:
            self._menu_until = None
            if name == "host_menu":
                self.service.notice("Host menu closed.")
                return
            self._menu_choice(name, device)
            return
        if name == "host_menu":
            self._menu_until = self._clock() + self.menu_seconds
            mode = self._state.get("payment_mode") or "-"
            self.service.notice(MENU_TEXT.format(mode=mode, seconds=self.menu_seconds))
            self._sound("attention")
            return
        claim_first = name == "confirm" and self.claims is not None and not self.claims.has_host()
        if claim_first and not self._state.get("game_id"):
            self._open_claim()  # a fresh box: no game, no host yet
            self._sound("accepted")
            return
        self._run_service(
            lambda: self.service.observe({"kind": "button", "name": name}, device),
            name,
            # no host device yet and nothing to confirm: a phone may become host
            on_ignored=self._open_claim if claim_first else None,
        )

    def _open_claim(self) -> None:
        seconds = float(self.claims.open_window("button"))
        self.service.notice(
            CLAIM_TEXT.format(seconds=seconds), code="host.claim_open", params={"n": seconds}
        )

    def _menu_choice(self, name: str, device: Any) -> None:
        if name == "end_turn":
            action = {
                "type": "set_payment_mode",
                "payment_mode": next_payment_mode(self._state.get("payment_mode")),
            }
            self._run_service(lambda: self.service.act(action, device), "payment mode")
        elif name == "confirm" and self.claims is not None and not self._question_open():
            self._open_claim()  # no camera question to reject: another phone may become host
            self._sound("accepted")
        elif name == "confirm":
            self._run_service(
                lambda: self.service.observe({"kind": "button", "name": "reject"}, device),
                "reject",
                quiet_change=True,
            )
        else:  # undo
            self._run_service(
                lambda: self.service.clear_pending(device), "clear taps", quiet_change=True
            )

    def _question_open(self) -> bool:
        return bool((self._state.get("pending") or {}).get("confirmations"))

    def _run_service(
        self,
        fn: Callable[[], Any],
        what: str,
        *,
        quiet_change: bool = False,
        on_ignored: Callable[[], None] | None = None,
    ) -> None:
        """Run one service request; sound and flash what the listeners do not report.

        New log steps sound through the state listener, 409 refusals flash through the
        ``refused`` listener. Left here: an ignored press (attention, and the reason as a
        notice), a change outside the log (``quiet_change``: accepted) and any other error.
        """
        from companion.service import Conflict, ServiceError

        try:
            reply = fn()
        except Conflict:
            return  # the service told the listeners ("refused")
        except ServiceError as exc:
            logger.info("button %s refused: %s", what, exc.message)
            self.service.notice(f"Button {what}: {exc.message}", "warning")
            self._illegal()
            return
        if isinstance(reply, Mapping) and reply.get("result") == "ignored" and on_ignored:
            on_ignored()
        elif isinstance(reply, Mapping) and reply.get("result") == "ignored":
            self.service.notice(str(reply.get("text") or "Nothing to do."))
            self._sound("attention")
        elif quiet_change:
            self._sound("accepted")


def start_table_controls(
    service: Any,
    config: Any,
    *,
    pin_factory: Any = None,
    illegal_seconds: float = 2.0,
    menu_seconds: float = 10.0,
    claims: Any = None,
) -> TableControls:
    """Open the real controls of ``config`` (a ControlsConfig) and wire them to ``service``.

    Raises ControlsError (one plain sentence) when the pins cannot be opened.
    """
    from companion.controls.controls import Controls

    table = TableControls(
        service, illegal_seconds=illegal_seconds, menu_seconds=menu_seconds, claims=claims
    )
    panel = Controls(config, table.on_button, pin_factory=pin_factory)
    return table.start(panel)
