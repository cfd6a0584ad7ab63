"""Evaluator settings from the environment (frozen; read once at start-up).

The evaluator holds no state. Beyond the shared runtime settings (``CROUPIER_EVALUATOR_ADDR``,
``CROUPIER_AUTH_KEY``, metrics, TLS, workers; see `services.shared.settings`) it reads
``CROUPIER_EVALUATOR_EQUITY_CPU_MS``: the most CPU time one Equity call may spend (default
2,000 ms; a request may ask for less).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from services.shared.settings import RuntimeSettings, SettingsError, env_int

DEFAULT_EQUITY_CPU_MS = 2_000


@dataclass(frozen=True, slots=True)
class EvaluatorSettings:
    runtime: RuntimeSettings
    equity_cpu_ms: int = DEFAULT_EQUITY_CPU_MS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> EvaluatorSettings:
        cpu_ms = env_int("CROUPIER_EVALUATOR_EQUITY_CPU_MS", DEFAULT_EQUITY_CPU_MS, env=env)
        if cpu_ms < 1:
            raise SettingsError(f"CROUPIER_EVALUATOR_EQUITY_CPU_MS={cpu_ms}: give at least 1 ms")
        return cls(runtime=RuntimeSettings.from_env("evaluator", env=env), equity_cpu_ms=cpu_ms)
