"""Entities related to one entity, each with the reasons: a shared beneficial owner (same normalised
name and date of birth), a shared tax id (keyed hash, entity or owner), shared counterparties (from
monitoring), and the same-jurisdiction cluster (same jurisdiction and industry)."""

from __future__ import annotations

from django.db.models import Q

from onboarding.interfaces.monitoring_data import monitoring_data
from onboarding.models import BeneficialOwner, Entity
from onboarding.screening.normalize import name_tokens

CLUSTER_LIMIT = 20


def _owner_key(name: str, born) -> tuple:
    return (tuple(sorted(name_tokens(name))), born)


def _scope(entity: Entity):
    return Entity.objects.filter(organization=entity.organization_id, mode=entity.mode).exclude(pk=entity.pk)


def _shared_owners(entity: Entity, reasons: dict) -> None:
    owners = {_owner_key(o.name, o.date_of_birth): o.name for o in entity.ubos.all() if o.date_of_birth}
    if not owners:
        return
    births = {born for _, born in owners}
    candidates = BeneficialOwner.objects.filter(entity__in=_scope(entity), date_of_birth__in=births).order_by("created_at", "id")
    for other in candidates:
        name = owners.get(_owner_key(other.name, other.date_of_birth))
        if name:
            reasons.setdefault(other.entity_id, []).append(
                {"type": "shared_ubo", "detail": f"Beneficial owner {name} (born {other.date_of_birth}) is also an owner here."})


def _shared_tax_ids(entity: Entity, reasons: dict) -> None:
    hashes = {h for h in [entity.tax_id_hash, *entity.ubos.values_list("tax_id_hash", flat=True)] if h}
    if not hashes:
        return
    sharing = _scope(entity).filter(Q(tax_id_hash__in=hashes) | Q(ubos__tax_id_hash__in=hashes))
    for other_id in sharing.values_list("pk", flat=True).distinct():
        reasons.setdefault(other_id, []).append({"type": "shared_tax_id", "detail": "Shares a tax id (matched by keyed hash)."})


def _shared_counterparties(entity: Entity, reasons: dict) -> None:
    source = monitoring_data()
    keys = set(source.counterparties(entity))
    if not keys:
        return
    for other_id, shared in source.entities_by_counterparty(keys, organization=entity.organization, mode=entity.mode).items():
        if other_id != entity.pk:
            reasons.setdefault(other_id, []).append(
                {"type": "shared_counterparties", "detail": f"Transacts with {len(shared)} of the same counterparties."})


def _jurisdiction_cluster(entity: Entity, reasons: dict) -> None:
    cluster = _scope(entity).filter(jurisdiction=entity.jurisdiction, industry__iexact=entity.industry).exclude(industry="")
    for other_id in cluster.order_by("-created_at", "-id").values_list("pk", flat=True)[:CLUSTER_LIMIT]:
        reasons.setdefault(other_id, []).append(
            {"type": "jurisdiction_cluster", "detail": f"Same jurisdiction ({entity.jurisdiction}) and industry ({entity.industry})."})


def related_entities(entity: Entity) -> list[dict]:
    reasons: dict = {}
    for finder in (_shared_owners, _shared_tax_ids, _shared_counterparties, _jurisdiction_cluster):
        finder(entity, reasons)
    strength = {"shared_tax_id": 0, "shared_ubo": 1, "shared_counterparties": 2, "jurisdiction_cluster": 3}
    entities = Entity.objects.in_bulk(list(reasons))
    rows = [{"entity_id": other.pk, "legal_name": other.legal_name, "entity_type": other.entity_type,
             "jurisdiction": other.jurisdiction, "status": other.status, "risk_tier": other.risk_tier or None,
             "reasons": reasons[other.pk]} for other in entities.values()]
    return sorted(rows, key=lambda r: (min(strength[x["type"]] for x in r["reasons"]), -len(r["reasons"]), r["legal_name"]))
