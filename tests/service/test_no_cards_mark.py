"""A claim entered with no cards at a lenient table is marked for the host: the claim's logged
event carries the mark, a replay of the log has it, and the host accepts it like a wrong
payment (issue 23)."""

from __future__ import annotations

import json
from pathlib import Path

from companion.service import Actor, Service
from companion.store import EventStore
from tests.service.pure_games import keep_first_tickets

HOST = Actor.host()
PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


def test_a_claim_with_no_cards_is_marked_in_the_log_until_the_host_accepts_it(
    svc: Service, tmp_path: Path
) -> None:
    svc.act({"type": "new_game", "players": PLAYERS, "payment_mode": "lenient"}, HOST)
    keep_first_tickets(svc, HOST)
    st = svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    assert "berlin-wien" in st["players"][0]["routes"]
    [mark] = st["problems"]
    assert (mark["player"], mark["place"], mark["code"], mark["cards"]) == (
        "red",
        "berlin-wien",
        "rule.no-cards-entered",
        [],
    )
    assert mark["params"]["need"] == 3 and mark["params"]["need_card"] == "green"
    [claimed] = [e for e in svc.store.events(st["game_id"]) if e.action["type"] == "claim"]
    assert claimed.action["problems"][0]["code"] == "rule.no-cards-entered"
    with EventStore(tmp_path) as store:  # the log alone gives the same mark
        assert json.loads(Service(store).state_json())["problems"] == [mark]
    st = svc.act({"type": "accept_problem", "problem": mark["id"]}, HOST)
    assert st["problems"] == [] and "berlin-wien" in st["players"][0]["routes"]


def test_an_off_table_marks_nothing(svc: Service) -> None:
    svc.act({"type": "new_game", "players": PLAYERS, "payment_mode": "off"}, HOST)
    keep_first_tickets(svc, HOST)
    st = svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    assert st["problems"] == [] and "berlin-wien" in st["players"][0]["routes"]
