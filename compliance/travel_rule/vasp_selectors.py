"""Counterparty VASP and inbound travel-rule reads (docs/travel-rule.md, "Beneficiaries at another VASP")."""

from django.db.models import Q

from compliance.models import CounterpartyVasp, InboundTravelRuleTransfer


def vasps_of(*, organization, mode: str):
    return CounterpartyVasp.objects.filter(organization=organization, mode=mode).order_by("name", "id")


def inbound_of_transaction(*, organization, mode: str, entity_id, reference: str) -> InboundTravelRuleTransfer | None:
    """The record of a transfer another VASP announced to `entity_id`, our customer: by the transaction
    hash once known, the commitment the transaction carries, or the originating VASP's transfer id."""
    return (InboundTravelRuleTransfer.objects.select_related("originator_vasp")
            .filter(organization=organization, mode=mode, beneficiary_entity_id=entity_id)
            .filter(Q(tx_hash__in={reference, reference.lower()}) | Q(commitment=reference.lower())
                    | Q(external_transfer_id=reference))
            .order_by("-created_at", "-id").first())
