"""The demo portfolio make run seeds (README "Demo data"): seed_demo and remove_demo_data.

The seeding test is the slow one (two seedings of some 5,000 events each: 50 s on the 2-core
development machine). It runs in the test's transaction, so it flushes nothing and runs in the first
pass of `make test`, and it has a longer time-out than the suite's 300 s."""

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Q
from django.utils import timezone

from common.principal import Principal
from demo.models import DemoPortfolio
from demo.portfolio import DAYS, SEED, portfolio
from demo.services import PLACEHOLDER_WEBHOOK_URL, demo_seed
from filings.models import Case, ReportDraft
from monitoring.configuration.services import list_entry_add
from monitoring.models import AddressTag, Alert, FiatEvent, Fincen314aFile, Fincen314aMatch, Transaction
from monitoring.rules import Family, get_rule
from onboarding.models import Entity
from onboarding.screening.index import invalidate_index
from organizations.services import organization_create
from webhooks.models import Delivery, WebhookEndpoint

pytestmark = pytest.mark.django_db

USER_WALLET = "0x52908400098527886e0f7030069857d2e4169ee7"


def run(*args) -> list[str]:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip().splitlines()


@pytest.fixture
def sanctions_list():
    """The UN list from the bundled snapshot, loaded in the test's transaction (approvals screen
    against it); the process's screening index is dropped before and after."""
    invalidate_index()
    call_command("load_sanctions", "--list", "un_consolidated", stdout=io.StringIO())
    yield
    invalidate_index()


def demo_entities(organization):
    return Entity.objects.filter(organization=organization, mode="test", metadata__demo_portfolio=True)


def stored(organization) -> dict:
    """The portfolio as stored, with ids replaced by the customers' external ids (row ids and case
    numbers differ from one seeding to the next, the data must not)."""
    key = dict(demo_entities(organization).values_list("pk", "external_id"))
    scope = {"organization": organization, "mode": "test"}
    transfers = Transaction.objects.filter(Q(from_entity_id__in=key) | Q(to_entity_id__in=key), **scope)
    return {
        "entities": sorted((e.external_id, e.legal_name, e.entity_type, e.jurisdiction, e.status, e.risk_tier)
                           for e in demo_entities(organization)),
        "transfers": sorted((key.get(t.from_entity_id, ""), key.get(t.to_entity_id, ""), t.tx_hash, t.amount, t.asset, t.timestamp,
                             t.monitored) for t in transfers),
        "fiat_events": sorted((key[f.entity_id], f.reference, f.event_type, f.amount, f.timestamp, f.monitored)
                              for f in FiatEvent.objects.filter(**scope, entity_id__in=key)),
        "alerts": sorted((key[a.entity_id], a.rule_code, a.hit_count, a.status, a.disposition, a.first_triggered_at, a.last_triggered_at)
                         for a in Alert.objects.filter(**scope, entity_id__in=key)),
        "cases": sorted((key[c.entity_id], c.status, c.filing_status, c.priority) for c in Case.objects.filter(**scope, entity_id__in=key)),
    }


def test_the_portfolio_is_the_same_for_the_same_seed():
    first, again, other = portfolio(), portfolio(), portfolio(SEED + 1)
    assert first.digest() == again.digest() != other.digest()
    assert len(first.customers) == 50 and len({c.key for c in first.customers}) == 50
    assert len(first.transfers) > 2000 and len(first.fiat_events) > 1000
    older = [t for t in first.transfers if t["before"] > DAYS * 86400]
    assert len(older) == 1  # the dormant customer's first transfer, months before; everything else in the 60 days
    assert all(0 < event["before"] <= DAYS * 86400 for event in first.fiat_events)


@pytest.mark.timeout(600)
def test_seeding_makes_the_documented_portfolio_once_the_same_every_time_and_removal_takes_only_it(
        make_user, api, key, sanctions_list, monkeypatch):
    monkeypatch.delenv("DEMO_DATA", raising=False)
    # As bootstrap_demo makes them: through the service, so the default price list is there (USDC at 1 USD).
    demo = organization_create(actor=make_user("admin@demo.example"), name="Demo", slug="demo")
    other = organization_create(actor=make_user("admin@other.example"), name="Other", slug="other")
    # What a user made in the demo's test mode before: it must outlive remove_demo_data.
    client = api(key(demo, mode="test"))
    mine = client.post("/v1/onboarding/entities", {"legal_name": "Nova Traders LLC", "entity_type": "business", "jurisdiction": "US",
                                                    "wallets": [{"chain_id": 1, "address": USER_WALLET}]}, format="json").json()
    assert client.post("/v1/monitoring/transfers", {"chain_id": 1, "from_address": "0x000000000000000000000000000000000000beef",
                                                    "to_address": USER_WALLET, "amount": "25000", "asset": "USDC",
                                                    "timestamp": "2026-01-05T10:00:00Z", "tx_hash": "0xa1"},
                       format="json").json()["alerts_triggered"] >= 1
    my_endpoint = client.post("/v1/developer/webhook-endpoints", {"url": "https://hooks.example.com/mine",
                                                                   "event_types": ["alert.created"]}, format="json").json()["id"]
    my_tag = list_entry_add(principal=Principal.system(demo, "test"), kind="address_tag",
                            fields={"chain_id": 1, "address": "0x000000000000000000000000000000000000beef", "category": "exchange"})

    lines = run("seed_demo")
    assert lines[0].startswith("Demo data: seeding") and len(lines) == 12  # a line per step, and the summary
    assert lines[-1].startswith("Demo data: 50 entities") and " seeded in " in lines[-1]

    marker = DemoPortfolio.objects.get(organization=demo, mode="test")
    assert marker.digest == portfolio().digest() and marker.removed_at is None
    entities = demo_entities(demo)
    assert entities.count() == 50 == marker.summary["entities"]
    assert {"individual", "business"} == set(entities.values_list("entity_type", flat=True))
    assert len(set(entities.values_list("jurisdiction", flat=True))) >= 10
    statuses = set(entities.values_list("status", flat=True))
    assert {"active", "pending", "suspended", "rejected"} <= statuses
    assert entities.filter(risk_tier="high").count() >= 2  # the mixer user and the sanctioned customer; see docs/decisions.md (issue 30)
    assert entities.filter(wallets__chain_id=1).distinct().count() == 50

    scope = {"organization": demo, "mode": "test"}
    ids = list(entities.values_list("pk", flat=True))
    transfers = Transaction.objects.filter(Q(from_entity_id__in=ids) | Q(to_entity_id__in=ids), **scope)
    fiat_events = FiatEvent.objects.filter(**scope, entity_id__in=ids)
    assert transfers.count() >= 3000 and fiat_events.count() >= 1500
    assert not transfers.filter(monitored=False).exists() and not fiat_events.filter(monitored=False).exists()
    sixty_days_ago = marker.anchor - timedelta(days=DAYS)
    assert transfers.filter(timestamp__lt=sixty_days_ago).count() == 1 and not fiat_events.filter(timestamp__lt=sixty_days_ago).exists()
    assert not transfers.filter(timestamp__gt=timezone.now()).exists()

    alerts = Alert.objects.filter(**scope, entity_id__in=ids)
    families = {get_rule(code).family for code in alerts.values_list("rule_code", flat=True)}
    assert families == set(Family)  # transactions, fiat, cross_channel, card, check
    assert {"structuring_below_threshold", "rapid_pass_through", "fan_in", "fan_out", "mixer_exposure", "dormant_reactivation",
            "large_fiat_transaction", "fiat_structuring", "card_testing", "check_kiting"} <= set(alerts.values_list("rule_code", flat=True))
    assert alerts.filter(status="closed").count() == 3

    cases = Case.objects.filter(**scope, entity_id__in=ids)
    assert cases.count() == alerts.values("entity_id").distinct().count()  # a new alert opens its entity's case
    worked = cases.filter(status="investigating")
    assert worked.count() == 2 and all(case.assigned_to_id for case in worked)
    draft = ReportDraft.objects.get(**scope)
    assert (draft.kind, draft.valid, draft.case.status, draft.case.filing_status) == ("SAR", True, "investigating", "draft")
    assert draft.validated_at is not None and draft.case in worked

    listed = Fincen314aFile.objects.get(**scope)
    assert listed.status == "completed" and listed.subjects_count == 6
    matches = Fincen314aMatch.objects.filter(file=listed)
    assert matches.filter(review_status="pending").count() >= 1 and set(matches.values_list("entity_id", flat=True)) <= set(ids)

    endpoint = WebhookEndpoint.objects.exclude(pk=my_endpoint).get(**scope)
    assert (endpoint.url, endpoint.enabled) == (PLACEHOLDER_WEBHOOK_URL, False)
    assert not Delivery.objects.filter(endpoint=endpoint).exists()  # disabled: nothing is sent, nothing is retried
    assert AddressTag.objects.filter(organization=demo, source="demo portfolio").count() == 11

    # Deterministic: the same portfolio, seeded into another organization from the same moment.
    demo_seed(organization=other, mode="test", anchor=marker.anchor)
    assert stored(other) == stored(demo)

    # Once: a second run seeds nothing.
    before = stored(demo)
    assert run("seed_demo") == [f"Demo data: seeded {marker.anchor:%Y-%m-%d} in test mode (manage.py remove_demo_data removes it)."]
    assert stored(demo) == before

    # Removal takes the portfolio of the demo's test mode and nothing else.
    removed = run("remove_demo_data")
    assert removed[0].startswith("Removed the demo portfolio from demo's test mode: 1 fincen 314a files")
    assert not demo_entities(demo).exists() and not Transaction.objects.filter(**scope).exclude(tx_hash="0xa1").exists()
    assert not FiatEvent.objects.filter(**scope).exists() and not Fincen314aFile.objects.filter(**scope).exists()
    assert not Alert.objects.filter(**scope).exclude(entity_id=mine["id"]).exists()
    assert not Case.objects.filter(**scope).exclude(entity_id=mine["id"]).exists()
    assert list(WebhookEndpoint.objects.filter(**scope).values_list("pk", flat=True)) == [WebhookEndpoint.objects.get(pk=my_endpoint).pk]
    assert list(AddressTag.objects.filter(organization=demo).values_list("pk", flat=True)) == [my_tag.pk]
    assert Entity.objects.filter(**scope).get().pk == Entity.objects.get(pk=mine["id"]).pk
    assert Alert.objects.filter(entity_id=mine["id"]).exists() and Case.objects.filter(entity_id=mine["id"]).exists()
    assert demo_entities(other).count() == 50 and stored(other)["alerts"]  # the other organization's portfolio stays
    assert DemoPortfolio.objects.get(organization=demo, mode="test").removed_at is not None
    assert run("remove_demo_data") == ["No demo portfolio to remove in demo's test mode."]
    assert run("seed_demo")[0].startswith(f"Demo data: seeded {marker.anchor:%Y-%m-%d} in test mode (removed ")
    assert not demo_entities(demo).exists()


def test_demo_data_0_skips_the_seeding(make_org, monkeypatch):
    demo = make_org("demo")
    monkeypatch.setenv("DEMO_DATA", "0")
    assert run("seed_demo") == ["Demo data: skipped (DEMO_DATA=0)."]
    assert not DemoPortfolio.objects.exists() and not Entity.objects.filter(organization=demo).exists()


def test_seed_demo_needs_the_organization(db, monkeypatch):
    monkeypatch.delenv("DEMO_DATA", raising=False)
    with pytest.raises(CommandError, match="No organization has the slug 'demo'"):
        run("seed_demo")
    with pytest.raises(CommandError, match="No organization has the slug 'demo'"):
        run("remove_demo_data")
