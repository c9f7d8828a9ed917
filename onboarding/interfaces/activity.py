"""The entity activity feed: a registry of sources, each returning ActivityItems of one kind.

    register_activity_source("alerts", lambda entity, limit: [ActivityItem(at, "alert.created", "...", {...}), ...])

A source returns at most `limit` of its most recent items; the feed merges them and keeps the
newest `limit`, in chronological order (oldest first). Built in: status changes, compliance checks,
risk changes, wallets and false-positive decisions; alerts and cases join from their apps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from common.models import AuditLogEntry


@dataclass(frozen=True)
class ActivityItem:
    at: datetime
    type: str
    summary: str
    data: dict = field(default_factory=dict)


ActivitySource = Callable[..., list[ActivityItem]]
_sources: dict[str, ActivitySource] = {}


def register_activity_source(name: str, source: ActivitySource) -> None:
    _sources[name] = source


def activity_sources() -> dict[str, ActivitySource]:
    return dict(_sources)


def entity_activity(entity, *, limit: int) -> list[ActivityItem]:
    items = [item for source in _sources.values() for item in source(entity, limit)]
    newest = sorted(items, key=lambda item: item.at, reverse=True)[:limit]
    return sorted(newest, key=lambda item: item.at)


STATUS_ACTIONS = ("entity.created", "entity.approve", "entity.reject", "entity.suspend", "entity.flag_for_review")


def _status_changes(entity, limit):
    entries = AuditLogEntry.objects.filter(organization=entity.organization_id, object_type="entity", object_id=str(entity.pk),
                                           action__in=STATUS_ACTIONS).order_by("-created_at", "-id")[:limit]
    items = []
    for entry in entries:
        after, before = entry.after or {}, entry.before or {}
        if entry.action == "entity.created":
            items.append(ActivityItem(entry.created_at, "entity.created", f"Onboarded by {entry.actor_label or 'system'}.",
                                      {"status": after.get("status")}))
            continue
        items.append(ActivityItem(entry.created_at, "status.changed",
                                  f"Status {before.get('status')} → {after.get('status')} by {entry.actor_label or 'system'}"
                                  + (f": {after.get('status_reason')}" if after.get("status_reason") else "."),
                                  {"previous_status": before.get("status"), "new_status": after.get("status"),
                                   "reason": after.get("status_reason") or None}))
    return items


def _checks(entity, limit):
    return [ActivityItem(check.created_at, "check.recorded", check.summary or f"{check.check_type} {check.result}",
                         {"check_id": str(check.pk), "check_type": check.check_type, "result": check.result, "provider": check.provider})
            for check in entity.checks.order_by("-created_at", "-id")[:limit]]


def _risk_changes(entity, limit):
    return [ActivityItem(row.created_at, "risk.changed",
                         f"Risk {row.previous_score if row.previous_score is not None else '—'} → {row.score} ({row.tier}): {row.reason}.",
                         {"score": row.score, "tier": row.tier, "previous_score": row.previous_score,
                          "previous_tier": row.previous_tier or None})
            for row in entity.risk_history.order_by("-created_at", "-id")[:limit]]


def _wallets(entity, limit):
    items = []
    for wallet in entity.wallets.order_by("-created_at", "-id")[:limit]:
        items.append(ActivityItem(wallet.created_at, "wallet.added", f"Wallet {wallet.address} on chain {wallet.chain_id} added.",
                                  {"wallet_id": str(wallet.pk), "chain_id": wallet.chain_id, "address": wallet.address}))
        if wallet.flagged and wallet.flagged_at:
            items.append(ActivityItem(wallet.flagged_at, "wallet.flagged", f"Wallet {wallet.address} flagged: {wallet.flag_reason}",
                                      {"wallet_id": str(wallet.pk), "reason": wallet.flag_reason}))
    return items


def _false_positives(entity, limit):
    return [ActivityItem(fp.created_at, "screening_hit.false_positive",
                         f"{fp.source} entry {fp.entry_uid} cleared as a false positive by {fp.decided_by}: {fp.reason}",
                         {"source": fp.source, "entry_uid": fp.entry_uid, "decided_by": fp.decided_by})
            for fp in entity.false_positives.order_by("-created_at", "-id")[:limit]]


register_activity_source("status_changes", _status_changes)
register_activity_source("checks", _checks)
register_activity_source("risk_changes", _risk_changes)
register_activity_source("wallets", _wallets)
register_activity_source("false_positives", _false_positives)
