"""Table-service settings from the environment (besides the shared RuntimeSettings).

``CROUPIER_DEALER_TARGET``     address of the dealer service (required)
``CROUPIER_EVALUATOR_TARGET``  address of the evaluator service (required)
``CROUPIER_LEDGER_TARGET``     address of the ledger service (required)
``CROUPIER_TABLE_REDIS_URL``   Redis holding the table streams (falls back to ``REDIS_URL``;
                               required)
``CROUPIER_TABLE_RANKER``      ``library`` (default: the evaluator's ranking library in
                               process, behind the engine's ranking port) or ``evaluator``
                               (one Showdown RPC per showdown)
``CROUPIER_TABLE_VOID_AFTER_S`` seconds a hand may stay stuck on a dependency that is down
                               (dealer, ledger) before it is voided with every stake
                               returned (30)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from services.shared.settings import (
    SettingsError,
    env_float,
    env_str,
    require_env,
    target_env_name,
)

RANKERS = ("library", "evaluator")


@dataclass(frozen=True, slots=True)
class TableSettings:
    dealer_target: str
    evaluator_target: str
    ledger_target: str
    redis_url: str
    ranker: str = "library"
    void_after_s: float = 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TableSettings:
        def target(name: str, purpose: str) -> str:
            return require_env(target_env_name(name), purpose, env=env)

        ranker = env_str("CROUPIER_TABLE_RANKER", "library", env=env)
        if ranker not in RANKERS:
            raise SettingsError(
                f"CROUPIER_TABLE_RANKER={ranker!r}; use one of {', '.join(RANKERS)}"
            )
        return cls(
            dealer_target=target(
                "dealer", "address of the dealer service the table asks for cards"
            ),
            evaluator_target=target(
                "evaluator", "address of the evaluator service that ranks showdown hands"
            ),
            ledger_target=target("ledger", "address of the ledger service that moves the chips"),
            redis_url=env_str("CROUPIER_TABLE_REDIS_URL", env=env)
            or require_env("REDIS_URL", "the Redis that stores the table event streams", env=env),
            ranker=ranker,
            void_after_s=env_float("CROUPIER_TABLE_VOID_AFTER_S", 30.0, env=env),
        )
