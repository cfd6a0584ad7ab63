"""`croupier verify`: check a hand's shuffle yourself, from the live platform or a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from croupier.dealer.v1 import dealer_pb2
from croupier.table.v1 import table_pb2
from services.client.identity import Identity
from services.client.reporting import reported
from services.dealer.verify_cli import report, report_proof
from services.dealer.verify_cli import verify as verify_file
from services.sdk import (
    Croupier,
    CroupierError,
    FailedPrecondition,
    NotFound,
    shown_commitment,
    shown_positions_root,
    shuffle_id_of,
)
from services.shuffles.history import (
    HandHistoryError,
    HandHistoryRecord,
    hand_history_json,
    history_from_info,
    parse_hand_history,
)
from services.shuffles.proof import parse_card_proof


@reported
def verify(
    ctx: typer.Context,
    file: Annotated[
        Path | None,
        typer.Argument(
            help="A hand history JSON: croupier-hand-history/1, or the dealer's ShuffleInfo JSON"
            " as grpcurl prints it."
        ),
    ] = None,
    table: Annotated[str, typer.Option(help="Fetch the shuffle of this table's hand ...")] = "",
    hand: Annotated[int, typer.Option(help="... number N (with --table).", min=0)] = 0,
    commitment: Annotated[
        str,
        typer.Option(
            help="The commitment (hex) you saw before the hand (with --table: the table's "
            "record of it is checked anyway)."
        ),
    ] = "",
    history: Annotated[
        Path | None,
        typer.Option(
            help="FILE: the hand's PHH history, every card checked against the order (with "
            "--table the table's history is checked)."
        ),
    ] = None,
    contributor: Annotated[
        str, typer.Option(help="Your player id: is your entropy in this deck?")
    ] = "",
    entropy: Annotated[
        str, typer.Option(help="With --contributor: the entropy (hex) you sent.")
    ] = "",
    strict: Annotated[
        bool, typer.Option(help="Fail on anything a fair deal would not contain.")
    ] = False,
    positions_root: Annotated[
        str,
        typer.Option(help="FILE, a card proof: the positions root (hex) you saw before the hand."),
    ] = "",
) -> None:
    """Re-derive every card of a dealt hand from the commitment shown before it and the
    revealed seed. With --table and --hand the commitment is the one the table announced to
    every watcher before the hand (GetHandHistory's shuffles), the deals are the dealer's
    record, and the hand's history places the cards it shows you.

    Exit status: 0 all match, 1 at the first mismatch, 2 when there is nothing to check.

    Examples: croupier --as alice verify --table T1 --hand 3;  croupier verify hand.json
    """
    if file is not None:
        if table or hand:
            raise typer.BadParameter("give a FILE or --table and --hand, not both")
        verify_file(file, commitment, history, contributor, entropy, strict, positions_root)
        return
    if not table or not hand:
        raise typer.BadParameter("give a FILE, or --table T and --hand N")
    try:
        expected = bytes.fromhex(commitment) if commitment else None
        bytes.fromhex(entropy)
    except ValueError:
        raise typer.BadParameter("--commitment and --entropy must be hexadecimal") from None
    identity: Identity = ctx.obj
    with identity.connect() as c:
        failed, warnings = _verify_hand(c, table, hand, expected, contributor, entropy)
    raise typer.Exit(1 if failed or (strict and warnings) else 0)


def _verify_hand(
    c: Croupier, table: str, hand: int, expected: bytes | None, contributor: str, entropy: str
) -> tuple[bool, list[str]]:
    """Check every shuffle the table recorded for the hand against the commitment the table
    showed before the hand (its ShuffleAnnounced, or ShuffleCommitted for a custom deck),
    never the dealer's word alone; the dealer's whole record gives the deals, else the table's
    reveal (a watcher's) is checked. (failed, warnings); exit 2 when nothing can be checked."""
    try:
        reply = c.tables.history(table, hand)
    except (NotFound, FailedPrecondition) as exc:
        typer.echo(f"cannot verify hand {hand} of table {table}: {exc.message}", err=True)
        raise typer.Exit(2) from None
    shuffles = [s for s in reply.shuffles if not s.revealed.unused]
    if not shuffles:
        typer.echo(
            f"cannot verify hand {hand} of table {table}: the table recorded no shuffle for it",
            err=True,
        )
        raise typer.Exit(2)
    # The hand's PHH places the cards it shows (the caller's own, the board, the shown
    # hands) against the one deck poker deals from.
    phh = reply.phh if len(shuffles) == 1 and reply.phh else None
    failed = False
    warnings: list[str] = []
    for shuffle in shuffles:
        name = shuffle_id_of(shuffle)
        try:
            shown = shown_commitment(shuffle)
        except ValueError as exc:
            typer.echo(f"MISMATCH (commitment): {exc}")
            failed = True
            continue
        if not shown:
            typer.echo(f"cannot verify shuffle {name}: the table showed no commitment", err=True)
            raise typer.Exit(2)
        typer.echo(f"shuffle {name}: the table showed commitment {shown} before the hand")
        if expected is not None and expected != bytes.fromhex(shown):
            typer.echo(
                f"MISMATCH (commitment): the table showed {shown}, not the {expected.hex()} you saw"
            )
            failed = True
        record = _record(c, shuffle, name)
        if record is not None:
            bad, warned = report(
                record, bytes.fromhex(shown), phh, "the hand's history", contributor, entropy
            )
        else:
            bad, warned = _proof(shuffle, name, bytes.fromhex(shown), contributor, entropy)
        failed = failed or bad
        warnings += warned
    return failed, warnings


def _proof(
    shuffle: table_pb2.HandShuffle, name: str, shown: bytes, contributor: str, entropy: str
) -> tuple[bool, list[str]]:
    """Without the seed (the table's policy keeps it from the caller): the caller's card
    proof, checked against the commitment and positions root the table showed before the
    hand."""
    try:
        root = shown_positions_root(shuffle)
    except ValueError as exc:
        typer.echo(f"MISMATCH (positions_root): {exc}")
        return True, []
    if not shuffle.card_proof_json or not root:
        typer.echo(
            f"cannot verify shuffle {name}: no seed is given to you and the table holds no "
            "card proof for it (a shuffle without per-position commitments)",
            err=True,
        )
        raise typer.Exit(2)
    typer.echo(f"shuffle {name}: the table showed positions root {root} before the hand")
    try:
        proof = parse_card_proof(json.loads(shuffle.card_proof_json))
    except (ValueError, HandHistoryError) as exc:
        typer.echo(f"cannot verify shuffle {name}: the card proof: {exc}", err=True)
        raise typer.Exit(2) from None
    return report_proof(proof, shown, bytes.fromhex(root), contributor, entropy)


def _record(c: Croupier, shuffle: table_pb2.HandShuffle, name: str) -> HandHistoryRecord | None:
    """The shuffle's record: the dealer's (every deal, who each card went to), else the
    reveal the table gave the caller; None when neither holds the seed (the table's
    seed_reveal policy keeps it from the caller: its card proof is checked instead)."""
    try:
        public = json.loads(shuffle.revealed.reveal_json or "{}")
    except ValueError:
        public = {}
    has_seed = isinstance(public, dict) and bool(
        public.get("revealed_seed_hex") or public.get("revealed_seed")
    )
    try:
        info = c.dealer.shuffle(name)
        if not info.revealed_seed and info.status == dealer_pb2.SHUFFLE_STATUS_CLOSED:
            if not has_seed:
                return None
            # (the dealer gives a closed shuffle's seed to auditors; the table's policy gave
            # it to the caller with the reveal)
            typer.echo(f"shuffle {name}: the seed from the table's reveal")
            return parse_hand_history(json.loads(shuffle.revealed.reveal_json))
        return parse_hand_history(
            hand_history_json(history_from_info(info)) | {"test_deck": info.test_deck}
        )
    except (CroupierError, HandHistoryError) as exc:
        # (the dealer unreachable, or its record not closed: the table's reveal still
        # checks the seed against the commitment, and the history's cards against the order)
        why = exc.message if isinstance(exc, CroupierError) else str(exc)
        if not shuffle.revealed.reveal_json:
            typer.echo(f"cannot verify shuffle {name}: {why}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"shuffle {name}: the dealer's record unavailable ({why}): the table's reveal")
    try:
        return parse_hand_history(json.loads(shuffle.revealed.reveal_json))
    except (ValueError, HandHistoryError) as exc:
        typer.echo(f"cannot verify shuffle {name}: the table's reveal: {exc}", err=True)
        raise typer.Exit(2) from None
