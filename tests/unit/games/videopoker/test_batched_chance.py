"""`pending_chances`: the requests a shell may fetch at once, answered in order, deal exactly
what one request at a time deals."""

from __future__ import annotations

import pytest

from services.games import contract as c
from services.games.videopoker import RULES, Deal, Hold
from tests.unit.games.videopoker.machine import Machine


def _batched(machine: Machine) -> list[int]:
    """Answer every batch in order (as a shell that fetched it at once would), checking that
    each request is then exactly the one `pending_chance` asks for; the batch sizes."""
    sizes = []
    while batch := RULES.pending_chances(machine.state):
        sizes.append(len(batch))
        for request in batch:
            assert RULES.pending_chance(machine.state) == request
            machine.requests.append(request)
            machine.do(machine.answer(request))
    assert RULES.pending_chance(machine.state) is None
    return sizes


@pytest.mark.parametrize(
    ("lines", "coins", "ticket", "hold"),
    [
        (10, 5, "", (0, 1)),
        (10, 10, "3h", (1,)),  # a dealt split card
        (10, 10, "Ac", (0, 2)),  # the undealt split card, located before the draws
        (5, 10, "Ad", (0, 1, 2, 3, 4)),  # all held: nothing is drawn, the stub never read
        (3, 1, "", ()),
    ],
)
def test_batches_deal_what_one_request_at_a_time_deals(
    lines: int, coins: int, ticket: str, hold: tuple[int, ...]
) -> None:
    decks = {"split": (ticket,)} if ticket else {}
    one, many = Machine(decks=dict(decks)), Machine(decks=dict(decks))
    for machine in (one, many):
        machine.sit(1000)
    one.deal(lines, coins)
    one.hold(*hold)
    many.do(c.Move(0, Deal(lines, coins, "jacks-9-6"), by="alice"))
    dealing = _batched(many)
    many.do(c.Move(0, Hold(0, hold), by="alice"))
    drawing = _batched(many)
    assert many.events == one.events
    assert many.requests == one.requests
    assert len(dealing) + len(drawing) < len(one.requests)
    assert (many.house, many.escrow) == (one.house, one.escrow)


def test_a_ten_line_split_round_is_eight_steps_not_thirty_eight_requests() -> None:
    machine = Machine(decks={"split": ("Ac",), "line-1": ("2c", "3c", "4c")})
    machine.sit(1000)
    machine.do(c.Move(0, Deal(10, 10, "jacks-9-6"), by="alice"))
    dealing = _batched(machine)
    machine.do(c.Move(0, Hold(0, (0, 1)), by="alice"))
    drawing = _batched(machine)
    # bet | deal + split shuffles | five cards + ticket | ten line decks ; (hold) ;
    # the undealt split card + ten line draws | the win when there is one | twelve closes
    assert dealing == [1, 2, 2, 10]
    assert drawing[0] == 11 and drawing[-1] == 12
    assert len(machine.requests) >= 38
