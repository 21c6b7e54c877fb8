"""The RC522 driver against an emulated chip (register level) and emulated NTAG213 tags."""

from __future__ import annotations

import mfrc522
import ndef
import pytest
import readerloop
import ttrproto
from fw_fakes import ntag213
from fw_rc522_emu import EmulatedRC522, EmuTag, FakePin

UID7 = bytes.fromhex("04A224B2C15E80")
UID7B = bytes.fromhex("04A224B2C15E81")  # differs from UID7 in the last bit only
UID4 = bytes.fromhex("1A2B3C4D")


def test_crc_a_known_frames() -> None:
    assert mfrc522.crc_a(bytes([0x50, 0x00])) == bytes([0x57, 0xCD])  # HLTA
    assert mfrc522.crc_a(bytes([0x30, 0x00])) == bytes([0x02, 0xA8])  # READ page 0
    assert mfrc522.crc_ok(bytes([0x50, 0x00, 0x57, 0xCD]))
    assert not mfrc522.crc_ok(bytes([0x50, 0x00, 0x57, 0xCE]))


def test_cascade_levels_and_bcc() -> None:
    assert mfrc522.cascade_levels(UID4) == [UID4]
    assert mfrc522.cascade_levels(UID7) == [bytes([0x88, 0x04, 0xA2, 0x24]), UID7[3:]]
    assert mfrc522.bcc(bytes([0x88, 0x04, 0xA2, 0x24])) == 0x88 ^ 0x04 ^ 0xA2 ^ 0x24
    with pytest.raises(ValueError):
        mfrc522.cascade_levels(b"\x01\x02")


def test_merge_bits_keeps_known_bits() -> None:
    cl = bytearray([0xAB, 0x05, 0, 0, 0])
    mfrc522.merge_bits(cl, 11, bytes([0xF8 | 0x07, 0x11, 0x22, 0x33]))
    # the low 3 bits of byte 1 are ours (0b101), the rest came from the tag
    assert cl == bytearray([0xAB, 0xFD, 0x11, 0x22, 0x33])


def rig(*tags: EmuTag) -> tuple[mfrc522.MFRC522, EmulatedRC522]:
    chip = EmulatedRC522(tags=list(tags), in_field=list(tags))
    driver = mfrc522.MFRC522(chip, FakePin(), FakePin())
    assert driver.init()
    return driver, chip


def tag(uid: bytes, text: str | None = None) -> EmuTag:
    area = ndef.text_area(text) if text is not None else b"\x03\x00\xfe"
    return EmuTag(uid, ntag213(uid, area))


def test_init_reports_a_silent_chip() -> None:
    chip = EmulatedRC522(dead=True)
    driver = mfrc522.MFRC522(chip, FakePin())
    assert driver.init() is False
    with pytest.raises(OSError):
        driver.scan()


def test_no_tag_scan_is_empty() -> None:
    driver, chip = rig()
    assert driver.scan() == []
    assert chip.regs[mfrc522.TX_CONTROL] & 0x03 == 0x03  # antenna on
    assert chip.regs[mfrc522.MODE] == 0x3D


@pytest.mark.parametrize("uid", [UID4, UID7])
def test_scan_finds_one_tag(uid: bytes) -> None:
    driver, _ = rig(tag(uid))
    assert driver.scan() == [uid]
    assert driver.scan() == [uid]  # halted tags are woken again by WUPA


def test_scan_resolves_colliding_tags() -> None:
    a, b, c = tag(UID7), tag(UID7B), tag(UID4)
    driver, chip = rig(a, b, c)
    found = driver.scan()
    assert sorted(found) == sorted([UID7, UID7B, UID4])
    chip.in_field = [a]
    assert driver.scan() == [UID7]


def test_read_text_through_the_driver() -> None:
    t = tag(UID7, "ttr:eu:ticket:brest-petrograd")
    driver, chip = rig(t)
    assert driver.scan() == [UID7]
    assert readerloop.read_text(driver, UID7) == (True, "ttr:eu:ticket:brest-petrograd")
    chip.in_field = []
    assert readerloop.read_text(driver, UID7) == (False, None)
    chip.in_field = [t]
    assert driver.scan() == [UID7]  # the selected tag was halted before scanning


def test_write_through_the_driver() -> None:
    t = tag(UID4)
    driver, _ = rig(t)
    driver.scan()
    assert driver.write(UID4, 4, b"\x03\x00\xfe\x00")
    assert bytes(t.memory[16:20]) == b"\x03\x00\xfe\x00"
    assert not driver.write(UID4, 200, b"\x00\x00\x00\x00")  # NAK from the tag


def test_reader_loop_with_the_real_driver() -> None:
    a, b = tag(UID7, "ttr:eu:train:red"), tag(UID4)
    chip = EmulatedRC522(tags=[a, b], in_field=[])
    driver = mfrc522.MFRC522(chip, FakePin(), FakePin())
    lines: list[str] = []
    loop = readerloop.ReaderLoop(driver, lines.append)
    loop.start()
    assert lines == ["HELLO ttr-reader 1.0 rc522*33\n"]
    chip.in_field = [a]
    loop.poll()
    chip.in_field = [a, b]
    loop.poll()
    loop.feed(ttrproto.frame("5 WRITE 1A2B3C4D ttr:eu:train:green").encode())
    for _ in range(3):
        chip.in_field = [b]
        loop.poll()
    chip.in_field = []
    for _ in range(3):
        loop.poll()
    chip.in_field = [b]
    loop.poll()
    assert lines[1:] == [
        "TAG 04A224B2C15E80 ttr:eu:train:red*12\n",
        ttrproto.tag("1A2B3C4D", None),
        ttrproto.ack(5),
        "GONE 04A224B2C15E80*28\n",
        ttrproto.gone("1A2B3C4D"),
        ttrproto.tag("1A2B3C4D", "ttr:eu:train:green"),
    ]
    chip.dead = True
    loop.poll()
    assert lines[-1] == ttrproto.err("chip", "no-answer")
