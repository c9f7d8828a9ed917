"""The database reads that build a batch's context, as plain tuples (ids as strings).

The large reads (history rows, entities, wallets, activity before the span) have two forms with
the same results: on PostgreSQL, one statement with array parameters through a psycopg cursor
with server-side binding and binary results (no per-row model or dict, no client-side quoting of
thousands of parameters); elsewhere (SQLite), the ORM. tests/monitoring/test_engine_reads.py
checks that both agree.
"""

from bisect import bisect_right
from datetime import datetime
from decimal import Decimal
from operator import itemgetter

from django.db.models import F, Max, Q

from common.pg import PG_EPOCH, on_postgres, pg_rows
from monitoring.models import FiatEvent, Transaction
from monitoring.rules.context import EPOCH, ONE_MICROSECOND
from onboarding.models import Entity, Wallet

# The entity ids of a batch, sent as one comma-separated text (reads._id_texts).
IDS = "string_to_array(%(ids)s, ',')::uuid[]"
# (id, timestamp, chain_id, tx_hash, from_address, to_address, amount, asset, usd_value, from_entity_id, to_entity_id)
TX_COLUMNS = ("id", "timestamp", "chain_id", "tx_hash", "from_address", "to_address", "amount", "asset", "usd_value",
              "from_entity_id", "to_entity_id")
FIAT_COLUMNS = ("id", "entity_id", "timestamp", "event_type", "amount", "currency", "usd_value", "counterparty_name",
                "counterparty_bank", "card_type", "merchant_category_code", "merchant_country", "check_type", "check_number",
                "deposit_method")
ENTITY_COLUMNS = ("id", "status", "jurisdiction", "entity_type", "created_at", "expected_monthly_volume_usd")
_ID_COLUMNS = {"id", "entity_id", "from_entity_id", "to_entity_id"}


def _select(columns: tuple[str, ...], table: str = "", text: tuple[str, ...] = ()) -> str:
    prefix = f"{table}." if table else ""
    return ", ".join(f"{prefix}{name}::text" if name in _ID_COLUMNS or name in text else f"{prefix}{name}" for name in columns)


# The history read (tens of thousands of rows per batch) takes amount and usd_value as text:
# psycopg's numeric loader costs about 1 µs a value, text and Decimal(text) a third of that, for
# the same Decimal; and the engine makes the amount's Decimal only for the transfers a rule reads.
AMOUNT, USD_VALUE = TX_COLUMNS.index("amount"), TX_COLUMNS.index("usd_value")
# No organization or mode condition, here and in VOLUME_GROUPS_SQL: a transfer's entities are
# resolved within its own organization and mode (monitoring.ingestion.resolution), so an entity's
# transfers are all of those. With them, the planner could choose the (organization, mode,
# timestamp) index for a window at the newest end of the table, past the statistics' histogram,
# where it reckons one row: it then filtered every transfer of the organization in the window
# (10 ms of a single ingest's 16 ms of PostgreSQL time, on the benchmark's data).
TX_SQL = f"""SELECT {_select(TX_COLUMNS, text=("amount", "usd_value"))} FROM monitoring_transaction
WHERE timestamp >= %(since)s AND timestamp <= %(until)s AND (from_entity_id = ANY({IDS}) OR to_entity_id = ANY({IDS}))"""
FIAT_SQL = f"""SELECT {_select(FIAT_COLUMNS)} FROM monitoring_fiatevent
WHERE entity_id = ANY({IDS}) AND timestamp >= %(since)s AND timestamp <= %(until)s"""
ENTITY_SQL = f"SELECT {_select(ENTITY_COLUMNS)} FROM onboarding_entity WHERE id = ANY({IDS})"
# Each sub-select is one probe of an (entity, timestamp) index; GREATEST skips NULLs.
BEFORE_SQL = f"""SELECT e.id::text,
  GREATEST((SELECT max(timestamp) FROM monitoring_transaction WHERE from_entity_id = e.id AND timestamp < %(tx)s),
           (SELECT max(timestamp) FROM monitoring_transaction WHERE to_entity_id = e.id AND timestamp < %(tx)s),
           (SELECT max(timestamp) FROM monitoring_fiatevent WHERE entity_id = e.id AND timestamp < %(fiat)s))
FROM unnest({IDS}) AS e(id)"""
# The transfers before the rows a batch loads, as sums per entity: a transfer inside a band (the
# stretch where a window of the batch's events can begin) is a group of its own time, the others
# one group per stretch between bands. Own-wallet transfers count in the times only. Each side is
# an index-only scan of its covering (entity, timestamp) index (migration 0009): no heap visit per
# transfer.
VOLUME_GROUPS_SQL = f"""WITH sides AS (
  SELECT from_entity_id AS entity, timestamp AS at, usd_value, to_entity_id IS NOT DISTINCT FROM from_entity_id AS own
  FROM monitoring_transaction WHERE from_entity_id = ANY({IDS}) AND timestamp >= %(since)s AND timestamp < %(until)s
  UNION ALL
  SELECT to_entity_id, timestamp, usd_value, false FROM monitoring_transaction
  WHERE to_entity_id = ANY({IDS}) AND timestamp >= %(since)s AND timestamp < %(until)s AND from_entity_id IS DISTINCT FROM to_entity_id
), keyed AS (SELECT *, width_bucket(at, %(bounds)b::timestamptz[]) AS bucket FROM sides)
SELECT entity::text, min(at), max(at), coalesce(sum(usd_value) FILTER (WHERE NOT own), 0)::text,
       count(usd_value) FILTER (WHERE NOT own), count(*) FILTER (WHERE usd_value IS NULL AND NOT own), count(*)
FROM keyed GROUP BY entity, bucket, CASE WHEN bucket %% 2 = 1 THEN at END"""
KNOWN_SQL = f"""SELECT from_entity_id::text, chain_id, to_address FROM monitoring_transaction
WHERE from_entity_id = ANY({IDS}) AND to_address = ANY(%(addresses)b) AND timestamp < %(before)s
UNION SELECT to_entity_id::text, chain_id, from_address FROM monitoring_transaction
WHERE to_entity_id = ANY({IDS}) AND from_address = ANY(%(addresses)b) AND timestamp < %(before)s
  AND from_entity_id IS DISTINCT FROM to_entity_id"""
# Probes of the (organization, mode, chain_id, address) unique index, one per key.
REGISTERED_SQL = """SELECT w.chain_id, w.address, w.entity_id::text, w.flagged, w.created_at, w.first_seen_at FROM onboarding_wallet AS w
JOIN unnest(%(chains)b::bigint[], %(addresses)b::text[]) AS k(chain_id, address) ON w.chain_id = k.chain_id AND w.address = k.address
WHERE w.organization_id = %(org)s AND w.mode = %(mode)s"""
# Index monitoring_tx_graph_arrivals (migration 0003): transfers into given wallets, customers on both
# sides, one probe per wallet. A join on the wallets let the planner pick the (organization, mode,
# timestamp) index instead whenever the window lay past the statistics' last ANALYZE (new transfers
# always do): it estimated one row, scanned every transfer of the window (80,000 on the benchmark's
# data) and hashed them, 24-45 ms a batch against 0.7 ms. LATERAL with OFFSET 0, which the planner
# cannot flatten into a join, keeps it to a probe of each wallet.
ARRIVALS_SQL = f"""SELECT {_select(TX_COLUMNS, "t")} FROM unnest(%(chains)b::bigint[], %(addresses)b::text[]) AS k(chain_id, address)
CROSS JOIN LATERAL (SELECT * FROM monitoring_transaction AS t WHERE t.organization_id = %(org)s AND t.mode = %(mode)s
  AND t.chain_id = k.chain_id AND t.to_address = k.address AND t.from_entity_id IS NOT NULL AND t.to_entity_id IS NOT NULL
  AND t.timestamp >= %(since)s AND t.timestamp <= %(until)s OFFSET 0) AS t"""


def _id_texts(entity_ids) -> str:
    """Ids as the statements take them: one comma-separated text that PostgreSQL splits and casts
    to uuid[]. The loader passes ~1,000 ids five times a batch: a UUID object per id cost about a
    millisecond per list, and psycopg's array dumper as much again."""
    return ",".join(map(str, entity_ids))


def _text_ids(rows, positions: tuple[int, ...]) -> list[tuple]:
    """ORM rows with the columns at `positions` as strings (the PostgreSQL form: ids, and usd_value in the history read)."""
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
    """Transfers touching the entities in [since, until], in (timestamp, id) order; the timestamp as
    integer microseconds since pg.PG_EPOCH, amount and usd_value as their decimal text (the history is read
    for tens of thousands of rows a batch: events.transfers_by_entity turns them into what the
    engine reads, and makes datetimes and Decimals only for the transfers a rule reads)."""
    if not entity_ids:
        return []
    if on_postgres():
        rows = pg_rows(TX_SQL, {"since": since, "until": until, "ids": _id_texts(entity_ids)},
                       timestamps_as_micros=True)
    else:
        rows = [(row[0], (row[1] - PG_EPOCH) // ONE_MICROSECOND, *row[2:]) for row in _text_ids(Transaction.objects.filter(
            Q(from_entity_id__in=entity_ids) | Q(to_entity_id__in=entity_ids), organization=organization, mode=mode,
            timestamp__gte=since, timestamp__lte=until).values_list(*TX_COLUMNS), (*_positions(TX_COLUMNS), AMOUNT, USD_VALUE))]
    return _in_time_order(rows, 1)


def _band_bounds(bands: list[tuple[datetime, datetime]]) -> list[datetime]:
    """[lo, hi + 1 µs, …] of the bands (inclusive, merged where they touch): a time is in a band when
    the number of bounds at or below it is odd (PostgreSQL's width_bucket, bisect_right here)."""
    bounds: list[datetime] = []
    for lo, hi in sorted(bands):
        if bounds and lo <= bounds[-1]:
            bounds[-1] = max(bounds[-1], hi + ONE_MICROSECOND)
        else:
            bounds += [lo, hi + ONE_MICROSECOND]
    return bounds


def transaction_volume_groups(organization, mode: str, entity_ids: set[str], since: datetime, until: datetime,
                              bands: list[tuple[datetime, datetime]]) -> dict[str, list[tuple[int, int, Decimal, int, int, int]]]:
    """{entity: [(first, last, usd, priced, unpriced, transfers)]} of the entities' transfers in [since, until),
    in time order (times as µs since the engine's epoch): each transfer in one of the `bands`
    ([lo, hi], inclusive) a group of its own time, the rest one group per stretch between bands;
    own-wallet transfers (the same entity on both sides) count in the times and `transfers` only."""
    if not entity_ids:
        return {}
    bounds, shift = _band_bounds(bands), (PG_EPOCH - EPOCH) // ONE_MICROSECOND
    if on_postgres():
        params = {"ids": _id_texts(entity_ids), "since": since, "until": until, "bounds": bounds}
        rows = [(entity, first + shift, last + shift, Decimal(usd), priced, unpriced, transfers)
                for entity, first, last, usd, priced, unpriced, transfers in pg_rows(VOLUME_GROUPS_SQL, params, timestamps_as_micros=True)]
    else:
        rows = _volume_groups_orm(organization, mode, entity_ids, since, until, bounds)
    groups: dict[str, list] = {}
    for entity, *group in sorted(rows, key=itemgetter(0, 1)):
        groups.setdefault(entity, []).append(tuple(group))
    return groups


def _volume_groups_orm(organization, mode, entity_ids, since, until, bounds) -> list[tuple]:
    found: dict[tuple, list] = {}
    for at, usd, sender, receiver in Transaction.objects.filter(
            Q(from_entity_id__in=entity_ids) | Q(to_entity_id__in=entity_ids), organization=organization, mode=mode,
            timestamp__gte=since, timestamp__lt=until).values_list("timestamp", "usd_value", "from_entity_id", "to_entity_id"):
        bucket, at_us = bisect_right(bounds, at), (at - EPOCH) // ONE_MICROSECOND
        sides = [(str(sender), sender == receiver)] if sender is not None else []
        if receiver is not None and receiver != sender:
            sides.append((str(receiver), False))
        for entity, own in sides:
            if entity not in entity_ids:
                continue
            group = found.setdefault((entity, bucket, at_us if bucket % 2 else None), [at_us, at_us, Decimal(0), 0, 0, 0])
            group[0], group[1], group[5] = min(group[0], at_us), max(group[1], at_us), group[5] + 1
            if not own:
                if usd is None:
                    group[4] += 1
                else:
                    group[2], group[3] = group[2] + usd, group[3] + 1
    return [(entity, *group) for (entity, _, _), group in found.items()]


def fiat_events(entity_ids: set[str], since: datetime, until: datetime) -> list[tuple]:
    """The entities' fiat events in [since, until], in (timestamp, id) order."""
    if not entity_ids:
        return []
    if on_postgres():
        rows = pg_rows(FIAT_SQL, {"since": since, "until": until, "ids": _id_texts(entity_ids)})
    else:
        rows = _text_ids(FiatEvent.objects.filter(entity_id__in=entity_ids, timestamp__gte=since, timestamp__lte=until).values_list(
            *FIAT_COLUMNS), _positions(FIAT_COLUMNS))
    return _in_time_order(rows, 2)


def entities(entity_ids: set[str]) -> list[tuple]:
    if on_postgres():
        return pg_rows(ENTITY_SQL, {"ids": _id_texts(entity_ids)})
    return _text_ids(Entity.objects.filter(pk__in=entity_ids).values_list(*ENTITY_COLUMNS), (0,))


def activity_before(entity_ids: set[str], tx_start: datetime, fiat_start: datetime) -> dict[str, datetime]:
    """{entity: latest activity before the loaded span, over both channels}, for entities with some."""
    if on_postgres():
        rows = pg_rows(BEFORE_SQL, {"ids": _id_texts(entity_ids), "tx": tx_start, "fiat": fiat_start})
        return {entity: latest for entity, latest in rows if latest is not None}
    latest: dict[str, datetime] = {}
    sources = (
        Transaction.objects.filter(from_entity_id__in=entity_ids, timestamp__lt=tx_start).values("from_entity_id"),
        Transaction.objects.filter(to_entity_id__in=entity_ids, timestamp__lt=tx_start).values("to_entity_id"),
        FiatEvent.objects.filter(entity_id__in=entity_ids, timestamp__lt=fiat_start).values("entity_id"),
    )
    for query in sources:
        for row in query.annotate(latest=Max("timestamp")).order_by():
            entity_id = str(next(value for name, value in row.items() if name.endswith("entity_id")))
            latest[entity_id] = max(latest.get(entity_id, row["latest"]), row["latest"])
    return latest


def known_counterparties(candidates: set[tuple[str, int, str]], before: datetime) -> set[tuple[str, int, str]]:
    """The (entity, chain_id, address) candidates the entity dealt with before `before`, either direction."""
    if not candidates:
        return set()
    entity_ids = {entity for entity, _, _ in candidates}
    addresses = {address for _, _, address in candidates}
    if on_postgres():
        rows = pg_rows(KNOWN_SQL, {"before": before, "ids": _id_texts(entity_ids), "addresses": list(addresses)})
        return set(rows) & candidates
    earlier = Transaction.objects.filter(timestamp__lt=before)
    found = set(earlier.filter(from_entity_id__in=entity_ids, to_address__in=addresses).values_list(
        "from_entity_id", "chain_id", "to_address").distinct())
    found |= set(earlier.filter(to_entity_id__in=entity_ids, from_address__in=addresses).exclude(
        from_entity_id=F("to_entity_id")).values_list(
        "to_entity_id", "chain_id", "from_address").distinct())
    return {(str(entity), chain_id, address) for entity, chain_id, address in found} & candidates


def registered_wallets(organization, mode: str, keys: set[tuple[int, str]]) -> list[tuple]:
    """(chain_id, address, entity_id, flagged, created_at, first_seen_at) of the organization's
    wallets among the (chain_id, address) keys."""
    if not keys:
        return []
    if on_postgres():
        chains, addresses = zip(*keys, strict=True)
        return pg_rows(REGISTERED_SQL, {"org": organization.pk, "mode": mode, "chains": list(chains), "addresses": list(addresses)})
    rows = Wallet.objects.filter(organization=organization, mode=mode, address__in={address for _, address in keys}).values_list(
        "chain_id", "address", "entity_id", "flagged", "created_at", "first_seen_at")
    return [(row[0], row[1], str(row[2]), *row[3:]) for row in rows if (row[0], row[1]) in keys]


def arrivals(organization, mode: str, keys: set[tuple[int, str]], since: datetime, until: datetime) -> list[tuple]:
    """Transfers with a customer on both sides into the (chain_id, address) wallets in [since, until]
    (rule 15's graph, one level of it), TX_COLUMNS tuples."""
    if not keys:
        return []
    if on_postgres():
        chains, addresses = zip(*keys, strict=True)
        return pg_rows(ARRIVALS_SQL, {"org": organization.pk, "mode": mode, "since": since, "until": until, "chains": list(chains),
                                      "addresses": list(addresses)})
    rows = Transaction.objects.filter(organization=organization, mode=mode, timestamp__gte=since, timestamp__lte=until,
                                      from_entity__isnull=False, to_entity__isnull=False,
                                      to_address__in={address for _, address in keys}).values_list(*TX_COLUMNS)
    return [row for row in _text_ids(rows, _positions(TX_COLUMNS)) if (row[2], row[5]) in keys]
