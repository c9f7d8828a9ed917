"""Entity and wallet reads, always scoped to one organization and mode."""

from django.db.models import Prefetch, Q, QuerySet

from onboarding.models import BeneficialOwner, Entity, Wallet


def entities_of(*, organization, mode: str) -> QuerySet[Entity]:
    return (
        Entity.objects.filter(organization=organization, mode=mode)
        .prefetch_related(Prefetch("ubos", queryset=BeneficialOwner.objects.order_by("created_at", "id")),
                          Prefetch("wallets", queryset=Wallet.objects.order_by("created_at", "id")))
        .order_by("-created_at", "-id")
    )


def entities_filtered(*, organization, mode: str, status: str | None = None, risk_tier: str | None = None,
                      search: str | None = None) -> QuerySet[Entity]:
    entities = entities_of(organization=organization, mode=mode)
    if status:
        entities = entities.filter(status=status)
    if risk_tier:
        entities = entities.filter(risk_tier=risk_tier)
    if search:
        term = search.strip()
        entities = entities.filter(
            Q(legal_name__icontains=term) | Q(external_id=term) | Q(registration_number=term)
            | Q(wallets__address=term.lower()) | Q(wallets__address=term)
        ).distinct()
    return entities


def wallets_of_entity(entity: Entity) -> QuerySet[Wallet]:
    return Wallet.objects.filter(entity=entity).order_by("created_at", "id")
