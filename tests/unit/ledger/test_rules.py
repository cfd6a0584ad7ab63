"""The ledger's rules, one per test, through decide/apply only."""

from __future__ import annotations

import pytest

from services.ledger.core.accounts import AccountKind, parse_account_id
from services.ledger.core.commands import (
    Command,
    Deposit,
    OpenAccount,
    Post,
    Reserve,
    Transfer,
    Void,
    Withdraw,
)
from services.ledger.core.decide import decide
from services.ledger.core.entries import MAX_CHIPS, credit, debit
from services.ledger.core.events import AccountOpened, EntryPosted
from services.ledger.core.state import LedgerState, ReservationStatus, apply_all
from services.shared.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)

ALICE, BOB, TABLE, HOUSE = (
    "player:alice:CHIP",
    "player:bob:CHIP",
    "table:t1:CHIP",
    "house:rake:CHIP",
)


def run(state: LedgerState, *commands: Command) -> LedgerState:
    for command in commands:
        state = apply_all(state, decide(state, command))
    return state


@pytest.fixture
def funded() -> LedgerState:
    state = run(
        LedgerState(),
        OpenAccount(AccountKind.PLAYER, "alice", "CHIP"),
        OpenAccount(AccountKind.PLAYER, "bob", "CHIP"),
        OpenAccount(AccountKind.TABLE, "t1", "CHIP"),
        OpenAccount(AccountKind.HOUSE, "rake", "CHIP"),
        OpenAccount(AccountKind.PLAYER, "carol", "GOLD"),
        Deposit("d1", ALICE, "CHIP", 500),
    )
    return state


def test_deposit_opens_the_external_account_and_sums_to_zero(funded: LedgerState) -> None:
    assert funded.balance(ALICE) == 500
    assert funded.balance("external:world:CHIP") == -500


def test_opening_an_existing_account_changes_nothing(funded: LedgerState) -> None:
    assert decide(funded, OpenAccount(AccountKind.PLAYER, "alice", "CHIP")) == []


def test_account_names_cannot_contain_colons() -> None:
    with pytest.raises(InvalidArgument, match="no ':'"):
        decide(LedgerState(), OpenAccount(AccountKind.PLAYER, "a:b", "CHIP"))


def test_malformed_account_id_is_invalid() -> None:
    with pytest.raises(InvalidArgument, match="<kind>:<name>:<currency>"):
        parse_account_id("alice")


@pytest.mark.parametrize("amount", [0, -5])
def test_zero_and_negative_amounts_are_rejected(funded: LedgerState, amount: int) -> None:
    with pytest.raises(InvalidArgument, match="positive whole number"):
        decide(funded, Transfer("x", (debit(ALICE, "CHIP", amount), credit(BOB, "CHIP", amount))))
    with pytest.raises(InvalidArgument, match="positive whole number"):
        decide(funded, Deposit("x", ALICE, "CHIP", amount))


def test_unbalanced_legs_are_rejected(funded: LedgerState) -> None:
    legs = (debit(ALICE, "CHIP", 100), credit(BOB, "CHIP", 90))
    with pytest.raises(InvalidArgument, match="debits total 100 CHIP, credits total 90"):
        decide(funded, Transfer("x", legs))


def test_mixed_currencies_are_rejected(funded: LedgerState) -> None:
    legs = (debit(ALICE, "CHIP", 10), credit("player:carol:GOLD", "GOLD", 10))
    with pytest.raises(InvalidArgument, match="mix CHIP, GOLD"):
        decide(funded, Transfer("x", legs))
    with pytest.raises(InvalidArgument, match="holds GOLD"):
        decide(funded, Deposit("x", "player:carol:GOLD", "CHIP", 10))


def test_unknown_account_is_not_found(funded: LedgerState) -> None:
    legs = (debit(ALICE, "CHIP", 10), credit("player:zed:CHIP", "CHIP", 10))
    with pytest.raises(NotFound, match="player:zed:CHIP does not exist"):
        decide(funded, Transfer("x", legs))
    with pytest.raises(NotFound):
        decide(funded, Deposit("x", "player:zed:CHIP", "CHIP", 10))


def test_overdraft_names_the_available_balance(funded: LedgerState) -> None:
    state = run(funded, Reserve("r1", (debit(ALICE, "CHIP", 200), credit(TABLE, "CHIP", 200))))
    with pytest.raises(FailedPrecondition, match=r"available 300 CHIP \(balance 500, held 200\)"):
        decide(state, Withdraw("w", ALICE, "CHIP", 301))


def test_settlement_pays_several_winners_and_the_house_in_one_entry(
    funded: LedgerState,
) -> None:
    state = run(
        funded,
        Transfer("buyin", (debit(ALICE, "CHIP", 300), credit(TABLE, "CHIP", 300))),
        Transfer(
            "t1/h1/settle",
            (
                debit(TABLE, "CHIP", 300),
                credit(ALICE, "CHIP", 150),
                credit(BOB, "CHIP", 140),
                credit(HOUSE, "CHIP", 10),
            ),
        ),
    )
    assert (state.balance(ALICE), state.balance(BOB), state.balance(HOUSE)) == (350, 140, 10)
    assert state.balance(TABLE) == 0


def test_reserve_holds_then_post_moves_the_chips(funded: LedgerState) -> None:
    legs = (debit(ALICE, "CHIP", 200), credit(TABLE, "CHIP", 200))
    state = run(funded, Reserve("r1", legs))
    assert (state.balance(ALICE), state.available(ALICE)) == (500, 300)
    state = run(state, Post("r1/post", "r1"))
    assert (state.balance(ALICE), state.available(ALICE), state.balance(TABLE)) == (300, 300, 200)
    assert state.reservations["r1"].status is ReservationStatus.POSTED


def test_void_returns_the_held_chips(funded: LedgerState) -> None:
    state = run(funded, Reserve("r1", (debit(ALICE, "CHIP", 200), credit(TABLE, "CHIP", 200))))
    state = run(state, Void("r1/void", "r1", "hand aborted"))
    assert (state.balance(ALICE), state.available(ALICE), state.balance(TABLE)) == (500, 500, 0)


def test_partial_post_moves_less_and_releases_the_rest(funded: LedgerState) -> None:
    state = run(funded, Reserve("r1", (debit(ALICE, "CHIP", 200), credit(TABLE, "CHIP", 200))))
    state = run(state, Post("r1/post", "r1", amount=60))
    assert (state.balance(ALICE), state.available(ALICE), state.balance(TABLE)) == (440, 440, 60)
    with pytest.raises(InvalidArgument, match="between 1 and the reserved 200"):
        decide(
            run(funded, Reserve("r2", (debit(ALICE, "CHIP", 200), credit(TABLE, "CHIP", 200)))),
            Post("p", "r2", amount=201),
        )


@pytest.mark.parametrize(
    ("first", "second", "word"),
    [
        (Post("p1", "r1"), Post("p2", "r1"), "posted"),
        (Void("v1", "r1"), Post("p2", "r1"), "voided"),
        (Post("p1", "r1"), Void("v2", "r1"), "posted"),
        (Void("v1", "r1"), Void("v2", "r1"), "voided"),
    ],
)
def test_a_reservation_is_resolved_at_most_once(
    funded: LedgerState, first: Post | Void, second: Post | Void, word: str
) -> None:
    state = run(funded, Reserve("r1", (debit(ALICE, "CHIP", 10), credit(TABLE, "CHIP", 10))))
    state = run(state, first)
    with pytest.raises(FailedPrecondition, match=f"already {word}"):
        decide(state, second)


def test_reservation_ids_are_unique(funded: LedgerState) -> None:
    legs = (debit(ALICE, "CHIP", 10), credit(TABLE, "CHIP", 10))
    state = run(funded, Reserve("r1", legs))
    with pytest.raises(AlreadyExists):
        decide(state, Reserve("r1", legs))


def test_posting_an_unknown_reservation_is_not_found(funded: LedgerState) -> None:
    with pytest.raises(NotFound, match="reservation 'nope'"):
        decide(funded, Post("p", "nope"))


def test_cannot_deposit_into_the_external_account(funded: LedgerState) -> None:
    with pytest.raises(InvalidArgument, match="external account"):
        decide(funded, Deposit("x", "external:world:CHIP", "CHIP", 5))


def test_idempotency_key_must_be_present(funded: LedgerState) -> None:
    with pytest.raises(InvalidArgument, match="idempotency_key"):
        decide(funded, Deposit("", ALICE, "CHIP", 5))


def test_deposit_events_carry_the_key_as_entry_id(funded: LedgerState) -> None:
    events = decide(funded, Deposit("d2", ALICE, "CHIP", 5))
    assert isinstance(events[-1], EntryPosted) and events[-1].entry_id == "d2"
    assert not any(isinstance(e, AccountOpened) for e in events)


def test_amounts_and_balances_stay_within_exact_integer_range(funded: LedgerState) -> None:
    with pytest.raises(InvalidArgument, match="exceeds the maximum"):
        decide(funded, Deposit("big", ALICE, "CHIP", MAX_CHIPS + 1))
    with pytest.raises(FailedPrecondition, match="balances are limited"):
        decide(funded, Deposit("big", ALICE, "CHIP", MAX_CHIPS - 100))
