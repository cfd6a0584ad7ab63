"""Video poker as the CLI and the terminal UI draw it: a split card is its two cards in one
position, holds are marked, every line's result and win is listed."""

from __future__ import annotations

from rich.console import Console

from croupier.videopoker.v1 import events_pb2 as vp_events
from croupier.videopoker.v1 import videopoker_pb2 as vp
from services.client.tui.videopoker_screen import VideoPokerScreen
from services.client.videopoker import position_text, round_renderable


def plain(renderable: object) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_a_split_card_is_its_two_cards_in_one_position() -> None:
    assert position_text("Kh|Qh").plain == "K♥+Q♥"
    assert position_text("Ts").plain == "10♠"


def test_the_hand_marks_the_split_position_and_the_held_cards() -> None:
    round_ = vp.RoundView(
        number=3,
        phase=vp.PHASE_ENDED,
        cards=["Ah", "Kh", "2c", "7d", "Kh|Qh"],
        split_position=4,
        held=True,
        held_positions=[0, 1, 4],
    )
    text = plain(VideoPokerScreen("m1").hand_table(round_))
    assert "K♥+Q♥" in text and "split" in text
    assert text.count("HELD") == 3


def test_every_line_is_listed_with_its_hand_and_win() -> None:
    round_ = vp.RoundView(
        number=1,
        lines=3,
        coins=1,
        paytable="jacks-9-6",
        bet=3,
        phase=vp.PHASE_ENDED,
        cards=["Ah", "Kh", "Qh", "Jh", "Th"],
        win=252,
        results=[
            vp_events.LineResult(
                line=1, cards=["Ah", "Kh", "Qh", "Jh", "Th"], hand="royal-flush", win=250
            ),
            vp_events.LineResult(
                line=2, cards=["Ah", "Kh", "2c", "2d", "9s"], hand="jacks-or-better", win=1
            ),
            vp_events.LineResult(
                line=3, cards=["Ah", "Kh", "3c", "4d", "9s"], hand="nothing", win=0
            ),
        ],
    )
    text = plain(round_renderable(round_))
    assert "royal-flush" in text and "jacks-or-better" in text and "won 252" in text
    assert "3 lines x 1 coin of jacks-9-6" in text
