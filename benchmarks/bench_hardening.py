"""Hardening benchmark: what hostile or careless clients on the Wi-Fi cost `companion serve`.

    .venv/bin/python benchmarks/bench_hardening.py [--quick] [--events 10000] [--readers 20]
        [--write]

Starts `companion serve` on 127.0.0.1 (a free port, a temporary state directory) and measures:

1. bodies: the time to a 413 for a declared 300 MB body (only its headers sent), and how much of
   a chunked body is read before the 413;
2. the decompression bomb: a 20000 x 20000 PNG (1-bit, ~50 kB; 1.2 GB once decoded to colour)
   posted 5 times, with a 10000 x 8000 JPEG header: the answers, and the server's peak resident
   memory (VmHWM) before and after; for scale, the peak of a process that decodes the bomb with
   OpenCV as the server did before; then (not with --quick) a real photo near the limit, a
   rendered board of 43 MP, read, and the peak after it;
3. connections: /api/state latency (p50, p95, max of 40 requests) while 150 and 600 slow or idle
   connections are held open;
4. history readers: a game of --events events (written straight into the log), --readers guests
   reading its history in a loop as the history page does (/api/games, /api/games/<id>, its
   /events, and every 4th round /state?seq=N at a random N); the host's action latency (p50, p95
   of 60 actions) with and without them. The readers ask as a browser does: gzip taken, and
   the ETag of the answer they have (If-None-Match).
"""

from __future__ import annotations

import argparse
import http.client
import json
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.results import WRITE_HELP, Results  # noqa: E402
from tests.serving import start_served  # noqa: E402
from tests.webapp.images import bomb, jpeg_header  # noqa: E402

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}


class Server:
    def __init__(self, state_dir: Path) -> None:
        self.proc, self.port, self.token = start_served(state_dir, subprocess.DEVNULL, REPO)
        self.auth = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if self.get("/api/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)

    def conn(self, timeout: float = 30) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def get(
        self,
        path: str,
        conn: http.client.HTTPConnection | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes]:
        c = conn or self.conn()
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        if headers is not None and r.getheader("ETag"):
            headers["If-None-Match"] = r.getheader("ETag") or ""
        if conn is None:
            c.close()
        return r.status, body

    def post(
        self, path: str, body: bytes, headers: dict[str, str], conn: Any = None
    ) -> tuple[int, bytes]:
        c = conn or self.conn()
        c.request("POST", path, body=body, headers=headers)
        r = c.getresponse()
        out = r.read()
        if conn is None:
            c.close()
        return r.status, out

    def act(self, action: dict[str, Any], conn: Any = None) -> int:
        return self.post("/api/actions", json.dumps(action).encode(), self.auth, conn)[0]

    def memory(self) -> dict[str, float]:
        out = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(("VmHWM", "VmRSS")):
                name, value = line.split(":")
                out[name] = int(value.split()[0]) / 1024
        return out

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def ms(values: list[float]) -> str:
    v = sorted(values)
    p95 = v[min(len(v) - 1, round(0.95 * (len(v) - 1)))]
    return f"p50 {statistics.median(v):.1f} ms, p95 {p95:.1f} ms, max {v[-1]:.1f} ms"


def bodies(res: Results, server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        t0 = time.perf_counter()
        s.sendall(
            b"POST /api/photo HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + server.token.encode()
            + b"\r\nContent-Length: %d\r\n\r\n" % (300 * 1024 * 1024)
        )
        head = s.recv(4096)
        dt = (time.perf_counter() - t0) * 1000
    declared = f"{head.split(b' ')[1].decode()} after {dt:.1f} ms, 0 bytes read"
    print(f"  declared 300 MB body: {declared}")
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(
            b"POST /api/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + server.token.encode()
            + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        sent = 0
        s.settimeout(0.01)
        status = b""
        chunk = b"x" * 4096
        while sent < 4 * 1024 * 1024:
            try:
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                break
            sent += len(chunk)
            try:
                status = s.recv(4096)
                if status:
                    break
            except TimeoutError:
                continue
    code = status.split(b" ")[1].decode() if status else "none"
    print(f"  chunked action body: {code} after {sent // 1024} kB sent (limit 64 kB)")
    res.add(
        "hardening-bodies",
        "a declared 300 MB body (refused from its headers); a chunked action body (limit 64 kB)",
        f"{declared}; the chunked body {code} after {sent // 1024} kB sent",
    )


def bombs(res: Results, server: Server) -> None:
    before = server.memory()
    the_bomb = bomb()
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "image/png"}
    codes = [server.post("/api/photo", the_bomb, headers)[0] for _ in range(5)]
    jpeg = jpeg_header(10_000, 8_000) + bytes(1000)
    codes.append(server.post("/api/photo", jpeg, {**headers, "Content-Type": "image/jpeg"})[0])
    after = server.memory()
    print(
        f"  bomb: {len(the_bomb) // 1024} kB PNG of 20000 x 20000 x5 and a 10000 x 8000 JPEG: "
        f"answers {codes}"
    )
    print(
        f"  server peak RSS (VmHWM): {before['VmHWM']:.0f} MB before, {after['VmHWM']:.0f} MB "
        f"after (limit 700 MB)"
    )
    probe = (
        "import cv2, numpy as np, resource, sys\n"
        "data = sys.stdin.buffer.read()\n"
        "img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)\n"
        "print(img.shape, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], input=the_bomb, capture_output=True, timeout=300
    )
    print(f"  for scale, decoding it with OpenCV (shape, peak MB): {out.stdout.decode().strip()}")
    decoded = out.stdout.decode().split(")")[-1].strip()
    res.add(
        "hardening-bomb",
        f"a decompression bomb ({len(the_bomb) // 1024} kB PNG of 20000 x 20000, 5 times; a"
        " 10000 x 8000 JPEG header): the answers and the server's peak resident memory",
        f"answers {', '.join(map(str, codes))}; peak {before['VmHWM']:.0f} MB before,"
        f" {after['VmHWM']:.0f} MB after (limit 700 MB); the same PNG decoded by OpenCV:"
        f" peak {decoded} MB",
    )


def big_photo(res: Results, server: Server) -> None:
    """A real photo near the pixel limit: a rendered board of 8000 x 5333 (43 MP), read."""
    import cv2

    from companion.core.bots import TicketBot, play_random_game
    from companion.data import europe_map
    from companion.sim.render import BoardRenderer, Scene

    game, _ = play_random_game(europe_map(), 3, seed=5, bot=TicketBot(5))
    scene = Scene(routes=dict(game.route_owner), stations=dict(game.station_owner), seed=5)
    photo = BoardRenderer().render_board(scene, width=8000)
    ok, data = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    jpeg = data.tobytes()
    height, width = photo.shape[:2]
    del photo, data
    server.act({"type": "new_game", "players": PLAYERS, "mode": "photo", "replace": True})
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "image/jpeg"}
    code, body = server.post("/api/photo", jpeg, headers)
    job = json.loads(body)["job"]
    t0 = time.perf_counter()
    while True:
        status = json.loads(server.get(f"/api/photo/{job}", None, dict(headers))[1])
        if status["status"] != "reading":
            break
        time.sleep(0.2)
    took = time.perf_counter() - t0
    routes = sum(1 for v in (status["reading"] or {}).get("routes", {}).values() if v)
    print(
        f"  a rendered board photo of {width} x {height} ({width * height / 1e6:.0f} MP, "
        f"{len(jpeg) // 1024} kB): {code}, {status['status']} in {took:.1f} s ({routes} routes "
        f"with trains); server peak RSS {server.memory()['VmHWM']:.0f} MB"
    )
    res.add(
        "hardening-big-photo",
        f"a real photo near the pixel limit (a rendered board, {width} x {height} ="
        f" {width * height / 1e6:.0f} MP, {len(jpeg) / 1e6:.1f} MB JPEG), read by the server",
        f"{status['status']} in {took:.1f} s, server peak {server.memory()['VmHWM']:.0f} MB",
    )


def connections(res: Results, server: Server, counts: list[int]) -> None:
    for n in counts:
        held = []
        for i in range(n):
            # from 127.0.1.1, 127.0.1.2, ... 40 each: one address may hold 64 (server.PER_ADDRESS)
            source = (f"127.0.1.{1 + i // 40}", 0)
            s = socket.create_connection(("127.0.0.1", server.port), source_address=source)
            if i % 2:
                s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(s)
        times = []
        for k in range(40):
            if k % 8 == 0:
                for i, s in enumerate(held):
                    if i % 2:
                        s.sendall(b"X-Slow: 1\r\n")
            t0 = time.perf_counter()
            status, _ = server.get("/api/state")
            times.append((time.perf_counter() - t0) * 1000)
            assert status == 200
            time.sleep(0.02)
        print(f"  {n} slow/idle connections held: /api/state {ms(times)}")
        res.add(
            f"hardening-connections-{n}",
            f"{n} slow or idle connections held (half sending a header line now and then): the"
            " latency of /api/state (40 requests)",
            ms(times),
        )
        for s in held:
            s.close()
        time.sleep(0.5)


def write_long_game(state_dir: Path, events: int) -> str:
    """A game of ``events`` events: new_game by the service, then draw/end-turn pairs written
    straight into the log (one transaction) as the service would have."""
    import sqlite3

    from companion.service import Actor, Service
    from companion.store import EventStore

    store = EventStore(state_dir)
    svc = Service(store).start()
    svc.act({"type": "new_game", "players": PLAYERS}, Actor.host())
    for color, ids in TICKETS.items():
        svc.act({"type": "keep_tickets", "player": color, "tickets": ids}, Actor.host())
    svc.act({"type": "drew_cards", "player": "red", "count": 2}, Actor.host())
    svc.act({"type": "end_turn", "player": "red"}, Actor.host())
    game = str(svc.state()["game_id"])
    svc.stop()
    store.close()
    db = sqlite3.connect(state_dir / "companion.sqlite3")
    rows = []
    t = time.time()
    for i in range((events - 3) // 2):
        color = "blue" if i % 2 == 0 else "red"
        for a in (
            {"type": "drew_cards", "player": color, "count": 2},
            {"type": "end_turn", "player": color},
        ):
            rows.append((game, t, "host", json.dumps(a, separators=(",", ":"), sort_keys=True)))
    with db:
        db.executemany("INSERT INTO events(game_id, ts, actor, action) VALUES (?,?,?,?)", rows)
    db.close()
    return game


def history(res: Results, state_dir: Path, events: int, readers: int) -> None:
    t0 = time.perf_counter()
    game = write_long_game(state_dir, events)
    server = Server(state_dir)
    try:
        print(f"  a game of {events} events (written in {time.perf_counter() - t0:.1f} s)")
        status, body = server.get(f"/api/games/{game}/events")
        t1 = time.perf_counter()
        server.get(f"/api/games/{game}/events")
        one = (time.perf_counter() - t1) * 1000
        print(f"  one history read: {one:.0f} ms ({status}, {len(body) // 1024} kB)")
        conn = server.conn()
        color = ["blue"]

        def host_actions(n: int) -> list[float]:
            out = []
            for _ in range(n // 2):
                for a in (
                    {"type": "drew_cards", "player": color[0], "count": 2},
                    {"type": "end_turn", "player": color[0]},
                ):
                    t = time.perf_counter()
                    code = server.act(a, conn)
                    out.append((time.perf_counter() - t) * 1000)
                    assert code == 200, code
                color[0] = "red" if color[0] == "blue" else "blue"
            return out

        alone = ms(host_actions(30))
        print(f"  host actions, no readers: {alone}")
        stop = threading.Event()
        reads = [0]

        def reader(k: int) -> None:
            # what the history page asks, over and over: the games, each one's state, the
            # open game's log, and now and then a position in it (seeded: reproducible)
            rng = random.Random(k)
            c = server.conn(timeout=120)
            n = 0
            # as a browser asks: gzip taken, and the ETag of what it has (per address)
            seen: dict[str, dict[str, str]] = {}
            while not stop.is_set():
                paths = ["/api/games", f"/api/games/{game}", f"/api/games/{game}/events"]
                if n % 4 == 3:
                    paths.append(f"/api/games/{game}/state?seq={rng.randrange(1, events)}")
                for path in paths:
                    try:
                        server.get(path, c, seen.setdefault(path, {"Accept-Encoding": "gzip"}))
                    except (OSError, http.client.HTTPException):
                        c.close()
                        c = server.conn(timeout=120)
                    reads[0] += 1
                n += 1
            c.close()

        threads = [threading.Thread(target=reader, args=(k,)) for k in range(readers)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        t2 = time.perf_counter()
        with_readers = host_actions(60)
        took = time.perf_counter() - t2
        stop.set()
        for t in threads:
            t.join(120)
        print(
            f"  host actions, {readers} guests reading history in a loop: {ms(with_readers)} "
            f"({reads[0]} history reads, {reads[0] / max(took, 1e-9):.0f}/s)"
        )
        res.add(
            "hardening-history",
            f"a game of {events} events, {readers} guests reading its history in a loop as the"
            " history page does: the host's action latency",
            f"{ms(with_readers)}; {reads[0] / max(took, 1e-9):.0f} history reads/s; with no"
            f" readers {alone}",
        )
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer events and connections")
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--readers", type=int, default=20)
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args(argv)
    res = Results("bench_hardening", write=args.write)
    events = 2000 if args.quick else args.events
    print(f"machine: {platform.machine()}, {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "a")
        try:
            print("bodies")
            bodies(res, server)
            print("images")
            bombs(res, server)
            if not args.quick:
                big_photo(res, server)
            print("connections")
            connections(res, server, [150] if args.quick else [150, 600])
        finally:
            server.stop()
        print("history")
        history(res, Path(tmp) / "b", events, args.readers)
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
