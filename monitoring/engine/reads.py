"""The database reads that build a batch's context, as plain tuples (ids as strings).

The large reads (history rows, entities, wallets, activity before the span) have two forms with
the same results: on PostgreSQL, one statement with array parameters through a psycopg cursor
with server-side binding and binary results (no per-row model or dict, no client-side quoting of
thousands of parameters); elsewhere (SQLite), the ORM. tests/monitoring/test_engine_reads.py
checks that both agree.
"""

from collections import defaultdict
from datetime import datetime
from operator import itemgetter

from django.db.models import Max, Min, Q

from monitoring.engine.pg import on_postgres, pg_rows, uuid_list
from monitoring.models import FiatEvent, Transaction
from onboarding.models import Entity, Wallet

# (id, timestamp, chain_id, tx_hash, from_address, to_address, amount, asset, usd_value, from_entity_id, to_entity_id)
TX_COLUMNS = ("id", "timestamp", "chain_id", "tx_hash", "from_address", "to_address", "amount", "asset", "usd_value",
              "from_entity_id", "to_entity_id")
FIAT_COLUMNS = ("id", "entity_id", "timestamp", "event_type", "amount", "currency", "usd_value", "counterparty_name",
                "counterparty_bank", "card_type", "merchant_category_code", "merchant_country", "check_type", "check_number",
                "deposit_method")
ENTITY_COLUMNS = ("id", "status", "jurisdiction", "entity_type", "created_at", "expected_monthly_volume_usd")
WALLET_COLUMNS = ("entity_id", "chain_id", "address", "created_at", "first_seen_at")
_ID_COLUMNS = {"id", "entity_id", "from_entity_id", "to_entity_id"}


def _select(columns: tuple[str, ...]) -> str:
    return ", ".join(f"{name}::text" if name in _ID_COLUMNS else name for name in columns)


TX_SQL = f"""SELECT {_select(TX_COLUMNS)} FROM monitoring_transaction
WHERE organization_id = %(org)s AND mode = %(mode)s AND timestamp >= %(since)s AND timestamp <= %(until)s
  AND (from_entity_id = ANY(%(ids)s) OR to_entity_id = ANY(%(ids)s))"""
FIAT_SQL = f"""SELECT {_select(FIAT_COLUMNS)} FROM monitoring_fiatevent
WHERE entity_id = ANY(%(ids)s) AND timestamp >= %(since)s AND timestamp <= %(until)s"""
ENTITY_SQL = f"SELECT {_select(ENTITY_COLUMNS)} FROM onboarding_entity WHERE id = ANY(%(ids)s)"
WALLET_SQL = f"SELECT {_select(WALLET_COLUMNS)} FROM onboarding_wallet WHERE entity_id = ANY(%(ids)s)"
# Each sub-select is one probe of an (entity, timestamp) index; GREATEST and LEAST skip NULLs.
BEFORE_SQL = """SELECT e.id::text,
  GREATEST((SELECT max(timestamp) FROM monitoring_transaction WHERE from_entity_id = e.id AND timestamp < %(tx)s),
           (SELECT max(timestamp) FROM monitoring_transaction WHERE to_entity_id = e.id AND timestamp < %(tx)s),
           (SELECT max(timestamp) FROM monitoring_fiatevent WHERE entity_id = e.id AND timestamp < %(fiat)s)),
  LEAST((SELECT min(timestamp) FROM monitoring_transaction WHERE from_entity_id = e.id AND timestamp < %(tx)s),
        (SELECT min(timestamp) FROM monitoring_transaction WHERE to_entity_id = e.id AND timestamp < %(tx)s),
        (SELECT min(timestamp) FROM monitoring_fiatevent WHERE entity_id = e.id AND timestamp < %(fiat)s))
FROM unnest(%(ids)s::uuid[]) AS e(id)"""
KNOWN_SQL = """SELECT from_entity_id::text, chain_id, to_address FROM monitoring_transaction
WHERE from_entity_id = ANY(%(ids)s) AND to_address = ANY(%(addresses)s) AND timestamp < %(before)s
UNION SELECT to_entity_id::text, chain_id, from_address FROM monitoring_transaction
WHERE to_entity_id = ANY(%(ids)s) AND from_address = ANY(%(addresses)s) AND timestamp < %(before)s"""
# Probes of the (organization, mode, chain_id, address) unique index, one per key.
REGISTERED_SQL = """SELECT w.chain_id, w.address, w.entity_id::text, w.flagged FROM onboarding_wallet AS w
JOIN unnest(%(chains)s::bigint[], %(addresses)s::text[]) AS k(chain_id, address) ON w.chain_id = k.chain_id AND w.address = k.address
WHERE w.organization_id = %(org)s AND w.mode = %(mode)s"""
GRAPH_SQL = f"""SELECT {_select(TX_COLUMNS)} FROM monitoring_transaction
WHERE organization_id = %(org)s AND mode = %(mode)s AND timestamp >= %(since)s AND timestamp <= %(until)s
  AND from_entity_id IS NOT NULL AND to_entity_id IS NOT NULL"""


def _text_ids(rows, positions: tuple[int, ...]) -> list[tuple]:
    """ORM rows with their UUID columns as strings (the PostgreSQL form)."""
    out = []
    for row in rows:
        row = list(row)
        for i in positions:
            if row[i] is not None:
                row[i] = str(row[i])
        out.append(tuple(row))
    return out


def _positions(columns: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(i for i, name in enumerate(columns) if name in _ID_COLUMNS)


def _in_time_order(rows: list[tuple], at: int) -> list[tuple]:
    """(timestamp, id) order, ids growing with ingestion. Sorted here rather than by the database:
    rows come off the heap nearly in time order already, which Python's sort finishes in one pass,
    where the database would sort them from scratch (spilling to disk past work_mem)."""
    rows.sort(key=itemgetter(at, 0))
    return rows


def transactions(organization, mode: str, entity_ids: set[str], since: datetime, until: datetime) -> list[tuple]:
    """Transfers touching the entities in [since, until], in (timestamp, id) order."""
    if not entity_ids:
        return []
    if on_postgres():
        rows = pg_rows(TX_SQL, {"org": organization.pk, "mode": mode, "since": since, "until": until, "ids": uuid_list(entity_ids)})
    else:
        rows = _text_ids(Transaction.objects.filter(
            Q(from_entity_id__in=entity_ids) | Q(to_entity_id__in=entity_ids), organization=organization, mode=mode,
            timestamp__gte=since, timestamp__lte=until).values_list(*TX_COLUMNS), _positions(TX_COLUMNS))
    return _in_time_order(rows, 1)


def fiat_events(entity_ids: set[str], since: datetime, until: datetime) -> list[tuple]:
    """The entities' fiat events in [since, until], in (timestamp, id) order."""
    if not entity_ids:
        return []
    if on_postgres():
        rows = pg_rows(FIAT_SQL, {"since": since, "until": until, "ids": uuid_list(entity_ids)})
    else:
        rows = _text_ids(FiatEvent.objects.filter(entity_id__in=entity_ids, timestamp__gte=since, timestamp__lte=until).values_list(
            *FIAT_COLUMNS), _positions(FIAT_COLUMNS))
    return _in_time_order(rows, 2)


def entities(entity_ids: set[str]) -> list[tuple]:
    if on_postgres():
        return pg_rows(ENTITY_SQL, {"ids": uuid_list(entity_ids)})
    return _text_ids(Entity.objects.filter(pk__in=entity_ids).values_list(*ENTITY_COLUMNS), (0,))


def wallets(entity_ids: set[str]) -> list[tuple]:
    if on_postgres():
        return pg_rows(WALLET_SQL, {"ids": uuid_list(entity_ids)})
    return _text_ids(Wallet.objects.filter(entity_id__in=entity_ids).values_list(*WALLET_COLUMNS), (0,))


def activity_before(entity_ids: set[str], tx_start: datetime, fiat_start: datetime) -> dict[str, tuple[datetime, datetime]]:
    """{entity: (latest, first)} activity before the loaded span, over both channels (entities with some)."""
    if on_postgres():
        rows = pg_rows(BEFORE_SQL, {"ids": uuid_list(entity_ids), "tx": tx_start, "fiat": fiat_start})
        return {entity: (latest, first) for entity, latest, first in rows if latest is not None}
    facts: dict[str, list] = defaultdict(list)
    sources = (
        Transaction.objects.filter(from_entity_id__in=entity_ids, timestamp__lt=tx_start).values("from_entity_id"),
        Transaction.objects.filter(to_entity_id__in=entity_ids, timestamp__lt=tx_start).values("to_entity_id"),
        FiatEvent.objects.filter(entity_id__in=entity_ids, timestamp__lt=fiat_start).values("entity_id"),
    )
    for query in sources:
        for row in query.annotate(latest=Max("timestamp"), first=Min("timestamp")).order_by():
            entity_id = next(value for name, value in row.items() if name.endswith("entity_id"))
            facts[str(entity_id)].append((row["latest"], row["first"]))
    return {entity: (max(p[0] for p in pairs), min(p[1] for p in pairs)) for entity, pairs in facts.items()}


def known_counterparties(candidates: set[tuple[str, int, str]], before: datetime) -> set[tuple[str, int, str]]:
    """The (entity, chain_id, address) candidates the entity dealt with before `before`, either direction."""
    if not candidates:
        return set()
    entity_ids = {entity for entity, _, _ in candidates}
    addresses = {address for _, _, address in candidates}
    if on_postgres():
        rows = pg_rows(KNOWN_SQL, {"before": before, "ids": uuid_list(entity_ids), "addresses": list(addresses)})
        return set(rows) & candidates
    earlier = Transaction.objects.filter(timestamp__lt=before)
    found = set(earlier.filter(from_entity_id__in=entity_ids, to_address__in=addresses).values_list(
        "from_entity_id", "chain_id", "to_address").distinct())
    found |= set(earlier.filter(to_entity_id__in=entity_ids, from_address__in=addresses).values_list(
        "to_entity_id", "chain_id", "from_address").distinct())
    return {(str(entity), chain_id, address) for entity, chain_id, address in found} & candidates


def registered_wallets(organization, mode: str, keys: set[tuple[int, str]]) -> list[tuple[int, str, str, bool]]:
    """(chain_id, address, entity_id, flagged) of the organization's wallets among the (chain_id, address) keys."""
    if not keys:
        return []
    if on_postgres():
        chains, addresses = zip(*keys, strict=True)
        return pg_rows(REGISTERED_SQL, {"org": organization.pk, "mode": mode, "chains": list(chains), "addresses": list(addresses)})
    rows = Wallet.objects.filter(organization=organization, mode=mode, address__in={address for _, address in keys}).values_list(
        "chain_id", "address", "entity_id", "flagged")
    return [(chain_id, address, str(entity_id), flagged) for chain_id, address, entity_id, flagged in rows if (chain_id, address) in keys]


def transfers_between_customers(organization, mode: str, since: datetime, until: datetime) -> list[tuple]:
    """Transfers with a customer on both sides in [since, until] (rule 15's graph), TX_COLUMNS tuples."""
    if on_postgres():
        return pg_rows(GRAPH_SQL, {"org": organization.pk, "mode": mode, "since": since, "until": until})
    rows = Transaction.objects.filter(organization=organization, mode=mode, timestamp__gte=since, timestamp__lte=until,
                                      from_entity__isnull=False, to_entity__isnull=False)
    return _text_ids(rows.values_list(*TX_COLUMNS), _positions(TX_COLUMNS))
