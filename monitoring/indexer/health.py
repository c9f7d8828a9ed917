"""/health's `indexer` (docs/indexer.md, "Console and health"): each enabled chain's lag, from what its last run noted
on the cursor (one query, no RPC call). Not ok (so /health is `degraded`, a 200) when a chain is stopped, behind by more
than INDEXER_LAG_BLOCKS_DEGRADED blocks or INDEXER_LAG_SECONDS_DEGRADED seconds, or has not run for
INDEXER_STALE_RUN_SECONDS. A chain not indexed yet (no run) is listed, not a problem."""

from django.conf import settings
from django.utils import timezone

from monitoring.indexer.selectors import enabled_cursors, lag_of


def health_check() -> dict:
    now, problems, listed = timezone.now(), [], []
    for chain, cursor in enabled_cursors():
        if cursor is None or cursor.last_run_at is None:
            listed.append({"chain_id": chain.chain_id, "indexed": False})
            continue
        lag, name = lag_of(cursor), f"chain {chain.chain_id} ({chain.name})"
        idle = int((now - cursor.last_run_at).total_seconds())
        if cursor.stopped:
            problems.append(f"{name}: stopped: {cursor.last_error[:200]}")
        if lag.blocks is not None and lag.blocks > settings.INDEXER_LAG_BLOCKS_DEGRADED:
            problems.append(f"{name}: {lag.blocks} blocks behind (more than {settings.INDEXER_LAG_BLOCKS_DEGRADED})")
        if lag.seconds is not None and lag.seconds > settings.INDEXER_LAG_SECONDS_DEGRADED:
            problems.append(f"{name}: {lag.seconds} s behind the head (more than {settings.INDEXER_LAG_SECONDS_DEGRADED})")
        if idle > settings.INDEXER_STALE_RUN_SECONDS:
            problems.append(f"{name}: no run for {idle} s (more than {settings.INDEXER_STALE_RUN_SECONDS})")
        listed.append({"chain_id": chain.chain_id, "indexed": True, "head": cursor.head, "last_block": cursor.last_block,
                       "lag_blocks": lag.blocks, "lag_seconds": lag.seconds, "last_run_at": cursor.last_run_at.isoformat(),
                       "stopped": cursor.stopped, "last_error": cursor.last_error[:300]})
    return {"ok": not problems, "problems": problems, "chains": listed}
