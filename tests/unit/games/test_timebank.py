"""Time banks: extension events, refills, exhaustion."""

from __future__ import annotations

import pytest

from services.games.timebank import (
    TimeBankExtended,
    TimeBankRefilled,
    TimeBankRules,
    TimeBanks,
    apply_all,
    deadline_for,
    on_deadline,
    on_hand_started,
    on_seated,
)

RULES = TimeBankRules(
    action_time_ms=15_000, bank_ms=30_000, chunk_ms=10_000, refill_ms=5_000, refill_every_hands=10
)


def seated(*seats: int) -> TimeBanks:
    banks = TimeBanks()
    for seat in seats:
        banks = apply_all(banks, on_seated(RULES, seat))
    return banks


def test_the_normal_deadline_is_the_action_time_after_the_request() -> None:
    assert deadline_for(RULES, 1_000) == 16_000
    assert deadline_for(TimeBankRules(action_time_ms=0), 1_000) == 0


def test_a_spent_action_time_draws_one_chunk_of_the_bank_as_an_extension_event() -> None:
    banks = seated(2)
    events = on_deadline(banks, RULES, seat=2, hand=7, action_number=3, deadline_unix_ms=50_000)
    assert events == [TimeBankExtended(2, 7, 3, 10_000, 20_000, 60_000)]
    assert apply_all(banks, events).of(2) == 20_000


def test_an_exhausted_bank_gives_no_extension_so_the_player_times_out() -> None:
    banks = seated(1)
    for _ in range(3):
        banks = apply_all(banks, on_deadline(banks, RULES, 1, 1, 1, 0))
    assert banks.of(1) == 0
    assert on_deadline(banks, RULES, 1, 1, 2, 0) == []


def test_without_a_chunk_size_the_whole_bank_is_granted_at_once() -> None:
    rules = TimeBankRules(action_time_ms=10_000, bank_ms=25_000)
    banks = apply_all(TimeBanks(), on_seated(rules, 0))
    (extension,) = on_deadline(banks, rules, 0, 1, 1, 100)
    assert isinstance(extension, TimeBankExtended)
    assert (extension.used_ms, extension.remaining_ms, extension.deadline_unix_ms) == (
        25_000,
        0,
        25_100,
    )


def test_banks_refill_every_n_hands_up_to_the_cap() -> None:
    banks = seated(0, 1)
    banks = apply_all(banks, on_deadline(banks, RULES, 0, 1, 1, 0))  # seat 0 down to 20 s
    assert on_hand_started(banks, RULES, hand=9, seats=[0, 1]) == []
    events = on_hand_started(banks, RULES, hand=10, seats=[0, 1])
    assert events == [TimeBankRefilled(0, 5_000, 25_000)]  # seat 1 is full already
    assert apply_all(banks, events).of(0) == 25_000


def test_negative_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        TimeBankRules(action_time_ms=-1)


def test_a_chunk_larger_than_what_is_left_grants_only_the_rest_of_the_bank() -> None:
    banks = seated(3)
    for _ in range(2):  # 30 s bank, 10 s chunks: 10 s left
        banks = apply_all(banks, on_deadline(banks, RULES, 3, 1, 1, 0))
    rules = TimeBankRules(action_time_ms=15_000, bank_ms=30_000, chunk_ms=25_000)
    (extension,) = on_deadline(banks, rules, 3, 1, 2, 1_000)
    assert isinstance(extension, TimeBankExtended)
    assert (extension.used_ms, extension.remaining_ms, extension.deadline_unix_ms) == (
        10_000,
        0,
        11_000,
    )


def test_a_cap_above_the_starting_bank_lets_refills_grow_the_bank_but_never_past_the_cap() -> None:
    rules = TimeBankRules(
        action_time_ms=15_000,
        bank_ms=30_000,
        refill_ms=8_000,
        refill_every_hands=1,
        cap_ms=35_000,
    )
    banks = apply_all(TimeBanks(), on_seated(rules, 0))
    first = on_hand_started(banks, rules, hand=1, seats=[0])
    assert first == [TimeBankRefilled(0, 5_000, 35_000)]  # 8 s due, 5 s fit under the cap
    banks = apply_all(banks, first)
    assert on_hand_started(banks, rules, hand=2, seats=[0]) == []  # at the cap: nothing
