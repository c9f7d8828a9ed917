"""The console's travel-rule pages: read-only, the IVMS101 data shown, another organization's records
neither listed nor opened; the policy saved through the service (admin role, audit)."""

import pytest

from common.models import AuditLogEntry
from compliance.models import TravelRulePolicy, TravelRuleTransfer
from monitoring.models import AssetPrice
from tests.compliance.travel_rule_helpers import INITIATE, customers, transfer_body

pytestmark = pytest.mark.django_db


@pytest.fixture
def transfer(api, key, org, django_capture_on_commit_callbacks) -> TravelRuleTransfer:
    AssetPrice.objects.create(organization=org, asset="USDC", usd_rate=1)
    client = api(key(org))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(INITIATE, transfer_body(*customers(client)), format="json")
    assert response.status_code == 200, response.json()
    return TravelRuleTransfer.objects.get()


def test_list_and_detail_show_the_ivms101_data_read_only(staff, org, transfer):
    console = staff(org)
    listing = console.get("/admin/compliance/travelruletransfer/")
    assert listing.status_code == 200 and str(transfer.pk) in listing.content.decode()
    detail = console.get(f"/admin/compliance/travelruletransfer/{transfer.pk}/change/")
    body = detail.content.decode()
    assert detail.status_code == 200 and "Originator (IVMS101)" in body and "Thorne Road" in body and "Bob&#x27;s Discount VASP" in body
    assert 'name="_save"' not in body  # read-only
    assert console.post(f"/admin/compliance/travelruletransfer/{transfer.pk}/delete/").status_code == 403


def test_another_organizations_transfers_are_hidden(staff, other_org, transfer):
    console = staff(other_org)
    assert str(transfer.pk) not in console.get("/admin/compliance/travelruletransfer/").content.decode()
    response = console.get(f"/admin/compliance/travelruletransfer/{transfer.pk}/change/")
    assert response.status_code == 404 or (response.status_code == 302 and response.url.rstrip("/").endswith("/admin"))


def test_the_policy_is_saved_through_the_service(staff, org):
    response = staff(org).post("/admin/compliance/travelrulepolicy/add/", {
        "organization": org.pk, "threshold_usd": "3000", "acknowledgement_valid_hours": "12"})
    assert response.status_code == 302, response.content.decode()[:2000]
    policy = TravelRulePolicy.objects.get(organization=org)
    assert (str(policy.threshold_usd), policy.acknowledgement_valid_hours) == ("3000.00", 12)
    assert AuditLogEntry.objects.filter(action="travel_rule_policy.updated", object_id=str(policy.pk)).exists()


def test_an_analyst_cannot_change_the_policy(staff, org):
    staff(org, "l3_officer").post("/admin/compliance/travelrulepolicy/add/", {
        "organization": org.pk, "threshold_usd": "0", "acknowledgement_valid_hours": "12"})
    assert not TravelRulePolicy.objects.exists()
