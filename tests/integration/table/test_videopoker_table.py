"""Video poker through the real table service over loopback gRPC, with the real dealer,
ledger and Redis: a machine is a table of one seat (its adapter and catalog entry), its
bets and wins are ledger transfers between the table's escrow and the house, every deck is a
committed dealer shuffle whose reveal verifies, and VideoPokerService advises on its round."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import grpc
import pytest
from typer.testing import CliRunner

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from croupier.videopoker.v1 import videopoker_pb2 as vp
from croupier.videopoker.v1 import videopoker_pb2_grpc
from services.client import cli
from services.shared import auth
from services.shared.channels import connect
from services.shuffles.history import parse_hand_history
from tests.integration.table.conftest import KEY, Platform, new_table_id, seat, view_of

HOUSE = "house:rake:CHIP"
BANKROLL = 1_000_000


def machine(platform: Platform, *paytables: str) -> str:
    table_id = new_table_id()
    platform.table("house", auth.Role.ADMIN).CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key=f"create-{table_id}",
            options=table_pb2.TableOptions(
                min_buy_in=10,
                max_buy_in=100_000,
                videopoker=vp.VideoPokerOptions(paytables=paytables),
            ),
        )
    )
    # The house banks the machine: its account pays the wins, so it holds a bankroll.
    platform.ledger().Deposit(
        ledger_pb2.DepositRequest(
            idempotency_key=f"bankroll/{uuid.uuid4().hex}",
            account_id=HOUSE,
            amount=chips_pb2.ChipAmount(currency="CHIP", amount=BANKROLL),
        )
    )
    return table_id


def advisor(platform: Platform, subject: str) -> videopoker_pb2_grpc.VideoPokerServiceStub:
    channel = connect(
        f"127.0.0.1:{platform.port}", auth.issue_token(KEY, subject, auth.Role.PLAYER, 600)
    )
    platform.channels.append(channel)
    return videopoker_pb2_grpc.VideoPokerServiceStub(channel)


def act(
    stub: table_pb2_grpc.TableServiceStub, table_id: str, key: str, move: vp.VideoPokerMove
) -> int:
    request = table_pb2.ActRequest(table_id=table_id, idempotency_key=key, videopoker=move)
    return stub.Act(request, timeout=60).version


def deal(lines: int, coins: int, paytable: str = "jacks-9-6") -> vp.VideoPokerMove:
    return vp.VideoPokerMove(deal=vp.Deal(lines=lines, coins=coins, paytable=paytable))


def hold(*positions: int) -> vp.VideoPokerMove:
    return vp.VideoPokerMove(hold=vp.Hold(positions=positions))


def wait_for(
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    ready: Callable[[table_pb2.TableView], bool],
    timeout_s: float = 60.0,
) -> table_pb2.TableView:
    """The first view `ready` accepts (the machine deals and draws after the Act that asked
    for it has returned), or a failure naming the last view read."""
    deadline = time.monotonic() + timeout_s
    while True:
        view = view_of(stub, table_id)
        if ready(view):
            return view
        assert time.monotonic() < deadline, f"no such view in {timeout_s} s: {view}"
        time.sleep(0.02)


def holding(round_: int) -> Callable[[table_pb2.TableView], bool]:
    return lambda v: (
        v.videopoker.round.number == round_ and (v.videopoker.round.phase == vp.PHASE_HOLDING)
    )


def ended(round_: int) -> Callable[[table_pb2.TableView], bool]:
    return lambda v: not v.videopoker.HasField("round") and v.videopoker.last.number == round_


def balances(platform: Platform, table_id: str, player: str) -> tuple[int, int, int]:
    return (
        platform.balance(f"player:{player}:CHIP"),
        platform.balance(f"table:{table_id}:CHIP"),
        platform.balance(HOUSE),
    )


def verify_decks(history: dict[str, Any], pinned: tuple[str, ...] = ()) -> list[str]:
    """Every deck of a round's history checked as `croupier verify` checks a file (the
    commitment, the revealed seed and every card dealt from it); their names. A `pinned`
    deck (the dealer's test-deck mode) is dealt in a fixed order, which no seed derives."""
    names = []
    for deck in history["decks"]:
        record = parse_hand_history(deck["verification"])
        assert record.shuffle_id == deck["shuffle_id"]
        if deck["name"] not in pinned:
            assert record.verify().ok, deck["name"]
        names.append(deck["name"])
    return names


def test_a_round_from_bet_to_payout_through_the_ledger(platform: Platform) -> None:
    table_id = machine(platform, "jacks-9-6")
    platform.decks[f"{table_id}.hand-1.deal"] = ["Ah", "Kh", "Qh", "Jh", "Th"]
    alice = seat(platform, table_id, "alice", 0, 1000)
    start = balances(platform, table_id, "alice")
    assert start[:2] == (0, 1000)
    view = view_of(alice, table_id)
    assert view.options.WhichOneof("game_options") == "videopoker"
    assert view.videopoker.credits == 1000 and view.videopoker.moves.deal

    dealt = act(alice, table_id, "deal-1", deal(3, 5))
    assert act(alice, table_id, "deal-1", deal(3, 5)) == dealt  # a retry deals once
    view = wait_for(alice, table_id, holding(1))
    assert list(view.videopoker.round.cards) == ["Ah", "Kh", "Qh", "Jh", "Th"]
    assert view.videopoker.credits == 1000 - 15
    assert [c.name for c in view.videopoker.round.commitments] == [
        "deal",
        "line-1",
        "line-2",
        "line-3",
    ]
    # The bet reached the house before the hold: escrow + house moved 15 chips.
    assert balances(platform, table_id, "alice") == (0, 985, start[2] + 15)

    advice = advisor(platform, "alice").Advise(vp.AdviseRequest(table_id=table_id), timeout=120)
    assert advice.round == 1 and list(advice.holds[0].positions) == [0, 1, 2, 3, 4]
    assert Fraction(advice.holds[0].expected_win) == 4000

    held = act(alice, table_id, "hold-1", hold(0, 1, 2, 3, 4))
    assert act(alice, table_id, "hold-1", hold(0, 1, 2, 3, 4)) == held
    view = wait_for(alice, table_id, ended(1))
    last = view.videopoker.last
    assert [r.hand for r in last.results] == ["royal-flush"] * 3 and last.win == 12_000
    assert view.videopoker.credits == 1000 - 15 + 12_000
    assert balances(platform, table_id, "alice") == (0, 12_985, start[2] + 15 - 12_000)

    history = alice.GetHandHistory(table_pb2.GetHandHistoryRequest(table_id=table_id))
    assert history.hand_number == 1
    assert "Line 3: drew nothing -> Ah Kh Qh Jh Th: royal-flush" in history.text
    record = json.loads(history.phh)
    assert verify_decks(record, pinned=("deal",)) == ["deal", "line-1", "line-2", "line-3"]

    left = alice.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye"))
    assert left.left
    deadline = time.monotonic() + 60
    while balances(platform, table_id, "alice")[0] != 12_985:
        assert time.monotonic() < deadline, balances(platform, table_id, "alice")
        time.sleep(0.05)
    assert balances(platform, table_id, "alice") == (12_985, 0, start[2] - 11_985)


def test_split_card_rounds_draw_every_line_from_its_own_verified_deck(
    platform: Platform, tmp_path: Path
) -> None:
    table_id = machine(platform)
    alice = seat(platform, table_id, "alice", 0, 5000)
    total = sum(balances(platform, table_id, "alice"))
    hints = advisor(platform, "alice")
    credits = 5000
    for number in (1, 2):
        act(alice, table_id, f"deal-{number}", deal(10, 10, "deuces-wild"))
        view = wait_for(alice, table_id, holding(number))
        cards = list(view.videopoker.round.cards)
        split = view.videopoker.round.split_position
        assert split == -1 or "|" in cards[split]
        best = hints.Advise(vp.AdviseRequest(table_id=table_id), timeout=120).holds[0]
        act(alice, table_id, f"hold-{number}", hold(*best.positions))
        view = wait_for(alice, table_id, ended(number))
        last = view.videopoker.last
        assert [r.line for r in last.results] == list(range(1, 11))
        for result in last.results:  # held cards stay, by position
            assert all(result.cards[p] == cards[p] for p in best.positions)
        assert last.win == sum(r.win for r in last.results)
        credits += last.win - 100
        assert view.videopoker.credits == credits
        assert sum(balances(platform, table_id, "alice")) == total  # nothing made or lost
        assert balances(platform, table_id, "alice")[1] == credits
        record = json.loads(
            alice.GetHandHistory(
                table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=number)
            ).phh
        )
        names = verify_decks(record)
        assert names == ["deal", "split", *(f"line-{n}" for n in range(1, 11))]
        ids = {deck["shuffle_id"] for deck in record["decks"]}
        commitments = {deck["commitment"] for deck in record["decks"]}
        assert len(ids) == len(commitments) == 12  # a deck per line, each committed apart
        assert record["split"]["ticket"]
    # The same check from the command line (`croupier verify FILE`), on the last round's
    # deal deck as a file.
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record["decks"][0]["verification"]))
    verified = CliRunner().invoke(cli.app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    assert "OK: all" in verified.output and "match the commitment" in verified.output


def test_bad_input_is_refused_clearly_and_changes_nothing(platform: Platform) -> None:
    table_id = machine(platform, "jacks-9-6")
    alice = seat(platform, table_id, "alice", 0, 40)
    before = view_of(alice, table_id).version
    money = balances(platform, table_id, "alice")

    def refused(move: vp.VideoPokerMove | None, code: grpc.StatusCode, says: str) -> None:
        request = table_pb2.ActRequest(table_id=table_id, idempotency_key=f"bad-{uuid.uuid4()}")
        if move is not None:
            request.videopoker.CopyFrom(move)
        else:
            request.action = table_pb2.ACTION_CALL
        with pytest.raises(grpc.RpcError) as error:
            alice.Act(request, timeout=60)
        assert error.value.code() is code, error.value.details()
        assert says in (error.value.details() or ""), error.value.details()
        assert view_of(alice, table_id).videopoker.credits in (40, 25)
        assert balances(platform, table_id, "alice") == money

    invalid, precondition = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION
    refused(deal(3, 7), invalid, "coins per line must be 1 to 5, or 10")
    refused(deal(4, 1), invalid, "lines must be 3, 5 or 10")
    refused(deal(3, 1, "deuces-wild"), invalid, "this machine offers jacks-9-6")
    refused(deal(5, 10), precondition, "50 chips; you have 40 credits")
    refused(hold(0), precondition, "no round is in play")
    refused(None, invalid, "ActRequest.videopoker")
    assert view_of(alice, table_id).version == before

    act(alice, table_id, "deal-1", deal(3, 5))
    wait_for(alice, table_id, holding(1))
    money = balances(platform, table_id, "alice")
    refused(hold(0, 5), invalid, "position 5 does not exist")
    refused(hold(1, 1), invalid, "position 1 is listed twice")
    act(alice, table_id, "hold-1", hold(0, 1))
    wait_for(alice, table_id, ended(1))
    money = balances(platform, table_id, "alice")
    credits = view_of(alice, table_id).videopoker.credits
    request = table_pb2.ActRequest(
        table_id=table_id,
        idempotency_key="again",
        videopoker=vp.VideoPokerMove(hold=vp.Hold(round=1)),
    )
    with pytest.raises(grpc.RpcError) as error:
        alice.Act(request, timeout=60)
    assert error.value.code() is precondition and "round 1 is over" in (error.value.details() or "")
    assert balances(platform, table_id, "alice") == money
    assert view_of(alice, table_id).videopoker.credits == credits
    with pytest.raises(grpc.RpcError) as error:
        advisor(platform, "alice").Advise(vp.AdviseRequest(table_id=table_id), timeout=60)
    assert error.value.code() is precondition and "deal first" in (error.value.details() or "")
