"""Compliance writes: the on-chain status-update rows the oracle publisher sends (docs/architecture.md §6). The
travel rule's writes are in compliance.travel_rule.services."""

import hashlib
from collections import defaultdict

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from common.outbox import enqueue_on_commit
from compliance import selectors
from compliance.models import Chain, OnchainStatusUpdate
from compliance.status import onchain_flags, onchain_risk_tier, wallet_blocked
from onboarding.choices import WalletStatus
from onboarding.models import Wallet


@transaction.atomic
def onchain_updates_write(*, entity, reason: str, wallets=None) -> list[OnchainStatusUpdate]:
    """One pending row per active wallet of `entity` (or per wallet given), saying whether the oracle
    should mark it flagged. Called inside the transaction of the change.

    The oracle holds one status per address and chain, and the same address may be registered in several
    organizations and modes: each row carries the most restrictive status over every active registration of
    its address (flags OR-ed, the highest risk tier; docs/decisions.md), so one organization's approval never
    clears another's flag, and the latest row, which the publisher keeps, is right whoever wrote it."""
    if wallets is None:
        wallets = entity.wallets.filter(status=WalletStatus.ACTIVE).order_by("created_at", "id")
    wallets = [wallet for wallet in wallets if wallet.status == WalletStatus.ACTIVE]
    others = _other_registrations(wallets)
    rows = []
    for wallet in wallets:
        flagged, flags, tier = wallet_blocked(entity, wallet), onchain_flags(entity, wallet), onchain_risk_tier(entity)
        note = reason
        for other in others.get((wallet.chain_id, wallet.address), ()):
            other_flagged, other_flags = wallet_blocked(other.entity, other), onchain_flags(other.entity, other)
            if other_flagged and not flagged:
                note = f"{reason[:230]} (the address stays flagged: another registration of it flags it)"
            flagged, flags, tier = flagged or other_flagged, flags | other_flags, max(tier, onchain_risk_tier(other.entity))
        rows.append(OnchainStatusUpdate(organization_id=entity.organization_id, mode=entity.mode, wallet=wallet, entity=entity,
                                        chain_id=wallet.chain_id, address=wallet.address, flagged=flagged, risk_tier=tier,
                                        flags=flags, reason=note[:300]))
    return _onchain_rows_create(rows)


def _onchain_rows_create(rows: list[OnchainStatusUpdate]) -> list[OnchainStatusUpdate]:
    """Stores the pending rows; the publisher runs on commit for each of their chains that is enabled."""
    created = OnchainStatusUpdate.objects.bulk_create(rows)
    if not created:
        return created
    for chain_id in Chain.objects.filter(chain_id__in={row.chain_id for row in created}, enabled=True).values_list("chain_id", flat=True):
        enqueue_on_commit(_tasks().publish_status, chain_id)
    return created


@transaction.atomic
def onchain_republish_expiring(*, chain_id: int, now=None) -> list[OnchainStatusUpdate]:
    """A fresh pending row (the same status, so a new version and expiry when published) for each wallet whose latest
    confirmed status on the chain expires within ONCHAIN_REPUBLISH_MARGIN: a clean wallet never turns stale unseen."""
    now = now or timezone.now()
    expiring = selectors.onchain_expiring(chain_id=chain_id, expiring_before=now + settings.ONCHAIN_REPUBLISH_MARGIN)
    return _onchain_rows_create([
        OnchainStatusUpdate(organization_id=row.organization_id, mode=row.mode, wallet_id=row.wallet_id, entity_id=row.entity_id,
                            chain_id=row.chain_id, address=row.address, flagged=row.flagged, risk_tier=row.risk_tier, flags=row.flags,
                            reason=f"republished before expiry (version {row.version})")
        for row in expiring])


def _other_registrations(wallets: list[Wallet]) -> dict[tuple[int, str], list[Wallet]]:
    """The other active registrations (any organization, any mode) of the addresses of `wallets`, with their
    entities, by (chain_id, address). On PostgreSQL a transaction-scoped advisory lock per address is taken first:
    two organizations changing the same address at once take turns, and the second reads the first's committed
    state (a row lock on the other organization's wallet could deadlock with its own transaction's locks)."""
    keys = sorted({(wallet.chain_id, wallet.address) for wallet in wallets})
    if not keys:
        return {}
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for chain_id, address in keys:
                digest = hashlib.sha256(f"onchain:{chain_id}:{address}".encode()).digest()
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest[:8], "big", signed=True)])
    found, wanted = defaultdict(list), set(keys)
    others = (Wallet.objects.filter(status=WalletStatus.ACTIVE, chain_id__in={k[0] for k in keys}, address__in={k[1] for k in keys})
              .exclude(pk__in=[wallet.pk for wallet in wallets]).select_related("entity").order_by("pk"))
    for other in others:
        if (other.chain_id, other.address) in wanted:
            found[(other.chain_id, other.address)].append(other)
    return found


def _tasks():
    from compliance import tasks

    return tasks
