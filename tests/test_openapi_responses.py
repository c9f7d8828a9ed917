"""What the API answers is what the OpenAPI document says it answers: every GET operation, called with
the ids of a customer that went through onboarding, monitoring (alerts, a case, a disposition) and
screening, has its 200 body validated against the documented schema, formats included (JSON Schema
2020-12). A client generated from /v1/openapi.json must be able to read every answer.

Found by schemathesis against make run: an entity's '' e-mail against format "email", an open alert's
'' disposition against its enum, a paged schema for the wallets list that answers an array.
"""

import re

import pytest
from django.test import Client
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

pytestmark = pytest.mark.django_db
EVM = "0x52908400098527886e0f7030069857d2e4169ee7"
# Operations answering something other than JSON (or a redirect), or only to a session (the key sees 403).
SKIPPED = re.compile(r"/(compliance-report|compliance-certificate|sar-xml|ctr-xml)$|^/v1/(auth|organizations|sso)/")


@pytest.fixture
def document(db):
    response = Client().get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def _validator(document, schema):
    """A validator of `schema` whose '#/components/...' references resolve in the whole document."""
    root = {**document, "$schema": "https://json-schema.org/draft/2020-12/schema"}
    registry = Registry().with_resource("urn:api", Resource.from_contents(root, default_specification=DRAFT202012))
    return Draft202012Validator(_rebased(schema), registry=registry, format_checker=FormatChecker())


def _rebased(node):
    if isinstance(node, dict):
        return {key: ("urn:api" + value if key == "$ref" and value.startswith("#") else _rebased(value)) for key, value in node.items()}
    if isinstance(node, list):
        return [_rebased(item) for item in node]
    return node


@pytest.fixture
def customer(api, org, key, settings, django_capture_on_commit_callbacks):
    """An entity with a wallet and its screening checks, a large transfer (alerts and a case), a fiat
    event, one alert disposed."""
    settings.RATE_LIMIT_ENABLED, settings.SCREENING_PROVIDER_URL = False, ""
    from monitoring.models import AssetPrice

    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    client = api(key(org, tier="premium"))
    with django_capture_on_commit_callbacks(execute=True):  # the screening the onboarding dispatches
        entity = client.post("/v1/onboarding/entities", {"legal_name": "Nova Traders LLC", "entity_type": "business", "jurisdiction": "US",
                                                          "wallets": [{"chain_id": 1, "address": EVM}]}, format="json")
    assert entity.status_code == 201, entity.json()
    entity_id = entity.json()["id"]
    sent = client.post("/v1/monitoring/transfers", {"chain_id": 1, "from_address": "0x" + "be" * 20, "to_address": EVM, "amount": "25000",
                                                     "asset": "USDC", "timestamp": "2026-11-01T10:00:00Z"}, format="json")
    assert sent.status_code == 200 and sent.json()["alerts_triggered"] >= 1, sent.json()
    fiat = client.post("/v1/monitoring/fiat-events", {"entity_id": entity_id, "event_type": "wire_in", "amount": "15000", "currency": "USD",
                                                       "counterparty_name": "First Client", "event_timestamp": "2026-11-02T10:00:00Z"},
                       format="json")
    assert fiat.status_code in (200, 201), fiat.json()
    alerts = {alert["rule_code"]: alert["id"] for alert in client.get(f"/v1/onboarding/entities/{entity_id}/alerts").json()["data"]}
    disposed = client.post(f"/v1/onboarding/entities/{entity_id}/alerts/{alerts['large_transfer']}/disposition",
                           {"disposition": "false_positive", "notes": "known client"}, format="json")
    assert disposed.status_code == 200
    first = lambda path: client.get(path).json()["data"][0]["id"]  # noqa: E731
    travel_rule = _travel_rule_record(org, entity_id)
    ids = {
        "entity_id": entity_id, "alert_id": alerts["large_fiat_transaction"],
        "transfer_id": first(f"/v1/onboarding/entities/{entity_id}/transfers"), "event_id": fiat.json()["id"],
        "case_id": first(f"/v1/onboarding/entities/{entity_id}/cases"),
        "check_id": first(f"/v1/onboarding/entities/{entity_id}/compliance-checks"), "rule_id": "large_transfer",
        "chain_id": "1", "address": EVM, "tx_hash": travel_rule.tx_hash,
        # /v1/compliance/transfer/{transfer_id} names a travel-rule transfer, not a monitored one
        "/v1/compliance/transfer/": {"transfer_id": str(travel_rule.pk)},
    }
    return client, ids


def _travel_rule_record(org, entity_id):
    """A completed travel-rule transfer with the reference's IVMS101 persons (the entity is its own
    beneficiary here: only the answer's shape is checked)."""
    from django.utils import timezone

    from compliance.models import TravelRuleTransfer
    from tests.compliance.travel_rule_helpers import beneficiary, originator

    now = timezone.now()
    return TravelRuleTransfer.objects.create(
        organization=org, mode="test", originator_entity_id=entity_id, beneficiary_entity_id=entity_id, chain_id=1, asset="USDC",
        amount="2500", usd_value=2500, from_address=EVM, to_address=EVM, originator=originator(EVM), beneficiary=beneficiary(EVM),
        travel_rule_required=True, threshold_usd=1000, salt="0x" + "11" * 32, commitment="0x" + "22" * 32, request_digest="0" * 64,
        status="completed", acknowledged_at=now, expires_at=now, completed_at=now, tx_hash="0x" + "33" * 32, block_number=9)


def test_every_get_answers_what_the_document_says(document, customer):
    client, ids = customer
    checked, mismatches = [], {}
    for template, methods in document["paths"].items():
        operation = methods.get("get")
        if operation is None or SKIPPED.search(template):
            continue
        names = re.findall(r"\{([^}]+)\}", template)
        known = {**ids, **next((own for prefix, own in ids.items() if template.startswith(prefix)), {})}
        if any(name not in known for name in names):
            continue
        path = re.sub(r"\{([^}]+)\}", lambda match, known=known: known[match.group(1)], template)
        query = {"q": "Nova"} if template.endswith("/search") else {}
        response = client.get(path, query)
        content = operation["responses"].get("200", {}).get("content", {})
        if response.status_code != 200 or "application/json" not in content:
            mismatches[template] = f"status {response.status_code}, documented {sorted(operation['responses'])}"
            continue
        errors = sorted(_validator(document, content["application/json"]["schema"]).iter_errors(response.json()), key=str)
        if errors:
            mismatches[template] = [f"{list(error.absolute_path)}: {error.message[:200]}" for error in errors[:3]]
        checked.append(template)
    assert mismatches == {}, "\n".join(f"{template}: {found}" for template, found in mismatches.items())
    assert len(checked) >= 37, len(checked)
    travel_rule = {"/v1/compliance/transfer/{transfer_id}", "/v1/onboarding/entities/{entity_id}/transfers/{tx_hash}/travel-rule"}
    assert travel_rule <= set(checked)  # every GET but those needing a session, a filing or a key id
