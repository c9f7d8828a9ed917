"""A batch's history loaded as rows only as far back as the rules' short windows reach, with the
older transfers as sums (monitoring.rules.context.FarVolume, reads.transaction_volume_groups),
evaluates every rule exactly as the whole span loaded as rows: stored randomized histories (transfers
at the window edges to the microsecond, round amounts, a funnel counterparty, first contacts, own-
wallet transfers, unpriced assets, fiat events), all 50 rules and changed parameters, hits and skips
with their evidence. The rows before are read only for the entities whose rules ask for them."""

import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from common.principal import Principal
from monitoring.engine import reads, runner
from monitoring.engine.runner import evaluate_batch
from monitoring.engine.settings import batch_settings
from monitoring.ingestion.services import fiat_event_ingest, transactions_ingest_batch
from monitoring.models import AssetPrice, RuleSetting, Transaction
from monitoring.rules import EntityHistory
from monitoring.rules.context import FarVolume, Volume
from monitoring.rules.engine import EngineSettings
from onboarding.models import Entity, Wallet

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 5, 20, 12, tzinfo=UTC)
DAY, HOUR, MICRO = timedelta(days=1), timedelta(hours=1), timedelta(microseconds=1)
CUSTOMERS = 7
QUIET = 6  # a customer of small transfers only: no rule asks for its older rows


def wallet(i: int, k: int = 0) -> str:
    return f"0x{(i + 1) * 100 + k:040x}"


def external(i: int) -> str:
    return f"0x{0xE000 + i:040x}"


@pytest.fixture
def customers(org):
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    entities = []
    for i in range(CUSTOMERS):
        entity = Entity.objects.create(organization=org, mode="live", legal_name=f"C{i}", entity_type="business", jurisdiction="US",
                                       status="active", expected_monthly_volume_usd=Decimal("30000"))
        for k in range(2):
            Wallet.objects.create(organization=org, mode="live", entity=entity, chain_id=1, address=wallet(i, k))
        entities.append(entity)
    return entities


def batch_start(seed: int) -> datetime:
    return NOW - timedelta(minutes=random.Random(seed).randrange(200))


def stored_history(org, entities, seed: int) -> list[Transaction]:
    """36 days of transfers for the customers, stored without monitoring; returns the batch: the
    transfers of the last three hours, evaluated below. Transfers sit on the edges the batch's
    windows begin at (30 and 31 days, 24 and 48 hours before a batch transfer, to the microsecond
    and one microsecond either side), and on the edge of the rows the split history loads."""
    rng, items = random.Random(seed), []
    start = batch_start(seed)
    batch_times = sorted(start + timedelta(seconds=rng.randrange(3 * 3600)) for _ in range(30))
    funnel = external(99)

    def add(at, customer, amount, *, outbound=None, other=None, asset="USDC", own=False):
        outbound = rng.random() < 0.5 if outbound is None else outbound
        if own:
            sides = (wallet(customer, 0), wallet(customer, 1))
        else:
            other = other or (wallet(rng.randrange(QUIET)) if rng.random() < 0.15 else external(rng.randrange(40)))
            sides = (wallet(customer), other) if outbound else (other, wallet(customer))
        items.append({"chain_id": 1, "from_address": sides[0], "to_address": sides[1], "amount": amount, "asset": asset,
                      "timestamp": at, "tx_hash": f"0x{len(items):064x}", "log_index": 0})

    amounts = ["50", "120", "980", "2500", "5000", "6000", "8500", "9900", "15000", "20000", "60000"]
    for _ in range(520):
        at = start - timedelta(seconds=rng.randrange(36 * 86400))
        customer = rng.randrange(CUSTOMERS)
        kind = rng.random()
        if kind < 0.06:
            add(at, customer, rng.choice(amounts), own=True)
        elif kind < 0.1:
            add(at, customer, "700", asset="XMR")  # no price: counted as unpriced
        elif customer == 0:
            add(at, customer, rng.choice(["30000", "45000", "52000"]), other=funnel)  # rule 19's funnel
        else:
            add(at, customer, rng.choice(["50", "120"]) if customer == QUIET else rng.choice(amounts))
    for at in [*batch_times[::3], batch_times[-1]]:  # the window edges of batch transfers, each customer in turn
        customer = rng.randrange(QUIET)
        for width in (30 * DAY, 31 * DAY, 24 * HOUR, 48 * HOUR, 48 * HOUR + 2 * HOUR):
            for shift in (-MICRO, timedelta(0), MICRO):
                add(at - width + shift, customer, rng.choice(amounts))
    for n, at in enumerate(batch_times):
        customer = n % CUSTOMERS
        if customer == QUIET:
            add(at, customer, "50")
        elif n % 5 == 0:
            add(at, customer, "5000", outbound=True, other=external(200 + n))  # round, to a new counterparty
        elif n % 7 == 0:
            add(at, customer, "60000", other=funnel)
        else:
            add(at, customer, rng.choice(amounts + ["4000", "3000", "2000", "1000"]), outbound=rng.random() < 0.7,
                other=external(300 + n) if rng.random() < 0.4 else None)
    for k, amount in enumerate(["4000", "3000", "2000", "1000"]):  # peel chains: to fresh addresses, and to one dealt with before
        add(start + timedelta(hours=3, minutes=10 * k + 1), 2, amount, outbound=True, other=external(500 + k))
        add(start + timedelta(hours=3, minutes=10 * k + 2), 3, amount, outbound=True, other=external(600 + k))
    add(start - 10 * DAY, 3, "100", outbound=True, other=external(601))
    add(start + timedelta(minutes=5), 4, "2000000", outbound=False, other=external(700))  # rule 18: far above its 30-day baseline
    principal = Principal.system(org, "live")
    for i in range(0, len(items), 500):
        transactions_ingest_batch(principal=principal, items=items[i:i + 500], run_monitoring=False)
    for n in range(12):
        fiat_event_ingest(principal=principal, run_monitoring=False, item={
            "entity_id": entities[n % CUSTOMERS].pk, "event_type": rng.choice(["wire_in", "ach_out", "card_atm"]),
            "amount": Decimal(rng.choice(["900", "4000", "9500"])), "currency": "USD", "reference": f"F{seed}-{n}",
            "event_timestamp": start - timedelta(hours=rng.randrange(40 * 24))})
    return list(Transaction.objects.filter(organization=org, timestamp__gte=start).order_by("timestamp", "id"))


def evaluated(org, batch, *, whole: bool, monkeypatch) -> tuple[list, list]:
    with monkeypatch.context() as patch:
        if whole:  # every transfer of the span as rows: the loader before the split
            patch.setattr(EngineSettings, "row_reach", lambda self: timedelta(days=400))
        evaluation = evaluate_batch(organization=org, mode="live", transactions=batch)
    hits = sorted((result.as_dict() for result in evaluation.hits), key=lambda r: (r["event_id"], r["rule_code"]))
    return hits, sorted((event, skip["rule"], skip["reason"]) for event, skips in evaluation.skips.items() for skip in skips)


def read_rows_before(monkeypatch) -> list[str]:
    """Spies on the histories' reads of the rows before the loaded ones: the entities they were for."""
    loads, original = [], EntityHistory.load_earlier

    def load_earlier(self):
        if self._earlier_rows is not None:
            loads.append(self)
        original(self)

    monkeypatch.setattr(EntityHistory, "load_earlier", load_earlier)
    return loads


@pytest.mark.parametrize("seed", range(4))
def test_split_history_evaluates_every_rule_as_the_whole_span(org, customers, seed, monkeypatch):
    batch = stored_history(org, customers, seed)
    expected = evaluated(org, batch, whole=True, monkeypatch=monkeypatch)
    with monkeypatch.context() as patch:  # no transfer summed at its own time: the sums straddle every edge, rows are read
        patch.setattr(EngineSettings, "volume_widths", lambda self: set())
        assert evaluated(org, batch, whole=False, monkeypatch=monkeypatch) == expected
    loads = read_rows_before(monkeypatch)
    assert evaluated(org, batch, whole=False, monkeypatch=monkeypatch) == expected
    codes = {hit["rule_code"] for hit in expected[0]}
    assert {"volume_spike", "counterparty_concentration", "profile_deviation", "peel_chain"} <= codes, codes  # the sums were read
    assert len(batch) >= 30 and len(expected[0]) > 20
    loaded = {history.transactions[-1].id for history in loads}
    assert 0 < len(loads) < CUSTOMERS  # rules 8 and 19 asked some entities for rows before; the quiet one's were not read
    assert not any(tx.id in loaded for tx in batch if tx.from_entity_id == customers[QUIET].pk)


@pytest.mark.parametrize("seed", range(4, 6))
def test_split_history_with_changed_windows(org, customers, seed, monkeypatch):
    """Longer or shorter windows move the edges and the rows' reach; the answers stay the whole span's."""
    RuleSetting.objects.create(organization=org, rule_code="volume_spike",
                              parameters={"window_hours": 30, "baseline_days": 20, "min_history_days": 3, "multiplier": "2"})
    RuleSetting.objects.create(organization=org, rule_code="round_amounts", parameters={"window_days": 30})
    RuleSetting.objects.create(organization=org, rule_code="fiat_to_crypto_rapid", enabled=False)
    RuleSetting.objects.create(organization=org, rule_code="crypto_to_fiat_cashout", enabled=False)
    for code in ("fan_in", "fan_out", "scatter_gather", "gather_scatter"):  # their 72 h windows would set the rows' reach
        RuleSetting.objects.create(organization=org, rule_code=code, enabled=False)
    RuleSetting.objects.create(organization=org, rule_code="counterparty_concentration",
                              parameters={"window_days": 9, "min_volume_usd": "1000", "min_share_pct": "20"})
    batch = stored_history(org, customers, seed)
    assert batch_settings(org).row_reach() == timedelta(hours=30)
    expected = evaluated(org, batch, whole=True, monkeypatch=monkeypatch)
    assert evaluated(org, batch, whole=False, monkeypatch=monkeypatch) == expected
    assert {"volume_spike", "round_amounts", "counterparty_concentration"} <= {hit["rule_code"] for hit in expected[0]}


def test_volume_groups_keep_band_transfers_apart_and_agree_between_databases(org, customers, monkeypatch):
    batch = stored_history(org, customers, 9)
    ids = {str(entity.pk) for entity in customers}
    start, end = batch[0].timestamp, batch[-1].timestamp
    since, until = start - 31 * DAY, start - 48 * HOUR
    bands = [(start - 30 * DAY, end - 30 * DAY), (start - 31 * DAY, end - 31 * DAY)]
    groups = reads.transaction_volume_groups(org, "live", ids, since, until, bands)
    monkeypatch.setattr(reads, "on_postgres", lambda: False)
    assert reads.transaction_volume_groups(org, "live", ids, since, until, bands) == groups
    rows = reads.transactions(org, "live", ids, since, until - MICRO)
    for entity in ids:
        mine = [row for row in rows if entity in (row[9], row[10])]
        outside = [row for row in mine if row[9] != row[10]]
        assert sum(group[3] + group[4] for group in groups[entity]) == len(outside)
        assert sum(group[2] for group in groups[entity]) == sum(Decimal(row[8]) for row in outside if row[8] is not None)
        firsts = [group[0] for group in groups[entity]]
        assert firsts == sorted(firsts) and all(a[1] < b[0] for a, b in zip(groups[entity], groups[entity][1:], strict=False))
    assert sum(1 for entity in ids for group in groups[entity] if group[0] == group[1]) > 10  # the edges' transfers, each alone


def test_far_volume_answers_only_edges_no_group_straddles():
    far = FarVolume([(10, 10, Decimal("5.00"), 1, 0, 1), (20, 40, Decimal("7.50"), 2, 1, 4), (50, 50, Decimal("1.00"), 1, 0, 1)])
    assert far.between(10, 60) == Volume(Decimal("13.50"), 4, 1)
    assert far.between(11, 60) == Volume(Decimal("8.50"), 3, 1)
    assert far.between(41, 50) == Volume(Decimal(0), 0, 0)
    assert far.between(41, 51) == Volume(Decimal("1.00"), 1, 0)
    assert far.between(0, 20) == Volume(Decimal("5.00"), 1, 0)
    assert far.between(30, 60) is None and far.between(0, 40) is None and far.between(0, 21) is None
    assert (far.first_us, far.last_us, len(far)) == (10, 50, 3)


def test_a_transfer_stored_between_the_sums_and_the_older_rows_sends_the_batch_to_one_read(org, customers, monkeypatch):
    """The older rows are read after the sums (when a rule asks): a transfer committed in between
    must not make a result no single state of the database gives (a counterparty's share above its
    total). The rows disagree with the sums, and the batch is evaluated again from the whole span."""
    batch = stored_history(org, customers, 0)
    original, injected, attempts = reads.transactions, [], []

    def racing(organization, mode, entity_ids, since, until):
        if len(entity_ids) == 1 and not injected:  # an entity's older rows, read by EntityHistory.load_earlier
            entity = next(e for e in customers if str(e.pk) in entity_ids)
            transactions_ingest_batch(principal=Principal.system(org, "live"), run_monitoring=False, items=[{
                "chain_id": 1, "from_address": external(777), "to_address": wallet(customers.index(entity)), "amount": "777",
                "asset": "USDC", "timestamp": since + 2 * DAY, "tx_hash": f"0x{777:064x}", "log_index": 0}])
            injected.append(entity)
        return original(organization, mode, entity_ids, since, until)

    real_evaluate = runner._evaluate
    monkeypatch.setattr(runner, "_evaluate", lambda *args, **kwargs: attempts.append(kwargs.get("whole_span", False))
                        or real_evaluate(*args, **kwargs))
    with monkeypatch.context() as patch:
        patch.setattr(reads, "transactions", racing)
        raced = evaluated(org, batch, whole=False, monkeypatch=monkeypatch)
    assert injected and attempts == [False, True]
    assert raced == evaluated(org, batch, whole=True, monkeypatch=monkeypatch)  # the database as it is after the insert


def test_rule_14_knows_a_counterparty_the_way_the_rows_key_it(org, customers, monkeypatch):
    """An own-wallet transfer is keyed by its receiving address in the rows; storage's "dealt with
    before" must not count its sending address (a wallet that later leaves the customer)."""
    principal, entity = Principal.system(org, "live"), customers[1]
    transactions_ingest_batch(principal=principal, run_monitoring=False, items=[{
        "chain_id": 1, "from_address": wallet(1, 0), "to_address": wallet(1, 1), "amount": "10", "asset": "USDC",
        "timestamp": NOW - 5 * DAY, "tx_hash": f"0x{888:064x}", "log_index": 0}])
    candidates = {(str(entity.pk), 1, wallet(1, 0)), (str(entity.pk), 1, wallet(1, 1))}
    known = reads.known_counterparties(candidates, NOW)
    monkeypatch.setattr(reads, "on_postgres", lambda: False)
    assert reads.known_counterparties(candidates, NOW) == known == {(str(entity.pk), 1, wallet(1, 1))}
