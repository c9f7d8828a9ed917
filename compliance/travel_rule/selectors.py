"""Travel-rule reads (ORM: none of these is on a hot path)."""

import uuid

from django.db.models import Q

from compliance.models import TravelRulePolicy, TravelRuleTransfer


def travel_rule_policy(*, organization) -> TravelRulePolicy:
    """The organization's policy, or the defaults (an unsaved row) when it has none."""
    return TravelRulePolicy.objects.filter(organization=organization).first() or TravelRulePolicy(organization=organization)


def transfer_by_reference(*, organization, mode: str, reference: str) -> TravelRuleTransfer | None:
    return TravelRuleTransfer.objects.filter(organization=organization, mode=mode, reference=reference).first()


def transfer_of(*, organization, mode: str, transfer_id) -> TravelRuleTransfer | None:
    return TravelRuleTransfer.objects.filter(organization=organization, mode=mode, pk=transfer_id).first()


def travel_rule_of_transaction(*, organization, mode: str, entity_id, tx_hash: str) -> TravelRuleTransfer | None:
    """The travel-rule record of the transaction `tx_hash`, when `entity_id` is its originator or its
    beneficiary (the latest, should one transaction have executed two records)."""
    hashes = {tx_hash, tx_hash.lower()}
    return (TravelRuleTransfer.objects.filter(organization=organization, mode=mode, tx_hash__in=hashes)
            .filter(Q(originator_entity_id=entity_id) | Q(beneficiary_entity_id=entity_id))
            .order_by("-created_at", "-id").first())


def transfer_for_confirmation(*, transfer_ref: str | None, chain_id: int, tx_hash: str) -> TravelRuleTransfer | None:
    """The travel-rule transfer a chain confirmation names: by its id or its commitment (`transfer_id`
    of the callback), else by a transaction already recorded on it. Locked for the handler's transaction."""
    transfers = TravelRuleTransfer.objects.select_for_update(no_key=True).select_related("organization")
    if transfer_ref:
        try:
            return transfers.filter(pk=uuid.UUID(transfer_ref)).first()
        except ValueError:
            return transfers.filter(commitment=transfer_ref.lower()).first()
    return transfers.filter(chain_id=chain_id, tx_hash=tx_hash.lower()).order_by("-created_at").first()


