"""The worker's composition root: concrete adapters for the ports, built once per process."""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from dataclasses import dataclass

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots.play_acts import ActsOnPlay, PlayActs
from services.bots.policies import Policy, make_policy
from services.bots.remote import TurnResult, play_turn
from services.bots.view import BotAction, BotView
from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadline_index import SWEPT_KEY, RedisDeadlineIndex
from services.scheduling.resend_index import BOT_TURNS_KEY, SEAT_BOTS_KEY, RedisResendIndex
from services.sdk.entropy import EntropyContributor
from services.shared import auth
from services.shared.channels import RenewingServiceToken, connect
from services.shared.redis_connection import RedisTarget, sync_client
from services.workers.bot_entropy import StubEntropyCalls, bot_entropy
from services.workers.bot_host import HostedBots
from services.workers.bot_seats import GrpcBotSeater
from services.workers.bot_turns import BotMoveOutcome, TurnClaims
from services.workers.grpc_table import GrpcTableGateway
from services.workers.seat_give_ups import RedisSeatGiveUps
from services.workers.settings import ISSUER, WorkerSettings
from services.workers.table_scan import GrpcTableScan

SERVICE_SUBJECT = ISSUER
BOT_TOKEN_TTL = 3600
# Bots' Play streams one worker process keeps open (each bot's own, reused turn after turn).
MAX_PLAY_STREAMS = 512


class GrpcBotPlayer:
    """Plays a built-in bot's turn through the public TableService API, as the bot."""

    def __init__(self, channel: grpc.Channel, auth_key: str | auth.Credentials) -> None:
        self._stub = table_pb2_grpc.TableServiceStub(channel)
        self._key = auth_key
        self._policies: dict[tuple[str, float], Policy] = {}
        self._lock = threading.Lock()
        # Each bot acts on its own Play stream (the stream authenticates as the bot), kept
        # for its next turns; at most MAX_PLAY_STREAMS, the least recently used closed first.
        self._plays: OrderedDict[str, PlayActs] = OrderedDict()
        # Each bot's entropy contributor (its answers so far), the same bound as the streams.
        self._entropy: OrderedDict[str, tuple[StubEntropyCalls, EntropyContributor]] = OrderedDict()

    def play(self, turn: BotTurn) -> BotMoveOutcome:
        policy = self._policy(turn.policy, turn.difficulty)
        token = auth.issue_token(self._key, turn.bot_id, auth.Role.BOT, BOT_TOKEN_TTL)
        # Seeded by the turn: every delivery of the same turn makes the same choice.
        rng = random.Random(f"{turn.bot_id}/{turn.key}")

        def choose(view: BotView, table: table_pb2.TableView, turn_rng: random.Random) -> BotAction:
            return policy.choose(view, turn_rng)  # a built-in policy needs only the BotView

        metadata = auth.bearer_metadata(token)
        result = play_turn(
            ActsOnPlay(self._stub, self._play_for(turn.bot_id, metadata)),
            metadata,
            turn.table_id,
            choose,
            rng,
            turn.idempotency_key,
            hand_number=turn.hand_number,
            action_number=turn.action_number,
            on_view=self._entropy_for(turn.bot_id, metadata).answer,
        )
        return BotMoveOutcome.ACTED if result is TurnResult.ACTED else BotMoveOutcome.STALE

    def answer_entropy(self, table_id: str, bot_id: str) -> int:
        """The bot answers the entropy rounds of its view of the table, as the bot (its
        entropy derived, so whichever process reveals it reveals what another committed).
        How many rounds it answered."""
        token = auth.issue_token(self._key, bot_id, auth.Role.BOT, BOT_TOKEN_TTL)
        metadata = auth.bearer_metadata(token)
        contributor = self._entropy_for(bot_id, metadata)
        reader = StubEntropyCalls(self._stub)
        reader.metadata = metadata
        return contributor.answer(reader.view(table_id))

    def _entropy_for(
        self, bot_id: str, metadata: tuple[tuple[str, str], ...]
    ) -> EntropyContributor:
        """The bot's contributor, calling as the bot with this turn's token."""
        with self._lock:
            found = self._entropy.get(bot_id)
            if found is None:
                calls = StubEntropyCalls(self._stub)
                key = self._key

                def derive(shuffle_id: str, player: str) -> bytes:
                    return bot_entropy(key, shuffle_id, player)

                found = self._entropy[bot_id] = (calls, EntropyContributor(calls, derive=derive))
                while len(self._entropy) > MAX_PLAY_STREAMS:
                    self._entropy.popitem(last=False)
            self._entropy.move_to_end(bot_id)
            found[0].metadata = metadata
            return found[1]

    def _play_for(self, bot_id: str, metadata: tuple[tuple[str, str], ...]) -> PlayActs:
        with self._lock:
            acts = self._plays.get(bot_id)
            if acts is None:
                acts = self._plays[bot_id] = PlayActs(self._stub, metadata)
                while len(self._plays) > MAX_PLAY_STREAMS:
                    _, oldest = self._plays.popitem(last=False)
                    oldest.close()
            self._plays.move_to_end(bot_id)
            return acts

    def _policy(self, name: str, difficulty: float) -> Policy:
        with self._lock:
            key = (name, difficulty)
            if key not in self._policies:
                # Imported on first use: the evaluator builds its tables (seconds) at import,
                # which a worker that only fires timeouts should not wait for at start-up.
                from services.bots.ranker import default_ranker

                self._policies[key] = make_policy(name, default_ranker(), difficulty)
            return self._policies[key]


@dataclass
class WorkerRuntime:
    settings: WorkerSettings
    index: RedisDeadlineIndex
    claims: TurnClaims
    gateway: GrpcTableGateway
    bot_player: GrpcBotPlayer
    bot_turns: RedisResendIndex
    seat_bots: RedisResendIndex
    # Which requested bots gave up lately, so the sweeper backs off re-sending them.
    seat_give_ups: RedisSeatGiveUps
    scan: GrpcTableScan
    # The real-time games' deadlines (no task each: swept_deadlines.py sweeps them).
    swept: RedisDeadlineIndex
    # The seated real-time bots the bot host plays (bot_host.py).
    hosted: HostedBots
    # None without CROUPIER_LEDGER_TARGET: tables' requested bots are then not seated.
    bot_seater: GrpcBotSeater | None = None


def build_runtime(settings: WorkerSettings) -> WorkerRuntime:
    if not settings.table_target:
        raise ValueError("CROUPIER_TABLE_TARGET is required: where the workers reach the table")
    key = settings.credentials
    if key is None:
        raise ValueError(
            "CROUPIER_AUTH_SIGNING_KEY_FILE and CROUPIER_AUTH_PUBLIC_KEYS_FILE are required "
            "(or CROUPIER_AUTH_KEY in development): the workers sign service and bot tokens"
        )
    client = sync_client(RedisTarget(url=settings.redis_url, source="CROUPIER_WORKERS_REDIS_URL"))
    # Each table's calls to its preferred table replica (services/shared/rendezvous.py).
    service_channel = connect(
        settings.table_target, RenewingServiceToken(key, SERVICE_SUBJECT), affinity=True
    )
    bot_channel = connect(settings.table_target, affinity=True)
    return WorkerRuntime(
        settings=settings,
        index=RedisDeadlineIndex(client),
        claims=TurnClaims(client),
        gateway=GrpcTableGateway(service_channel),
        bot_player=GrpcBotPlayer(bot_channel, key),
        bot_turns=RedisResendIndex(client, BOT_TURNS_KEY),
        seat_bots=RedisResendIndex(client, SEAT_BOTS_KEY),
        seat_give_ups=RedisSeatGiveUps(client),
        scan=GrpcTableScan(service_channel),
        swept=RedisDeadlineIndex(client, SWEPT_KEY),
        hosted=HostedBots(client),
        bot_seater=(
            GrpcBotSeater(
                bot_channel,
                connect(
                    settings.ledger_target,
                    RenewingServiceToken(key, SERVICE_SUBJECT),
                ),
                key,
                settings.bot_bankroll,
            )
            if settings.ledger_target
            else None
        ),
    )
