"""A crowded table on a real ``companion serve`` (threads: each live event stream holds one of
waitress's worker threads): 30 phones on 30 client addresses, the host's screen and the table
view all live, the camera running; the per-address caps seen from outside; the server's memory.

    python benchmarks/bench_streams.py [--python PY] [--actions N] [--quick] [--write]

The service runs as ``bench_pi_memory`` runs it (its config file: the camera a still-image
source of the shared board photos at 1920x1080 read by the pixel reader, the controls on
gpiozero's mock pins, no card reader). ``--python .venv-prod/bin/python``: the Pi's library pair.
Clients bind to addresses of 127.0.0.0/8 (127.0.0.8 the table view, .9 the host, .10-.39 the
phones). Prints:

* the 32 streams: how many stayed live, and the time from each action's request to its state
  reaching each stream (p50/p95/max over every stream and action), and the actions' own times;
* streams per address: one address opening 10 streams keeps how many;
* connections per address: one address opening 300 sockets keeps how many (the others are
  answered 503 at once), and another address's request time meanwhile;
* the server's resident memory when ready, with the 32 streams, and its peak (target 200 MB).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_pi_budget import stop, vm_kb, wait_until_answering  # noqa: E402
from benchmarks.bench_pi_memory import start_table_service  # noqa: E402
from benchmarks.results import WRITE_HELP, Results  # noqa: E402
from benchmarks.timing import percentile, spread  # noqa: E402

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}


class Stream:
    """One client's event stream, read on its own thread: when each state id arrived."""

    def __init__(self, port: int, source: str, token: str | None = None) -> None:
        self.sock = socket.create_connection(
            ("127.0.0.1", port), timeout=10, source_address=(source, 0)
        )
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self.sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n".encode())
        self.arrived: dict[int, float] = {}
        self.status = 0
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        buf = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                now = time.perf_counter()
                buf += chunk
                if not self.status and b"\r\n\r\n" in buf:
                    self.status = int(buf.split(b" ", 2)[1])
                for m in re.finditer(rb"\nid: (\d+)\n", buf):
                    self.arrived.setdefault(int(m.group(1)), now)
                buf = buf[-64:]
        except OSError:
            pass
        finally:
            self.ended.set()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def post(port: int, token: str, action: dict[str, object]) -> tuple[int, float]:
    """(seq of the answer, seconds the request took)."""
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/actions",
        data=json.dumps(action).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST",
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=10) as r:
        seq = int(json.loads(r.read())["seq"])
    return seq, time.perf_counter() - t0


def streams_per_address(port: int) -> int:
    many = [Stream(port, "127.0.0.50") for _ in range(10)]
    time.sleep(3.0)  # a stream over the address's share ends within a second
    live = sum(1 for s in many if not s.ended.is_set() and s.status == 200)
    for s in many:
        s.close()
    return live


def connections_per_address(port: int, n: int = 300) -> tuple[int, int, float]:
    """(held, answered 503 at once, another address's /api/health in ms)."""
    socks = [
        socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.60", 0))
        for _ in range(n)
    ]
    time.sleep(1.0)
    refused = 0
    for s in socks:
        s.settimeout(0.01)
        with contextlib.suppress(OSError):  # (TimeoutError: held, nothing said)
            refused += s.recv(64).startswith(b"HTTP/1.1 503")
    t0 = time.perf_counter()
    other = socket.create_connection(
        ("127.0.0.1", port), timeout=5, source_address=("127.0.0.61", 0)
    )
    other.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert other.recv(64).startswith(b"HTTP/1.1 200")
    took = (time.perf_counter() - t0) * 1000
    other.close()
    for s in socks:
        s.close()
    return n - refused, refused, took


def versions(python: str) -> str:
    """The interpreter and library versions of ``python`` (the service's, not this script's)."""
    code = (
        f"import sys; sys.path.insert(0, {str(REPO / 'benchmarks')!r}); "
        "from results import libraries; print(libraries())"
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return f"{python}: {out.stdout.strip() or 'versions unknown'}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter to run the service")
    ap.add_argument("--actions", type=int, default=60, help="actions while 32 streams are live")
    ap.add_argument("--quick", action="store_true", help="20 actions")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args(argv)
    actions = 20 if args.quick else args.actions
    python = os.path.abspath(args.python)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        quiet = subprocess.DEVNULL
        child, port, _ = start_table_service(Path(tmp), python, quiet, quiet)
        streams: list[Stream] = []
        try:
            wait_until_answering(child, port, "/api/health", 120)
            ready_rss = (vm_kb(child.pid, "VmRSS") or 0) / 1024
            token = (state / "host-token").read_text().strip()
            post(port, token, {"type": "new_game", "players": PLAYERS})
            for color, ids in TICKETS.items():
                post(port, token, {"type": "keep_tickets", "player": color, "tickets": ids})
            streams.append(Stream(port, "127.0.0.8"))  # the table view
            streams.append(Stream(port, "127.0.0.9", token))  # the host's screen
            streams += [Stream(port, f"127.0.0.{10 + i}") for i in range(30)]  # the phones
            time.sleep(1.0)
            opened = sum(1 for s in streams if s.status == 200)
            lat: list[float] = []
            acts: list[float] = []
            seqs: list[int] = []
            for i in range(actions):
                # drawing two cards completes a turn, which then passes by itself: every action
                # is a new log position (an end_turn after it would change nothing)
                color = ("red", "blue")[i % 2]
                action = {"type": "drew_cards", "player": color, "count": 2}
                t0 = time.perf_counter()
                seq, took = post(port, token, action)
                if seqs and seq <= seqs[-1]:
                    raise SystemExit(f"action {i} did not change the log (seq {seq})")
                acts.append(took * 1000)
                seqs.append(seq)
                wait_until = time.monotonic() + 5
                while time.monotonic() < wait_until and not all(seq in s.arrived for s in streams):
                    time.sleep(0.002)
                lat += [(s.arrived[seq] - t0) * 1000 for s in streams if seq in s.arrived]
                time.sleep(0.05)
            live = sum(1 for s in streams if all(q in s.arrived for q in seqs))
            with_streams = (vm_kb(child.pid, "VmRSS") or 0) / 1024
            per_address = streams_per_address(port)
            held, refused, other_ms = connections_per_address(port)
            peak = (vm_kb(child.pid, "VmHWM") or 0) / 1024
            alive = child.poll() is None
        finally:
            for s in streams:
                s.close()
            stop(child, 20)
    print(f"interpreter {args.python}; camera: still images 1920x1080 + pixel reader")
    print(
        f"32 streams (30 phones on 30 addresses, host, table view): {opened} opened, "
        f"{live} received all {actions} states"
    )
    print(
        f"action -> state on every stream: {spread(lat)} ({len(lat)} deliveries); "
        f"the action itself: p50 {statistics.median(acts):.1f} ms,"
        f" p95 {percentile(acts, 95):.1f} ms"
    )
    print(f"streams per address: one address asking for 10 keeps {per_address}")
    print(
        f"connections per address: one address opening 300 keeps {held} ({refused} answered "
        f"503 at once); another address's /api/health meanwhile {other_ms:.1f} ms"
    )
    verdict = "within" if peak <= 200 else "OVER"
    print(
        f"serve RSS: {ready_rss:.0f} MB when ready, {with_streams:.0f} MB with the 32 streams, "
        f"peak {peak:.0f} MB ({verdict} the 200 MB target); "
        f"{'still running' if alive else 'EXITED early'}"
    )
    res = Results("bench_streams", write=args.write, libraries=versions(python))
    res.add(
        "streams-30-phones-live",
        "32 event streams (30 phones on 30 client addresses, the host's screen, the table view) on"
        " a real `serve` with the camera: streams that received every state",
        f"{opened} of 32 opened, {live} of 32 received all {actions} states",
    )
    res.add(
        "streams-30-phones-latency",
        "30-phone table: from an action's request to its state on each of the 32 streams"
        f" ({len(lat)} deliveries)",
        spread(lat),
    )
    res.add(
        "streams-30-phones-action",
        "30-phone table: the host's action request itself while the 32 streams are live",
        f"p50 {statistics.median(acts):.1f} ms, p95 {percentile(acts, 95):.1f} ms",
    )
    res.add(
        "streams-per-address",
        "streams per client address: one address asking for 10 event streams",
        f"{per_address} of 10 kept",
    )
    res.add(
        "connections-per-address",
        "connections per client address: one address opening 300 sockets; another address's"
        " `/api/health` meanwhile",
        f"{held} held, {refused} answered 503 at once; the other address answered in"
        f" {other_ms:.1f} ms",
    )
    res.add(
        "streams-30-phones-memory",
        "resident memory of `serve` (camera: 1080p still images + pixel reader, controls on mock"
        " pins) when ready / with the 32 live streams / peak; target <= 200 MB",
        f"{ready_rss:.0f} MB ready, {with_streams:.0f} MB with 32 streams, peak {peak:.0f} MB",
    )
    res.save()
    ok = alive and live == len(streams) == 32 and peak <= 200
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
