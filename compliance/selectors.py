"""Compliance status reads: a constant number of indexed queries whatever the size of the request.

- one entity: the entity row, then its wallets (2 queries);
- one wallet: the wallet joined to its entity (1 query, on the unique (organization, mode, chain_id, address) index);
- a batch: all asked wallets in one query (joined to their entities), all asked entities in one, and the
  wallets of those entities in one (3 queries for up to 1,000 items).
"""

from __future__ import annotations

from collections import defaultdict

from common.chain import is_evm
from onboarding.models import Entity, Wallet

ENTITY_FIELDS = ("id", "status", "risk_tier", "sanctioned", "pep", "adverse_media", "updated_at")
WALLET_FIELDS = ("id", "entity_id", "chain_id", "address", "flagged", "status", "updated_at")


def lookup_address(chain_id: int, address: str) -> str:
    """The stored form to look up: EVM addresses are stored lower-case, so any case finds them."""
    address = address.strip()
    return address.lower() if is_evm(chain_id) else address


def entity_with_wallets(*, organization, mode: str, entity_id) -> tuple[Entity, list[Wallet]] | None:
    entity = Entity.objects.filter(pk=entity_id, organization=organization, mode=mode).only(*ENTITY_FIELDS).first()
    if entity is None:
        return None
    wallets = list(Wallet.objects.filter(entity_id=entity.pk).only(*WALLET_FIELDS).order_by("created_at", "id"))
    return entity, wallets


def wallet_with_entity(*, organization, mode: str, chain_id: int, address: str) -> Wallet | None:
    return (Wallet.objects.filter(organization=organization, mode=mode, chain_id=chain_id, address=lookup_address(chain_id, address))
            .select_related("entity").only(*WALLET_FIELDS, *(f"entity__{f}" for f in ENTITY_FIELDS)).first())


def wallets_by_key(*, organization, mode: str, keys: set[tuple[int, str]]) -> dict[tuple[int, str], Wallet]:
    if not keys:
        return {}
    addresses = {address for _, address in keys}
    chains = {chain for chain, _ in keys}
    found = (Wallet.objects.filter(organization=organization, mode=mode, address__in=addresses, chain_id__in=chains)
             .select_related("entity").only(*WALLET_FIELDS, *(f"entity__{f}" for f in ENTITY_FIELDS)))
    return {(w.chain_id, w.address): w for w in found if (w.chain_id, w.address) in keys}


def entities_with_wallets(*, organization, mode: str, entity_ids: set) -> dict:
    if not entity_ids:
        return {}
    entities = {e.pk: e for e in Entity.objects.filter(organization=organization, mode=mode, pk__in=entity_ids).only(*ENTITY_FIELDS)}
    wallets = defaultdict(list)
    for wallet in Wallet.objects.filter(entity_id__in=list(entities)).only(*WALLET_FIELDS).order_by("created_at", "id"):
        wallets[wallet.entity_id].append(wallet)
    return {pk: (entity, wallets[pk]) for pk, entity in entities.items()}
