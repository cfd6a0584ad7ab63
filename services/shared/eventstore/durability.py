"""When an append counts as durable.

- "everysec" (default): acknowledged once Redis has applied it; the server's AOF is fsynced
  about once a second. A Redis process crash loses nothing (the OS still holds the written
  AOF), but a power loss or kernel crash can lose up to ~1 s of acknowledged appends.
- "strict": after the append script, `WAITAOF 1 0 <timeout>` (a second round trip), and the
  append is acknowledged only when Redis confirms the local AOF fsync. Costs one round trip and
  one fsync wait per append (milliseconds on SSD); if the wait times out the caller gets
  `Unavailable` and retries with the same idempotency key, which is then deduplicated.
  Needs Redis >= 7.2 or valkey with appendonly yes; a store asked for strict mode checks this
  at start-up and refuses to start otherwise.
"""

from __future__ import annotations

import os
from typing import Literal

Durability = Literal["everysec", "strict"]
ENV_VAR = "CROUPIER_DURABILITY"


def durability_from_env(default: Durability = "everysec") -> Durability:
    """CROUPIER_DURABILITY=everysec|strict (unset: the default)."""
    value = os.environ.get(ENV_VAR, "").strip().lower() or default
    if value == "everysec":
        return "everysec"
    if value == "strict":
        return "strict"
    raise ValueError(f"{ENV_VAR} must be 'everysec' or 'strict', got {value!r}")


# WAITAOF confirms the fsync of the writes made on the connection that sends it; a cluster
# client sends each command on a connection of its choosing, so it would confirm nothing.
STRICT_ON_CLUSTER = (
    "durability 'strict' (WAITAOF after every append) needs a single Redis: on a Redis "
    "Cluster the wait cannot follow the write on its connection. Use 'everysec' there "
    "(docs/scale-out.md)"
)
