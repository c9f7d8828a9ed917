"""Four-eyes filing: the member (or key) who prepared a report — who last changed its form data —
cannot file it. For SARs and CTRs alike; the console is covered in test_filings_admin."""

import pytest

from filings.models import FilingRecord
from tests.filings.conftest import BASE, open_case, review, with_filer

pytestmark = pytest.mark.django_db


@pytest.fixture
def four_eyes(org):
    with_filer(org, "US")
    org.four_eyes_filing = True
    org.save(update_fields=["four_eyes_filing"])
    return org


@pytest.fixture
def officers(api, member, four_eyes):
    (alice, alice_token), (bob, bob_token) = member(four_eyes, "l3_officer"), member(four_eyes, "l3_officer")
    return (alice, api(alice_token, HTTP_X_MODE="test")), (bob, api(bob_token, HTTP_X_MODE="test"))


@pytest.fixture
def case(onboard, priced):
    return open_case(onboard("US"), transactions=2)


def file(client, case, body=None):
    return client.post(f"{BASE}/cases/{case.pk}/file-sar", body or {}, format="json")


def test_the_preparer_cannot_file_another_officer_can(officers, case):
    (alice, alice_client), (bob, bob_client) = officers
    form = review(alice_client, case)
    refused = file(alice_client, case)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "FOUR_EYES"
    assert file(alice_client, case, form).status_code == 403
    filed = file(bob_client, case)
    assert filed.status_code == 200, filed.json()
    record = FilingRecord.objects.get()
    assert (record.prepared_by, record.filed_by) == (alice, bob)
    assert filed.json()["filing"]["prepared_by"] == alice.email and filed.json()["filing"]["filed_by"] == bob.email


def test_changing_the_form_while_filing_makes_you_its_preparer(officers, case):
    (_, alice_client), (_, bob_client) = officers
    form = review(alice_client, case)
    form["activity"]["action_taken"] = "Exited the relationship."
    refused = file(bob_client, case, form)
    assert refused.status_code == 403 and "prepared by another member" in refused.json()["error"]["message"]
    assert not FilingRecord.objects.exists()


def test_nothing_prepared_cannot_be_filed(officers, case):
    _, (_, bob_client) = officers
    response = file(bob_client, case)
    assert response.status_code == 403 and response.json()["error"]["code"] == "FOUR_EYES"


def test_api_keys_count_as_people(api, key, four_eyes, case):
    preparer, filer = api(key(four_eyes, role="l3_officer")), api(key(four_eyes, role="l3_officer"))
    review(preparer, case)
    assert file(preparer, case).status_code == 403
    assert file(filer, case).status_code == 200


def test_off_the_preparer_files(api, key, org, case):
    with_filer(org, "US")
    client = api(key(org, role="l3_officer"))
    review(client, case)
    assert file(client, case).status_code == 200
    record = FilingRecord.objects.get()
    assert record.prepared_by_actor == record.filed_by_actor
