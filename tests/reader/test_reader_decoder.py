"""Bad input through the pure Decoder: counted, never fatal, never a wrong message."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.reader import protocol as p

GOOD = [
    p.Tag("04A224B2C15E80", "ttr:eu:train:red"),
    p.Tag("1A2B3C4D", None),
    p.Gone("04A224B2C15E80"),
    p.Hello("1.0", "rc522"),
    p.Ack(12),
]
LINES = [p.encode_message(m) for m in GOOD]


def test_lines_split_anywhere_decode_the_same() -> None:
    stream = b"".join(LINES)
    for cut in range(len(stream) + 1):
        d = p.Decoder()
        got = d.feed(stream[:cut]) + d.feed(stream[cut:])
        assert got == GOOD
        assert d.dropped_total == 0


def test_byte_by_byte() -> None:
    d = p.Decoder()
    got = []
    for b in b"".join(LINES):
        got += d.feed(bytes([b]))
    assert got == GOOD


def test_noise_bad_checksums_and_partial_lines_are_counted() -> None:
    d = p.Decoder()
    stream = (
        b"\x00\xff\x13garbage\n"  # noise
        + b"TAG 04A224B2C15E80 ttr:eu:train:red*13\n"  # bad checksum
        + b"TAG 04A224B2C15E80 ttr:eu:train:red\n"  # no checksum
        + b"TAG 04A2"  # a partial line run into the next one
        + LINES[0]
        + b"TAG 04A224B2C15E80 ttr:eu:train:r\xc3\xa9d*12\n"  # not ASCII
        + b"BLAH 1*"
        + p.checksum("BLAH 1").encode()
        + b"\n"  # unknown type
        + LINES[2]
    )
    assert d.feed(stream) == [GOOD[2]]
    assert d.dropped == {
        "not-ascii": 2,
        "bad-checksum": 2,
        "no-checksum": 1,
        "unknown": 1,
    }


def test_a_10_kB_line_is_one_drop_and_memory_stays_small() -> None:
    d = p.Decoder()
    assert d.feed(LINES[0]) == [GOOD[0]]
    for _ in range(10):
        assert d.feed(b"A" * 1000) == []
        assert len(d._buf) <= p.MAX_LINE + 1
    assert d.feed(b"*00\n" + LINES[1]) == [GOOD[1]]
    assert d.dropped == {"too-long": 1}


def test_exactly_200_bytes_passes_and_201_does_not() -> None:
    at_limit = p.Err("chip", "x" * (p.MAX_LINE - len("ERR chip *HH")))
    line = p.encode_message(at_limit)
    assert len(line) == p.MAX_LINE + 1
    d = p.Decoder()
    assert d.feed(line.replace(b"\n", b"\r\n")) == [at_limit]
    body = b"ERR chip " + b"x" * (p.MAX_LINE - len("ERR chip *HH") + 1)
    assert d.feed(body + b"*" + p.checksum(body).encode() + b"\n") == []
    assert d.dropped == {"too-long": 1}


def test_reset_counts_a_cut_off_line() -> None:
    d = p.Decoder()
    assert d.feed(LINES[0][:10]) == []
    assert d.reset() is True
    assert d.dropped == {"partial": 1}
    assert d.feed(LINES[0][10:]) == []  # the rest of a line is garbage on its own
    assert d.feed(LINES[1]) == [GOOD[1]]
    assert d.reset() is False


def test_seeded_noise_mixed_with_good_lines_recovers_every_clean_line() -> None:
    rng = random.Random(20240611)
    d = p.Decoder()
    expected: list[p.Message] = []
    got: list[p.Message] = []
    for _ in range(3000):
        if rng.random() < 0.5:
            i = rng.randrange(len(LINES))
            chunk = LINES[i]
            expected.append(GOOD[i])
        else:
            noise = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
            chunk = noise.replace(b"\n", b"") + b"\n"
        got += d.feed(chunk)
    assert got == expected
    assert d.dropped_total > 1000


def test_corrupted_lines_never_give_a_different_tag() -> None:
    """Single-byte changes, truncations and cuts of a TAG line: XOR checksums catch all."""
    rng = random.Random(7)
    line = LINES[0][:-1]
    d = p.Decoder()
    for _ in range(5000):
        bad = bytearray(line)
        kind = rng.randrange(3)
        if kind == 0:
            i = rng.randrange(len(bad))
            bad[i] = (bad[i] + rng.randrange(1, 256)) % 256
        elif kind == 1:
            del bad[rng.randrange(1, len(bad)) :]
        else:
            i = rng.randrange(len(bad))
            del bad[i : i + 1]
        if bytes(bad).replace(b"\n", b"") == line:
            continue
        for msg in d.feed(bytes(bad).replace(b"\n", b"") + b"\n"):
            assert msg == GOOD[0]  # only an unchanged line may come out
    assert d.accepted == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=300), st.sampled_from(LINES)), max_size=40))
def test_any_bytes_never_raise_and_only_well_formed_messages_come_out(
    chunks: list[bytes],
) -> None:
    d = p.Decoder()
    for chunk in chunks:
        for msg in d.feed(chunk):
            assert isinstance(msg, p.Hello | p.Tag | p.Gone | p.Ack | p.Nak | p.Err)
            # whatever came out re-encodes to a valid line
            assert p.parse_message(p.encode_message(msg)) == msg
        assert len(d._buf) <= p.MAX_LINE + 1
    d.reset()
