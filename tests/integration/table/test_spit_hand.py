"""A full Spit in the Ocean hand over real gRPC with real Redis, dealer and ledger."""

from __future__ import annotations

from croupier.table.v1 import table_pb2
from services.shared import auth
from tests.integration.table.conftest import Platform, act, create_table, seat, view_of

A = table_pb2


def test_spit_in_the_ocean_hand_with_a_draw_and_wild_sevens(platform: Platform) -> None:
    table_id = create_table(
        platform,
        game=A.GAME_SPIT_IN_THE_OCEAN,
        structure=A.STRUCTURE_FIXED_LIMIT,
        seats=3,
        small_blind=0,
        big_blind=0,
        ante=1,
        min_buy_in=10,
        max_buy_in=1000,
        min_players_to_start=3,
    )
    # Four cards each, one at a time from the dealer's left (seats 1, 2, 0), then the spit
    # card (7s: every seven is wild), then the replacements in draw order.
    platform.decks[f"{table_id}.hand-1"] = [
        "As",
        "7h",
        "Ts",
        "Ad",
        "2c",
        "Th",
        "Kc",
        "3d",
        "Tc",
        "Qh",
        "9s",
        "4d",
        "7s",
        "Ac",
        "5h",  # seat 1 draws two
        "7d",
        "7c",  # seat 2 draws two
        "8c",  # seat 0 draws one
    ]
    players = {0: "carol", 1: "alice", 2: "bob"}
    stubs = {s: seat(platform, table_id, name, s, 100) for s, name in players.items()}
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(stubs[1], table_id)
    assert view.board == ["7s"] and view.phase == "before the draw" and view.to_act == 1
    mine = [c for s in view.seats if s.seat == 1 for c in s.cards]
    assert mine == ["As", "Ad", "Kc", "Qh"]
    assert all(c == "??" for s in view.seats if s.seat != 1 for c in s.cards)

    act(stubs[1], table_id, 1, A.ACTION_BET, amount=2)
    act(stubs[2], table_id, 1, A.ACTION_CALL)
    act(stubs[0], table_id, 1, A.ACTION_CALL)
    assert view_of(house, table_id).phase == "draw"
    act(stubs[1], table_id, 1, A.ACTION_DISCARD, cards=["Kc", "Qh"])
    act(stubs[2], table_id, 1, A.ACTION_DISCARD, cards=["2c", "3d"])
    act(stubs[0], table_id, 1, A.ACTION_DISCARD, cards=["4d"])
    own = view_of(stubs[2], table_id)
    assert sorted(c for s in own.seats if s.seat == 2 for c in s.cards) == ["7c", "7d", "7h", "9s"]
    assert own.phase == "after the draw"
    act(stubs[1], table_id, 1, A.ACTION_BET, amount=4)
    act(stubs[2], table_id, 1, A.ACTION_RAISE, amount=8)
    act(stubs[0], table_id, 1, A.ACTION_FOLD)
    act(stubs[1], table_id, 1, A.ACTION_CALL)
    # Showdown: bob, the last aggressor, shows first (five nines with four wild sevens).
    assert view_of(house, table_id).to_act == 2
    act(stubs[2], table_id, 1, A.ACTION_SHOW)
    act(stubs[1], table_id, 1, A.ACTION_MUCK)
    history = house.GetHandHistory(A.GetHandHistoryRequest(table_id=table_id, hand_number=1))
    assert "seat 2 (bob) wins 25 from the main pot" in history.text, history.text
    result = history.text.split("*** RESULT ***")[1]
    for line in ("seat 0 (carol): 97", "seat 1 (alice): 89", "seat 2 (bob): 114"):
        assert line in result
    assert platform.balance(f"table:{table_id}:CHIP") == 300
    # alice mucked: her copy of the history shows her own cards, carol's stay hidden.
    own_history = stubs[1].GetHandHistory(A.GetHandHistoryRequest(table_id=table_id))
    assert "Dealt to seat 1 (alice): As Ad Kc Qh" in own_history.text
    assert "Dealt to seat 0 (carol): ?? ?? ?? ??" in own_history.text


def test_the_evaluator_service_ranks_like_the_in_process_library(redis_url: str) -> None:
    """The same port over gRPC: CROUPIER_TABLE_RANKER=evaluator gives the same values."""
    from services.evaluator.server import build as build_evaluator
    from services.evaluator.settings import EvaluatorSettings
    from services.shared.channels import connect
    from services.shared.grpc_server import create_server
    from services.shared.settings import RuntimeSettings
    from services.table.ranking import GrpcEvaluatorRanker, LibraryRanker
    from tests.integration.table.conftest import KEY

    runtime = RuntimeSettings(service_name="evaluator", address="127.0.0.1:0", auth_key=KEY)
    server, port = create_server(build_evaluator(EvaluatorSettings(runtime)), runtime)
    try:
        token = auth.issue_token(KEY, "table", auth.Role.SERVICE, 60)
        remote = GrpcEvaluatorRanker(connect(f"127.0.0.1:{port}", token))
        local = LibraryRanker()
        hands = [
            (["7h", "9s", "7d", "7c", "7s"], frozenset("7")),
            (["As", "Ad", "Ac", "5h", "7s", "Kd", "2c"], frozenset()),
            (["2s", "3d", "4c", "5h", "8s", "Kd", "Kc"], frozenset()),
        ]
        for cards, wild in hands:
            assert remote.rank_high(cards, wild) == local.rank_high(cards, wild)
            assert remote.rank_low_eight(cards) == local.rank_low_eight(cards)
    finally:
        server.stop(0).wait()
