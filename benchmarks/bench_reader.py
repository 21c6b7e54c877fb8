"""Card reader host benchmarks: parser lines/s (pure), lines/s through a real pseudo-terminal,
and tap-to-event latency through the pty (median, p95).

Run: .venv/bin/python benchmarks/bench_reader.py [--lines N] [--taps N] [--write]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from results import WRITE_HELP, Results

from companion.reader import protocol as p
from companion.reader.cards import CardCatalog
from companion.reader.listener import CardListener
from companion.reader.simulated import SimulatedReader, random_uid
from companion.reader.transport import ReaderTransport

COLOURS = ("pink", "blue", "orange", "white", "green", "yellow", "black", "red", "locomotive")


def make_lines(n: int, seed: int = 1) -> list[bytes]:
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        uid = random_uid(rng, seven=bool(i % 3))
        if i % 2:
            lines.append(p.encode_message(p.Gone(uid)))
        else:
            lines.append(p.encode_message(p.Tag(uid, f"ttr:eu:train:{rng.choice(COLOURS)}")))
    return lines


def bench_parser(n: int) -> float:
    data = b"".join(make_lines(n))
    chunks = [data[i : i + 4096] for i in range(0, len(data), 4096)]
    best = 0.0
    for _ in range(3):
        d = p.Decoder()
        start = time.perf_counter()
        count = 0
        for chunk in chunks:
            count += len(d.feed(chunk))
        elapsed = time.perf_counter() - start
        assert count == n and d.dropped_total == 0
        best = max(best, n / elapsed)
    return best


def bench_pty_throughput(n: int, link: Path) -> float:
    lines = make_lines(n, seed=2)
    with SimulatedReader(link) as sim:
        transport = ReaderTransport(sim.path, read_timeout=0.01)
        transport.start()
        try:
            deadline = time.monotonic() + 5
            while transport.hello is None and time.monotonic() < deadline:
                time.sleep(0.005)
            while transport.get(timeout=0.05) is not None:
                pass
            start = time.perf_counter()
            for k in range(0, n, 200):
                sim.send_raw(b"".join(lines[k : k + 200]))
            got = 0
            while got < n:
                item = transport.get(timeout=5)
                if item is None:
                    break
                if isinstance(item[1], p.Tag | p.Gone):
                    got += 1
            elapsed = time.perf_counter() - start
            if got != n:
                raise SystemExit(f"only {got} of {n} lines arrived through the pty")
        finally:
            transport.stop()
    return n / elapsed


def bench_latency(taps: int, link: Path) -> list[float]:
    rng = random.Random(3)
    catalog = CardCatalog.europe()
    out: list[float] = []
    with SimulatedReader(link) as sim:
        transport = ReaderTransport(sim.path)  # default read timeout, as the CLI uses
        transport.start()
        try:
            listener = CardListener(transport, catalog)
            deadline = time.monotonic() + 5
            while transport.hello is None and time.monotonic() < deadline:
                time.sleep(0.005)
            for _ in range(taps):
                uid = random_uid(rng)
                time.sleep(rng.uniform(0.002, 0.02))  # taps at random moments
                start = time.perf_counter()
                sim.tap(uid, "ttr:eu:train:red")
                event = listener.next_event(timeout=5)
                if event is None or event.uid != uid:
                    raise SystemExit("a tap did not arrive")
                out.append((time.perf_counter() - start) * 1000)
        finally:
            transport.stop()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--taps", type=int, default=500)
    parser.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = parser.parse_args()
    res = Results("bench_reader", write=args.write)
    python = sys.version.split()[0]
    print(f"machine: {platform.machine()} {platform.processor() or ''} Python {python}")
    parsed = bench_parser(args.lines)
    print(f"parser (pure, 4 KiB chunks):  {parsed:>10,.0f} lines/s")
    with tempfile.TemporaryDirectory() as tmp:
        rate = bench_pty_throughput(args.lines // 2, Path(tmp) / "reader")
        print(f"through a pty (transport):    {rate:>10,.0f} lines/s")
        lat = sorted(bench_latency(args.taps, Path(tmp) / "reader2"))
    p95 = lat[int(0.95 * (len(lat) - 1))]
    print(
        f"tap -> CardEvent via pty ({len(lat)} taps): median {statistics.median(lat):.3f} ms, "
        f"p95 {p95:.3f} ms, max {lat[-1]:.3f} ms"
    )
    res.add(
        "reader-lines",
        "card reader, host parser / through a pseudo-terminal",
        f"{parsed / 1000:.0f}k lines/s / {rate / 1000:.0f}k lines/s",
    )
    res.add(
        "reader-tap",
        f"card reader, tap -> event through a pseudo-terminal ({len(lat)} taps)",
        f"median {statistics.median(lat):.1f} ms, p95 {p95:.1f} ms",
    )
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
