"""Small real images for upload tests, and a decompression bomb, written byte by byte."""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png(width: int, height: int, *, depth: int = 8, color: int = 2) -> bytes:
    """A valid PNG of one colour (zeros): ``depth`` bits per sample, ``color`` type 0 (grey) or
    2 (RGB). Rows are compressed one by one, so a huge one stays small in memory too."""
    channels = 3 if color == 2 else 1
    row = b"\x00" + bytes((width * channels * depth + 7) // 8)
    comp = zlib.compressobj(9)
    parts = [comp.compress(row) for _ in range(height)]
    parts.append(comp.flush())
    header = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", b"".join(parts))
        + _chunk(b"IEND", b"")
    )


def bomb(side: int = 20000) -> bytes:
    """A 1-bit grey PNG of ``side`` x ``side`` pixels (400 MP by default) of a few tens of kB:
    decoded to colour, it would take side * side * 3 bytes (1.2 GB)."""
    return png(side, side, depth=1, color=0)


def jpeg_header(width: int, height: int) -> bytes:
    """The first bytes of a baseline JPEG (SOI, an APP0 segment, SOF0) of that size."""
    app0 = b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    return (
        b"\xff\xd8"
        + b"\xff\xe0"
        + struct.pack(">H", len(app0) + 2)
        + app0
        + b"\xff\xc0"
        + struct.pack(">H", len(sof) + 2)
        + sof
    )
