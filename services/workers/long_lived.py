"""The worker process's long-lived loops, beside Celery's task pool: the swept deadlines'
sweeper (swept_deadlines.py) and the bot host (bot_host.py). They start when the worker is
ready (Celery's `worker_ready`, in the process that runs the tasks: `--pool=threads`) and
stop with it; a worker killed hard takes them with it, and what they were doing is in Redis
for the next worker (the swept index, the hosted-bot registry and its leases)."""

from __future__ import annotations

import logging
from typing import Any

from celery import signals

from services.workers.bot_host import BotHost, spit_players
from services.workers.swept_deadlines import SweptDeadlines
from services.workers.tasks import runtime

log = logging.getLogger(__name__)
_loops: list[SweptDeadlines | BotHost] = []


@signals.worker_ready.connect
def start(**_: Any) -> None:
    rt = runtime()
    settings = rt.settings
    _loops.append(SweptDeadlines(rt.swept, rt.gateway, settings.swept_interval).start())
    credentials = settings.credentials
    if settings.host_bots and credentials is not None:
        host = BotHost(rt.hosted, spit_players(settings.table_target, credentials))
        _loops.append(host.start())
        log.info("bot host %s started", host.holder)


@signals.worker_shutdown.connect
def stop(**_: Any) -> None:
    while _loops:
        _loops.pop().stop()
