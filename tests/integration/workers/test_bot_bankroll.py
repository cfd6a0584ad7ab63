"""All requested bots together take at most the house's bot bankroll: every buy-in is a
transfer out of `house:bots:<currency>`, which cannot go below zero, and the bankroll is
filled from external:world once. A bot the bankroll cannot cover is refused before any chip
moves and sits once an operator deposits more. Seatings here run in the test's process
against the real table service and ledger (no worker: nothing else seats these bots)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from services.shared import auth
from services.shared.channels import connect
from services.table.ports import NoScheduler
from services.workers.bot_seats import GrpcBotSeater, SeatOutcome, bankroll_account, seated_bot_id
from tests.integration.table.conftest import KEY, create_table

from .table_stack import StackPlatform, table_stack

pytestmark = pytest.mark.integration
BUY_IN = 200  # 100 big blinds at 1/2
BANKROLL = 300  # one buy-in and a half
WORLD = "external:world:CHIP"


@pytest.fixture
def platform(redis_url: str, key_prefix: str) -> Iterator[StackPlatform]:
    with table_stack(redis_url, f"ledger-bankroll-{key_prefix}", NoScheduler()) as handle:
        yield handle


def seater(platform: StackPlatform) -> GrpcBotSeater:
    table = connect(f"127.0.0.1:{platform.port}")
    ledger = connect(
        f"127.0.0.1:{platform.ledger_port}", auth.issue_token(KEY, "workers", auth.Role.SERVICE)
    )
    platform.channels += [table, ledger]
    return GrpcBotSeater(table, ledger, KEY, bankroll=BANKROLL)


def test_bots_draw_on_the_bankroll_and_are_refused_when_it_runs_short(
    platform: StackPlatform,
) -> None:
    bots = [("tight", 0.5), ("random", 0.0)]
    table_id = create_table(platform, seats=4, max_buy_in=1000, bots=bots)
    first = seater(platform)
    assert first.seat(table_id, 0, *bots[0]) is SeatOutcome.SEATED
    assert platform.balance(bankroll_account("CHIP")) == BANKROLL - BUY_IN
    assert platform.balance(WORLD) == -BANKROLL  # filled once; the bot's chips came from it

    # The second buy-in is more than is left: refused, and no chip moved anywhere.
    assert first.seat(table_id, 1, *bots[1]) is SeatOutcome.REFUSED
    second_bot = f"player:{seated_bot_id(table_id, 1, *bots[1])}:CHIP"
    assert platform.balance(second_bot) == 0
    assert platform.balance(bankroll_account("CHIP")) == BANKROLL - BUY_IN
    assert platform.balance(WORLD) == -BANKROLL

    # A worker restarted with the same setting does not fill the bankroll again...
    restarted = seater(platform)
    assert restarted.seat(table_id, 1, *bots[1]) is SeatOutcome.REFUSED
    assert platform.balance(WORLD) == -BANKROLL
    # ... and once an operator deposits more, the bot sits down.
    platform.ledger().Deposit(
        ledger_pb2.DepositRequest(
            idempotency_key="operator/bankroll/1",
            account_id=bankroll_account("CHIP"),
            amount=chips_pb2.ChipAmount(currency="CHIP", amount=BUY_IN),
        )
    )
    assert restarted.seat(table_id, 1, *bots[1]) is SeatOutcome.SEATED
    assert platform.balance(bankroll_account("CHIP")) == BANKROLL - BUY_IN
    assert platform.balance(f"table:{table_id}:CHIP") == 2 * BUY_IN
    assert platform.ledger().Audit(ledger_pb2.AuditRequest()).clean
