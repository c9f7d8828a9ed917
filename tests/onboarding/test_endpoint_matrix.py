"""Every entity sub-resource read: anonymous 401, another tenant's (or mode's) entity 404, an unknown
id 404, a viewer 200; the hits list; and the beat sweep that screens entities left unscreened."""

from datetime import timedelta

import pytest
from django.utils import timezone

from onboarding.models import ComplianceCheck, Entity
from onboarding.tasks import sweep_unscreened
from tests.onboarding.helpers import PERSON, entity_url, onboard

pytestmark = pytest.mark.django_db
READS = ["compliance-checks", "screening-hits", "adverse-media", "risk-history", "ai-risk-explanation", "peer-group", "related",
         "activity", "audit", "compliance-report", "compliance-certificate", "wallets"]


@pytest.fixture
def entity(api, org, key):
    response = api(key(org, role="l1_analyst")).post("/v1/onboarding/entities", PERSON, format="json")
    assert response.status_code == 201
    return response.json()


@pytest.mark.parametrize("suffix", READS)
def test_reads_are_scoped(api, org, other_org, key, entity, suffix):
    url = entity_url(entity, suffix)
    assert api().get(url).status_code == 401
    assert api(key(other_org, role="admin")).get(url).status_code == 404
    assert api(key(org, role="admin", mode="live")).get(url).status_code == 404
    assert api(key(org, role="viewer")).get(entity_url("7b1c2a44-0000-4000-8000-000000000000", suffix)).status_code == 404
    assert api(key(org, role="viewer")).get(url).status_code == 200


@pytest.mark.usefixtures("sanctions_index")
def test_hits_list(api, org, key, django_capture_on_commit_callbacks):
    client = api(key(org, role="l2_investigator"))
    entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Ismael Zambada Garcia", "entity_type": "individual",
                                                                   "jurisdiction": "MX"})
    body = client.get(entity_url(entity, "screening-hits"), {"status": "open"}).json()
    top = body["data"][0]
    assert body["total"] >= 1 and top["entry_uid"] == "7226" and top["source"] == "ofac_sdn" and top["active"] is True
    assert top["false_positive"] is None and top["explanation"] and top["subject_type"] == "entity"
    assert client.get(entity_url(entity, "screening-hits"), {"status": "false_positive"}).json()["total"] == 0
    assert client.get(entity_url(entity, "screening-hits"), {"include_inactive": "maybe"}).status_code == 422


def test_the_sweep_screens_entities_whose_message_was_lost(entity, django_capture_on_commit_callbacks):
    # The message lost: created five minutes ago, and the queued lease its enqueue took has run out.
    Entity.objects.filter(pk=entity["id"]).update(created_at=timezone.now() - timedelta(minutes=5),
                                                   screening_queued_until=timezone.now() - timedelta(seconds=1))
    assert not ComplianceCheck.objects.filter(entity_id=entity["id"]).exists()
    sweep_unscreened.delay()
    check = ComplianceCheck.objects.get(entity_id=entity["id"], check_type="sanctions")
    assert check.details["trigger"] == "sweep"
    sweep_unscreened.delay()
    assert ComplianceCheck.objects.filter(entity_id=entity["id"], check_type="sanctions").count() == 1
