"""A live dealer's requests (ReportCard, ReportIrregularity) as the contract's reports, and who
may send them.

A dealer-console credential deals one table: its subject is "<dealer>@<table id>" (the dealer's
name, then the table), so a console's token is worth nothing at any other table, and no other
role (not a player, a bot, a service or an admin) reports cards anywhere.
"""

from __future__ import annotations

from croupier.table.v1 import table_pb2
from services.games import contract as c
from services.shared import errors
from services.shared.auth import Principal, Role

RECIPIENTS = {
    table_pb2.CARD_RECIPIENT_SEAT: "seat",
    table_pb2.CARD_RECIPIENT_BOARD: "board",
    table_pb2.CARD_RECIPIENT_BURN: "burn",
}
IRREGULARITIES = {
    table_pb2.IRREGULARITY_KIND_MISDEAL: "misdeal",
    table_pb2.IRREGULARITY_KIND_CARD_EXPOSED: "card_exposed",
    table_pb2.IRREGULARITY_KIND_PLAYER_EXPOSED: "player_exposed",
}


def dealer_subject(dealer: str, table_id: str) -> str:
    """The subject of the dealer-console credential of `dealer` at `table_id`."""
    return f"{dealer}@{table_id}"


def require_dealer_of(principal: Principal, table_id: str) -> None:
    """PERMISSION_DENIED unless `principal` is a dealer console of `table_id`."""
    if principal.role is not Role.DEALER_CONSOLE:
        raise errors.PermissionDenied(
            f"{principal.role.value} '{principal.subject}' may not report what a dealer dealt:"
            f" it needs a dealer-console credential for table {table_id}"
        )
    _, at, table = principal.subject.partition("@")
    if not at or table != table_id:
        raise errors.PermissionDenied(
            f"dealer console '{principal.subject}' does not deal table {table_id}: its "
            f"credential's subject must be '<dealer>@{table_id}'"
        )


def dealt_card(request: table_pb2.ReportCardRequest) -> c.DealtCard:
    to = RECIPIENTS.get(request.recipient)
    if to is None:
        raise errors.InvalidArgument(
            "set recipient: CARD_RECIPIENT_SEAT (with seat), CARD_RECIPIENT_BOARD or "
            "CARD_RECIPIENT_BURN"
        )
    seat = request.seat if request.HasField("seat") else None
    if (to == "seat") != (seat is not None):
        raise errors.InvalidArgument(
            "a CARD_RECIPIENT_SEAT card needs seat, and only a seat's card takes one"
        )
    return c.DealtCard(request.card, to, seat, request.face_up, request.hand_number)


def irregularity(request: table_pb2.ReportIrregularityRequest) -> c.Irregularity:
    kind = IRREGULARITIES.get(request.kind)
    if kind is None:
        raise errors.InvalidArgument(
            "set kind: IRREGULARITY_KIND_MISDEAL, IRREGULARITY_KIND_CARD_EXPOSED or "
            "IRREGULARITY_KIND_PLAYER_EXPOSED"
        )
    if (kind != "misdeal") != bool(request.card):
        raise errors.InvalidArgument(
            "name the exposed card (card) for IRREGULARITY_KIND_CARD_EXPOSED and "
            "IRREGULARITY_KIND_PLAYER_EXPOSED, and only for them"
        )
    reason = request.reason.strip()
    if not reason and kind == "misdeal":
        raise errors.InvalidArgument("say what happened in reason (it is shown to the players)")
    return c.Irregularity(kind, reason, request.hand_number, request.card)
