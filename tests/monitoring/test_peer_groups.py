"""Rule 30's peer-group statistics (monitoring.engine.peers) on the real database: every group of the
organization and mode from one pass, the entity left out, and a day's figures computed once for all
processes (the shared cache), not once per process."""

import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from monitoring.engine import peers
from monitoring.models import Transaction
from onboarding.models import Entity

pytestmark = pytest.mark.django_db

END = datetime(2026, 11, 20, 15, 0, tzinfo=UTC)


@pytest.fixture
def book(org):
    def entity(n: int, entity_type: str, jurisdiction: str) -> Entity:
        return Entity.objects.create(organization=org, mode="live", legal_name=f"E{n}", entity_type=entity_type,
                                     jurisdiction=jurisdiction, status="approved")

    businesses = [entity(n, "business", "US") for n in range(4)]
    people = [entity(n, "individual", "US") for n in range(4, 7)]
    volumes = {businesses[0]: "100", businesses[1]: "300", businesses[2]: "500", people[0]: "40"}
    for n, (who, usd) in enumerate(volumes.items()):
        Transaction.objects.create(organization=org, mode="live", chain_id=1, tx_hash=f"0x{n}", log_index=0, from_address="0xa",
                                   to_address="0xb", amount=Decimal(usd), asset="USDC", usd_value=Decimal(usd),
                                   timestamp=END - timedelta(days=3), to_entity=who)
    # today's transfer is after the window's end (the start of the batch's day): not counted
    Transaction.objects.create(organization=org, mode="live", chain_id=1, tx_hash="0xtoday", log_index=0, from_address="0xa",
                               to_address="0xb", amount=Decimal(9000), asset="USDC", usd_value=Decimal(9000),
                               timestamp=END - timedelta(hours=1), to_entity=businesses[3])
    peers._kept.clear()
    return businesses, people


def rows(entities: list[Entity]) -> list[tuple]:
    return [(str(e.pk), e.status, e.jurisdiction, e.entity_type) for e in entities]


def test_each_group_apart_with_the_entity_left_out(org, book, django_capture_on_commit_callbacks):
    businesses, people = book
    with django_capture_on_commit_callbacks(execute=True):
        stats = peers.peer_group_stats(org, "live", rows(businesses + people), END, window_days=30)
    first = stats[str(businesses[0].pk)]  # peers 300, 500 and 0 (the fourth's volume is today's)
    assert (first.size, first.active, first.mean_volume_usd) == (3, 2, Decimal("266.67"))
    assert first.stddev_volume_usd == Decimal("205.48")
    fourth = stats[str(businesses[3].pk)]  # peers 100, 300, 500
    assert (fourth.size, fourth.active, fourth.mean_volume_usd, fourth.stddev_volume_usd) == (3, 3, Decimal("300.00"),
                                                                                               Decimal("163.30"))
    person = stats[str(people[1].pk)]  # peers 40 and 0
    assert (person.size, person.active, person.mean_volume_usd, person.stddev_volume_usd) == (2, 1, Decimal("20.00"),
                                                                                              Decimal("20.00"))


def test_a_days_figures_are_computed_once_for_every_process(org, book, django_capture_on_commit_callbacks):
    businesses, _ = book
    with django_capture_on_commit_callbacks(execute=True):
        first = peers.peer_group_stats(org, "live", rows(businesses), END, window_days=30)
    peers._kept.clear()  # another process: nothing of its own kept
    with CaptureQueriesContext(connection) as queries:
        again = peers.peer_group_stats(org, "live", rows(businesses), END + timedelta(hours=2), window_days=30)
    assert again == first
    assert not [q for q in queries.captured_queries if "monitoring_transaction" in q["sql"]]
    with CaptureQueriesContext(connection) as queries:  # the next day is a new window
        peers.peer_group_stats(org, "live", rows(businesses), END + timedelta(days=1), window_days=30)
    assert [q for q in queries.captured_queries if "monitoring_transaction" in q["sql"]]


def test_the_next_days_volumes_by_difference_equal_a_whole_recount(org, book, django_capture_on_commit_callbacks):
    """Day D+1 from day D's shared volumes (the day entering the window added, the day leaving it taken
    off) gives what one aggregate over D+1's window gives."""
    businesses, people = book
    everyone = rows(businesses + people)
    leaving = END - timedelta(days=30)  # inside D's window ([END's day - 30 d, END's day)), out of D+1's
    Transaction.objects.create(organization=org, mode="live", chain_id=1, tx_hash="0xold", log_index=0, from_address="0xa",
                               to_address="0xb", amount=Decimal(70), asset="USDC", usd_value=Decimal(70),
                               timestamp=leaving, from_entity=businesses[1])
    with django_capture_on_commit_callbacks(execute=True):
        day_one = peers.peer_group_stats(org, "live", everyone, END, window_days=30)
    assert day_one[str(businesses[0].pk)].mean_volume_usd == Decimal("290.00")  # (370 + 500 + 0) / 3
    peers._kept.clear()
    with django_capture_on_commit_callbacks(execute=True), CaptureQueriesContext(connection) as queries:
        by_difference = peers.peer_group_stats(org, "live", everyone, END + timedelta(days=1), window_days=30)
    windows = [q["sql"] for q in queries.captured_queries if "SUM" in q["sql"] and "monitoring_transaction" in q["sql"]]
    assert len(windows) == 4  # sent and received, for the day entering and the day leaving
    peers._kept.clear()
    for day in (END, END + timedelta(days=1)):  # nothing shared left for this organization: a whole recount
        cache.delete(peers.shared_key(org, "live", 30, day))
    recounted = peers.peer_group_stats(org, "live", everyone, END + timedelta(days=1), window_days=30)
    assert by_difference == recounted
    fourth = by_difference[str(businesses[3].pk)]  # today's 9,000 entered; 0xold left: peers 100, 300, 500
    assert (fourth.mean_volume_usd, fourth.active) == (Decimal("300.00"), 3)
    first = by_difference[str(businesses[0].pk)]  # peers 300, 500, 9,000
    assert (first.mean_volume_usd, first.active) == (Decimal("3266.67"), 3)


LOCAL_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "peer-groups"}}


@override_settings(CACHES=LOCAL_CACHE)
def test_a_process_waits_for_the_figures_another_is_computing(org, book):
    """A shared cache: when another process has claimed a new day's figures, this one waits for them and
    runs no aggregate of its own (a new day would otherwise start the same aggregates in every process)."""
    businesses, _ = book
    key = peers.shared_key(org, "live", 30, datetime.combine(END.date(), datetime.min.time(), tzinfo=UTC))
    assert cache.add(f"{key}:computing", 1, 60)  # the other process's claim
    others = {("business", "US"): peers.Group.of(4, {str(businesses[1].pk): 30_000, str(businesses[2].pk): 50_000})}  # cents
    publisher = threading.Timer(0.2, cache.set, (key, (0, others), 60))  # what it will publish
    publisher.start()
    try:
        with CaptureQueriesContext(connection) as queries:
            stats = peers.peer_group_stats(org, "live", rows(businesses), END, window_days=30)
    finally:
        publisher.join()
    assert not [q for q in queries.captured_queries if "monitoring_transaction" in q["sql"]]
    first = stats[str(businesses[0].pk)]  # the published figures, not the stored transfers: peers 300, 500, 0
    assert (first.size, first.active, first.mean_volume_usd, first.stddev_volume_usd) == (3, 2, Decimal("266.67"), Decimal("205.48"))
    assert cache.get(key) == (0, others)  # and it wrote nothing over them


@override_settings(CACHES=LOCAL_CACHE)
def test_a_claim_never_published_costs_a_bounded_wait(org, book, monkeypatch):
    """The claiming process died: after WAIT_SECONDS the others compute the figures themselves and share them."""
    businesses, _ = book
    monkeypatch.setattr(peers, "WAIT_SECONDS", 0.1)
    key = peers.shared_key(org, "live", 30, datetime.combine(END.date(), datetime.min.time(), tzinfo=UTC))
    cache.add(f"{key}:computing", 1, 60)
    stats = peers.peer_group_stats(org, "live", rows(businesses), END, window_days=30)
    assert stats[str(businesses[0].pk)].mean_volume_usd == Decimal("266.67")  # 300, 500, 0 from the stored transfers
    depth, groups = cache.get(key)
    shared = groups[("business", "US")]
    assert (depth, shared.size, shared.volumes[str(businesses[1].pk)], shared.volumes[str(businesses[2].pk)]) == (0, 4, 30_000, 50_000)
    assert shared.left_out == {}  # the process's own left-out figures are not shared


@override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "svc_cache"}})
def test_the_database_cache_gets_the_figures_after_the_batch_commits(org, book, django_capture_on_commit_callbacks):
    """Written inside the batch's transaction, the database cache's row would be rolled back with a failed batch."""
    businesses, _ = book
    call_command("createcachetable", verbosity=0)  # a no-op where the settings' cache is already this table
    key = peers.shared_key(org, "live", 30, datetime.combine(END.date(), datetime.min.time(), tzinfo=UTC))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        peers.peer_group_stats(org, "live", rows(businesses), END, window_days=30)
    assert cache.get(key) is None and len(callbacks) == 1
    callbacks[0]()
    assert cache.get(key)[1][("business", "US")].volumes[str(businesses[0].pk)] == 10_000
