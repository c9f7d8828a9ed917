"""/health (readiness: database, cache and broker; whether the sanctions lists are current; the on-chain oracle's
enabled chains; the chain indexer's lag) and /health/live (liveness: constant JSON)."""

import time

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET


def _timed(check) -> dict:
    started = time.perf_counter()
    try:
        detail = check() or {}
        return {"ok": True, "latency_ms": round((time.perf_counter() - started) * 1000, 2), **detail}
    except Exception as exc:  # noqa: BLE001 - a failing dependency is reported, not raised
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}


def _database():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"engine": connection.vendor}


def _cache():
    cache.set("health:probe", "1", 10)
    if cache.get("health:probe") != "1":
        raise RuntimeError("cache did not return what was written")
    return {"backend": "redis" if settings.REDIS_URL else "database"}


def _broker():
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        return {"transport": conn.transport_cls if isinstance(conn.transport_cls, str) else conn.transport.driver_type}


def _sanctions_lists():
    from onboarding.sanctions.status import health_check

    return health_check()


def _oracle():
    from compliance.onchain.health import health_check

    return health_check()


def _indexer():
    from monitoring.indexer.health import health_check

    return health_check()


@require_GET
def health(request):
    """200 `ok`; 200 `degraded` when the service runs but needs an operator (sanctions lists missing,
    stale or failing to refresh; an enabled chain's RPC unreachable or an on-chain update pending too long; a chain's
    indexer stopped or lagging);
    503 `unavailable` when the database, cache or broker is down."""
    checks = {"database": _timed(_database), "cache": _timed(_cache), "broker": _timed(_broker)}
    available = all(check["ok"] for check in checks.values())
    unread = {"ok": False, "error": "database unavailable"}
    lists = _timed(_sanctions_lists) if checks["database"]["ok"] else unread
    oracle = _timed(_oracle) if checks["database"]["ok"] else unread
    indexer = _timed(_indexer) if checks["database"]["ok"] else unread
    status = "unavailable" if not available else "ok" if lists["ok"] and oracle["ok"] and indexer["ok"] else "degraded"
    body = {"status": status, "version": settings.SPECTACULAR_SETTINGS["VERSION"], **checks, "sanctions_lists": lists,
            "oracle": oracle, "indexer": indexer}
    return JsonResponse(body, status=200 if available else 503)


@require_GET
def live(request):
    return JsonResponse({"status": "ok"})
