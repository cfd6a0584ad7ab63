"""Bad input raises the contract's RuleViolation kinds with a message to act on, and changes
nothing (nothing is charged)."""

from __future__ import annotations

import pytest

from services.games import contract as c
from services.games.errors import RuleViolation
from services.games.videopoker import RULES, Deal, Hold, MachineConfig
from tests.unit.games.videopoker.machine import Machine


def refused(machine: Machine, command: c.Command, kind: str, words: str) -> None:
    before = machine.state
    with pytest.raises(RuleViolation) as caught:
        RULES.decide(machine.state, command)
    assert caught.value.kind == kind
    assert words in caught.value.message, caught.value.message
    assert machine.state is before


def seated(stack: int = 100) -> Machine:
    machine = Machine()
    machine.sit(stack)
    return machine


@pytest.mark.parametrize("coins", [0, 6, 7, 9, 11, -1])
def test_coins_must_be_one_to_five_or_ten(coins: int) -> None:
    refused(
        seated(),
        c.Move(0, Deal(3, coins, "jacks-9-6")),
        "invalid_argument",
        f"coins per line must be 1 to 5, or 10 for the Split Card feature, not {coins}",
    )


@pytest.mark.parametrize("lines", [0, 1, 4, 11])
def test_lines_must_be_three_five_or_ten(lines: int) -> None:
    refused(seated(), c.Move(0, Deal(lines, 1, "jacks-9-6")), "invalid_argument", "3, 5 or 10")


def test_an_unknown_pay_table_names_the_ones_offered() -> None:
    refused(
        seated(),
        c.Move(0, Deal(3, 1, "jacks-8-5")),
        "invalid_argument",
        "unknown pay table 'jacks-8-5': this machine offers jacks-9-6, deuces-wild, "
        "double-double-bonus-9-6",
    )


def test_a_table_the_machine_does_not_offer_is_unknown_there() -> None:
    machine = Machine(config=MachineConfig(paytables=("deuces-wild",)))
    machine.sit(100)
    refused(machine, c.Move(0, Deal(3, 1, "jacks-9-6")), "invalid_argument", "offers deuces-wild")


def test_a_bet_above_the_credits_is_refused_and_nothing_is_charged() -> None:
    machine = seated(29)
    refused(
        machine,
        c.Move(0, Deal(3, 10, "jacks-9-6")),
        "failed_precondition",
        "a bet of 3 lines x 10 coins is 30 chips; you have 29 credits",
    )
    assert RULES.pending_chance(machine.state) is None and machine.moved == {}


def test_holding_twice_is_refused() -> None:
    machine = seated()
    number = machine.deal(3, 1)
    machine.do(c.Move(0, Hold(number, (0, 2))))  # the hold, before the shell draws
    refused(
        machine,
        c.Move(0, Hold(number, (1,))),
        "failed_precondition",
        "round 1's hold is already made (positions 0, 2): a round holds once",
    )
    machine.run()
    refused(machine, c.Move(0, Hold(number, (1,))), "failed_precondition", "round 1 is over")


@pytest.mark.parametrize("position", [5, -1, 9])
def test_a_position_that_does_not_exist_is_refused(position: int) -> None:
    machine = seated()
    number = machine.deal(3, 1)
    refused(
        machine,
        c.Move(0, Hold(number, (0, position))),
        "invalid_argument",
        f"position {position} does not exist: the positions are 0 to 4",
    )


def test_a_position_listed_twice_is_refused() -> None:
    machine = seated()
    number = machine.deal(3, 1)
    refused(
        machine,
        c.Move(0, Hold(number, (3, 1, 3))),
        "invalid_argument",
        "position 3 is listed twice",
    )


def test_a_hold_for_a_round_that_never_was_is_not_found() -> None:
    machine = seated()
    machine.deal(3, 1)
    refused(machine, c.Move(0, Hold(7, ())), "not_found", "there is no round 7")


def test_a_hold_before_the_cards_show_waits_for_them() -> None:
    machine = seated()
    machine.do(c.Move(0, Deal(3, 1, "jacks-9-6")))
    refused(machine, c.Move(0, Hold(1, ())), "failed_precondition", "round 1 is still being dealt")


def test_a_second_deal_during_a_round_is_refused() -> None:
    machine = seated()
    machine.deal(3, 1)
    refused(
        machine,
        c.Move(0, Deal(3, 1, "jacks-9-6")),
        "failed_precondition",
        "round 1 is still in play",
    )


def test_another_player_cannot_move_for_the_seat() -> None:
    refused(
        seated(),
        c.Move(0, Deal(3, 1, "jacks-9-6"), by="mallory"),
        "permission_denied",
        "belongs to alice",
    )


def test_a_machine_has_one_seat() -> None:
    machine = seated()
    refused(machine, c.SitDown(1, "bob", 10), "not_found", "seat 0 only")
    refused(machine, c.SitDown(0, "bob", 10), "failed_precondition", "taken by alice")


def test_an_unknown_move_is_refused() -> None:
    refused(seated(), c.Move(0, "fold"), "invalid_argument", "not a video poker move")


def test_a_round_is_voided_only_before_its_cards_are_dealt() -> None:
    machine = seated()
    machine.deal(3, 1)
    refused(machine, c.Void("dealer down"), "failed_precondition", "resumes with the same cards")
