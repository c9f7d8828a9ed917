"""/health's `oracle` (docs/oracle.md, "Watching it"): each enabled chain's RPC reachability and the age of its
oldest pending update. Not ok (so /health is `degraded`, a 200) when an enabled chain's RPC does not answer within
2 s or an update has waited longer than ONCHAIN_PENDING_STALE_SECONDS: the API answers, the rows wait, and an
operator is needed. With no chain enabled (the default) it is one query and no probe."""

from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.utils import timezone

from compliance.onchain.selectors import PROBE_TIMEOUT, age_seconds, enabled_chains, rpc_probe

PENDING_STALE_SECONDS = 600


def pending_stale_seconds() -> int:
    return int(getattr(settings, "ONCHAIN_PENDING_STALE_SECONDS", PENDING_STALE_SECONDS))


def health_check() -> dict:
    chains = enabled_chains()
    if not chains:
        return {"ok": True, "problems": [], "oldest_pending_age_seconds": None, "chains": []}
    with ThreadPoolExecutor(max_workers=len(chains)) as pool:  # the chains' probes at once: 2 s at most in all
        probes = list(pool.map(lambda chain: rpc_probe(chain, timeout=PROBE_TIMEOUT), chains))
    now, stale, problems, listed = timezone.now(), pending_stale_seconds(), [], []
    for chain, probe in zip(chains, probes, strict=True):
        age = age_seconds(chain.oldest_pending_at, now=now)
        if not probe.reachable:
            problems.append(f"chain {chain.chain_id} ({chain.name}): RPC {probe.problem}")
        if age is not None and age > stale:
            problems.append(f"chain {chain.chain_id} ({chain.name}): an update has been pending for {age} s (more than {stale})")
        listed.append({"chain_id": chain.chain_id, "name": chain.name, **probe.as_dict(), "oldest_pending_age_seconds": age})
    ages = [item["oldest_pending_age_seconds"] for item in listed if item["oldest_pending_age_seconds"] is not None]
    return {"ok": not problems, "problems": problems, "oldest_pending_age_seconds": max(ages, default=None), "chains": listed}
