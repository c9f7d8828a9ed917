"""Reads of the indexer: who registered which wallet on a chain, the chain's tokens, and its cursor."""

from collections import defaultdict

from compliance.models import Chain
from monitoring.models import ChainCursor, IndexedToken
from onboarding.models import Wallet


def registrations(chain_id: int) -> dict[str, set[tuple[str, str]]]:
    """{lower-case address: {(organization id, mode)}} of every wallet registered on the chain, any organization."""
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for address, organization_id, mode in Wallet.objects.filter(chain_id=chain_id).values_list("address", "organization_id", "mode"):
        found[address.lower()].add((str(organization_id), mode))
    return dict(found)


def tokens(chain: Chain) -> dict[str, IndexedToken]:
    return {token.address.lower(): token for token in IndexedToken.objects.filter(chain=chain)}


def cursor_of(chain: Chain) -> ChainCursor:
    return ChainCursor.objects.get_or_create(chain=chain)[0]


def enabled_chain_ids() -> list[int]:
    return list(Chain.objects.filter(enabled=True).values_list("chain_id", flat=True))
