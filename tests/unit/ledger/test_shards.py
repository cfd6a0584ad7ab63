"""The two-phase protocol between ledger shards, as pure functions.

A simulated sharded ledger (each shard its own state, journal, idempotency records, credit
outcomes and pending records, each step atomic in its own shard as a Redis script is) runs
random commands whose steps are interleaved at random: debits whose process then "crashes"
(no step follows until somebody else drives it), credit steps and finishes run by any number
of completers in any order and repeated, replays of a command's key, destinations refusing a
credit. After every step the chips are conserved (the accounts plus what is in flight sum to
zero) and no non-external account is overdrawn; after a recovery that drives every pending
record, nothing is in flight, every shard's journal audits clean against its state, and the
balances equal one unsharded ledger applying each command once (a compensated transfer:
without its refused legs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

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
from services.ledger.core.entries import Metadata, credit, debit
from services.ledger.core.events import EntryPosted, Event, ReservationPosted
from services.ledger.core.shards import (
    CreditOutcome,
    PendingTransfer,
    TransferStatus,
    audit_transit,
    credit_events,
    credit_key,
    home_of_legs,
    plan,
    resolution,
    shard_of,
    transit_account,
)
from services.ledger.core.state import LedgerState, apply
from services.shared.errors import DomainError, InvalidArgument

SHARDS = 4
PLAYERS = [f"player:p{n}:CHIP" for n in range(6)]
TABLES = ["table:t0:CHIP", "table:t1:CHIP", "house:rake:CHIP"]
NAMES = PLAYERS + TABLES
WORLD = "external:world:CHIP"


@dataclass
class Shard:
    state: LedgerState = field(default_factory=LedgerState)
    journal: list[Event] = field(default_factory=list)
    # Idempotency records of the commands homed here: key -> the plan that ran.
    responses: dict[str, object] = field(default_factory=dict)
    credits: dict[str, CreditOutcome] = field(default_factory=dict)
    records: dict[str, tuple[PendingTransfer, TransferStatus]] = field(default_factory=dict)

    def commit(self, events: Sequence[Event]) -> None:
        for event in events:
            self.state = apply(self.state, event)
            self.journal.append(event)


class World:
    def __init__(self, shards: int) -> None:
        self.count = shards
        self.shards = [Shard() for _ in range(shards)]
        # Destinations that refuse a transfer's credit (the limit, in the real store).
        self.refusing: set[tuple[str, int]] = set()

    def merged(self) -> LedgerState:
        accounts: dict[str, object] = {}
        balances: dict[str, int] = {}
        held: dict[str, int] = {}
        reservations: dict[str, object] = {}
        for shard in self.shards:
            accounts |= shard.state.accounts
            balances |= shard.state.balances
            held |= shard.state.held
            reservations |= shard.state.reservations
        return LedgerState(accounts, balances, held, reservations)  # type: ignore[arg-type]

    def submit(self, command: Command) -> str | None:
        """Decide and run the command's first step in its home shard (atomic there); the
        key of its transfer when chips are left in flight, else None."""
        state = self.merged()
        key = getattr(command, "key", "")
        if key:
            for shard in self.shards:
                if key in shard.responses:
                    return key if key in shard.records else None
        try:
            events = decide(state, command)
            steps = plan(events, state, self.count)
        except DomainError:
            return None
        home = self.shards[steps.home]
        home.commit(steps.events)
        if key:
            home.responses[key] = steps
        if steps.pending is None:
            return None
        home.records[steps.pending.transfer_id] = (steps.pending, TransferStatus.PENDING)
        return steps.pending.transfer_id

    def record(self, tid: str) -> PendingTransfer:
        for shard in self.shards:
            if tid in shard.records:
                return shard.records[tid][0]
        raise AssertionError(tid)

    def credit(self, tid: str, dest: int) -> None:
        """A completer's credit step: atomic in `dest`, once per key whoever runs it."""
        pending = self.record(tid)
        if dest not in pending.shard_legs(self.count):
            return
        shard = self.shards[dest]
        key = credit_key(tid, dest)
        if key in shard.credits:
            return
        if (tid, dest) in self.refusing:
            shard.credits[key] = CreditOutcome.REFUSED
            return
        shard.commit(credit_events(pending, dest, shard.state, self.count))
        shard.credits[key] = CreditOutcome.APPLIED

    def finish(self, tid: str) -> None:
        pending = self.record(tid)
        home = self.shards[pending.home]
        if home.records[tid][1] is not TransferStatus.PENDING:
            return
        outcomes = {
            dest: self.shards[dest].credits[credit_key(tid, dest)]
            for dest in pending.shard_legs(self.count)
            if credit_key(tid, dest) in self.shards[dest].credits
        }
        finished = resolution(pending, outcomes, self.count)
        if finished is None:
            return
        home.commit(finished.events)
        home.records[tid] = (pending, finished.status)

    def records(self) -> dict[str, tuple[PendingTransfer, TransferStatus]]:
        return {tid: r for shard in self.shards for tid, r in shard.records.items()}

    def recover(self) -> None:
        """The sweep: drive every pending record to its end."""
        for tid, (pending, status) in self.records().items():
            if status is TransferStatus.PENDING:
                for dest in pending.shard_legs(self.count):
                    self.credit(tid, dest)
                self.finish(tid)

    def check(self) -> None:
        report = audit_transit(
            {n: s.journal for n, s in enumerate(self.shards)}, self.records(), self.count
        )
        assert report.problems == ()
        state = self.merged()
        outside = sum(b for a, b in state.balances.items() if not a.startswith("transit:"))
        assert outside + report.in_flight.get("CHIP", 0) == 0
        for account_id in NAMES:
            assert state.balance(account_id) >= state.held_in(account_id) >= 0


def _setup() -> list[Command]:
    opened: list[Command] = [
        OpenAccount(AccountKind(a.split(":")[0]), a.split(":")[1], "CHIP") for a in NAMES
    ]
    return opened + [Deposit(f"fund/{a}", a, "CHIP", 500) for a in PLAYERS]


@st.composite
def commands(draw: st.DrawFn, number: int) -> Command:
    kind = draw(
        st.sampled_from(["transfer", "settle", "withdraw", "deposit", "reserve", "post", "void"])
    )
    key = f"k{number}"
    small = st.integers(min_value=1, max_value=150)
    if kind == "transfer":
        source, target = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
        amount = draw(small)
        return Transfer(key, (debit(source, "CHIP", amount), credit(target, "CHIP", amount)))
    if kind == "settle":
        source = draw(st.sampled_from(TABLES[:2]))
        winners = draw(st.lists(st.sampled_from(PLAYERS + TABLES[2:]), min_size=1, max_size=4))
        shares = [draw(small) for _ in winners]
        paid = [credit(w, "CHIP", s) for w, s in zip(winners, shares, strict=True)]
        legs = (debit(source, "CHIP", sum(shares)), *paid)
        return Transfer(key, legs, Metadata("t", "h", "settle"))
    if kind == "withdraw":
        return Withdraw(key, draw(st.sampled_from(PLAYERS)), "CHIP", draw(small))
    if kind == "deposit":
        return Deposit(key, draw(st.sampled_from(NAMES)), "CHIP", draw(small))
    rid = f"r{draw(st.integers(min_value=0, max_value=5))}"
    if kind == "reserve":
        player, table = draw(st.sampled_from(PLAYERS)), draw(st.sampled_from(TABLES[:2]))
        amount = draw(small)
        return Reserve(rid, (debit(player, "CHIP", amount), credit(table, "CHIP", amount)))
    if kind == "post":
        return Post(key, rid, draw(st.sampled_from([0, 0, 1, 20])))
    return Void(key, rid)


@st.composite
def runs(draw: st.DrawFn) -> list[tuple[str, int, int]]:
    """Steps: ('submit', command number, 0), ('credit', transfer pick, shard pick),
    ('finish', transfer pick, 0), ('replay', command number, 0), ('refuse', pick, shard)."""
    step = st.tuples(
        st.sampled_from(["submit", "submit", "credit", "credit", "finish", "replay", "refuse"]),
        st.integers(min_value=0, max_value=10_000),
        st.integers(min_value=0, max_value=SHARDS - 1),
    )
    return draw(st.lists(step, min_size=1, max_size=60))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_interleavings_crashes_and_replays_conserve_chips(data: st.DataObject) -> None:
    world = World(SHARDS)
    for command in _setup():
        tid = world.submit(command)
        if tid is not None:
            world.recover()
    world.check()
    submitted: list[Command] = []
    transfers: list[str] = []
    for action, pick, dest in data.draw(runs()):
        if action == "submit":
            command = data.draw(commands(len(submitted)))
            submitted.append(command)
            tid = world.submit(command)
            if tid is not None and tid not in transfers:
                transfers.append(tid)
        elif action == "replay" and submitted:
            world.submit(submitted[pick % len(submitted)])
        elif action == "credit" and transfers:
            world.credit(transfers[pick % len(transfers)], dest)
        elif action == "finish" and transfers:
            world.finish(transfers[pick % len(transfers)])
        elif action == "refuse" and transfers:
            world.refusing.add((transfers[pick % len(transfers)], dest))
        world.check()
    world.recover()
    world.check()
    records = world.records()
    assert all(status is not TransferStatus.PENDING for _, status in records.values())
    report = audit_transit({n: s.journal for n, s in enumerate(world.shards)}, records, SHARDS)
    assert report.in_flight.get("CHIP", 0) == 0 == report.transit_total.get("CHIP", 0)
    for shard in world.shards:
        live = shard.state
        projection = Projection(
            live.accounts,
            live.balances,
            live.held,
            {rid: r.status.value for rid, r in live.reservations.items()},
        )
        assert audit(shard.journal, projection).differences == ()
    _matches_one_ledger(world)


def _matches_one_ledger(world: World) -> None:
    """Every account holds what one unsharded ledger would after applying each posted
    movement once, minus the refused legs of compensated transfers."""
    expected: dict[str, int] = {}
    records = world.records()
    for shard in world.shards:
        for event in shard.journal:
            if not isinstance(event, EntryPosted | ReservationPosted):
                continue
            if any(leg.account_id.startswith("transit:") for leg in event.legs):
                continue  # a step of a transfer: counted below from its record
            for leg in event.legs:
                expected[leg.account_id] = expected.get(leg.account_id, 0) + leg.delta
    for pending, status in records.values():
        finished = resolution(
            pending,
            {
                d: world.shards[d].credits[credit_key(pending.transfer_id, d)]
                for d in pending.shard_legs(SHARDS)
            },
            SHARDS,
        )
        assert finished is not None and finished.status is status
        for leg in pending.legs:
            if leg not in finished.refused:
                expected[leg.account_id] = expected.get(leg.account_id, 0) + leg.delta
        # What a refund returned to the debited accounts.
        for event in finished.events:
            assert isinstance(event, EntryPosted)
            for leg in event.legs:
                if not leg.account_id.startswith("transit:"):
                    expected[leg.account_id] = expected.get(leg.account_id, 0) + leg.delta
    state = world.merged()
    for account_id in [*NAMES, WORLD]:
        assert state.balance(account_id) == expected.get(account_id, 0), account_id


def test_every_account_has_one_shard_and_each_transit_account_its_own() -> None:
    assert {shard_of(a, 1) for a in NAMES} == {0}
    assert all(0 <= shard_of(a, SHARDS) < SHARDS for a in NAMES)
    assert len({shard_of(a, SHARDS) for a in NAMES}) > 1
    for n in range(SHARDS):
        assert shard_of(transit_account(n, "CHIP").id, SHARDS) == n


def test_one_shard_plans_exactly_the_decided_events() -> None:
    world = World(1)
    for command in _setup():
        assert world.submit(command) is None
    state = world.merged()
    events = decide(
        state, Transfer("x", (debit(PLAYERS[0], "CHIP", 5), credit(TABLES[0], "CHIP", 5)))
    )
    steps = plan(events, state, 1)
    assert steps.home == 0 and steps.events == tuple(events) and steps.pending is None


def test_debits_in_two_shards_cannot_cross() -> None:
    by_shard: dict[int, str] = {}
    for account_id in NAMES:
        by_shard.setdefault(shard_of(account_id, SHARDS), account_id)
    first, second = list(by_shard.values())[:2]
    legs = (debit(first, "CHIP", 1), debit(second, "CHIP", 1), credit(WORLD, "CHIP", 2))
    with pytest.raises(InvalidArgument, match="different ledger shards"):
        home_of_legs(legs, SHARDS)


def test_a_transfer_across_shards_moves_through_the_transit_accounts() -> None:
    world = World(SHARDS)
    for command in _setup():
        if world.submit(command) is not None:
            world.recover()
    source = next(p for p in PLAYERS if shard_of(p, SHARDS) != shard_of(TABLES[0], SHARDS))
    tid = world.submit(Transfer("buy", (debit(source, "CHIP", 40), credit(TABLES[0], "CHIP", 40))))
    assert tid == "buy"
    home, dest = shard_of(source, SHARDS), shard_of(TABLES[0], SHARDS)
    before = world.merged().balance(TABLES[0])
    in_flight = sum(b for a, b in world.merged().balances.items() if a.startswith("transit:"))
    assert in_flight == 40 and home != dest
    world.credit(tid, dest)
    world.credit(tid, dest)  # a second completer: nothing more
    assert world.merged().balance(TABLES[0]) == before + 40
    world.finish(tid)
    world.finish(tid)
    assert world.records()[tid][1] is TransferStatus.DONE
    state = world.merged()
    # Nothing in flight any more: the transit accounts together hold nothing.
    assert sum(b for a, b in state.balances.items() if a.startswith("transit:")) == 0
    world.check()


def test_a_refused_credit_returns_the_chips_once() -> None:
    world = World(SHARDS)
    for command in _setup():
        if world.submit(command) is not None:
            world.recover()
    source = next(p for p in PLAYERS if shard_of(p, SHARDS) != shard_of(TABLES[0], SHARDS))
    before = world.merged().balance(source)
    tid = world.submit(Transfer("buy", (debit(source, "CHIP", 40), credit(TABLES[0], "CHIP", 40))))
    assert tid is not None
    dest = shard_of(TABLES[0], SHARDS)
    world.refusing.add((tid, dest))
    world.finish(tid)  # outcome unknown yet: nothing
    assert world.records()[tid][1] is TransferStatus.PENDING
    world.credit(tid, dest)
    world.refusing.clear()  # the refusal is recorded: a later credit step does not apply
    world.credit(tid, dest)
    world.finish(tid)
    world.finish(tid)
    assert world.records()[tid][1] is TransferStatus.COMPENSATED
    assert world.merged().balance(source) == before
    world.check()


def test_transit_accounts_refuse_callers() -> None:
    world = World(SHARDS)
    for command in _setup():
        if world.submit(command) is not None:
            world.recover()
    transit = transit_account(0, "CHIP").id
    state = world.merged()
    with pytest.raises(InvalidArgument, match="transit"):
        decide(state, Transfer("x", (debit(transit, "CHIP", 1), credit(PLAYERS[0], "CHIP", 1))))
    with pytest.raises(InvalidArgument, match="transit"):
        decide(state, Deposit("y", transit, "CHIP", 1))


def test_the_audit_sees_a_credit_applied_twice() -> None:
    world = World(SHARDS)
    for command in _setup():
        if world.submit(command) is not None:
            world.recover()
    source = next(p for p in PLAYERS if shard_of(p, SHARDS) != shard_of(TABLES[0], SHARDS))
    tid = world.submit(Transfer("buy", (debit(source, "CHIP", 40), credit(TABLES[0], "CHIP", 40))))
    assert tid is not None
    dest = shard_of(TABLES[0], SHARDS)
    world.credit(tid, dest)
    shard = world.shards[dest]
    shard.commit(credit_events(world.record(tid), dest, shard.state, SHARDS))
    report = audit_transit(
        {n: s.journal for n, s in enumerate(world.shards)}, world.records(), SHARDS
    )
    assert any("credited twice" in problem for problem in report.problems)
    assert any("transit accounts hold" in problem for problem in report.problems)
