"""Chain-confirmation callbacks (docs/webhooks.md): the chain service reports the fate of the
transaction that published an on-chain status update, or of the one that executed a travel-rule
transfer (docs/travel-rule.md)."""

from django.utils import timezone

from common.errors import NotFound
from compliance.models import OnchainStatus, OnchainStatusUpdate
from compliance.travel_rule import selectors, services
from webhooks.services import event_emit


def _update(payload) -> OnchainStatusUpdate | None:
    updates = OnchainStatusUpdate.objects.select_for_update().select_related("organization")
    if payload.get("status_update_id"):
        update = updates.filter(pk=payload["status_update_id"]).first()
        if update is None:
            raise NotFound("No on-chain status update matches this confirmation.")
        return update
    return updates.filter(chain_id=payload["chain_id"], tx_hash=payload["tx_hash"].lower()).first()


def chain_confirmation(*, callback, payload) -> str:
    """A `transfer_id` (a travel-rule transfer's id or commitment) names a travel-rule transfer; a
    `status_update_id`, an on-chain status update; with neither, the transaction hash finds either."""
    if payload.get("transfer_id") and not payload.get("status_update_id"):
        return _travel_rule(payload)
    update = _update(payload)
    if update is None:
        return _travel_rule(payload)
    return _status_update(update, payload)


def _travel_rule(payload) -> str:
    transfer = selectors.transfer_for_confirmation(transfer_ref=payload.get("transfer_id"), chain_id=payload["chain_id"],
                                                   tx_hash=payload["tx_hash"])
    if transfer is None:
        raise NotFound("No on-chain status update or travel-rule transfer matches this confirmation.")
    return services.transfer_confirm(transfer=transfer, payload=payload)


def _status_update(update: OnchainStatusUpdate, payload) -> str:
    """confirmed → the update is confirmed (`transfer.confirmed` event); failed or reverted → it goes
    back to pending, to be published again."""
    if payload["status"] == "confirmed":
        if update.status == OnchainStatus.CONFIRMED:
            return f"on-chain update {update.pk} was already confirmed"
        update.status, update.confirmed_at = OnchainStatus.CONFIRMED, payload["confirmed_at"]
        update.tx_hash = payload["tx_hash"].lower()
        update.save(update_fields=["status", "confirmed_at", "tx_hash", "updated_at"])
        event_emit(organization=update.organization, mode=update.mode, type="transfer.confirmed", data={
            "transfer_id": str(update.pk), "entity_id": str(update.entity_id), "chain_id": update.chain_id,
            "tx_hash": update.tx_hash, "block_number": payload.get("block_number") or 0,
            "confirmations": payload.get("confirmations") or 0, "confirmed_at": payload["confirmed_at"],
        })
        return f"on-chain update {update.pk} confirmed in block {payload.get('block_number')}"
    update.status, update.published_at = OnchainStatus.PENDING, None
    update.reason = f"{update.reason} (transaction {payload['tx_hash']} {payload['status']}; to publish again)"[:300]
    update.save(update_fields=["status", "published_at", "reason", "updated_at"])
    return f"on-chain update {update.pk} {payload['status']} at {timezone.now():%Y-%m-%d %H:%M}; back to pending"


def register() -> None:
    from webhooks.inbound.handlers import inbound_handler

    inbound_handler("chain-confirmation")(chain_confirmation)
