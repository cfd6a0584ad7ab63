"""Real recorded no-limit hold'em hands with their decks pinned, and the recorded results.

Sources: the 2023 World Series of Poker Event #43 ($50,000 Poker Players Championship, day 5,
big-blind ante) hands and the 2009 Full Tilt Million Dollar Cash Game hand between Phil Ivey,
Patrik Antonius and Tom Dwan, as transcribed (with the dealt cards and final stacks) by
pokerkit's authors in its test suite (pokerkit/tests/test_wsop/test_2023_43_5.py and
test_papers.py, MIT licence). Seats are pokerkit's player order: seat 0 is the small blind
and the last seat holds the button. `deck` lists cards in dealing order (hole cards round
robin from the small blind, then "??" for each burn card and the board); `actions` are
pokerkit's f (fold), cc (check or call) and cbr:N (complete, bet or raise to N) in turn order.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RecordedHand:
    name: str
    stacks: list[int]
    blinds: tuple[int, int]
    ante: int
    big_blind_ante: bool
    deck: str
    actions: str
    final: list[int]


RECORDED_HANDS = [
    RecordedHand(
        name="Full Tilt Million Dollar Cash Game S4E12 (2009): Ivey, Antonius, Dwan",
        stacks=[1125600, 2000000, 553500],
        blinds=(1000, 2000),
        ante=500,
        big_blind_ante=False,
        # Antonius's folded cards were never shown; pokerkit's paper uses 5h7s for them.
        deck="Ac 5h 7h 2d 7s 6h ?? Jc3d5c ?? 4h ?? Jh",
        actions="cbr:7000 cbr:23000 f cc cbr:35000 cc cbr:90000 cbr:232600 cbr:1067100 cc",
        final=[572100, 1997500, 1109500],
    ),
    RecordedHand(
        name="WSOP 2023 event 43 day 5, hand 1 (00:02:07)",
        stacks=[7380000, 2500000, 5110000, 10170000, 4545000],
        blinds=(40000, 80000),
        ante=120000,
        big_blind_ante=True,
        deck="7s Js Td 6d Qh 4s 8h 8c 5h 7h ?? JcTs2d ?? As ?? Qs",
        actions="f cbr:170000 f f cc cc cbr:140000 cc cc cbr:325000 cc cc cbr:600000 cc",
        final=[7340000, 3775000, 5110000, 8935000, 4545000],
    ),
    RecordedHand(
        name="WSOP 2023 event 43 day 5, hand 2 (00:08:38)",
        stacks=[3775000, 5110000, 8935000, 4545000, 7340000],
        blinds=(40000, 80000),
        ante=120000,
        big_blind_ante=True,
        deck="Th Qs Ac Qc As 5d 4s 5h Js Qh",
        actions="cbr:170000 f cc f cbr:875000 f cbr:4990000 f",
        final=[3735000, 4115000, 8765000, 4545000, 8545000],
    ),
    RecordedHand(
        name="WSOP 2023 event 43 day 5, hand 3 (00:15:36)",
        stacks=[4100000, 8775000, 4550000, 8525000, 3750000],
        blinds=(50000, 100000),
        ante=150000,
        big_blind_ante=True,
        deck="Qd Ts 4c 7s Qc 8s 2d 3s 5h Tc ?? Th8c5d ?? 9d ?? Jd",
        actions="f f cbr:200000 f cc cc cbr:175000 cc cc cc cbr:225000 cbr:700000 f",
        final=[4050000, 8025000, 4550000, 8525000, 4550000],
    ),
    RecordedHand(
        name="WSOP 2023 event 43 day 5, hand 4 (00:18:39)",
        stacks=[8025000, 4550000, 8525000, 4550000, 4050000],
        blinds=(50000, 100000),
        ante=150000,
        big_blind_ante=True,
        deck="Qd 5h Jc 9h Jd 8s 3s 7c 4d 6s ?? 2s5s2d ?? As",
        actions="f f f cc cc cc cbr:175000 cc cc cbr:300000 f",
        final=[7750000, 4825000, 8525000, 4550000, 4050000],
    ),
    RecordedHand(
        name="WSOP 2023 event 43 day 5, hand 66 (02:57:27)",
        stacks=[3200000, 18825000, 2125000, 2875000, 2675000],
        blinds=(75000, 150000),
        ante=225000,
        big_blind_ante=True,
        deck="7s Jc 8c Ks Td 5s 3c 2s Jd 5d ?? 8dAdQc",
        actions="f cbr:400000 f f cc cc cbr:350000 f",
        final=[3125000, 18200000, 2125000, 3575000, 2675000],
    ),
    RecordedHand(
        name="WSOP 2023 event 43 day 5, hand 68 (03:02:41): all in and called",
        stacks=[2275000, 3575000, 2675000, 3125000, 18050000],
        blinds=(75000, 150000),
        ante=225000,
        big_blind_ante=True,
        deck="8d 9d 6c Js Ac 3s 9c 5h 4h Kc ?? 2c8cTh ?? Ah ?? 6d",
        actions="f f cbr:300000 f cbr:3350000 cc",
        final=[2200000, 0, 2675000, 3125000, 21700000],
    ),
]
