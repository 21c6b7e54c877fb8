"""A simulated card reader: a fake device on a pseudo-terminal speaking the reader protocol.

The host opens ``reader.path`` like the real ``/dev/ttr-reader``. With ``link`` set, ``path``
is a symlink you control pointing at the pty's slave: :meth:`unplug` closes the pty and removes
the link; :meth:`replug` makes a new pty and swaps the link, like a USB replug.
"""

from __future__ import annotations

import logging
import os
import random
import select
import threading
import tty
from pathlib import Path

from . import protocol
from .protocol import Ack, Beep, Command, Err, Gone, Hello, Led, LineError, Nak, Ping, Tag, Write

log = logging.getLogger(__name__)


def random_uid(rng: random.Random, seven: bool = True) -> str:
    """A plausible UID: 7 bytes starting 04 (NXP) or 4 bytes."""
    if seven:
        return "04" + "".join(f"{rng.randrange(256):02X}" for _ in range(6))
    return "".join(f"{rng.randrange(256):02X}" for _ in range(4))


class SimulatedReader:
    """A reader on a pty. ``tags``: UID -> payload written on that sticker (None: blank)."""

    def __init__(
        self,
        link: Path | str | None = None,
        *,
        fw_version: str = "1.0",
        chip: str = "sim",
        hello_on_boot: bool = True,
    ) -> None:
        self.link = Path(link) if link is not None else None
        self.hello = Hello(fw_version, chip)
        self.hello_on_boot = hello_on_boot
        self.tags: dict[str, str | None] = {}
        self.on_reader: list[str] = []
        self.commands: list[Command] = []
        self.refused: list[LineError] = []
        self.beeps: list[int] = []
        self.leds: list[str] = []
        self.answer_commands = True
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_name = ""
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._decoder = protocol.CommandDecoder()

    # ---- plugging -----------------------------------------------------------------------

    @property
    def path(self) -> str:
        """What the host opens: the link when there is one, else the pty slave."""
        return str(self.link) if self.link is not None else self._slave_name

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def start(self) -> SimulatedReader:
        self.replug()
        return self

    def replug(self) -> None:
        """Plug in (again): a new pty, the link swapped to it, HELLO as on boot."""
        if self.plugged:
            self.unplug()
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
        self._master, self._slave = master, slave
        self._slave_name = os.ttyname(slave)
        self._decoder = protocol.CommandDecoder()
        self.on_reader = []
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self._slave_name)
            os.replace(tmp, self.link)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="sim-reader", daemon=True)
        self._thread.start()
        if self.hello_on_boot:
            self.send(self.hello)

    def unplug(self) -> None:
        """The reader vanishes: the pty closes (the host's reads fail) and the link goes."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._write_lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None
        if self.link is not None:
            self.link.unlink(missing_ok=True)

    def close(self) -> None:
        if self.plugged:
            self.unplug()

    def __enter__(self) -> SimulatedReader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- what the device says -----------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        """Bytes as they are (noise, partial lines, floods)."""
        with self._write_lock:
            if self._master is None:
                raise OSError("the simulated reader is unplugged")
            view = memoryview(data)
            while view:
                written = os.write(self._master, view)
                view = view[written:]

    def send(self, msg: protocol.Message) -> None:
        self.send_raw(protocol.encode_message(msg))

    def tap(self, uid: str, payload: str | None = None) -> None:
        """A card arrives. ``payload`` None: what the sticker holds (from WRITE or enrolment
        of the sim's tags), blank if unknown."""
        if payload is not None:
            self.tags[uid] = payload
        if uid not in self.on_reader:
            self.on_reader.append(uid)
        self.send(Tag(uid, self.tags.get(uid)))

    def remove(self, uid: str) -> None:
        """The card leaves (the firmware reports GONE after its 3 missed polls)."""
        if uid in self.on_reader:
            self.on_reader.remove(uid)
        self.send(Gone(uid))

    def error(self, code: str, detail: str) -> None:
        self.send(Err(code, detail))

    # ---- what the host says -------------------------------------------------------------

    def _serve(self) -> None:
        master = self._master
        while not self._stop.is_set() and master is not None:
            try:
                ready, _, _ = select.select([master], [], [], 0.05)
                if not ready:
                    continue
                data = os.read(master, 4096)
            except OSError:
                # EIO: nobody has the slave open any more; wait for the host to reopen it.
                self._stop.wait(0.05)
                continue
            for item in self._decoder.feed(data):
                self._handle(item)

    def _handle(self, item: Command | LineError) -> None:
        if isinstance(item, LineError):
            self.refused.append(item)
            if item.n and self.answer_commands:
                reason = "unknown-command" if item.reason == protocol.UNKNOWN else "bad-args"
                self._reply(Nak(item.n, reason))
            return
        self.commands.append(item)
        if not self.answer_commands:
            return
        if isinstance(item, Ping):
            self._reply(self.hello)
            self._reply(Ack(item.n))
        elif isinstance(item, Beep):
            self.beeps.append(item.ms)
            self._reply(Ack(item.n))
        elif isinstance(item, Led):
            self.leds.append(item.colour)
            self._reply(Ack(item.n))
        elif isinstance(item, Write):
            if item.uid in self.on_reader:
                self.tags[item.uid] = item.payload
                self._reply(Ack(item.n))
            else:
                self._reply(Nak(item.n, "uid-mismatch" if self.on_reader else "no-tag"))

    def _reply(self, msg: protocol.Message) -> None:
        try:
            self.send(msg)
        except OSError as exc:
            log.debug("simulated reader could not answer: %s", exc)
