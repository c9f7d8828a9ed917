"""Which customer each side of a transaction belongs to, from registered wallets."""

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from common.pg import on_postgres, pg_rows
from onboarding.models import Entity, Wallet

# Probes of the (organization, mode, chain_id, address) unique index, one per key.
WALLETS_SQL = """SELECT w.id, w.chain_id, w.address, w.entity_id, w.first_seen_at, w.flagged, w.created_at FROM onboarding_wallet AS w
JOIN unnest(%(chains)b::bigint[], %(addresses)b::text[]) AS k(chain_id, address) ON w.chain_id = k.chain_id AND w.address = k.address
WHERE w.organization_id = %(org)s AND w.mode = %(mode)s"""


@dataclass(frozen=True)
class RegisteredWallet:
    pk: UUID
    entity_id: UUID
    first_seen_at: datetime | None
    flagged: bool = False
    created_at: datetime | None = None


def registered_wallets(*, organization, mode: str, keys: set[tuple[int, str]]) -> dict[tuple[int, str], RegisteredWallet]:
    """{(chain_id, address): wallet} for the registered wallets among `keys` (one query)."""
    if not keys:
        return {}
    if on_postgres():
        chains, addresses = zip(*keys, strict=True)
        rows = pg_rows(WALLETS_SQL, {"chains": list(chains), "addresses": list(addresses), "org": organization.pk, "mode": mode})
    else:
        rows = Wallet.objects.filter(organization=organization, mode=mode, address__in={address for _, address in keys}).values_list(
            "pk", "chain_id", "address", "entity_id", "first_seen_at", "flagged", "created_at")
    return {(chain_id, address): RegisteredWallet(pk, entity_id, first_seen, flagged, created_at)
            for pk, chain_id, address, entity_id, first_seen, flagged, created_at in rows if (chain_id, address) in keys}


def wallet_owners(*, organization, mode: str, keys: set[tuple[int, str]]) -> dict[tuple[int, str], UUID]:
    """{(chain_id, address): entity_id} for the registered wallets among `keys` (one query)."""
    return {key: wallet.entity_id for key, wallet in registered_wallets(organization=organization, mode=mode, keys=keys).items()}


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
