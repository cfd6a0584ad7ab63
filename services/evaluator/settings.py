"""Evaluator settings from the environment (frozen; read once at start-up).

The evaluator holds no state and needs nothing beyond the shared runtime settings
(``CROUPIER_EVALUATOR_ADDR``, ``CROUPIER_AUTH_KEY``, metrics, TLS, workers; see
`services.shared.settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from services.shared.settings import RuntimeSettings


@dataclass(frozen=True, slots=True)
class EvaluatorSettings:
    runtime: RuntimeSettings

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> EvaluatorSettings:
        return cls(runtime=RuntimeSettings.from_env("evaluator", env=env))
