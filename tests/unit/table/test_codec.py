"""Every engine event survives the trip through its protobuf message unchanged."""

from __future__ import annotations

import dataclasses

import pytest

from croupier.poker.v1 import events_pb2 as poker_pb2
from croupier.table.v1 import events_pb2
from services.games.poker import events as ev
from services.games.poker.catalog import GAMES
from services.games.poker.definitions import OddChips, Structure, TableConfig
from services.games.ranking import HandValue, SeatRank
from services.table import codec

HIGH = HandValue(strength=7_000_123, label="full house, kings over nines", best_five=("Ks", "Kd"))
LOW = HandValue(strength=42, label="eight-low", best_five=("8c", "5d", "4h", "2s", "As"))

SAMPLES: list[ev.Event] = [
    ev.TableOpened(
        TableConfig(
            game=GAMES["spit-in-the-ocean"],
            structure=Structure.POT_LIMIT,
            seats=5,
            ante=2,
            draw_limit=2,
            five_of_a_kind_beats_straight_flush=False,
        )
    ),
    ev.TableOpened(TableConfig(game=GAMES["texas-holdem"], seats=9, small_blind=5, big_blind=10)),
    ev.TableOpened(
        TableConfig(game=GAMES["texas-holdem"], odd_chips=OddChips.ALL_TO_FIRST_FROM_BUTTON_LEFT)
    ),
    ev.PlayerSeated(seat=3, player="alice", stack=1000),
    ev.LeaveRequested(seat=3),
    ev.PlayerLeft(seat=3, player="alice", stack=990),
    ev.PlayerSatOut(seat=1, reason="timeouts"),
    ev.PlayerSatIn(seat=1, post_big_blind=True),
    ev.ChipsAdded(seat=2, amount=50),
    ev.HandStarted(hand=7, button=0, seats=(0, 2, 5), stacks=(10, 20, 30), big_blind_seat=5),
    ev.HandStarted(hand=8, button=2, seats=(0, 2), stacks=(10, 20)),
    ev.ForcedBetPosted(seat=0, kind="small-blind", amount=1),
    ev.PhaseStarted(phase=2, name="flop"),
    ev.CardsDealt(seat=None, cards=("As", "Kd", "2c"), face_up=True, burned=("7h",)),
    ev.CardsDealt(seat=0, cards=("As", "Kd")),
    ev.ActionTaken(seat=2, action="raise", to=40, added=38, all_in=False),
    ev.TimedOut(seat=2),
    ev.UncalledBetReturned(seat=2, amount=30),
    ev.CardsDiscarded(seat=0, cards=()),
    ev.CardsDiscarded(seat=0, cards=("2c",), face_up=True),
    ev.DiscardsReshuffled(cards=("2c", "3d")),
    ev.HandsRanked(ranks=((0, SeatRank(HIGH, LOW)), (2, SeatRank(HIGH))), board=SeatRank(HIGH)),
    ev.HandsRanked(ranks=((0, SeatRank(HIGH)),)),
    ev.CardsShown(seat=0, cards=("As", "Kd")),
    ev.HandMucked(seat=2),
    ev.BoardDeclared(seat=2),
    ev.PotAwarded(
        pot=1,
        amount=101,
        eligible=(0, 2),
        shares=(ev.Share(0, 50, "high"), ev.Share(2, 50, "low")),
        rake=1,
    ),
    ev.HandEnded(hand=7, stacks=((0, 10), (2, 50))),
    ev.HandVoided(hand=7, reason="dealer unavailable", refunds=((0, 3), (2, 4))),
    ev.DeckCommitted(hand=8, shuffle_id="t1.hand-8", commitment="ab12"),
    ev.DeckRevealed(hand=7, shuffle_id="t1.hand-7", reveal='{"seed": "00"}'),
    ev.RakeSettled(hand=7, amount=3, key="7/rake"),
    ev.CardReported(hand=7, card="Ah", to="seat", seat=2, face_up=True),
    ev.CardReported(hand=7, card="2c", to="burn"),
    ev.IrregularityReported(hand=7, kind="misdeal", reason="the deck was short"),
    ev.BettingRoundClosed(hand=7),
    ev.ProcedureApplied(
        hand=7,
        kind="card_exposed",
        explanation="The card dealt to seat 2 was exposed (Ah).",
        cards=("Ah",),
        seat=2,
    ),
]


def test_every_engine_event_type_has_a_sample() -> None:
    assert {type(s).TYPE for s in SAMPLES} == set(ev.EVENT_TYPES)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_engine_event_round_trips_through_protobuf(event: ev.Event) -> None:
    message = codec.to_message(event)
    assert message.DESCRIPTOR.name == type(event).__name__
    payload = message.SerializeToString()
    decoded = type(message).FromString(payload)
    assert codec.from_message(decoded) == event


def test_registry_knows_every_table_message() -> None:
    registry = codec.registry()
    for name in ev.EVENT_TYPES:
        assert f"croupier.poker.v1.{name}" in registry.type_names()
    assert "croupier.table.v1.ShuffleCommitted" in registry.type_names()


def test_poker_events_stored_under_their_former_names_still_replay() -> None:
    # Streams written before poker had its own package name its events croupier.table.v1.X.
    registry = codec.registry()
    message = codec.to_message(ev.PlayerSeated(seat=2, player="alice", stack=500))
    name, schema, payload = registry.encode(message)
    assert name == "croupier.poker.v1.PlayerSeated"
    old = registry.decode("croupier.table.v1.PlayerSeated", schema, payload)
    assert codec.from_message(old) == ev.PlayerSeated(seat=2, player="alice", stack=500)


def test_a_table_stored_before_odd_chips_were_an_option_keeps_the_default_rule() -> None:
    message = codec.to_message(ev.TableOpened(TableConfig(game=GAMES["texas-holdem"])))
    assert isinstance(message, poker_pb2.TableOpened)
    message.config.ClearField("odd_chips")  # what a stream written before the field holds
    decoded = codec.from_message(message)
    assert isinstance(decoded, ev.TableOpened)
    assert decoded.config.odd_chips is OddChips.ONE_EACH_FROM_BUTTON_LEFT


def test_shell_events_pass_through_unchanged() -> None:
    message = events_pb2.HandSettled(hand=3, transfer_key="t/3/settle")
    assert codec.to_message(message) is message
    assert codec.from_message(message) is message


def test_a_stored_game_this_build_does_not_know_is_refused_by_name() -> None:
    message = codec.to_message(ev.TableOpened(TableConfig(game=GAMES["texas-holdem"], seats=9)))
    assert isinstance(message, poker_pb2.TableOpened)
    message.config.game = "no-such-game"
    with pytest.raises(codec.CodecError, match=r"unknown game 'no-such-game'; known: .*texas"):
        codec.from_message(message)


def test_an_event_field_the_message_lacks_is_refused_by_name() -> None:
    @dataclasses.dataclass(frozen=True)
    class Renamed:
        seat: int
        player: str
        chips: int  # PlayerSeated's message calls it stack

    with pytest.raises(codec.CodecError, match=r"PlayerSeated lacks field 'chips' of Renamed"):
        codec._fill(poker_pb2.PlayerSeated(), Renamed(3, "alice", 1000))


def test_encoding_is_pinned_byte_for_byte() -> None:
    # A hand's typical events, as the stream stores them (deterministic serialisation); the
    # per-type encoding plans must write exactly what the field-by-field walk wrote.
    # (the hex is what main's encoder wrote for the same samples at 1f25ac2)
    expected = {
        "HandStarted": "08071a0300020522030a141e3005",
        "ActionTaken": "08021205726169736518282026",
        "HandsRanked": (
            "0a5212500a2b08bba0ab03121c66756c6c20686f7573652c206b696e6773206f766572206e696e"
            "65731a024b731a024b641221082a120965696768742d6c6f771a0238631a0235641a0234681a02"
            "32731a0241730a310802122d0a2b08bba0ab03121c66756c6c20686f7573652c206b696e677320"
            "6f766572206e696e65731a024b731a024b64122d0a2b08bba0ab03121c66756c6c20686f757365"
            "2c206b696e6773206f766572206e696e65731a024b731a024b64"
        ),
        "PotAwarded": "080110651a020002220810321a04686967682209080210321a036c6f772801",
    }
    samples: dict[str, object] = {}
    for sample in SAMPLES:
        samples.setdefault(type(sample).__name__, sample)  # the first of each type
    for name, payload in expected.items():
        encoded = codec.to_message(samples[name]).SerializeToString(deterministic=True)
        assert encoded.hex() == payload, name
