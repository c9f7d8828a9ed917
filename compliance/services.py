"""Compliance writes: the on-chain status-update rows the oracle publisher sends (DESIGN §6)."""

from django.db import transaction

from compliance.models import OnchainStatusUpdate
from compliance.status import wallet_blocked
from onboarding.choices import WalletStatus


@transaction.atomic
def onchain_updates_write(*, entity, reason: str, wallets=None) -> list[OnchainStatusUpdate]:
    """One pending row per active wallet of `entity` (or per wallet given), saying whether the oracle
    should mark it flagged. Called inside the transaction of the change."""
    if wallets is None:
        wallets = entity.wallets.filter(status=WalletStatus.ACTIVE).order_by("created_at", "id")
    rows = [
        OnchainStatusUpdate(organization_id=entity.organization_id, mode=entity.mode, wallet=wallet, entity=entity,
                            chain_id=wallet.chain_id, address=wallet.address, flagged=wallet_blocked(entity, wallet),
                            reason=reason[:300])
        for wallet in wallets if wallet.status == WalletStatus.ACTIVE
    ]
    return OnchainStatusUpdate.objects.bulk_create(rows)
