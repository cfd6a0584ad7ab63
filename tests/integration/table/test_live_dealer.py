"""A live-dealer hold'em hand over real gRPC with real Redis and ledger: the dealer console
reports every card, a misdeal redeals the hand, an exposed card is replaced and burned, the
players act through Act, and every chip is where the ledger says."""

from __future__ import annotations

import uuid

import grpc
import pytest
from typer.testing import CliRunner

from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.client import cli
from services.shared import auth
from tests.fixtures.conditions import wait_until
from tests.integration.table.conftest import (
    KEY,
    Platform,
    events_in,
    new_table_id,
    passive_action,
    seat,
    view_of,
)

A = table_pb2
SEAT, BOARD, BURN = A.CARD_RECIPIENT_SEAT, A.CARD_RECIPIENT_BOARD, A.CARD_RECIPIENT_BURN
PLAYERS = ("alice", "bob", "carol")


def _create_live_table(platform: Platform) -> str:
    table_id = new_table_id()
    platform.table("house", auth.Role.ADMIN).CreateTable(
        A.CreateTableRequest(
            table_id=table_id,
            idempotency_key=f"create-{table_id}",
            options=A.TableOptions(
                poker=poker_pb2.PokerOptions(
                    variant=poker_pb2.VARIANT_TEXAS_HOLDEM,
                    small_blind=1,
                    big_blind=2,
                    live_dealer=True,
                ),
                seats=3,
                min_buy_in=20,
                max_buy_in=1000,
                min_players_to_start=3,
            ),
        )
    )
    return table_id


def _report(
    dealer: table_pb2_grpc.TableServiceStub,
    table_id: str,
    card: str,
    to: A.CardRecipient.ValueType,
    seat_no: int | None = None,
    face_up: bool = False,
) -> int:
    response = dealer.ReportCard(
        A.ReportCardRequest(
            table_id=table_id,
            card=card,
            recipient=to,
            seat=seat_no,
            face_up=face_up,
            idempotency_key=uuid.uuid4().hex,
        )
    )
    return response.version


def _refused(call: object, code: grpc.StatusCode) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    error = caught.value
    assert error.code() == code, error.details()
    return error.details() or ""


def _act_passively(stub: table_pb2_grpc.TableServiceStub, table_id: str, hand: int) -> None:
    view = view_of(stub, table_id)
    action, amount, cards = passive_action(view)
    stub.Act(
        A.ActRequest(
            table_id=table_id,
            hand_number=hand,
            action=action,
            amount=amount,
            cards=list(cards),
            idempotency_key=uuid.uuid4().hex,
        )
    )


def _play_round(
    platform: Platform,
    stubs: dict[int, table_pb2_grpc.TableServiceStub],
    table_id: str,
    house: table_pb2_grpc.TableServiceStub,
) -> None:
    """Every seat to act checks or calls until the betting round is over (the table then
    waits for the dealer: nobody to act)."""
    while (view := view_of(house, table_id)).hand_number == 1 and view.to_act >= 0:
        _act_passively(stubs[view.to_act], table_id, 1)


def test_a_live_hand_is_dealt_through_reports_with_a_misdeal_and_an_exposed_card(
    platform: Platform,
) -> None:
    table_id = _create_live_table(platform)
    house = platform.table("house", auth.Role.ADMIN)
    stubs = {n: seat(platform, table_id, player, n, 100) for n, player in enumerate(PLAYERS)}
    wait_until(lambda: view_of(house, table_id).hand_in_progress, 20, "hand 1 to start")
    watcher = stubs[2].WatchTable(A.WatchTableRequest(table_id=table_id))
    dealer = platform.table(f"maria@{table_id}", auth.Role.DEALER_CONSOLE)
    version = view_of(house, table_id).version

    # Only this table's dealer console reports; every other caller changes nothing.
    for subject, role in (
        ("alice", auth.Role.PLAYER),
        ("house", auth.Role.ADMIN),
        ("table", auth.Role.SERVICE),
        (f"maria@{new_table_id()}", auth.Role.DEALER_CONSOLE),
        ("maria", auth.Role.DEALER_CONSOLE),
    ):
        other = platform.table(subject, role)
        _refused(
            lambda o=other: _report(o, table_id, "As", SEAT, 1), grpc.StatusCode.PERMISSION_DENIED
        )
    # Bad reports: nothing changes.
    _refused(lambda: _report(dealer, table_id, "Zz", SEAT, 1), grpc.StatusCode.INVALID_ARGUMENT)
    _refused(lambda: _report(dealer, table_id, "As", BOARD), grpc.StatusCode.FAILED_PRECONDITION)
    _refused(lambda: _report(dealer, table_id, "As", SEAT, 0), grpc.StatusCode.INVALID_ARGUMENT)
    assert view_of(house, table_id).version == version

    # Dealt from the left of the button (seat 0): seats 1, 2, 0. A retried report (the same
    # idempotency key) is recorded once. The second card falls face up: a misdeal, the hand
    # is dealt again with the blinds still posted.
    first = A.ReportCardRequest(
        table_id=table_id, card="As", recipient=SEAT, seat=1, idempotency_key="first-card"
    )
    assert dealer.ReportCard(first).version == dealer.ReportCard(first).version
    _report(dealer, table_id, "Ks", SEAT, 2, face_up=True)
    view = view_of(house, table_id)
    assert [s.committed for s in view.seats] == [0, 1, 2]
    assert all(not s.cards for s in view.seats)

    # The redeal: seat 0's first card (the third card dealt) is flashed as the fourth is
    # pitched: it is replaced after the deal and becomes the flop's burn.
    order = (1, 2, 0)
    for i, card in enumerate(("As", "Ks", "Qs", "Js", "Ts", "9s")):
        _report(dealer, table_id, card, SEAT, order[i % 3])
        if card == "Js":
            dealer.ReportIrregularity(
                A.ReportIrregularityRequest(
                    table_id=table_id,
                    kind=A.IRREGULARITY_KIND_CARD_EXPOSED,
                    card="Qs",
                    reason="flashed while pitching",
                    idempotency_key="exposed-qs",
                )
            )
    _refused(lambda: _report(dealer, table_id, "Js", SEAT, 0), grpc.StatusCode.INVALID_ARGUMENT)
    _report(dealer, table_id, "2d", SEAT, 0)
    own = view_of(stubs[0], table_id)
    assert list(own.seats[0].cards) == ["9s", "2d"]
    assert list(view_of(stubs[1], table_id).seats[0].cards) == ["??", "??"]

    _play_round(platform, stubs, table_id, house)  # pre-flop: calls and a check
    for card in ("3c", "4c", "5c"):  # no burn: the exposed Qs is the flop's burn
        _report(dealer, table_id, card, BOARD)
    assert list(view_of(house, table_id).board) == ["3c", "4c", "5c"]
    _play_round(platform, stubs, table_id, house)
    _report(dealer, table_id, "2h", BURN)
    _report(dealer, table_id, "8d", BOARD)
    _play_round(platform, stubs, table_id, house)
    # The river through the dealer console's command line (its own dealer-console token).
    token = auth.issue_token(KEY, f"maria@{table_id}", auth.Role.DEALER_CONSOLE, 600)
    console = ["--token", token, "dealer", "report", table_id]
    where = ["--target", f"127.0.0.1:{platform.port}"]
    for card, to in (("2c", "--burn"), ("7h", "--board")):
        done = CliRunner().invoke(cli.app, [*console, card, to, *where])
        assert done.exit_code == 0, done.output
    assert "7h to the board recorded" in done.output
    for bad, code in ((["Zz", "--board"], 2), (["8h", "--board", "--seat", "1"], 2)):
        refused = CliRunner().invoke(cli.app, [*console, *bad, *where])
        assert refused.exit_code == code, refused.output
        assert "Traceback" not in refused.output
    _play_round(platform, stubs, table_id, house)  # river, then the showdown's shows
    wait_until(lambda: view_of(house, table_id).hand_number >= 2, 20, "hand 1 to end")

    # Chips: every one at the table's escrow, the stacks adding up to the buy-ins.
    assert (
        sum(s.stack for s in view_of(house, table_id).seats)
        + sum(s.committed for s in view_of(house, table_id).seats)
        == 300
    )
    assert platform.balance(f"table:{table_id}:CHIP") == 300

    # Events are the truth: another instance, rebuilding the table from its stream, sees the
    # same table.
    assert platform.start_instance is not None
    again = platform.table("house", auth.Role.ADMIN, port=platform.start_instance())
    assert view_of(again, table_id) == view_of(house, table_id)

    history = house.GetHandHistory(A.GetHandHistoryRequest(table_id=table_id, hand_number=1))
    assert "*** Misdeal: the second hole card was exposed; the hand will be redealt. ***" in (
        history.text
    )
    assert "The exposed Qs is the first burn card" in history.text
    assert "Dealer reports Qs exposed: flashed while pitching" in history.text
    assert "# Misdeal: the second hole card was exposed" in history.phh

    # The stream explains each procedure, and hides another seat's face-down card.
    explanations: list[str] = []
    reported: list[str] = []
    for message in watcher:
        events = events_in(message)
        for event in events:
            kind = event.WhichOneof("event")
            if kind == "procedure_applied":
                explanations.append(event.procedure_applied.explanation)
            elif kind == "card_reported":
                reported.append(event.card_reported.card)
        if any(e.WhichOneof("event") == "hand_ended" for e in events):
            break
    watcher.cancel()
    assert explanations[0] == "Misdeal: the second hole card was exposed; the hand will be redealt."
    assert any("exposed" in e and "Qs" in e for e in explanations[1:])
    assert "As" not in reported and "??" in reported  # seat 1's face-down As, hidden from carol
    assert "Ks" in reported  # the card everyone saw
    assert "Qs" not in reported  # dealt face down: hidden; its exposure is its own event


def test_a_live_six_card_hand_replaces_an_exposed_draw_card_after_the_draw(
    platform: Platform,
) -> None:
    table_id = new_table_id()
    house = platform.table("house", auth.Role.ADMIN)
    house.CreateTable(
        A.CreateTableRequest(
            table_id=table_id,
            idempotency_key=f"create-{table_id}",
            options=A.TableOptions(
                poker=poker_pb2.PokerOptions(
                    variant=poker_pb2.VARIANT_SIX_CARD_OPEN_DRAW, ante=1, live_dealer=True
                ),
                seats=3,
                min_buy_in=20,
                max_buy_in=1000,
                min_players_to_start=3,
            ),
        )
    )
    stubs = {n: seat(platform, table_id, player, n, 100) for n, player in enumerate(PLAYERS)}
    wait_until(lambda: view_of(house, table_id).hand_in_progress, 20, "hand 1 to start")
    dealer = platform.table(f"maria@{table_id}", auth.Role.DEALER_CONSOLE)
    due = view_of(house, table_id).next_card  # the table says which card it expects
    assert (due.recipient, due.seat, due.face_up) == (SEAT, 1, False)
    assert due.description == "seat 1's 1st card, face down"
    order = (1, 2, 0)
    deck = [f"{rank}{suit}" for suit in "cdhs" for rank in "23456789TJQKA"]
    for i, card in enumerate(deck[:17]):
        _report(dealer, table_id, card, SEAT, order[i % 3])
    last = dealer.ReportCard(
        A.ReportCardRequest(
            table_id=table_id, card=deck[17], recipient=SEAT, seat=0, idempotency_key="18th"
        )
    )
    assert not last.HasField("next_card")  # the deal is complete: seat 1 draws first
    _refused(lambda: _report(dealer, table_id, "As", BURN), grpc.StatusCode.FAILED_PRECONDITION)

    def act(n: int, cards: tuple[str, ...] = ()) -> None:
        wait_until(lambda: view_of(house, table_id).to_act == n, 20, f"seat {n} to draw")
        stubs[n].Act(
            A.ActRequest(
                table_id=table_id,
                hand_number=1,
                action=A.ACTION_DISCARD,
                cards=list(cards),
                idempotency_key=uuid.uuid4().hex,
            )
        )

    # Seat 1 draws one card, which the dealer turns face up: it is dead, and seat 1 gets its
    # replacement only after seats 2 and 0 have drawn (both stand pat).
    act(1, ("2c",))
    _report(dealer, table_id, "As", SEAT, 1, face_up=True)
    act(2)
    act(0)
    view = view_of(house, table_id)  # Act returns once its events are appended
    assert view.hand_in_progress and view.to_act < 0  # the betting waits for the replacement
    assert (view.next_card.recipient, view.next_card.seat) == (SEAT, 1)
    token = auth.issue_token(KEY, f"maria@{table_id}", auth.Role.DEALER_CONSOLE, 600)
    where = ["--target", f"127.0.0.1:{platform.port}"]
    shown = CliRunner().invoke(cli.app, ["--token", token, "dealer", "next", table_id, *where])
    assert shown.exit_code == 0, shown.output
    assert "next: seat 1's replacement for its exposed draw card, face down (--seat 1)" in (
        shown.output
    )
    _refused(lambda: _report(dealer, table_id, "Ks", SEAT, 2), grpc.StatusCode.INVALID_ARGUMENT)
    _report(dealer, table_id, "Ks", SEAT, 1)
    wait_until(lambda: view_of(house, table_id).to_act == 1, 20, "the betting after the draw")
    mine = view_of(stubs[1], table_id)
    assert sorted(next(s.cards for s in mine.seats if s.seat == 1)) == sorted(
        ["5c", "8c", "Jc", "Ac", "4d", "Ks"]
    )
    # Seat 1 shows its Ks: the console's command line records it; the card stays seat 1's.
    console = ["--token", token, "dealer", "exposed", table_id]
    done = CliRunner().invoke(cli.app, [*console, "Ks", "showed it", "--by-player", *where])
    assert done.exit_code == 0, done.output
    assert "Ks exposed by its player recorded" in done.output
    assert "next: no card is due" in done.output
    refused = CliRunner().invoke(cli.app, [*console, "Qd", "--by-player", *where])
    assert refused.exit_code != 0 and "Traceback" not in refused.output
    assert "Ks" in next(s.cards for s in view_of(stubs[1], table_id).seats if s.seat == 1)
    # The stream explains the procedures to the players.
    watcher = stubs[2].WatchTable(A.WatchTableRequest(table_id=table_id, from_version=1))
    seen: list[str] = []
    for message in watcher:
        explained = [
            e.procedure_applied.explanation
            for e in events_in(message)
            if e.WhichOneof("event") == "procedure_applied"
        ]
        seen += explained
        if any("Ks" in e and "theirs" in e for e in seen):
            break
    watcher.cancel()
    assert any("As" in e and "after every other player has drawn" in e for e in seen)
