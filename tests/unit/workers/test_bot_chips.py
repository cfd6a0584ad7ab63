"""A requested bot's chips come in rounds: one issue, closed by a seat or by its return.
The open round is read from the bot account's movements, so every try finds the same one."""

from __future__ import annotations

from services.workers.bot_chips import (
    Funding,
    Movement,
    funding_of,
    issue_key,
    join_key,
    return_key,
)


def test_a_bot_without_movements_is_in_round_zero_with_nothing_issued() -> None:
    assert funding_of("t1", 2, []) == Funding(round=0, issued=0)


def test_an_issue_not_yet_returned_stays_out_and_is_not_issued_again() -> None:
    movements = [Movement(issue_key("t1", 2, 0), 200)]
    assert funding_of("t1", 2, movements) == Funding(round=0, issued=200)


def test_a_returned_issue_closes_its_round_and_the_next_try_opens_the_next() -> None:
    movements = [Movement(return_key("t1", 2, 0), -200), Movement(issue_key("t1", 2, 0), 200)]
    assert funding_of("t1", 2, movements) == Funding(round=1, issued=0)
    movements.insert(0, Movement(issue_key("t1", 2, 1), 200))
    assert funding_of("t1", 2, movements) == Funding(round=1, issued=200)


def test_the_tables_buy_in_hold_and_another_bots_keys_do_not_count() -> None:
    movements = [
        Movement("t1/join/bot-x/seat-bot-2/0/0", -200),  # the table's post of its hold
        Movement(issue_key("t1", 3, 0), 200),  # bot 3 of the same table
        Movement(issue_key("t10", 2, 0), 200),  # bot 2 of a table whose id starts the same
        Movement(issue_key("t1", 2, 0) + "x", 200),
        Movement(issue_key("t1", 2, 0), 200),
    ]
    assert funding_of("t1", 2, movements) == Funding(round=0, issued=200)


def test_every_round_has_its_own_keys() -> None:
    assert issue_key("t1", 2, 0) == "seat-bot/t1/2/0"
    assert return_key("t1", 2, 0) == "seat-bot/t1/2/0/return"
    assert len({join_key(2, 0, 0), join_key(2, 1, 0), join_key(2, 0, 1)}) == 3
    assert len({issue_key("t1", 2, r) for r in range(3)} | {return_key("t1", 2, 0)}) == 4


def test_every_voided_hold_on_the_bots_chips_changes_the_next_join_key() -> None:
    # A join refused after the table reserved the buy-in: the table voided its hold. The key
    # must not be used again (the table would replay the voided hold), so the count moves on.
    movements = [
        Movement(issue_key("t1", 2, 0), 200),
        Movement("t1/join/bot-x/seat-bot-2/0/0", 0),  # reserved
        Movement("t1/join/bot-x/seat-bot-2/0/0", 0, hold_voided=True),
    ]
    assert funding_of("t1", 2, movements) == Funding(round=0, issued=200, voids=1)
