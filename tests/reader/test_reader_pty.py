"""The host through a real pseudo-terminal: taps, commands, exclusive open, unplug and replug,
a reader vanishing mid-line, noise and a flood of 10,000 lines."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from reader_helpers import wait_for

from companion.core.cards import Card
from companion.reader import protocol as p
from companion.reader.cards import CardCatalog, TrainCard
from companion.reader.listener import CardListener
from companion.reader.registry import Registry
from companion.reader.simulated import SimulatedReader, random_uid
from companion.reader.transport import (
    Connected,
    Disconnected,
    ReaderOpenError,
    ReaderTransport,
    ReaderUnavailable,
    open_port,
)

RED_UID = "04A224B2C15E80"


def test_taps_become_card_events(
    sim: SimulatedReader, transport: ReaderTransport, catalog: CardCatalog, tmp_path: Path
) -> None:
    with Registry(tmp_path / "reg.sqlite", catalog) as registry:
        registry.put("1A2B3C4D", TrainCard(Card.BLUE))
        listener = CardListener(transport, catalog, registry)
        sim.tap(RED_UID, "ttr:eu:train:red")
        sim.tap("1A2B3C4D")  # blank sticker, enrolled
        sim.tap("0A0B0C0D")  # blank, unknown
        sim.tap("04C3D2E1F00A81", "ttr:eu:ticket:paris-wien")
        events = [listener.next_event(timeout=5) for _ in range(4)]
    assert [e.to_json() if e else None for e in events] == [
        {"uid": RED_UID, "card": {"kind": "train", "color": "red"}},
        {"uid": "1A2B3C4D", "card": {"kind": "train", "color": "blue"}},
        {"uid": "0A0B0C0D", "card": None},
        {"uid": "04C3D2E1F00A81", "card": {"kind": "ticket", "id": "paris-wien"}},
    ]
    assert events[0] is not None and events[0].payload == "ttr:eu:train:red"
    assert abs(events[0].timestamp - time.time()) < 10
    sim.remove(RED_UID)
    assert listener.next_event(timeout=0.3) is None
    assert RED_UID not in listener.on_reader
    assert "1A2B3C4D" in listener.on_reader


def test_commands_get_their_answers(sim: SimulatedReader, transport: ReaderTransport) -> None:
    assert transport.hello == p.Hello("1.0", "sim")
    assert transport.request(lambda n: p.Beep(n, 80)) == p.Ack(transport._next_n)
    reply = transport.request(lambda n: p.Led(n, "amber"))
    assert isinstance(reply, p.Ack)
    assert sim.beeps == [80] and sim.leds == ["amber"]
    reply = transport.request(lambda n: p.Write(n, RED_UID, "ttr:eu:train:red"))
    assert isinstance(reply, p.Nak) and reply.reason == "no-tag"
    sim.tap(RED_UID)
    reply = transport.request(lambda n: p.Write(n, RED_UID, "ttr:eu:train:green"))
    assert isinstance(reply, p.Ack)
    assert sim.tags[RED_UID] == "ttr:eu:train:green"
    sim.answer_commands = False
    assert transport.request(lambda n: p.Ping(n), timeout=0.2) is None


def test_the_port_is_opened_exclusively(sim: SimulatedReader, transport: ReaderTransport) -> None:
    with pytest.raises(ReaderOpenError) as info:
        open_port(sim.path)
    assert info.value.kind == "busy"
    assert "in use" in str(info.value)


def test_open_errors_are_plain(tmp_path: Path) -> None:
    with pytest.raises(ReaderOpenError) as info:
        open_port(str(tmp_path / "nothing"))
    assert info.value.kind == "absent"
    with pytest.raises(ReaderOpenError) as info:
        open_port("nosuchscheme://x")
    assert info.value.kind == "bad-url"


def test_pyserial_urls_work() -> None:
    ser = open_port("loop://")
    try:
        ser.write(p.encode_message(p.Tag(RED_UID, "ttr:eu:train:red")))
        d = p.Decoder()
        assert d.feed(ser.read(200)) == [p.Tag(RED_UID, "ttr:eu:train:red")]
    finally:
        ser.close()


def drain(
    transport: ReaderTransport, until: Callable[[object], bool] | None = None, quiet: float = 0.2
) -> list[object]:
    """Items from the transport: up to one matching ``until`` (waiting up to 10 s for it),
    then whatever else arrives until ``quiet`` seconds pass without anything."""
    items: list[object] = []
    if until is not None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            got = transport.get(timeout=0.1)
            if got is not None:
                items.append(got[1])
                if until(got[1]):
                    break
    while (got := transport.get(timeout=quiet)) is not None:
        items.append(got[1])
    return items


def test_unplug_and_replug(sim: SimulatedReader, transport: ReaderTransport) -> None:
    drain(transport, quiet=0.1)
    sim.tap(RED_UID, "ttr:eu:train:red")
    sim.unplug()
    assert wait_for(lambda: not transport.connected)
    with pytest.raises(ReaderUnavailable):
        transport.send(p.Ping)
    time.sleep(0.3)  # the transport keeps trying while the link is missing
    sim.replug()  # new pty, link swapped
    assert wait_for(lambda: transport.connects == 2)
    assert wait_for(lambda: sim.commands and isinstance(sim.commands[-1], p.Ping))
    sim.tap("1A2B3C4D", "ttr:eu:train:blue")
    items = drain(transport, until=lambda i: i == p.Tag("1A2B3C4D", "ttr:eu:train:blue"))
    tags = [i for i in items if isinstance(i, p.Tag)]
    assert tags[-1] == p.Tag("1A2B3C4D", "ttr:eu:train:blue")
    assert any(isinstance(i, Disconnected) for i in items)
    assert any(isinstance(i, Connected) for i in items)
    assert transport.disconnects == 1
    assert isinstance(transport.request(lambda n: p.Beep(n, 5)), p.Ack)


def test_reader_vanishing_mid_line(sim: SimulatedReader, transport: ReaderTransport) -> None:
    drain(transport, quiet=0.1)
    line = p.encode_message(p.Tag(RED_UID, "ttr:eu:train:red"))
    sim.send_raw(line[:12])
    assert wait_for(lambda: transport.decoder.pending == 12)  # the host holds the first half
    sim.unplug()
    assert wait_for(lambda: not transport.connected)
    assert transport.dropped["partial"] == 1
    sim.replug()
    assert wait_for(lambda: transport.connected and transport.connects == 2)
    time.sleep(0.1)
    sim.send_raw(line[12:])  # the rest arrives on the new connection: garbage, not a card
    sim.tap("1A2B3C4D", "ttr:eu:train:blue")
    items = drain(transport, until=lambda i: isinstance(i, p.Tag))
    tags = [i for i in items if isinstance(i, p.Tag)]
    assert tags == [p.Tag("1A2B3C4D", "ttr:eu:train:blue")]
    assert transport.dropped["no-checksum"] + transport.dropped["bad-checksum"] >= 1


def test_noise_long_lines_and_non_ascii_through_the_pty(
    sim: SimulatedReader, transport: ReaderTransport
) -> None:
    drain(transport, quiet=0.1)
    rng = random.Random(99)
    sim.send_raw(bytes(rng.randrange(256) for _ in range(5000)))
    sim.send_raw(b"\n" + b"Z" * 10_240 + b"\n")
    sim.send_raw("TAG 04A224B2C15E80 ttr:eu:train:r\u00e9d*12\n".encode())
    sim.send_raw(b"TAG 04A224B2C15E80 ttr:eu:train:red*13\n")
    sim.tap(RED_UID, "ttr:eu:train:red")
    items = drain(transport, until=lambda i: isinstance(i, p.Tag))
    tags = [i for i in items if isinstance(i, p.Tag)]
    assert tags == [p.Tag(RED_UID, "ttr:eu:train:red")]
    assert transport.dropped["too-long"] >= 1
    assert transport.dropped["not-ascii"] >= 1
    assert transport.dropped["bad-checksum"] >= 1
    assert transport.connected


@pytest.mark.slow
def test_flood_of_10000_lines(
    sim: SimulatedReader, transport: ReaderTransport, catalog: CardCatalog
) -> None:
    """10,000 lines in about a second: a third good taps, the rest noise, damaged lines,
    bad checksums. Every good tap arrives, none is a wrong card, everything else is counted."""
    drain(transport, quiet=0.1)
    rng = random.Random(12345)
    truth: dict[str, str] = {}
    expected: list[str] = []
    chunks: list[bytes] = []
    colours = [c.value for c in Card]
    for i in range(10_000):
        r = rng.random()
        if r < 0.34:
            uid = random_uid(rng, seven=bool(i % 2))
            payload = truth.setdefault(uid, f"ttr:eu:train:{rng.choice(colours)}")
            chunks.append(p.encode_message(p.Tag(uid, payload)))
            expected.append(uid)
        elif r < 0.5:
            chunks.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))) + b"\n")
        elif r < 0.75:
            good = bytearray(p.encode_message(p.Tag(random_uid(rng), "ttr:eu:train:red")))
            good[rng.randrange(len(good) - 1)] ^= 1 << rng.randrange(7)  # one flipped bit
            chunks.append(bytes(good).replace(b"\n", b"") + b"\n")
        else:
            chunks.append(b"GONE 04A224B2C15E80*00\n")
    listener = CardListener(transport, catalog)
    start = time.monotonic()
    for k in range(0, len(chunks), 100):  # 100 lines per write, 100 writes
        sim.send_raw(b"".join(chunks[k : k + 100]))
        time.sleep(0.01)
    got = []
    while len(got) < len(expected):
        event = listener.next_event(timeout=5)
        if event is None:
            break
        got.append(event)
    elapsed = time.monotonic() - start
    assert [e.uid for e in got] == expected
    for e in got:
        assert e.card is not None and e.card.to_json()["color"] == truth[e.uid].split(":")[-1]
    dropped = transport.dropped
    assert dropped["bad-checksum"] + dropped["no-checksum"] + dropped["not-ascii"] > 4000
    assert transport.decoder.accepted + transport.decoder.dropped_total >= 9990
    assert transport.connected
    assert elapsed < 30
