"""The batch loader's reads: the PostgreSQL statements agree with the ORM form, the batch's lists
agree with the organization's lists for the addresses a batch looks up, rule 14 knows
counterparties dealt with before the loaded span, first-seen times and monitored flags."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from common import pg
from common.principal import Principal
from monitoring.configuration.selectors import org_lists
from monitoring.engine import reads
from monitoring.engine.lists import batch_lists
from monitoring.ingestion.services import fiat_event_ingest, transactions_ingest_batch
from monitoring.models import AddressTag, Alert, AssetPrice, BlockedAddress, CodeListEntry, FiatEvent, Transaction
from onboarding.models import Entity, SanctionsDigitalAddress, SanctionsEntry, SanctionsList, Wallet

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)


def address(i: int) -> str:
    return f"0x{i:040x}"


@pytest.fixture
def customers(org):
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    entities = []
    for i in range(3):
        entity = Entity.objects.create(organization=org, mode="live", legal_name=f"C{i}", entity_type="business", jurisdiction="US",
                                       status="active", expected_monthly_volume_usd=Decimal("1000.50") if i else None)
        Wallet.objects.create(organization=org, mode="live", entity=entity, chain_id=1, address=address(i + 1))
        entities.append(entity)
    return entities


def transfer(n: int, sender: str, receiver: str, amount: str, at: datetime) -> dict:
    return {"chain_id": 1, "from_address": sender, "to_address": receiver, "amount": amount, "asset": "USDC", "timestamp": at,
            "tx_hash": f"0x{n:x}", "log_index": 0}


def store(org, items, run_monitoring=False):
    return transactions_ingest_batch(principal=Principal.system(org, "live"), items=items, run_monitoring=run_monitoring)


@pytest.fixture
def stored(org, customers):
    items = [transfer(i, address(1 + i % 3), address(900 + i % 5) if i % 4 else address(1 + (i + 1) % 3), str(100 + i),
                      T0 - timedelta(days=45) + timedelta(hours=7 * i)) for i in range(200)]
    store(org, items)
    for i in range(5):
        fiat_event_ingest(principal=Principal.system(org, "live"), run_monitoring=False, item={
            "entity_id": customers[i % 3].pk, "event_type": "wire_in", "amount": Decimal("2500.5000"), "currency": "USD",
            "event_timestamp": T0 - timedelta(days=10 * i), "reference": f"W{i}", "card_type": None})
    return customers


@pytest.mark.skipif(connection.vendor != "postgresql", reason="compares the PostgreSQL statements with the ORM form")
def test_postgres_statements_agree_with_the_orm(org, stored, monkeypatch):
    ids = {str(entity.pk) for entity in stored}
    since, until = T0 - timedelta(days=31), T0
    calls = {
        "transactions": lambda: reads.transactions(org, "live", ids, since, until),
        "fiat": lambda: reads.fiat_events(ids, T0 - timedelta(days=90), until),
        "entities": lambda: sorted(reads.entities(ids)),
        "wallets": lambda: sorted(reads.registered_wallets(org, "live", {(1, address(i)) for i in range(6)})),
        "before": lambda: reads.activity_before(ids, since, since),
        "graph": lambda: sorted(reads.arrivals(org, "live", {(1, address(i)) for i in (1, 2, 3)}, T0 - timedelta(days=40), until)),
        "volumes": lambda: reads.transaction_volume_groups(org, "live", ids, since - timedelta(days=20), until,
                                                           [(T0 - timedelta(days=35), T0 - timedelta(days=33))]),
    }
    fast = {name: call() for name, call in calls.items()}
    monkeypatch.setattr(reads, "on_postgres", lambda: False)
    orm = {name: call() for name, call in calls.items()}
    assert fast == orm
    assert len(fast["transactions"]) > 50 and fast["before"] and fast["graph"] and len(fast["fiat"]) == 5
    assert len(fast["wallets"]) == 3
    # Some transfers summed in a group of their own time (in the band), the others per stretch.
    groups = [group for entity_groups in fast["volumes"].values() for group in entity_groups]
    assert any(group[0] == group[1] and group[5] == 1 for group in groups) and any(group[5] > 1 for group in groups)


def _plan(sql: str, params: dict) -> str:
    import psycopg

    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute("EXPLAIN " + sql, params, binary=True)
        return "\n".join(line for (line,) in cursor.fetchall())


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_volume_sums_can_be_read_from_the_indexes_alone(org, stored):
    """The sums over older transfers need no heap page (migration 0009): with the other access
    paths ruled out, each side is an index-only scan of its covering (entity, timestamp) index."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
    bounds = reads._band_bounds([(T0 - timedelta(days=35), T0 - timedelta(days=33))])
    plan = _plan(reads.VOLUME_GROUPS_SQL, {"org": org.pk, "mode": "live", "ids": reads._id_texts({str(entity.pk) for entity in stored}),
                                           "since": T0 - timedelta(days=50), "until": T0, "bounds": bounds})
    assert "Index Only Scan using transaction_sender_time" in plan, plan
    assert "Index Only Scan using transaction_receiver_time" in plan, plan


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_an_entity_history_read_probes_the_entity_indexes_past_the_statistics(org, stored):
    """The newest transfers lie past the column statistics' histogram, where the planner reckons one
    row in any time range: given an organization-and-time condition it scanned every transfer of
    the organization in the window for a single ingest's entity. The read has only the entity and
    time conditions, so it probes the entity indexes."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE monitoring_transaction")
    sender, later = address(1), T0 + timedelta(days=30)
    store(org, [transfer(1000 + i, address(1 + i % 3), address(900 + i % 5), "10", later + timedelta(minutes=i)) for i in range(400)])
    plan = _plan(reads.TX_SQL, {"org": org.pk, "mode": "live", "since": later, "until": later + timedelta(days=2),
                                "ids": reads._id_texts({str(Wallet.objects.get(address=sender).entity_id)})})
    assert "transaction_sender_time" in plan and "transaction_receiver_time" in plan, plan


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_rule_15s_graph_probes_each_wallet_past_the_statistics(org, stored):
    """Past the histogram the planner reckons one row in any time range: joined to the wallets, the
    graph's read scanned the organization's every transfer of the window by time and hashed them
    (24-45 ms a batch on the benchmark's data). Each wallet is now a probe of the graph index."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE monitoring_transaction")
    later = T0 + timedelta(days=30)
    store(org, [transfer(5000 + i, address(1 + i % 3), address(900 + i % 5) if i % 50 else address(2), "10",
                         later + timedelta(minutes=i)) for i in range(1500)])
    params = {"org": org.pk, "mode": "live", "since": later, "until": later + timedelta(days=2), "chains": [1, 1],
              "addresses": [address(2), address(3)]}
    plan = _plan(reads.ARRIVALS_SQL, params)
    assert "monitoring_tx_graph_arrivals" in plan and "Hash" not in plan, plan
    rows = pg.pg_rows(reads.ARRIVALS_SQL, params)
    assert len(rows) == 30 and {row[5] for row in rows} == {address(2)}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL setting")
def test_an_evaluation_plans_without_parallel_workers_until_its_transaction_ends(org, stored):
    from monitoring.engine.runner import evaluate_batch

    def workers():
        with connection.cursor() as cursor:
            cursor.execute("SHOW max_parallel_workers_per_gather")
            return cursor.fetchone()[0]

    assert workers() != "0"
    evaluation = evaluate_batch(organization=org, mode="live", transactions=Transaction.objects.order_by("-timestamp")[:20])
    assert workers() == "0"  # SET LOCAL: back to the server's setting when the (test's) transaction ends
    assert evaluation.hits or evaluation.skips


def test_batch_lists_agree_with_the_organization_lists(org):
    now = timezone.now()
    # The worker may hold the real lists already (loaded once for the onboarding tests): add to them.
    listed, _ = SanctionsList.objects.get_or_create(source="ofac_sdn", defaults={
        "loaded_at": now, "checked_at": now, "content_hash": "0" * 64})
    entry = SanctionsEntry.objects.create(sanctions_list=listed, uid="test-lazarus", kind="entity", primary_name="LAZARUS GROUP")
    SanctionsDigitalAddress.objects.create(entry=entry, currency="ETH", address=address(7), address_as_listed=address(7))
    AddressTag.objects.create(organization=org, chain_id=1, address=address(5), category="exchange")
    AddressTag.objects.create(organization=org, chain_id=None, address=address(5), category="mixer")
    AddressTag.objects.create(organization=org, chain_id=137, address=address(6), category="darknet")
    BlockedAddress.objects.create(organization=org, chain_id=None, address=address(8))
    CodeListEntry.objects.create(organization=org, list_name="privacy_assets", code="XMR")
    AssetPrice.objects.update_or_create(organization=org, asset="ETH", defaults={"usd_rate": Decimal(3000)})
    wanted = {address(i) for i in range(4, 10)}
    full, batch = org_lists(org), batch_lists(org, wanted)
    for chain_id in (1, 137):
        for wallet in wanted:
            assert batch.tags_for(chain_id, wallet) == full.tags_for(chain_id, wallet)
            assert batch.sanctions_source(chain_id, wallet) == full.sanctions_source(chain_id, wallet)
    assert batch.asset_prices == full.asset_prices and batch.privacy_assets == full.privacy_assets
    assert batch.high_risk_jurisdictions == full.high_risk_jurisdictions and batch.high_risk_mccs == full.high_risk_mccs
    assert not batch_lists(org, {address(99)}).address_tags


def test_peel_chain_knows_counterparties_from_before_the_loaded_span(org, customers):
    sender = address(1)
    store(org, [transfer(1, address(500), sender, "5000", T0 - timedelta(days=1)),
                transfer(2, sender, address(903), "10", T0 - timedelta(days=60))])  # 903 known from long ago
    chain = [transfer(10 + i, sender, address(900 + i), str(900 - 100 * i), T0 + timedelta(minutes=i)) for i in range(5)]
    store(org, chain, run_monitoring=True)
    alert = Alert.objects.get(rule_code="peel_chain")
    hashes = set(alert.transactions.values_list("tx_hash", flat=True))
    # 903 was paid 60 days ago (before the 31 loaded days): not fresh, so it is not part of the run,
    # and the chain 900 > 800 > 700 > 500 completes on the fifth transfer only.
    assert hashes == {"0xa", "0xb", "0xc", "0xe"} and alert.hit_count == 1


def test_first_seen_moves_only_earlier_and_records_are_marked_monitored(org, customers):
    wallet = Wallet.objects.get(address=address(1))
    store(org, [transfer(1, address(1), address(900), "10", T0)], run_monitoring=True)
    wallet.refresh_from_db()
    assert wallet.first_seen_at == T0
    store(org, [transfer(2, address(1), address(900), "10", T0 + timedelta(days=1))], run_monitoring=True)
    store(org, [transfer(3, address(900), address(1), "10", T0 - timedelta(days=2))])
    wallet.refresh_from_db()
    assert wallet.first_seen_at == T0 - timedelta(days=2)
    assert set(Transaction.objects.values_list("tx_hash", "monitored")) == {("0x1", True), ("0x2", True), ("0x3", False)}


def test_wallets_ingestion_hands_the_engine_are_what_the_engine_would_read(org, customers):
    """Ingestion passes the wallets it resolved the sides with (first-seen times moved by the batch)
    to the engine instead of letting it read them again: they must be exactly the engine's read."""
    from monitoring.ingestion.storing import build_transactions, note_first_seen, wallets_of

    Wallet.objects.filter(address=address(2)).update(flagged=True)
    store(org, [transfer(1, address(2), address(900), "10", T0 - timedelta(days=3))])  # wallet 2 seen earlier than this batch
    principal = Principal.system(org, "live")
    items = [transfer(10 + i, address(1 + i % 3), address(900 + i), "25", T0 + timedelta(hours=i)) for i in range(4)]
    wallets = wallets_of(principal, items)
    records = pg.insert_new(Transaction, build_transactions(principal, items, "api", wallets, monitored=True))
    handed = note_first_seen(records, wallets)
    keys = {(1, item[side]) for item in items for side in ("from_address", "to_address")}
    read = reads.registered_wallets(org, "live", keys)
    assert sorted(handed) == sorted(read) and len(read) == 3
    by_address = {row[1]: row for row in handed}
    assert by_address[address(1)][5] == T0 and by_address[address(2)][5] == T0 - timedelta(days=3) and by_address[address(2)][3]


def test_skips_are_written_on_the_evaluation_record(org, customers):
    store(org, [transfer(1, address(1), address(900), "10", T0), {**transfer(2, address(2), address(900), "10", T0), "asset": "SHIB"}],
          run_monitoring=True)
    priced, unpriced = Transaction.objects.get(tx_hash="0x1"), Transaction.objects.get(tx_hash="0x2")
    assert priced.monitored and priced.evaluation is None
    skipped = unpriced.evaluation["skipped"]
    assert unpriced.monitored and skipped and all(s["reason"] == "no USD price for SHIB" for s in skipped)
    assert {s["entity_id"] for s in skipped} == {str(customers[1].pk)}


def test_duplicates_against_storage_are_skipped_and_not_evaluated(org, customers):
    first = store(org, [transfer(1, address(1), address(900), "12000", T0)], run_monitoring=True)
    again = store(org, [transfer(1, address(1), address(900), "12000", T0), transfer(2, address(1), address(900), "12000", T0)],
                  run_monitoring=True)
    assert (first.ingested, again.ingested, again.skipped) == (1, 1, 1)
    assert Alert.objects.get(rule_code="large_transfer").hit_count == 2


def test_fiat_single_ingest_is_stored_monitored(org, customers):
    outcome = fiat_event_ingest(principal=Principal.system(org, "live"), item={
        "entity_id": customers[0].pk, "event_type": "wire_in", "amount": Decimal("15000"), "currency": "USD",
        "event_timestamp": T0, "reference": "W-1"})
    assert outcome.record.monitored and FiatEvent.objects.get().monitored
    assert pg.on_postgres() == (connection.vendor == "postgresql")


def test_history_transfers_are_assembled_exactly_as_the_engine_constructs_them():
    from monitoring.engine import events
    from monitoring.rules import Transaction as RuleTransaction

    row = ("id-1", T0, 137, "0xh", "0xa", "0xb", "12.5", "USDC", Decimal("12.50"), "e1", "e2")
    made = events.rule_transaction(row, "e2")
    expected = RuleTransaction(id="id-1", timestamp=T0, direction="in", amount=Decimal("12.5"), usd_value=Decimal("12.50"),
                               counterparty_address="0xa", chain_id=137, tx_hash="0xh", from_address="0xa", to_address="0xb",
                               asset="USDC", counterparty_entity_id="e1")
    assert events.FAST_CONSTRUCTION
    assert made == expected and made.counterparty_key == expected.counterparty_key == (137, "0xa")
    assert [events.rule_transaction(row, e).direction for e in ("e1", "e2")] == ["out", "in"]


def test_cycle_through_stored_transfers_between_customers_is_found(org, customers):
    """Rule 15 reads the graph level by level from the batch's candidate: A -> B and B -> C stored
    earlier, C -> A now closes the cycle (plus an unrelated transfer between customers)."""
    a, b, c = address(1), address(2), address(3)
    store(org, [transfer(1, a, b, "5000", T0 - timedelta(days=2)), transfer(2, b, c, "4800", T0 - timedelta(days=1)),
                transfer(3, c, b, "10", T0 - timedelta(days=1, hours=1))])
    store(org, [transfer(4, c, a, "4500", T0)], run_monitoring=True)
    alert = Alert.objects.get(rule_code="cyclic_flow", entity_id=customers[0].pk)
    assert set(alert.transactions.values_list("tx_hash", flat=True)) == {"0x1", "0x2", "0x4"}
    assert alert.evidence["measured"]["hops"] == 3


def test_batch_settings_are_the_organizations_and_follow_changes(org):
    from monitoring.configuration.selectors import engine_settings
    from monitoring.engine.settings import batch_settings
    from monitoring.models import RuleSetting

    def active(settings):
        return [(a.rule.code, dict(a.params), str(a.severity)) for a in settings.active]

    assert active(batch_settings(org)) == active(engine_settings(org))
    RuleSetting.objects.create(organization=org, rule_code="large_transfer", parameters={"threshold_usd": "5000"}, severity="high")
    RuleSetting.objects.create(organization=org, rule_code="fan_in", enabled=False)
    assert active(batch_settings(org)) == active(engine_settings(org))
    assert batch_settings(org) is batch_settings(org)
    assert "fan_in" not in [code for code, _, _ in active(batch_settings(org))]


@pytest.mark.django_db(transaction=True)
def test_a_batch_chosen_as_deadlock_victim_runs_again_from_the_start(org, customers, monkeypatch):
    import psycopg.errors
    from django.db import OperationalError

    from monitoring.engine import runner

    calls = {"n": 0}
    real_monitor = runner.monitor

    def monitor_once_deadlocked(**kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise OperationalError("deadlock detected") from psycopg.errors.DeadlockDetected("deadlock detected")
        return real_monitor(**kwargs)

    monkeypatch.setattr("monitoring.ingestion.services.monitor", monitor_once_deadlocked)
    outcome = store(org, [transfer(1, address(1), address(900), "12000", T0)], run_monitoring=True)
    assert calls["n"] == 2 and outcome.ingested == 1
    assert Transaction.objects.count() == 1 and Alert.objects.get(rule_code="large_transfer").hit_count == 1


@pytest.mark.django_db(transaction=True)
def test_a_batch_chosen_as_victim_every_time_is_a_503_and_stores_nothing(org, customers, monkeypatch):
    import psycopg.errors
    from django.db import OperationalError

    from common.errors import ServiceBusy, error_response
    from monitoring.ingestion import retry

    calls = {"n": 0}

    def monitor_always_deadlocked(**kwargs):
        calls["n"] += 1
        raise OperationalError("deadlock detected") from psycopg.errors.DeadlockDetected("deadlock detected")

    monkeypatch.setattr("monitoring.ingestion.services.monitor", monitor_always_deadlocked)
    monkeypatch.setattr(retry.time, "sleep", lambda seconds: None)
    with pytest.raises(ServiceBusy) as raised:
        store(org, [transfer(1, address(1), address(900), "12000", T0)], run_monitoring=True)
    assert calls["n"] == retry.ATTEMPTS
    assert Transaction.objects.count() == 0 and Alert.objects.count() == 0
    status, body, headers = error_response(raised.value)
    assert (status, body["error"]["code"], headers) == (503, "SERVICE_BUSY", {"Retry-After": "1"})
    assert "nothing was stored" in body["error"]["message"]


@pytest.mark.django_db(transaction=True)
def test_entities_locked_to_open_cases_do_not_hold_up_inserts_that_reference_them(org, customers):
    """Case opening locks the batch's entities FOR NO KEY UPDATE: another batch's transfers, whose
    foreign-key check at commit takes a KEY SHARE lock on the same entity, commit at once. (With
    FOR UPDATE they waited for the whole other batch, and the two could deadlock over the case
    number sequence: seen as a 500 in bench/ingest.py --million.)"""
    import threading

    from django.db import transaction

    from filings.cases.attach import lock_entities

    if connection.vendor != "postgresql":
        pytest.skip("row lock modes are PostgreSQL's (SQLite locks the whole database)")
    sender = customers[0]
    holding, release = threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                lock_entities({sender.pk})
                holding.set()
                release.wait(15)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(15)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '3s'")  # a wait for the holder fails the test
            outcome = store(org, [transfer(1, address(1), address(900), "5", T0)])
        held_up = release.is_set()
    finally:
        release.set()
        holder.join(15)
    assert outcome.ingested == 1 and not held_up
    assert Transaction.objects.filter(from_entity=sender).count() == 1
