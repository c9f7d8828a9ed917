"""The console's counterparty VASPs (saved through the service: admin role, audited, the secret shown
once) and inbound travel-rule records (read-only, tenant-scoped)."""

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from common.models import AuditLogEntry
from compliance.models import CounterpartyVasp, InboundTravelRuleTransfer
from organizations.models import Membership

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def local(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True


@pytest.fixture
def staff(make_user):
    def make(organization, role="admin"):
        user = make_user(f"{role}.vasp@{organization.slug}.example")
        user.is_staff = True
        user.save()
        user.user_permissions.set(Permission.objects.filter(content_type__app_label="compliance"))
        Membership.objects.create(organization=organization, user=user, role=role)
        console = Client()
        console.force_login(user)
        return console

    return make


def form(org, **fields) -> dict:
    return {"organization": str(org.pk), "mode": "test", "name": "Harbor Exchange", "lei": "", "status": "active",
            "inquiry_url": "https://127.0.0.1:8443/inquiry", "shared_secret": "", **fields}


def test_create_through_the_service_shows_the_secret_once(staff, org):
    response = staff(org).post("/admin/compliance/counterpartyvasp/add/", form(org))
    assert response.status_code == 200, response.content[:500]
    vasp = CounterpartyVasp.objects.get()
    body = response.content.decode()
    assert vasp.shared_secret in body and f"/v1/travel-rule/vasps/{vasp.pk}/inquiry" in body
    entry = AuditLogEntry.objects.get(action="counterparty_vasp.created")
    assert entry.object_id == str(vasp.pk) and vasp.shared_secret not in str(entry.after)
    detail = staff(org, "l3_officer").get(f"/admin/compliance/counterpartyvasp/{vasp.pk}/change/").content.decode()
    assert vasp.shared_secret not in detail


def test_refusals_store_nothing(staff, org):
    console = staff(org)
    response = console.post("/admin/compliance/counterpartyvasp/add/", form(org, lei="5493001KJTIIGC8Y1R13"), follow=True)
    assert "check digits" in response.content.decode() and not CounterpartyVasp.objects.exists()
    response = staff(org, "l2_investigator").post("/admin/compliance/counterpartyvasp/add/", form(org), follow=True)
    assert "needs the role admin" in response.content.decode() and not CounterpartyVasp.objects.exists()


def test_another_organizations_vasps_and_records_are_hidden(staff, org, other_org):
    staff(org).post("/admin/compliance/counterpartyvasp/add/", form(org))
    vasp = CounterpartyVasp.objects.get()
    InboundTravelRuleTransfer.objects.create(organization=org, mode="test", originator_vasp=vasp, external_transfer_id="t-1",
                                             chain_id=1, asset="USDC", amount="1", from_address="0x1", to_address="0x2",
                                             originator={}, beneficiary={}, decision="rejected", reason="not ours")
    console = staff(other_org)
    assert "Harbor Exchange" not in console.get("/admin/compliance/counterpartyvasp/").content.decode()
    assert "t-1" not in console.get("/admin/compliance/inboundtravelruletransfer/").content.decode()
    assert console.get(f"/admin/compliance/counterpartyvasp/{vasp.pk}/change/").status_code in (302, 404)
    own = staff(org, "l1_analyst")
    assert "t-1" in own.get("/admin/compliance/inboundtravelruletransfer/").content.decode()
    record = InboundTravelRuleTransfer.objects.get()
    assert 'name="_save"' not in own.get(f"/admin/compliance/inboundtravelruletransfer/{record.pk}/change/").content.decode()
