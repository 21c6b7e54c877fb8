"""Handlers of `companion reader ...` (see cli.py for the arguments)."""

from __future__ import annotations

import argparse
import json
import logging
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TextIO

from companion.core.errors import NotationError

from . import protocol
from .cards import CardCatalog, CardIdentity
from .listener import CardListener
from .registry import Registry, RegistryError, default_path
from .simulated import SimulatedReader, random_uid
from .transport import ReaderOpenError, ReaderTransport, ReaderUnavailable

log = logging.getLogger(__name__)


def _fail(message: str) -> Exception:
    from companion.cli import CommandError

    return CommandError(message)


def _registry(path: str | None, catalog: CardCatalog) -> Registry:
    try:
        return Registry(Path(path) if path else default_path(), catalog)
    except RegistryError as exc:
        raise _fail(str(exc)) from None


def _transport(port: str) -> ReaderTransport:
    transport = ReaderTransport(port)
    try:
        transport.open_now()
    except ReaderOpenError as exc:
        if exc.kind != "absent":
            raise _fail(str(exc)) from None
        print(f"companion: waiting for the reader at {port}", file=sys.stderr, flush=True)
    transport.start()
    return transport


def _registry_and_transport(
    args: argparse.Namespace, catalog: CardCatalog
) -> tuple[Registry, ReaderTransport]:
    """The registry named by ``--registry`` and the reader on ``--port`` (the registry closed
    again when the reader cannot be opened)."""
    registry = _registry(args.registry, catalog)
    try:
        return registry, _transport(args.port)
    except BaseException:
        registry.close()
        raise


@contextmanager
def _tapping(
    args: argparse.Namespace, catalog: CardCatalog, *, report_drops: bool = False
) -> Iterator[tuple[Registry, ReaderTransport]]:
    """The registry and the reader (:func:`_registry_and_transport`) for a loop over taps that
    Ctrl-C ends quietly; both closed after it, and with ``report_drops`` the damaged lines the
    reader sent are logged."""
    registry, transport = _registry_and_transport(args, catalog)
    try:
        yield registry, transport
    except KeyboardInterrupt:
        pass
    finally:
        transport.stop()
        registry.close()
        if report_drops:
            _report_drops(transport)


def listen_main(args: argparse.Namespace) -> int:
    catalog = CardCatalog.europe()
    with _tapping(args, catalog, report_drops=True) as (registry, transport):
        listener = CardListener(transport, catalog, registry)
        for seen, event in enumerate(listener.events(), 1):
            if args.json:
                print(json.dumps(event.to_json()), flush=True)
            else:
                print(event.describe(), flush=True)
            if args.count is not None and seen >= args.count:
                break
    return 0


def _report_drops(transport: ReaderTransport) -> None:
    total = sum(transport.dropped.values())
    if total:
        detail = ", ".join(f"{k} {v}" for k, v in sorted(transport.dropped.items()))
        log.info("dropped %d damaged reader lines in all (%s)", total, detail)


def _ask(stdin: TextIO, prompt: str) -> str | None:
    print(prompt, end="", file=sys.stderr, flush=True)
    line = stdin.readline()
    return None if line == "" else line.strip()


def enroll_main(args: argparse.Namespace) -> int:
    catalog = CardCatalog.europe()
    planned: list[CardIdentity] | None = None
    if args.cards is not None:
        try:
            planned = [catalog.parse(t) for t in args.cards.split(",") if t.strip()]
        except NotationError as exc:
            raise _fail(f"--cards: {exc}") from None
        if not planned:
            raise _fail("--cards names no card")
    done: dict[str, CardIdentity] = {}
    limit = args.count
    if planned is not None:
        limit = len(planned) if limit is None else min(limit, len(planned))
    with _tapping(args, catalog) as (registry, transport):
        listener = CardListener(transport, catalog)  # payload only: the registry is being filled
        print("Tap the cards one at a time (Ctrl-C to stop).", file=sys.stderr, flush=True)
        for event in listener.events():
            if event.uid in done:
                print(f"{event.uid} is already {done[event.uid]}; skipped", file=sys.stderr)
                continue
            card: CardIdentity | None
            if planned is not None:
                card = planned[len(done)]
                if event.card is not None and event.card != card:
                    print(
                        f"{event.uid}: the sticker says {event.card}, the list says {card}; "
                        "using the list",
                        file=sys.stderr,
                    )
            else:
                card = _ask_card(catalog, registry, event.uid, event.card)
                if card is None:
                    break
            registry.put(event.uid, card)
            done[event.uid] = card
            note = _write_sticker(transport, event.uid, card) if args.write else ""
            print(f"{event.uid} {card}{note}", flush=True)
            if limit is not None and len(done) >= limit:
                break
    print(f"enrolled {len(done)} cards into {registry.path}", file=sys.stderr)
    return 0


def _ask_card(
    catalog: CardCatalog, registry: Registry, uid: str, says: CardIdentity | None
) -> CardIdentity | None:
    """Ask what card ``uid`` is; None when the person quits (EOF, ``q``)."""
    current = registry.get(uid) or says
    hint = f" [{current}]" if current is not None else ""
    while True:
        answer = _ask(sys.stdin, f"{uid}: which card is this?{hint} ")
        if answer is None or answer.lower() in ("q", "quit"):
            return None
        if not answer and current is not None:
            return current
        try:
            return catalog.parse(answer)
        except NotationError as exc:
            print(f"companion: {exc}", file=sys.stderr)


def _write_sticker(transport: ReaderTransport, uid: str, card: CardIdentity) -> str:
    payload = card.payload()
    try:
        reply = transport.request(lambda n: protocol.Write(n, uid, payload), timeout=3.0)
    except (ReaderUnavailable, ValueError) as exc:
        return f" (not written: {exc})"
    if reply is None:
        return " (not written: the reader did not answer)"
    if isinstance(reply, protocol.Nak):
        return f" (not written: {reply.reason})"
    return f" (written {payload})"


# ---- simulate -----------------------------------------------------------------------------


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def simulate_main(args: argparse.Namespace) -> int:
    catalog = CardCatalog.europe()
    rng = random.Random(args.seed)
    if args.auto is not None and args.auto <= 0:
        raise _fail("--auto takes a number of seconds above 0")
    link = Path(args.link) if args.link else None
    if link is not None and link.exists() and not link.is_symlink():
        raise _fail(f"{link} exists and is not a symlink; choose another --link")
    sim = SimulatedReader(link)
    try:
        sim.start()
    except OSError as exc:
        raise _fail(f"cannot create the simulated reader: {exc}") from None
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    stop = threading.Event()
    print(sim.path, flush=True)
    try:
        if args.auto is not None:
            deck = _auto_deck(catalog, rng)
            threading.Thread(
                target=_auto_taps, args=(sim, deck, args.auto, rng, stop), daemon=True
            ).start()
        for line in sys.stdin:
            if not _sim_command(sim, catalog, rng, line.split()):
                break
        else:
            while True:  # stdin closed: keep the reader up until interrupted
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        signal.signal(signal.SIGTERM, previous)
        sim.close()
    return 0


def _auto_deck(catalog: CardCatalog, rng: random.Random) -> list[tuple[str, str]]:
    payloads = [f"ttr:eu:train:{c}" for c in ("pink", "blue", "orange", "white", "green")]
    payloads += [f"ttr:eu:train:{c}" for c in ("yellow", "black", "red", "locomotive")]
    payloads += [f"ttr:eu:ticket:{t}" for t in sorted(catalog.ticket_ids)[:6]]
    return [(random_uid(rng), p) for p in payloads for _ in range(2)]


def _auto_taps(
    sim: SimulatedReader,
    deck: list[tuple[str, str]],
    every: float,
    rng: random.Random,
    stop: threading.Event,
) -> None:
    while not stop.wait(every):
        uid, payload = rng.choice(deck)
        try:
            sim.tap(uid, payload)
            if not stop.wait(min(0.5, every / 2)):
                sim.remove(uid)
        except OSError:
            continue  # unplugged


def _sim_command(
    sim: SimulatedReader, catalog: CardCatalog, rng: random.Random, words: list[str]
) -> bool:
    """Run one stdin command; False to quit."""
    if not words:
        return True
    verb, rest = words[0].lower(), words[1:]
    try:
        if verb in ("quit", "exit", "q"):
            return False
        if verb == "tap" and rest:
            if len(rest) <= 2 and _is_uid(rest[0]):
                sim.tap(rest[0], rest[1] if len(rest) == 2 else None)
                uid = rest[0]
            else:
                card = catalog.parse(" ".join(rest))
                uid = random_uid(rng)
                sim.tap(uid, card.payload())
            print(f"tapped {uid} {sim.tags.get(uid) or '-'}", flush=True)
        elif verb == "remove":
            uid = rest[0] if rest else (sim.on_reader[-1] if sim.on_reader else "")
            if not uid:
                print("companion: no card on the reader", file=sys.stderr)
            else:
                sim.remove(uid)
        elif verb == "noise":
            count = int(rest[0]) if rest else 64
            # ends with a newline so the noise does not swallow the next line
            sim.send_raw(bytes(rng.randrange(256) for _ in range(count)) + b"\n")
        elif verb == "unplug":
            sim.unplug()
        elif verb == "replug":
            sim.replug()
            print(sim.path, flush=True)
        else:
            print(
                "companion: commands are tap UID [PAYLOAD], tap CARD, remove [UID], "
                "noise [N], unplug, replug, quit",
                file=sys.stderr,
            )
    except (NotationError, ValueError, OSError) as exc:
        print(f"companion: {exc}", file=sys.stderr, flush=True)
    return True


def _is_uid(text: str) -> bool:
    try:
        protocol.encode_message(protocol.Gone(text))
    except ValueError:
        return False
    return True
