"""Properties: random command sequences never overdraw, always sum to zero, and replaying the
journal (through the audit) reproduces the live state."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.ledger.core.accounts import AccountKind
from services.ledger.core.audit import Projection, audit
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
from services.ledger.core.entries import Leg, Side
from services.ledger.core.events import Event
from services.ledger.core.state import LedgerState, ReservationStatus, apply, apply_all
from services.shared.errors import DomainError

NAMES = ["player:a:CHIP", "player:b:CHIP", "table:t:CHIP", "house:h:CHIP"]
SETUP = [
    OpenAccount(AccountKind.PLAYER, "a", "CHIP"),
    OpenAccount(AccountKind.PLAYER, "b", "CHIP"),
    OpenAccount(AccountKind.TABLE, "t", "CHIP"),
    OpenAccount(AccountKind.HOUSE, "h", "CHIP"),
]
# Some chips from the start, so most reservations succeed and Post/Void get exercised.
FUNDING = [Deposit(f"fund/{name}", name, "CHIP", 300) for name in NAMES[:3]]

# Mostly valid amounts, now and then zero or negative ones that must be rejected.
amounts = st.one_of(st.integers(min_value=1, max_value=200), st.integers(min_value=-2, max_value=0))
accounts = st.sampled_from([*NAMES, "external:world:CHIP"])
legs = st.lists(
    st.builds(Leg, accounts, st.sampled_from(list(Side)), st.just("CHIP"), amounts),
    min_size=1,
    max_size=4,
)


@st.composite
def balanced(draw: st.DrawFn) -> tuple[Leg, ...]:
    """Legs that balance: a few debits, a few credits, the last credit absorbing the rest."""
    small = st.integers(min_value=1, max_value=120)
    debits = draw(st.lists(st.tuples(accounts, small), min_size=1, max_size=2))
    credits = draw(st.lists(accounts, min_size=1, max_size=3))
    total = sum(amount for _, amount in debits)
    shares = [1] * (len(credits) - 1) if total >= len(credits) else []
    shares.append(total - sum(shares))
    return (
        *(Leg(a, Side.DEBIT, "CHIP", amount) for a, amount in debits),
        *(Leg(a, Side.CREDIT, "CHIP", share) for a, share in zip(credits, shares, strict=False)),
    )


keys = st.integers(min_value=0, max_value=8).map(lambda n: f"k{n}")
# Reservations draw ids from a small pool of their own so Post/Void often find one.
rids = st.integers(min_value=0, max_value=3).map(lambda n: f"r{n}")
commands = st.one_of(
    st.builds(Deposit, keys, st.sampled_from(NAMES), st.just("CHIP"), amounts),
    st.builds(Deposit, keys, st.sampled_from(NAMES), st.just("CHIP"), amounts),
    st.builds(Withdraw, keys, st.sampled_from(NAMES), st.just("CHIP"), amounts),
    st.builds(Transfer, keys, balanced()),
    st.builds(Transfer, keys, legs.map(tuple)),
    st.builds(Reserve, rids, balanced()),
    st.builds(Reserve, rids, balanced()),
    st.builds(Post, keys, rids, st.integers(min_value=0, max_value=150)),
    st.builds(Post, keys, rids),
    st.builds(Void, keys, rids),
)


def run_sequence(sequence: Sequence[Command]) -> tuple[LedgerState, list[Event]]:
    state = LedgerState()
    journal: list[Event] = []
    run: list[Command] = [*SETUP, *FUNDING, *sequence]
    for command in run:
        try:
            events = decide(state, command)
        except DomainError:
            continue
        for event in events:
            state = apply(state, event)
            journal.append(event)
        for account_id, account in state.accounts.items():
            if not account.may_go_negative:
                assert state.balance(account_id) >= 0, (command, state)
                assert state.available(account_id) >= 0, (command, state)
        assert sum(state.balances.values()) == 0
    return state, journal


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(commands, min_size=5, max_size=40))
def test_random_sequences_never_overdraw_and_always_sum_to_zero(sequence: list[Command]) -> None:
    run_sequence(sequence)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(commands, min_size=5, max_size=40))
def test_replaying_the_journal_gives_the_live_balances(sequence: list[Command]) -> None:
    state, journal = run_sequence(sequence)
    assert apply_all(LedgerState(), journal) == state
    report = audit(
        journal,
        Projection(
            accounts=state.accounts,
            balances=state.balances,
            held=state.held,
            reservation_status={r: v.status.value for r, v in state.reservations.items()},
        ),
    )
    assert report.clean, report.differences
    assert report.open_reservations == sum(
        1 for r in state.reservations.values() if r.status is ReservationStatus.PENDING
    )


def test_audit_reports_a_tampered_projection() -> None:
    state, journal = run_sequence([Deposit("d", NAMES[0], "CHIP", 50)])
    report = audit(
        journal,
        Projection(state.accounts, {**state.balances, NAMES[0]: 40}, state.held),
    )
    assert not report.clean
    assert any("journal says balance 350, projection 40" in d for d in report.differences)
