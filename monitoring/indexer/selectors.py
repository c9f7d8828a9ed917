"""Reads of the indexer: who registered which wallet on a chain, the chain's tokens, and its cursor."""

from collections import defaultdict
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Lag:
    """How far a chain's indexer is behind, from what its last run noted (no RPC call): blocks up to the head not indexed
    yet (the indexer follows the head; confirmations only delay `transfer.confirmed`), and the seconds between the last
    indexed block and the head."""

    blocks: int | None
    seconds: int | None


def lag_of(cursor: ChainCursor) -> Lag:
    if cursor.head is None:
        return Lag(None, None)
    indexed = cursor.last_block if cursor.last_block is not None else cursor.start_block - 1
    blocks = max(0, cursor.head - indexed)
    seconds = None
    if cursor.head_time is not None:
        seconds = max(0, int((cursor.head_time - (cursor.last_block_time or cursor.head_time)).total_seconds()))
    return Lag(blocks, seconds)


def enabled_cursors() -> list[tuple[Chain, ChainCursor | None]]:
    """Each enabled chain with its cursor (None before its first run)."""
    chains = list(Chain.objects.filter(enabled=True).order_by("chain_id"))
    cursors = {cursor.chain_id: cursor for cursor in ChainCursor.objects.filter(chain__in=chains).select_related("chain")}
    return [(chain, cursors.get(chain.pk)) for chain in chains]
