"""Poker's hand histories: PHH (the format pokerkit reads) and readable text, from a finished
hand's events as they were recorded.

Hole cards the viewer may not see are written as "??" per card (pokerkit's unknown card), so
a player's copy shows their own cards and every shown hand; service and admin callers get the
complete history. No-limit and fixed-limit hold'em export as pokerkit's "NT" and "FT" variants
and replay there to the same stacks; the other games use PHH's layout with croupier's own
variant code (pokerkit has no such games), documented in docs/table.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from google.protobuf.message import Message

from services.games.poker import events as ev
from services.games.poker.definitions import Structure, TableConfig
from services.games.poker.views import HIDDEN, redact

VARIANTS = {
    ("texas-holdem", Structure.NO_LIMIT): "NT",
    ("texas-holdem", Structure.FIXED_LIMIT): "FT",
    ("texas-holdem", Structure.POT_LIMIT): "CROUPIER-PT",
    ("holdem-hilo", Structure.NO_LIMIT): "CROUPIER-NT/8",
    ("holdem-hilo", Structure.POT_LIMIT): "CROUPIER-PT/8",
    ("holdem-hilo", Structure.FIXED_LIMIT): "CROUPIER-FT/8",
}


def history(
    config: TableConfig,
    players: Mapping[int, str],
    events: Sequence[object],
    viewer: int | None,
    full: bool,
    table_id: str,
) -> tuple[str, str]:
    """(PHH, text) of one finished hand as `viewer` may see it (all of it when `full`)."""
    hand = list(events)
    visible = hand if full else [_reveal_shown(e, hand, viewer) for e in hand]
    seats = dict(players)
    return to_phh(config, seats, visible, table_id), to_text(config, seats, visible, table_id)


def _reveal_shown(event: object, events: list[object], viewer: int | None) -> object:
    """Redact for `viewer`, but keep cards of seats that showed them later in the hand."""
    if isinstance(event, ev.CardsDealt) and event.seat is not None:
        shown = any(isinstance(e, ev.CardsShown) and e.seat == event.seat for e in events)
        if shown:
            return redact(event, event.seat)
    if isinstance(event, ev.HandsRanked):
        # A shown hand's value is as public as its cards; the others' stay hidden.
        showed = {e.seat for e in events if isinstance(e, ev.CardsShown)}
        keep = showed | ({viewer} if viewer is not None else set())
        return ev.HandsRanked(
            ranks=tuple((seat, rank) for seat, rank in event.ranks if seat in keep),
            board=event.board,
        )
    if not isinstance(event, Message):
        return redact(event, viewer)  # type: ignore[arg-type]
    return event


def _order(started: ev.HandStarted, size: int) -> list[int]:
    """Seats in pokerkit's player order: left of the button first, the button last."""
    return sorted(started.seats, key=lambda s: (s - started.button - 1) % size)


def _cards(cards: tuple[str, ...]) -> str:
    return "".join("??" if c == HIDDEN else c for c in cards)


def _irregularity(kind: str, card: str, reason: str) -> str:
    """A dealer's declared irregularity in words: "a misdeal: <reason>", "Ah exposed"."""
    said = f": {reason}" if reason else ""
    if kind == "player_exposed":
        return f"{card} exposed by its player{said}"
    return f"{card} exposed{said}" if kind == "card_exposed" else f"a {kind}{said}"


def to_phh(
    config: TableConfig, players: dict[int, str], events: list[object], table_id: str
) -> str:
    started = events[0]
    assert isinstance(started, ev.HandStarted)
    order = _order(started, config.seats)
    index = {seat: i + 1 for i, seat in enumerate(order)}
    stacks = dict(zip(started.seats, started.stacks, strict=True))
    variant = VARIANTS.get(
        (config.game.name, config.limit), f"CROUPIER-{config.game.name}-{config.limit.value}"
    )
    antes = [0] * len(order)
    blinds = [0] * len(order)
    actions: list[str] = []
    round_max = 0
    for event in events:
        match event:
            case ev.ForcedBetPosted(seat=seat, kind=kind, amount=amount):
                if kind == "ante":
                    antes[index[seat] - 1] = amount
                else:
                    blinds[index[seat] - 1] = amount
                    round_max = max(round_max, amount)
            case ev.CardsDealt(seat=None, cards=cards):
                actions.append(f"d db {_cards(cards)}")
                round_max = 0
            case ev.CardsDealt(seat=int() as seat, cards=cards) if cards:
                # (None dealt: a live draw whose cards were all exposed, dead and owed later.)
                actions.append(f"d dh p{index[seat]} {_cards(cards)}")
            case ev.ActionTaken(seat=seat, action=action, to=to):
                if action == "fold":
                    actions.append(f"p{index[seat]} f")
                elif action in ("check", "call") or to <= round_max:
                    actions.append(f"p{index[seat]} cc")
                else:
                    actions.append(f"p{index[seat]} cbr {to}")
                    round_max = to
            case ev.CardsDiscarded(seat=seat, cards=cards):
                actions.append(f"p{index[seat]} sd {_cards(cards)}".rstrip())
            case ev.CardsShown(seat=seat, cards=cards):
                actions.append(f"p{index[seat]} sm {_cards(cards)}")
            case ev.HandMucked(seat=seat):
                actions.append(f"p{index[seat]} sm")
            case ev.BoardDeclared(seat=seat):
                actions.append(f"p{index[seat]} sm -")
            case ev.ProcedureApplied(kind=kind, explanation=explanation):
                # A live table's irregularities, as TOML comments among the actions: a misdeal
                # takes back everything dealt and bet so far, a flop with too many cards the
                # flop the engine had.
                if kind == "misdeal":
                    actions = [a if a.startswith("#") else f"# (misdealt) {a}" for a in actions]
                elif kind == "flop_redealt" and actions and actions[-1].startswith("d db"):
                    actions[-1] = f"# (taken back) {actions[-1]}"
                actions.append(f"# {explanation}")
            case ev.IrregularityReported(kind=kind, reason=reason, card=card):
                actions.append(f"# The dealer reported {_irregularity(kind, card, reason)}")
    if len(order) == 2:
        # Heads-up, pokerkit lists the blinds as [small, big] and swaps them itself: its p1
        # (left of the button) posts the big blind, p2 (the button) the small blind.
        blinds.reverse()
    ended = events[-1]
    finishing = dict(stacks)
    if isinstance(ended, ev.HandEnded):
        finishing.update({s: chips for s, chips in ended.stacks if s in finishing})
    lines = [
        f'variant = "{variant}"',
        "ante_trimming_status = true",
        f"antes = {antes}",
        f"blinds_or_straddles = {blinds}",
        f"min_bet = {config.min_bet}",
    ]
    if config.limit is Structure.FIXED_LIMIT:
        lines += [f"small_bet = {config.small_bet}", f"big_bet = {config.big_bet}"]
    lines += [
        f"starting_stacks = {[stacks[s] for s in order]}",
        "actions = [",
        *(f"  {a}" if a.startswith("#") else f'  "{a}",' for a in actions),
        "]",
        f"players = {[players.get(s, f'seat {s}') for s in order]}".replace("'", '"'),
        f"seats = {[s + 1 for s in order]}",
        f"seat_count = {config.seats}",
        f'table = "{table_id}"',
        f"hand = {started.hand}",
        f"finishing_stacks = {[finishing[s] for s in order]}",
    ]
    return "\n".join(lines) + "\n"


def to_text(
    config: TableConfig, players: dict[int, str], events: list[object], table_id: str
) -> str:
    started = events[0]
    assert isinstance(started, ev.HandStarted)

    def who(seat: int) -> str:
        return f"seat {seat} ({players.get(seat, '?')})"

    lines = [
        f"Table {table_id} - hand #{started.hand} - {config.game.title}, {config.limit.value}"
        + (f" {config.small_blind}/{config.big_blind}" if config.big_blind else "")
        + (f" ante {config.ante}" if config.ante else ""),
        f"Button: seat {started.button}",
    ]
    lines += [
        f"{who(s)}: {chips} in chips"
        for s, chips in zip(started.seats, started.stacks, strict=True)
    ]
    # What each contender's hand is, said where it is shown (the ranking comes before the
    # cards are turned over or after, depending on the game's showdown order).
    labels: dict[int, str] = {}
    for event in events:
        if isinstance(event, ev.HandsRanked):
            for seat, rank in event.ranks:
                low = f"; low: {rank.low.label}" if rank.low is not None else ""
                labels[seat] = f"{rank.high.label}{low}"
    phase = ""  # the street whose header was written last: each street is headed once
    for event in events[1:]:
        match event:
            case ev.ForcedBetPosted(seat=seat, kind=kind, amount=amount):
                lines.append(f"{who(seat)} posts {kind} {amount}")
            case ev.PhaseStarted(name=name) if name != phase:
                phase = name
                lines.append(f"*** {name.upper()} ***")
            case ev.CardsDealt(seat=None, cards=cards):
                lines.append(f"Board: {' '.join(cards)}")
            case ev.CardsDealt(seat=int() as seat, cards=cards) if cards:
                lines.append(f"Dealt to {who(seat)}: {' '.join(cards)}")
            case ev.ActionTaken(seat=seat, action=action, to=to, added=added, all_in=all_in):
                detail = {
                    "fold": "folds",
                    "check": "checks",
                    "call": f"calls {added}",
                    "bet": f"bets {to}",
                    "raise": f"raises to {to}",
                    "all-in": f"goes all in to {to}",
                }.get(action, action)
                lines.append(
                    f"{who(seat)} {detail}" + (" (all in)" if all_in and action != "all-in" else "")
                )
            case ev.UncalledBetReturned(seat=seat, amount=amount):
                lines.append(f"Uncalled bet of {amount} returned to {who(seat)}")
            case ev.CardsDiscarded(seat=seat, cards=cards, face_up=face_up):
                if not cards:
                    lines.append(f"{who(seat)} stands pat")
                else:
                    shown = " ".join(cards) if face_up else f"{len(cards)} card(s)"
                    lines.append(f"{who(seat)} discards {shown}")
            case ev.DiscardsReshuffled(cards=cards):
                lines.append(f"The dealer reshuffles {len(cards)} discards into the stub")
            case ev.CardsShown(seat=seat, cards=cards):
                label = f" ({labels[seat]})" if seat in labels else ""
                lines.append(f"{who(seat)} shows {' '.join(cards)}{label}")
            case ev.HandMucked(seat=seat):
                lines.append(f"{who(seat)} mucks")
            case ev.BoardDeclared(seat=seat):
                lines.append(f"{who(seat)} plays the board")
            case ev.PotAwarded(pot=pot, shares=shares, rake=rake):
                name = "main pot" if pot == 0 else f"side pot {pot}"
                for share in shares:
                    half = "" if share.half == "all" else f" ({share.half})"
                    lines.append(f"{who(share.seat)} wins {share.amount} from the {name}{half}")
                if rake:
                    lines.append(f"Rake {rake} from the {name}")
            case ev.HandEnded(stacks=stacks):
                lines.append("*** RESULT ***")
                lines += [f"{who(s)}: {chips}" for s, chips in stacks]
            case ev.CardReported(card=card, to=to, seat=recipient, face_up=face_up):
                if recipient is not None:
                    how = "face up" if face_up else "face down"
                    lines.append(f"Dealer reports {card} to {who(recipient)} ({how})")
                elif to == "burn":
                    lines.append(f"Dealer burns {card}")
                else:
                    lines.append(f"Dealer turns {card} on the board")
            case ev.IrregularityReported(kind=kind, reason=reason, card=card):
                lines.append(f"Dealer reports {_irregularity(kind, card, reason)}")
            case ev.ProcedureApplied(explanation=explanation):
                lines.append(f"*** {explanation} ***")
            case ev.HandVoided(reason=reason, refunds=refunds):
                lines.append(f"*** HAND VOIDED: {reason} ***")
                lines += [f"{who(s)} gets back {chips}" for s, chips in refunds]
    return "\n".join(lines) + "\n"
