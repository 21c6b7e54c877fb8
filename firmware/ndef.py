"""NDEF on NFC Forum Type 2 tags (NTAG213): the TLV area and Text records.

Pure module: runs under MicroPython and CPython. Works on bytes; no I/O.

A Type 2 tag keeps its NDEF message in the data area (from page 4) as TLVs: ``03 <len> <message>``
then ``FE``. A length of ``FF hi lo`` is the 3-byte form. NULL TLVs (``00``) are skipped, lock and
memory control TLVs (``01``, ``02``) and proprietary ones are skipped by their length.
"""

TLV_NULL = 0x00
TLV_NDEF = 0x03
TLV_TERMINATOR = 0xFE

# find_message() results
NEED = "need"  # the area is too short: read at least ``value`` bytes
FOUND = "found"  # ``value`` is the NDEF message
ABSENT = "absent"  # no NDEF message (value None)

TNF_WELL_KNOWN = 0x01
MB = 0x80
ME = 0x40
CF = 0x20
SR = 0x10
IL = 0x08

# NTAG213: capability container E1 10 12 00 -> 0x12 * 8 = 144 bytes of data area.
NTAG213_CC = b"\xe1\x10\x12\x00"
NTAG213_DATA_BYTES = 144


class NdefError(Exception):
    pass


def find_message(area):
    """Find the first NDEF message TLV in a data area (bytes from page 4 on).

    Returns ``(NEED, n)`` when at least ``n`` bytes are needed to decide, ``(FOUND, message)``
    or ``(ABSENT, None)``.
    """
    i = 0
    size = len(area)
    while True:
        if i >= size:
            return (NEED, i + 1)
        t = area[i]
        if t == TLV_NULL:
            i += 1
            continue
        if t == TLV_TERMINATOR:
            return (ABSENT, None)
        if i + 1 >= size:
            return (NEED, i + 2)
        length = area[i + 1]
        start = i + 2
        if length == 0xFF:
            if i + 3 >= size:
                return (NEED, i + 4)
            length = (area[i + 2] << 8) | area[i + 3]
            start = i + 4
        end = start + length
        if t == TLV_NDEF:
            if end > size:
                return (NEED, end)
            return (FOUND, bytes(area[start:end]))
        i = end


def records(message):
    """The records of an NDEF message as ``(tnf, type, payload)`` tuples.

    Raises NdefError for a truncated message or a chunked record.
    """
    out = []
    i = 0
    size = len(message)
    while i < size:
        header = message[i]
        if header & CF:
            raise NdefError("chunked record")
        if i + 2 > size:
            raise NdefError("truncated header")
        type_len = message[i + 1]
        j = i + 2
        if header & SR:
            if j + 1 > size:
                raise NdefError("truncated header")
            payload_len = message[j]
            j += 1
        else:
            if j + 4 > size:
                raise NdefError("truncated header")
            payload_len = (
                (message[j] << 24) | (message[j + 1] << 16) | (message[j + 2] << 8) | message[j + 3]
            )
            j += 4
        id_len = 0
        if header & IL:
            if j + 1 > size:
                raise NdefError("truncated header")
            id_len = message[j]
            j += 1
        end = j + type_len + id_len + payload_len
        if end > size:
            raise NdefError("truncated record")
        rtype = bytes(message[j : j + type_len])
        payload = bytes(message[j + type_len + id_len : end])
        out.append((header & 0x07, rtype, payload))
        i = end
        if header & ME:
            break
    return out


def text_of(payload):
    """The text of a Text record's payload, or None when it is UTF-16 or not valid UTF-8."""
    if not payload:
        return None
    status = payload[0]
    if status & 0x80:
        return None
    lang_len = status & 0x3F
    if 1 + lang_len > len(payload):
        return None
    try:
        return bytes(payload[1 + lang_len :]).decode("utf-8")
    except (UnicodeError, ValueError):
        return None


def first_text(message):
    """The text of the first Text record of an NDEF message, or None."""
    try:
        recs = records(message)
    except NdefError:
        return None
    for tnf, rtype, payload in recs:
        if tnf == TNF_WELL_KNOWN and rtype == b"T":
            return text_of(payload)
    return None


def text_in_area(area):
    """The first Text record's text in a complete data area, or None."""
    status, value = find_message(area)
    if status != FOUND:
        return None
    return first_text(value)


def text_record(text, lang="en"):
    """One NDEF message holding one Text record (UTF-8)."""
    body = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    code = lang.encode()
    payload = bytes([len(code)]) + code + body
    if len(payload) < 256:
        return bytes([MB | ME | SR | TNF_WELL_KNOWN, 1, len(payload)]) + b"T" + payload
    n = len(payload)
    head = bytes([MB | ME | TNF_WELL_KNOWN, 1, (n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255])
    return head + bytes([n & 255]) + b"T" + payload


def tlv_area(message):
    """The data area bytes for ``message``: NDEF TLV, terminator, zero padding to whole pages."""
    n = len(message)
    short = n < 0xFF
    head = bytes([TLV_NDEF, n]) if short else bytes([TLV_NDEF, 0xFF, (n >> 8) & 255, n & 255])
    area = head + message + bytes([TLV_TERMINATOR])
    pad = (-len(area)) % 4
    return area + bytes(pad)


def text_area(text, lang="en"):
    """Data area bytes holding one Text record."""
    return tlv_area(text_record(text, lang))


def capacity(cc):
    """Data area size in bytes from a capability container (page 3), or 0 if not NDEF."""
    if len(cc) < 4 or cc[0] != 0xE1:
        return 0
    return cc[2] * 8


def max_text_len(data_bytes, lang="en"):
    """Longest UTF-8 text (bytes) that fits a data area of ``data_bytes`` as one Text record."""
    # 03 LL + D1 01 PL 54 + status + lang + text + FE   (short forms)
    n = data_bytes - 2 - 4 - 1 - len(lang) - 1
    # Keep both short forms: record payload < 256 and message < 255 bytes.
    return min(n, 254 - 4 - 1 - len(lang))
