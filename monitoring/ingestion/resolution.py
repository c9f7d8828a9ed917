"""Which customer each side of a transaction belongs to, from registered wallets."""

from uuid import UUID

from onboarding.models import Entity, Wallet


def wallet_owners(*, organization, mode: str, keys: set[tuple[int, str]]) -> dict[tuple[int, str], UUID]:
    """{(chain_id, address): entity_id} for the registered wallets among `keys` (one query)."""
    if not keys:
        return {}
    addresses = {address for _, address in keys}
    rows = Wallet.objects.filter(organization=organization, mode=mode, address__in=addresses).values_list(
        "chain_id", "address", "entity_id")
    return {(chain_id, address): entity_id for chain_id, address, entity_id in rows if (chain_id, address) in keys}


def existing_entity_ids(*, organization, mode: str, ids: set[UUID]) -> set[UUID]:
    if not ids:
        return set()
    return set(Entity.objects.filter(organization=organization, mode=mode, pk__in=ids).values_list("pk", flat=True))


def sides(*, from_key, to_key, owners: dict, entity_id: UUID | None) -> tuple[UUID | None, UUID | None]:
    """(from_entity, to_entity). A given `entity_id` that owns neither side's wallet claims the
    sending side, unless another customer's wallet is there (then the receiving side)."""
    from_entity, to_entity = owners.get(from_key), owners.get(to_key)
    if entity_id is None or entity_id in (from_entity, to_entity):
        return from_entity, to_entity
    if from_entity is None:
        return entity_id, to_entity
    return from_entity, entity_id
