"""`croupier verify FILE`: check a hand's shuffle offline, with no server and no network.

FILE is the documented hand history (croupier-hand-history/1), a closed shuffle's ShuffleInfo
in protobuf JSON (either spelling), or the table's ShuffleRevealed record (docs/dealer.md 5).
It prints the contributions, every deal (positions, purpose, cards), what a fair deal would
not contain, and with --history which cards each player and the board received.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from services.dealer.audit import HistoryFormatError, check_phh, contribution_of, unusual
from services.shuffles.history import (
    HandHistoryError,
    HandHistoryRecord,
    describe,
    parse_hand_history,
)
from services.shuffles.proof import (
    CardProof,
    check_card_proof,
    contributor_in_proof,
    is_card_proof,
    parse_card_proof,
)
from services.shuffles.verification import Dealt


def verify(
    file: Annotated[
        Path,
        typer.Argument(
            help="The hand's shuffle record: a hand history, a ShuffleInfo or the table's "
            "ShuffleRevealed, as JSON."
        ),
    ],
    commitment: Annotated[
        str,
        typer.Option(
            help="The commitment (hex) you saw before the hand (ShuffleAnnounced / "
            "ShuffleCommitted, or TableView.shuffles): the record must carry the same one."
        ),
    ] = "",
    history: Annotated[
        Path | None,
        typer.Option(
            help="The hand's history in PHH (`croupier history TABLE HAND --phh`): check every "
            "card it shows a player or the board received against the committed order."
        ),
    ] = None,
    contributor: Annotated[
        str,
        typer.Option(
            help="Your player id: say whether your entropy is in this deck (committed, "
            "revealed, mixed into the order); fail if it is not."
        ),
    ] = "",
    entropy: Annotated[
        str,
        typer.Option(
            help="With --contributor: the entropy (hex) you sent, which must be the one recorded."
        ),
    ] = "",
    strict: Annotated[
        bool, typer.Option(help="Fail (exit 1) on anything a fair deal would not contain too.")
    ] = False,
    positions_root: Annotated[
        str,
        typer.Option(
            help="The positions root (hex) you saw before the hand with the commitment "
            "(ShuffleAnnounced / TableView.entropy_rounds): a card proof must carry the same one."
        ),
    ] = "",
) -> None:
    """Verify a closed hand: commitment, seed, contributions, every dealt card and, with
    --history, who received which card.

    Exit status: 0 all match, 1 at a mismatch (or, with --strict, a warning), 2 when a file
    cannot be read.
    """
    try:
        expected = bytes.fromhex(commitment) if commitment else None
        bytes.fromhex(entropy)
        expected_root = bytes.fromhex(positions_root) if positions_root else None
    except ValueError as exc:
        typer.echo("--commitment, --positions-root and --entropy must be hexadecimal", err=True)
        raise typer.Exit(2) from exc
    try:
        data = json.loads(file.read_text())
        if is_card_proof(data):
            proof = parse_card_proof(data)
        else:
            record = parse_hand_history(data)
    except (OSError, json.JSONDecodeError, HandHistoryError) as exc:
        typer.echo(f"cannot read {file}: {exc}", err=True)
        raise typer.Exit(2) from exc
    if is_card_proof(data):
        failed, warnings = report_proof(proof, expected, expected_root, contributor, entropy)
        raise typer.Exit(1 if failed or (strict and warnings) else 0)
    try:
        phh = history.read_text() if history is not None else None
    except OSError as exc:
        typer.echo(f"cannot read {history}: {exc.strerror}", err=True)
        raise typer.Exit(2) from exc
    failed, warnings = report(record, expected, phh, str(history), contributor, entropy)
    raise typer.Exit(1 if failed or (strict and warnings) else 0)


def report(
    record: HandHistoryRecord,
    expected: bytes | None,
    phh: str | None = None,
    phh_name: str = "the history",
    contributor: str = "",
    entropy: str = "",
) -> tuple[bool, list[str]]:
    """Print every check of one shuffle record (against the commitment the player was shown,
    when `expected`; the cards a PHH history shows, when `phh`; a contributor's entropy):
    (whether anything failed, the warnings printed). A history that cannot be read is exit 2."""
    failed = False
    if expected is not None and expected != record.commitment:
        typer.echo(
            f"MISMATCH (commitment): the record commits to {record.commitment.hex()}, "
            f"not the {expected.hex()} you were shown"
        )
        failed = True
    result = record.verify()
    if record.public_reveal and result.ok:
        typer.echo(
            f"shuffle {record.shuffle_id}: OK: the revealed seed matches the commitment (a "
            "watcher's reveal lists no deals: --history checks the cards you saw against the "
            "derived order; GetShuffle from the dealer gives the whole record)"
        )
    else:
        typer.echo(f"shuffle {record.shuffle_id}: {describe(result, record.steps)}")
    failed = failed or not result.ok
    _contributions(record)
    _deals(record)
    if phh is not None:
        try:
            check = check_phh(record, phh)
        except HistoryFormatError as exc:
            typer.echo(f"cannot read {phh_name}: {exc}", err=True)
            raise typer.Exit(2) from exc
        for card in check.received:
            verdict = "ok" if card.ok else f"MISMATCH: the committed order has {card.recorded}"
            typer.echo(f"  {card.who}: {card.claimed} at position {card.position}: {verdict}")
        typer.echo(
            f"received: {sum(r.ok for r in check.received)} of {len(check.received)} cards "
            f"match their positions ({check.hidden} hidden in this history)"
        )
        failed = failed or not check.ok
    if contributor:
        mine = contribution_of(record, contributor, bytes.fromhex(entropy) if entropy else None)
        typer.echo(f"{contributor}: {mine.describe()}")
        failed = failed or not mine.ok
    warnings = unusual(record)
    for warning in warnings:
        typer.echo(f"WARNING: {warning}")
    return failed, warnings


def report_proof(
    proof: CardProof,
    expected: bytes | None,
    expected_root: bytes | None,
    contributor: str = "",
    entropy: str = "",
) -> tuple[bool, list[str]]:
    """Print every check of a card proof (the openings of the cards one viewer saw), made
    without the seed, against the commitment and positions root the player was shown before
    the hand: (whether anything failed, the warnings printed)."""
    failed = False
    if expected is not None and expected != proof.commitment:
        typer.echo(
            f"MISMATCH (commitment): the proof is for commitment {proof.commitment.hex()}, "
            f"not the {expected.hex()} you were shown"
        )
        failed = True
    if expected_root is not None and expected_root != proof.positions_root:
        typer.echo(
            f"MISMATCH (positions_root): the proof opens against {proof.positions_root.hex()}, "
            f"not the {expected_root.hex()} you were shown before the hand"
        )
        failed = True
    check = check_card_proof(proof)
    names = [c.contributor for c in proof.contributions]
    typer.echo(f"entropy from: {', '.join(names) if names else 'nobody (the house seed alone)'}")
    for verdict in check.verdicts:
        o = verdict.card.opening
        what = verdict.card.purpose or "card"
        status = "ok" if verdict.problem is None else f"MISMATCH: {verdict.problem}"
        typer.echo(
            f"  #{o.dealt_index} {what}: {o.card} (base position {o.base_position}): {status}"
        )
    proven = sum(v.problem is None for v in check.verdicts)
    verdict_word = "OK" if check.ok else "MISMATCH"
    typer.echo(
        f"shuffle {proof.shuffle_id}: {verdict_word}: {proven} of {len(check.verdicts)} cards "
        f"proven against the positions root {proof.positions_root.hex()}"
    )
    failed = failed or not check.ok
    if contributor:
        problem = contributor_in_proof(
            proof, contributor, bytes.fromhex(entropy) if entropy else None
        )
        typer.echo(f"{contributor}: {problem or 'committed, revealed and mixed into the order'}")
        failed = failed or problem is not None
    warnings = list(check.warnings)
    if expected_root is None:
        warnings.append(
            "no --positions-root given: compare the proof's root with the one announced "
            "before the hand"
        )
    for warning in warnings:
        typer.echo(f"WARNING: {warning}")
    return failed, warnings


def _contributions(record: HandHistoryRecord) -> None:
    names = [c.contributor for c in record.contributions]
    typer.echo(f"entropy from: {', '.join(names) if names else 'nobody (the house seed alone)'}")


def _deals(record: HandHistoryRecord) -> None:
    position = 0
    notes = record.notes or ()
    for number, step in enumerate(record.steps):
        note = notes[number] if number < len(notes) else None
        if isinstance(step, Dealt):
            end = position + len(step.cards) - 1
            what = note.purpose if note is not None and note.purpose else "deal"
            to = f" to {note.recipient}" if note is not None and note.recipient else ""
            cards = " ".join(str(c) for c in step.cards)
            typer.echo(f"  #{position}-{end} {what}{to}: {cards}")
            position += len(step.cards)
        else:
            returned = " ".join(str(c) for c in step.include) or "nothing"
            typer.echo(f"  reshuffle returning {returned}")
