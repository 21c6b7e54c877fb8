"""The firmware's pure modules asked every question of tests/vectors/reader_protocol.json and a
scripted ReaderLoop session; the answers as plain JSON-able data.

Runs unchanged under CPython and MicroPython (tests/firmware/test_fw_micropython.py compares the
two): no ``__future__``, no typing, no f-strings with ``=``, only modules both have.
"""

import binascii

import debounce
import ndef
import readerloop
import ttrproto
from fw_fakes import FakeChip, FakeUi


def _hex(data):
    return binascii.hexlify(bytes(data)).decode()


def _unhex(text):
    return binascii.unhexlify(text)


def _raw(case):
    if "raw_hex" in case:
        return _unhex(case["raw_hex"])
    if "raw" in case:
        return case["raw"].encode()
    return case["line"].encode()


def _command(raw):
    try:
        return ["ok"] + list(ttrproto.parse_command(raw))  # noqa: RUF005  (plain for MicroPython)
    except ttrproto.LineError as exc:
        return ["error", exc.reason, exc.n]


def _unframe(raw):
    try:
        body = ttrproto.unframe(raw)
        return ["ok", body, ttrproto.fields(body)]
    except ttrproto.LineError as exc:
        return ["error", exc.reason, exc.n]


def _ndef_text(area):
    try:
        return ["ok", ndef.text_in_area(area)]
    except ndef.NdefError as exc:
        return ["error", str(exc)]


def protocol_answers(vectors):
    out = {}
    out["checksum"] = [ttrproto.checksum(c["body"]) for c in vectors["checksum"]]
    out["spec_examples"] = [_unframe(line.encode()) for line in vectors["spec_examples"]]
    out["device_messages"] = [_unframe(c["line"].encode()) for c in vectors["device_messages"]]
    out["rejected_lines"] = [_unframe(_raw(c)) for c in vectors["rejected_lines"]]
    out["rejected_messages"] = [_unframe(_raw(c)) for c in vectors["rejected_messages"]]
    out["host_commands"] = [_command(c["line"].encode()) for c in vectors["host_commands"]]
    out["rejected_commands"] = [_command(_raw(c)) for c in vectors["rejected_commands"]]
    out["frames"] = [
        ttrproto.hello("1.0", "rc522"),
        ttrproto.tag("04A224B2C15E80", "ttr:eu:train:red"),
        ttrproto.gone("1A2B3C4D"),
        ttrproto.ack(65535),
        ttrproto.nak(7, "unknown"),
        ttrproto.err("chip", "no-answer"),
    ]
    out["uid_hex"] = [ttrproto.uid_hex(bytes([4, 0xA2, 0x24, 0xB2, 0xC1, 0x5E, 0x80]))]
    out["payload_fits"] = [
        ttrproto.payload_fits("04A224B2C15E80", "x" * k) for k in (0, 1, 100, 134, 135, 200)
    ]
    buf = ttrproto.LineBuffer()
    pieces = [b"1 PI", b"NG*01\n2 BEEP 1", b"20*13\r\n", b"z" * 300, b"\n3 LED red*", b"00\n"]
    out["line_buffer"] = [[_hex(line) for line in buf.feed(p)] for p in pieces]
    out["line_buffer_too_long"] = buf.too_long
    return out


def ndef_answers(vectors):
    out = {}
    out["build"] = [_hex(ndef.text_area(c["text"], c["lang"])) for c in vectors["ndef_build"]]
    out["parse"] = [_ndef_text(_unhex(c["area_hex"])) for c in vectors["ndef_parse"]]
    out["record"] = [_hex(ndef.text_record(t)) for t in ("", "ttr", "é-ü", "x" * 200)]
    out["capacity"] = [ndef.capacity(bytes([0xE1, 0x10, n, 0])) for n in (0x12, 0x3E, 0x6D)]
    out["max_text_len"] = [ndef.max_text_len(n) for n in (48, 144, 496)]
    return out


def debounce_answers(vectors):
    out = []
    for case in vectors["debounce"]:
        d = debounce.Debouncer()
        events = []
        for i, seen in enumerate(case["polls"]):
            arrived, gone = d.update(seen)
            events += [[i, "TAG", u] for u in arrived] + [[i, "GONE", u] for u in gone]
        out.append(events)
    return out


def readerloop_answers():
    """A whole session: taps, a flicker, commands, writes (one failing), a dead chip."""
    a = bytes([4, 0xA2, 0x24, 0xB2, 0xC1, 0x5E, 0x80])
    b = bytes([0x1A, 0x2B, 0x3C, 0x4D])
    chip = FakeChip([[a], [a], [], [a, b], [b], [], [], [b], [b], [b], [], [], [], [a], []])
    chip.add(a, ndef.text_area("ttr:eu:train:red"))
    chip.add(b)
    lines = []
    ui = FakeUi()
    loop = readerloop.ReaderLoop(chip, lines.append, ui)
    loop.start()

    def cmd(body):
        return ttrproto.frame(body).encode()

    for i in range(15):
        loop.poll()
        if i == 1:
            loop.feed(cmd("1 PING") + cmd("2 BEEP 150") + cmd("3 LED amber") + cmd("4 LED purple"))
        if i == 3:
            loop.feed(cmd("5 JUMP") + b"6 PING*00\n" + cmd("0 PING") + b"\xff\xfe\n")
        if i == 7:
            loop.feed(cmd("7 WRITE 1A2B3C4D ttr:eu:ticket:paris-wien"))
        if i == 8:
            chip.fail_write_page = 5
            loop.feed(cmd("8 WRITE 1A2B3C4D ttr:eu:train:blue"))
            chip.fail_write_page = None
        if i == 9:
            loop.feed(cmd("9 WRITE 1A2B3C4D " + "x" * 135) + b"z" * 400 + b"\n")
    chip.alive = False
    loop.poll()
    loop.poll()
    return {
        "lines": lines,
        "beeps": ui.beeps,
        "leds": ui.leds,
        "writes": [[_hex(u), p, _hex(d)] for u, p, d in chip.writes],
        "reads": chip.reads,
        "inits": chip.inits,
    }


def answers(vectors):
    return {
        "protocol": protocol_answers(vectors),
        "ndef": ndef_answers(vectors),
        "debounce": debounce_answers(vectors),
        "readerloop": readerloop_answers(),
    }
