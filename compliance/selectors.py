"""Compliance status reads: a constant number of indexed queries whatever the size of the request.

- one wallet: the wallet joined to its entity (1 query, on the unique (organization, mode, chain_id,
  address) index);
- one entity: the entity row left-joined to its wallets (1 query);
- a batch: all asked wallets in one query (joined to their entities), all asked entities in one, and
  the wallets of those entities in one (3 queries for up to 1,000 items);
- what the on-chain oracle holds for the wallets of a response: one more query, whatever their number
  (each wallet's latest row that is not superseded, joined to its chain).

The hot paths run precompiled SQL and return small row objects (StatusEntity, StatusWallet) rather
than model instances: compiling an ORM query with a join costs more than the query itself. The
single look-ups are prepared statements on PostgreSQL (common.prepared): planning them cost the
server more than running them.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Exists, OuterRef
from django.utils.dateparse import parse_datetime
from django.utils.timezone import make_aware

from common import prepared
from common.chain import is_evm
from compliance.models import Chain, OnchainStatus, OnchainStatusUpdate
from compliance.status import onchain_status_ttl
from onboarding.choices import WalletStatus
from onboarding.models import Entity, Wallet

ENTITY_COLUMNS = "e.id, e.status, e.risk_tier, e.sanctioned, e.pep, e.adverse_media, e.updated_at"
WALLET_COLUMNS = "w.id, w.entity_id, w.chain_id, w.address, w.flagged, w.status, w.updated_at"
W, E = Wallet._meta.db_table, Entity._meta.db_table
U, C = OnchainStatusUpdate._meta.db_table, Chain._meta.db_table
ONCHAIN_COLUMNS = "u.wallet_id, u.status, u.version, u.tx_hash, u.published_at, u.confirmed_at, u.flagged, c.enabled"
ENTITY_LOOKUP = (f"SELECT {ENTITY_COLUMNS}, {WALLET_COLUMNS} FROM {E} e LEFT JOIN {W} w ON w.entity_id = e.id "
                 "WHERE e.organization_id = %s AND e.mode = %s AND e.id = %s ORDER BY w.created_at, w.id")
WALLET_LOOKUP = (f"SELECT {WALLET_COLUMNS}, {ENTITY_COLUMNS} FROM {W} w JOIN {E} e ON e.id = w.entity_id "
                 "WHERE w.organization_id = %s AND w.mode = %s AND w.chain_id = %s AND w.address = %s")


@dataclass(frozen=True)
class StatusEntity:
    pk: uuid.UUID
    status: str
    risk_tier: str
    sanctioned: bool
    pep: bool
    adverse_media: bool
    updated_at: datetime


@dataclass(frozen=True)
class StatusWallet:
    pk: uuid.UUID
    entity_id: uuid.UUID
    chain_id: int
    address: str
    flagged: bool
    status: str
    updated_at: datetime
    entity: StatusEntity | None = None


@dataclass(frozen=True)
class OnchainState:
    """A wallet's latest on-chain status update that is not superseded, and whether its chain is enabled."""

    status: str
    version: int | None
    tx_hash: str
    published_at: datetime | None
    confirmed_at: datetime | None
    flagged: bool
    chain_enabled: bool


def _uuid(value) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


def _time(value) -> datetime:
    if isinstance(value, str):  # SQLite hands back text
        value = parse_datetime(value)
    return value if value.tzinfo else make_aware(value)


def _entity(row) -> StatusEntity:
    return StatusEntity(_uuid(row[0]), row[1], row[2], bool(row[3]), bool(row[4]), bool(row[5]), _time(row[6]))


def _wallet(row, entity: StatusEntity | None = None) -> StatusWallet:
    return StatusWallet(_uuid(row[0]), _uuid(row[1]), row[2], row[3], bool(row[4]), row[5], _time(row[6]), entity)


def _ids(values) -> list:
    """uuids as the database stores them: native on PostgreSQL, 32 hex characters on SQLite."""
    native = connection.features.has_native_uuid_field
    return [_uuid(value) if native else _uuid(value).hex for value in values]


def _run(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _scope(organization, mode: str) -> list:
    return _ids([organization.pk]) + [mode]


def lookup_address(chain_id: int, address: str) -> str:
    """The stored form to look up: EVM addresses are stored lower-case, so any case finds them."""
    address = address.strip()
    return address.lower() if is_evm(chain_id) else address


def wallet_with_entity(*, organization, mode: str, chain_id: int, address: str) -> StatusWallet | None:
    rows = prepared.fetchall(WALLET_LOOKUP, [*_scope(organization, mode), chain_id, lookup_address(chain_id, address)])
    return _wallet(rows[0][:7], _entity(rows[0][7:])) if rows else None


def _wallets_of(entity_ids: list) -> dict:
    wallets = defaultdict(list)
    if not entity_ids:
        return wallets
    marks = ", ".join(["%s"] * len(entity_ids))
    for row in _run(f"SELECT {WALLET_COLUMNS} FROM {W} w WHERE w.entity_id IN ({marks}) ORDER BY w.created_at, w.id",
                    _ids(entity_ids)):
        wallet = _wallet(row)
        wallets[wallet.entity_id].append(wallet)
    return wallets


def entity_with_wallets(*, organization, mode: str, entity_id) -> tuple[StatusEntity, list[StatusWallet]] | None:
    """One entity and its wallets in one statement (the entity's columns repeat on each wallet row)."""
    rows = prepared.fetchall(ENTITY_LOOKUP, [*_scope(organization, mode), *_ids([entity_id])])
    if not rows:
        return None
    entity = _entity(rows[0][:7])
    return entity, [_wallet(row[7:]) for row in rows if row[7] is not None]


def entities_with_wallets(*, organization, mode: str, entity_ids: set) -> dict:
    if not entity_ids:
        return {}
    marks = ", ".join(["%s"] * len(entity_ids))
    rows = _run(f"SELECT {ENTITY_COLUMNS} FROM {E} e WHERE e.organization_id = %s AND e.mode = %s AND e.id IN ({marks})",
                [*_scope(organization, mode), *_ids(entity_ids)])
    entities = {entity.pk: entity for entity in map(_entity, rows)}
    wallets = _wallets_of(list(entities))
    return {pk: (entity, wallets[pk]) for pk, entity in entities.items()}


def wallets_by_key(*, organization, mode: str, keys: set[tuple[int, str]]) -> dict[tuple[int, str], StatusWallet]:
    if not keys:
        return {}
    addresses = sorted({address for _, address in keys})
    chains = sorted({chain for chain, _ in keys})
    rows = _run(f"SELECT {WALLET_COLUMNS}, {ENTITY_COLUMNS} FROM {W} w JOIN {E} e ON e.id = w.entity_id "
                f"WHERE w.organization_id = %s AND w.mode = %s AND w.chain_id IN ({', '.join(['%s'] * len(chains))}) "
                f"AND w.address IN ({', '.join(['%s'] * len(addresses))})",
                [*_scope(organization, mode), *chains, *addresses])
    found, entities = {}, {}
    for row in rows:
        entity = entities.get(row[7]) or entities.setdefault(row[7], _entity(row[7:]))  # many wallets, few entities
        wallet = _wallet(row[:7], entity)
        if (wallet.chain_id, wallet.address) in keys:
            found[(wallet.chain_id, wallet.address)] = wallet
    return found


def onchain_states(*, organization, mode: str, wallet_ids) -> dict[uuid.UUID, OnchainState]:
    """What the oracle holds (or will) for each wallet of `wallet_ids` in the organization and mode: its latest row
    that is not superseded, with its chain's `enabled` (False for a chain not configured). One query for any number
    of wallets; a wallet without a row is absent."""
    ids = sorted(set(wallet_ids), key=str)
    if not ids:
        return {}
    marks = ", ".join(["%s"] * len(ids))
    fetch = prepared.fetchall if len(ids) == 1 else _run  # a wallet look-up's: one shape, prepared once per connection
    rows = fetch(f"SELECT * FROM (SELECT {ONCHAIN_COLUMNS}, ROW_NUMBER() OVER (PARTITION BY u.wallet_id "
                 f"ORDER BY u.created_at DESC, u.id DESC) AS n FROM {U} u LEFT JOIN {C} c ON c.chain_id = u.chain_id "
                 f"WHERE u.organization_id = %s AND u.mode = %s AND u.status <> %s AND u.wallet_id IN ({marks})) latest WHERE n = 1",
                 [*_scope(organization, mode), OnchainStatus.SUPERSEDED, *_ids(ids)])
    return {_uuid(row[0]): OnchainState(row[1], row[2], row[3] or "", row[4] and _time(row[4]), row[5] and _time(row[5]),
                                        bool(row[6]), bool(row[7])) for row in rows}


def onchain_expiring(*, chain_id: int, expiring_before: datetime) -> list[OnchainStatusUpdate]:
    """Each active wallet's latest row on the chain when it is confirmed and the status it published (decided at the
    row's creation, current for ONCHAIN_STATUS_TTL) expires before `expiring_before`. A wallet with a newer row
    (pending, published or confirmed) is left out: that one is on its way."""
    newer = (OnchainStatusUpdate.objects.filter(chain_id=chain_id, address=OuterRef("address"), created_at__gt=OuterRef("created_at"))
             .exclude(status=OnchainStatus.SUPERSEDED))
    rows = (OnchainStatusUpdate.objects.filter(chain_id=chain_id, status=OnchainStatus.CONFIRMED, wallet__status=WalletStatus.ACTIVE,
                                               created_at__lt=expiring_before - onchain_status_ttl())
            .exclude(Exists(newer)).order_by("created_at", "id"))
    return list({row.address.lower(): row for row in rows}.values())
