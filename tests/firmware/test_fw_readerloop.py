"""The firmware's main loop logic (ReaderLoop) driven by a scripted fake chip under CPython."""

from __future__ import annotations

import ndef
import readerloop
import ttrproto
from fw_fakes import FakeChip, FakeUi

UID7 = bytes.fromhex("04A224B2C15E80")
UID4 = bytes.fromhex("1A2B3C4D")
RED = ndef.text_area("ttr:eu:train:red")


def make(chip: FakeChip) -> tuple[readerloop.ReaderLoop, list[str], FakeUi]:
    lines: list[str] = []
    ui = FakeUi()
    loop = readerloop.ReaderLoop(chip, lines.append, ui)
    return loop, lines, ui


def cmd(body: str) -> bytes:
    return ttrproto.frame(body).encode()


def test_scripted_polls_give_exact_lines() -> None:
    a, b = UID7, UID4
    chip = FakeChip([[a], [a], [], [a, b], [b], [], [], [b], [], [], []])
    chip.add(a, RED)
    chip.add(b)  # formatted, empty
    loop, lines, ui = make(chip)
    loop.start()
    for _ in range(11):
        loop.poll()
    assert lines == [
        "HELLO ttr-reader 1.0 rc522*33\n",
        "TAG 04A224B2C15E80 ttr:eu:train:red*12\n",
        "TAG 1A2B3C4D -*" + ttrproto.checksum("TAG 1A2B3C4D -") + "\n",
        "GONE 04A224B2C15E80*28\n",
        "GONE 1A2B3C4D*" + ttrproto.checksum("GONE 1A2B3C4D") + "\n",
    ]
    # GONE for A on the 3rd consecutive missed poll (polls 5, 6, 7 -> index 6)
    assert ui.beeps == [readerloop.TAP_BEEP_MS, readerloop.TAP_BEEP_MS]


def test_gone_only_after_three_missed_polls() -> None:
    chip = FakeChip([[UID7], [], [], [UID7], [], [], []])
    chip.add(UID7, RED)
    loop, lines, _ = make(chip)
    loop.start()
    counts = []
    for _ in range(7):
        loop.poll()
        counts.append(len(lines))
    # HELLO + TAG after poll 1; the two-poll flicker adds nothing; GONE on the 3rd miss.
    assert counts == [2, 2, 2, 2, 2, 2, 3]
    assert lines[-1] == "GONE 04A224B2C15E80*28\n"


def test_failed_reads_are_retried_then_reported_as_dash() -> None:
    chip = FakeChip([[UID7], [UID4]])
    chip.add(UID7, RED)
    chip.add(UID4, RED)
    loop, lines, _ = make(chip)
    loop.start()
    chip.read_failures = readerloop.READ_ATTEMPTS - 1
    loop.poll()
    assert lines[-1] == "TAG 04A224B2C15E80 ttr:eu:train:red*12\n"
    chip.read_failures = readerloop.READ_ATTEMPTS
    loop.poll()
    assert lines[-1] == ttrproto.tag("1A2B3C4D", None)


def test_unformatted_and_foreign_tags_give_dash() -> None:
    chip = FakeChip([[UID7, UID4]])
    chip.add(UID7, RED, cc=b"\x00\x00\x00\x00")
    chip.add(UID4, ndef.text_area("two words"))
    loop, lines, _ = make(chip)
    loop.start()
    loop.poll()
    assert lines[1:] == [ttrproto.tag("04A224B2C15E80", None), ttrproto.tag("1A2B3C4D", None)]


def test_ping_beep_led_and_bad_commands() -> None:
    chip = FakeChip()
    loop, lines, ui = make(chip)
    loop.start()
    del lines[:]
    loop.feed(cmd("1 PING") + cmd("2 BEEP 150") + cmd("3 LED amber"))
    assert lines == [
        "HELLO ttr-reader 1.0 rc522*33\n",
        ttrproto.ack(1),
        ttrproto.ack(2),
        ttrproto.ack(3),
    ]
    assert ui.beeps == [150]
    assert ui.leds[-1] == "amber"
    del lines[:]
    loop.feed(cmd("4 LED purple") + cmd("5 JUMP") + b"6 PING*00\n" + cmd("0 PING") + b"\xff\xfe\n")
    assert lines == [ttrproto.nak(4, "bad-args"), ttrproto.nak(5, "unknown-command")]
    assert loop.dropped == {"malformed": 2, "unknown": 1, "bad-checksum": 1, "not-ascii": 1}
    del lines[:]
    ping = cmd("7 PING")
    loop.feed(b"z" * 10_000 + b"\n" + ping[:3])
    loop.feed(ping[3:])
    assert loop.dropped["too-long"] == 1
    assert lines == ["HELLO ttr-reader 1.0 rc522*33\n", ttrproto.ack(7)]


def test_write_then_tap_reads_the_new_payload() -> None:
    chip = FakeChip([[UID7], [UID7], [], [], [], [UID7]])
    chip.add(UID7)
    loop, lines, _ = make(chip)
    loop.start()
    loop.poll()
    assert lines[-1] == ttrproto.tag("04A224B2C15E80", None)
    loop.feed(cmd("9 WRITE 04A224B2C15E80 ttr:eu:ticket:paris-wien"))
    assert lines[-1] == ttrproto.ack(9)
    # The empty message goes first and the real header last.
    pages = [p for _, p, _ in chip.writes]
    assert pages[0] == 4 and pages[-1] == 4 and pages[1:-1] == list(range(5, 4 + len(pages) - 1))
    for _ in range(5):
        loop.poll()
    assert (
        lines[-1]
        == "TAG 04A224B2C15E80 ttr:eu:ticket:paris-wien*"
        + ttrproto.checksum("TAG 04A224B2C15E80 ttr:eu:ticket:paris-wien")
        + "\n"
    )


def test_write_refusals() -> None:
    chip = FakeChip([[UID7]] * 10)
    chip.add(UID7)
    loop, lines, _ = make(chip)
    loop.start()
    loop.feed(cmd("1 WRITE 04A224B2C15E80 ttr:eu:train:red"))
    assert lines[-1] == ttrproto.nak(1, "no-tag")
    loop.poll()
    loop.feed(cmd("2 WRITE 1A2B3C4D ttr:eu:train:red"))
    assert lines[-1] == ttrproto.nak(2, "uid-mismatch")
    loop.feed(cmd("3 WRITE 04A224B2C15E80 " + "x" * 135))
    assert lines[-1] == ttrproto.nak(3, "too-long")
    loop.feed(cmd("4 WRITE 04A224B2C15E80 " + "x" * 134))
    assert lines[-1] == ttrproto.ack(4)
    chip.tags[UID7][15] = 0x0F  # CC write access: read-only
    loop.feed(cmd("5 WRITE 04A224B2C15E80 ttr:eu:train:red"))
    assert lines[-1] == ttrproto.nak(5, "read-only")


def test_blank_sticker_gets_a_capability_container() -> None:
    chip = FakeChip([[UID7]])
    chip.add(UID7, b"", cc=b"\x00\x00\x00\x00")
    loop, lines, _ = make(chip)
    loop.start()
    loop.poll()
    loop.feed(cmd("1 WRITE 04A224B2C15E80 ttr:eu:train:blue"))
    assert lines[-1] == ttrproto.ack(1)
    assert bytes(chip.tags[UID7][12:16]) == ndef.NTAG213_CC
    assert ndef.text_in_area(bytes(chip.tags[UID7][16:160])) == "ttr:eu:train:blue"


def test_torn_write_never_leaves_a_mix_of_old_and_new() -> None:
    chip = FakeChip([[UID7]])
    chip.add(UID7, ndef.text_area("ttr:eu:ticket:brest-petrograd"))
    loop, lines, _ = make(chip)
    loop.start()
    loop.poll()
    for page in (5, 6, 7, 4):
        chip.fail_write_page = page
        loop.feed(cmd("1 WRITE 04A224B2C15E80 ttr:eu:ticket:lisboa-danzig"))
        assert lines[-1] == ttrproto.nak(1, "write-failed")
        text = ndef.text_in_area(bytes(chip.tags[UID7][16:160]))
        assert text in (None, "ttr:eu:ticket:brest-petrograd", "ttr:eu:ticket:lisboa-danzig")
        assert text is None  # the empty message went first
    chip.fail_write_page = None
    loop.feed(cmd("2 WRITE 04A224B2C15E80 ttr:eu:ticket:lisboa-danzig"))
    assert lines[-1] == ttrproto.ack(2)


def test_silent_chip_reports_once_and_recovers() -> None:
    chip = FakeChip([[UID7]] * 200)
    chip.add(UID7, RED)
    chip.alive = False
    loop, lines, ui = make(chip)
    loop.start()
    assert lines == ["HELLO ttr-reader 1.0 rc522*33\n", ttrproto.err("chip", "no-answer")]
    for _ in range(readerloop.REINIT_EVERY * 2):
        loop.poll()
    assert len(lines) == 2
    assert chip.inits == 3
    assert ui.leds[-1] == "red"
    chip.alive = True
    for _ in range(readerloop.REINIT_EVERY):
        loop.poll()
    assert ttrproto.tag("04A224B2C15E80", "ttr:eu:train:red") in lines
    # Dies during a scan: one ERR, no GONE (no evidence the tag left).
    chip.alive = False
    n = len(lines)
    for _ in range(10):
        loop.poll()
    assert lines[n:] == [ttrproto.err("chip", "no-answer")]
