"""Fuzzing the API on the real server: random JSON (hypothesis, derandomized) for every action
type of every game, every observation kind and every endpoint that reads input. Whatever comes
in, the answer is never a 5xx."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import GAMES, game_kind
from companion.service.shapes import BUTTONS, OBSERVATION_KINDS, SERVICE_STEPS, TABLE_TYPES

from .conftest import TOKEN
from .live import LOOPBACK, LiveServer

pytestmark = pytest.mark.slow

EUROPE_PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
ACTION_TYPES = sorted(
    {
        *TABLE_TYPES,
        *SERVICE_STEPS,
        "new_game",
        "undo",
        "redo",
        "replace",
        *(t for g in GAMES[1:] for t in game_kind(g).action_types),
    }
)
FIELDS = [
    "player", "route", "cards", "tickets", "count", "city", "seq", "color", "revealed", "extra",
    "players", "mode", "variant", "game", "payment_mode", "routes", "stations", "action",
    "accept", "card", "ticket", "uid", "kind", "name", "unsure", "line", "stop", "tram",
    "penalties", "position", "points", "options", "rotate", "locomotives", "after", "replace",
    "early", "tickets_tracked", "turn_needs_action", "auto_end",
]  # fmt: skip
COLORS = ["red", "blue", "green", "yellow", "black", "purple", "white", "RED", "", "x" * 300]
BIG = [2**53, 2**53 + 1, 2**63, 2**64, -(2**63) - 1, 10**300]  # 4,300 digits: test_odd_json
EXAMPLES = 150


def numbers() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.integers(-(2**70), 2**70),
        st.sampled_from(BIG),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from([0, 1, -1, 2, 3, 0.5, 1e308]),
    )


def leaves() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        numbers(),
        st.text(max_size=12),
        st.sampled_from([*COLORS, "berlin-wien", "wien", "paris-wien", "locomotive", "orange"]),
    )


JSON = st.recursive(
    leaves(),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


@st.composite
def actions(draw: st.DrawFn, kinds: list[str], key: str = "type") -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)  # not even an object, sometimes
    out: dict[str, Any] = {key: draw(st.one_of(st.sampled_from(kinds), JSON))}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=5, unique=True)):
        out[name] = draw(JSON)
    if "player" in out and draw(st.booleans()):
        out["player"] = draw(st.sampled_from(COLORS))
    return out


class Client:
    def __init__(self, live: LiveServer) -> None:
        self.live = live
        self.conn = http.client.HTTPConnection(LOOPBACK, live.port, timeout=20)

    def send(self, method: str, path: str, body: Any = None, token: str = TOKEN) -> int:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                break
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()  # the server closed a kept-alive connection: once more
                self.conn = http.client.HTTPConnection(LOOPBACK, self.live.port, timeout=20)
                if attempt:
                    raise
        assert resp.status < 500, f"{method} {path} {body!r}: {resp.status} {raw[:300]!r}"
        return resp.status


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path_factory.mktemp("fuzz") / "state", threads=4)
    yield s
    s.close()


@pytest.fixture(scope="module")
def client(live: LiveServer) -> Iterator[Client]:
    c = Client(live)
    yield c
    c.conn.close()


def new_game(client: Client, game: str) -> None:
    body: dict[str, Any] = {"type": "new_game", "players": EUROPE_PLAYERS, "replace": True}
    if game != "europe":
        body["game"] = game
    assert client.send("POST", "/api/actions", body) == 200


def player_token(client: Client, color: str) -> str:
    conn = http.client.HTTPConnection(LOOPBACK, client.live.port, timeout=10)
    conn.request(
        "POST",
        f"/api/players/{color}/pair",
        body=b"{}",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    url = json.loads(conn.getresponse().read())["url"]
    conn.close()
    return str(url.rsplit("/", 1)[1])


FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)


@pytest.mark.parametrize("game", GAMES)
def test_actions_of_every_game_never_give_a_5xx(client: Client, game: str) -> None:
    new_game(client, game)
    red = player_token(client, "red")

    @FUZZ
    @given(body=actions(ACTION_TYPES), as_player=st.booleans())
    def run(body: Any, as_player: bool) -> None:
        if isinstance(body, dict) and body.get("type") == "new_game" and game != "europe":
            body.setdefault("game", game)
        client.send("POST", "/api/actions", body, red if as_player else TOKEN)

    run()


def test_observations_never_give_a_5xx(client: Client) -> None:
    new_game(client, "europe")

    @FUZZ
    @given(body=actions([*OBSERVATION_KINDS, *BUTTONS], key="kind"))
    def run(body: Any) -> None:
        client.send("POST", "/api/observations", body)

    run()


def test_other_endpoints_never_give_a_5xx(client: Client) -> None:
    new_game(client, "europe")
    red = player_token(client, "red")
    game = client.live.service.state()["game_id"]
    ids = st.one_of(st.text(max_size=30), st.sampled_from([game, "p1", "c1", "1", "..", "%00"]))
    seqs = st.one_of(st.text(max_size=30), numbers().map(str))

    @FUZZ
    @given(
        which=st.integers(0, 9),
        ident=ids,
        seq=seqs,
        body=JSON,
        color=st.sampled_from(COLORS),
        as_player=st.booleans(),
    )
    def run(which: int, ident: str, seq: str, body: Any, color: str, as_player: bool) -> None:
        token = red if as_player else TOKEN
        i, c, s = quote(ident, safe=""), quote(color, safe=""), quote(seq, safe="")
        # (method, path, body) of each endpoint, as ``which`` picks them
        requests = [
            ("POST", f"/api/confirmations/{i}", body),
            ("POST", "/api/pending/clear", body),
            ("POST", f"/api/players/{c}/pair", body),
            ("GET", f"/api/games/{i}/state?seq={s}", None),
            ("GET", f"/api/games/{i}", None),
            ("GET", f"/api/games/{i}/events", None),
            ("GET", f"/api/players/{c}/tickets", None),
            ("GET", f"/api/photo/{i}", None),
            ("GET", f"/api/map/{i}", None),
            ("POST", "/api/actions", {"type": "undo", "seq": body}),
        ]
        method, path, sent = requests[which]
        client.send(method, path, sent, token)

    run()
