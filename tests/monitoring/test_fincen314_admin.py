"""The 314(a)/314(b) console: tenancy (another organization's staff sees none of it), the review and
verify actions and recording an inbound request, each through the service (role check, audit)."""

from datetime import date, timedelta

import pytest

from common.models import AuditLogEntry
from common.principal import Principal
from monitoring.fincen314a.services import file_match, file_upload
from monitoring.fincen314b.services import partner_register, partner_verify, request_record_inbound, request_send
from monitoring.models import Fincen314aFile, Fincen314aMatch, Fincen314bPartner, Fincen314bRequest
from onboarding.models import Entity

pytestmark = pytest.mark.django_db
TODAY = date.today()


def records(organization, name: str) -> dict:
    """A completed 314(a) file with one match, a verified partner and an outbound and an inbound request, all named `name`."""
    officer = Principal(credential="system", organization=organization, mode="test", role="admin")
    entity = Entity.objects.create(organization=organization, mode="test", legal_name=f"{name} Person", entity_type="individual",
                                   jurisdiction="US")
    file = file_upload(principal=officer, filename=f"{name.lower()}-list.csv", content=f"Name\n{name} Person\n".encode())
    file_match(file_id=file.pk)
    partner = partner_register(principal=officer, institution_name=f"{name} Partner Bank", ein=f"{len(name):02d}-1234567",
                               contact_name="Pat", contact_email="pat@bank.example", certification_date=TODAY - timedelta(days=10),
                               certification_expiry=TODAY + timedelta(days=300))
    partner_verify(principal=officer, partner_id=partner.pk, verified=True, verification_method="fincen_lookup")
    outbound = request_send(principal=officer, partner_id=partner.pk, subject={"name": f"{name} Outbound Subject"}, reason="r")
    inbound = request_record_inbound(principal=officer, partner_id=partner.pk, subject={"name": f"{name} Inbound Subject"}, reason="r")
    return {"entity": entity, "file": file, "match": Fincen314aMatch.objects.get(file=file), "partner": partner, "outbound": outbound,
            "inbound": inbound}


@pytest.fixture
def acme(org):
    return records(org, "Acme")


@pytest.fixture
def globex(other_org):
    return records(other_org, "Globexx")


LISTS = {"fincen314afile": "{slug}-list.csv", "fincen314amatch": "{name} Person", "fincen314bpartner": "{name} Partner Bank",
         "fincen314brequest": "{name} Outbound Subject"}
PAGES = {"file": "fincen314afile", "match": "fincen314amatch", "partner": "fincen314bpartner", "inbound": "fincen314brequest"}


def page(console, url) -> str:
    response = console.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


class TestTenancy:
    @pytest.mark.parametrize("model", list(LISTS))
    def test_lists_show_only_the_members_organization(self, staff, admin_client, org, other_org, acme, globex, model):
        body = page(staff(other_org), f"/admin/monitoring/{model}/")
        assert LISTS[model].format(name="Acme", slug="acme") not in body
        assert LISTS[model].format(name="Globexx", slug="globexx") in body
        assert f"organization__id__exact={org.pk}" not in body and f"organization__id__exact={other_org.pk}" in body
        everything = page(admin_client, f"/admin/monitoring/{model}/")
        assert LISTS[model].format(name="Acme", slug="acme") in everything

    @pytest.mark.parametrize("record", list(PAGES))
    def test_another_organizations_pages_are_not_found(self, staff, other_org, acme, globex, record):
        console = staff(other_org)
        response = console.get(f"/admin/monitoring/{PAGES[record]}/{acme[record].pk}/change/")
        assert response.status_code == 404 or (response.status_code == 302 and response.url.rstrip("/").endswith("/admin"))
        assert console.get(f"/admin/monitoring/{PAGES[record]}/{globex[record].pk}/change/").status_code == 200

    def test_actions_on_another_organizations_records_change_nothing(self, staff, other_org, acme):
        console = staff(other_org)
        console.post("/admin/monitoring/fincen314amatch/?review=all", {"action": "review", "_selected_action": [acme["match"].pk],
                                                                      "apply": "1", "result": "positive", "notes": "x"})
        console.post("/admin/monitoring/fincen314bpartner/", {"action": "verify", "_selected_action": [acme["partner"].pk], "apply": "1",
                                                              "verified": "false", "verification_method": "x"})
        assert Fincen314aMatch.objects.get(pk=acme["match"].pk).review_status == "pending"
        assert Fincen314bPartner.objects.get(pk=acme["partner"].pk).status == "verified"

    @pytest.mark.parametrize("role", ["viewer", "l1_analyst"])
    def test_below_the_apis_read_role_sees_none_of_it(self, staff, org, acme, role):
        """The API reads 314(a) and 314(b) records from L2 investigator up (confidential requests): so does the console."""
        console, investigator = staff(org, role), staff(org, "l2_investigator")
        for model, shown in LISTS.items():
            assert shown.format(name="Acme", slug="acme") not in page(console, f"/admin/monitoring/{model}/")
            assert shown.format(name="Acme", slug="acme") in page(investigator, f"/admin/monitoring/{model}/")
        for record, model in PAGES.items():
            response = console.get(f"/admin/monitoring/{model}/{acme[record].pk}/change/")
            assert response.status_code == 404 or (response.status_code == 302 and response.url.rstrip("/").endswith("/admin"))
        assert "Acme Partner Bank" not in page(console, "/admin/monitoring/fincen314brequest/add/")

    def test_the_inbound_form_offers_only_the_members_partners(self, staff, other_org, acme, globex):
        body = page(staff(other_org), "/admin/monitoring/fincen314brequest/add/")
        assert "Globexx Partner Bank" in body and "Acme Partner Bank" not in body


class TestActions:
    def test_review_through_the_service(self, staff, org, acme):
        response = staff(org, "l2_investigator").post("/admin/monitoring/fincen314amatch/", {
            "action": "review", "_selected_action": [acme["match"].pk], "apply": "1", "result": "negative", "notes": "Different person"},
            follow=True)
        assert [m.level_tag for m in response.context["messages"]] == ["success"]
        found = Fincen314aMatch.objects.get(pk=acme["match"].pk)
        assert (found.review_status, found.reviewer, found.notes) == ("negative", "l2_investigator.staff@acme.example", "Different person")
        assert AuditLogEntry.objects.get(action="fincen_314a.match_reviewed").actor_label == "l2_investigator.staff@acme.example"

    def test_review_form_first_and_role_refusal(self, staff, org, acme):
        form = staff(org, "l2_investigator").post("/admin/monitoring/fincen314amatch/", {"action": "review",
                                                                                         "_selected_action": [acme["match"].pk]})
        assert form.status_code == 200 and b"Record the review" in form.content
        staff(org, "viewer").post("/admin/monitoring/fincen314amatch/", {  # a viewer does not even see the match
            "action": "review", "_selected_action": [acme["match"].pk], "apply": "1", "result": "positive", "notes": "x"}, follow=True)
        assert Fincen314aMatch.objects.get(pk=acme["match"].pk).review_status == "pending"

    def test_verify_through_the_service(self, staff, org, acme):
        response = staff(org, "l3_officer").post("/admin/monitoring/fincen314bpartner/", {
            "action": "verify", "_selected_action": [acme["partner"].pk], "apply": "1", "verified": "false",
            "verification_method": "fincen_lookup", "notes": "Dropped from the list"}, follow=True)
        assert [m.level_tag for m in response.context["messages"]] == ["success"]
        partner = Fincen314bPartner.objects.get(pk=acme["partner"].pk)
        assert (partner.status, partner.verification_notes) == ("pending_verification", "Dropped from the list")

    def test_renew_a_certification(self, staff, org, acme):
        response = staff(org, "l3_officer").post("/admin/monitoring/fincen314bpartner/", {
            "action": "renew_certification", "_selected_action": [acme["partner"].pk], "apply": "1",
            "certification_date": TODAY.isoformat(), "certification_expiry": (TODAY + timedelta(days=365)).isoformat()}, follow=True)
        assert [m.level_tag for m in response.context["messages"]] == ["success"]
        partner = Fincen314bPartner.objects.get(pk=acme["partner"].pk)
        assert (partner.status, partner.certification_expiry) == ("pending_verification", TODAY + timedelta(days=365))
        refused = staff(org, "l2_investigator").post("/admin/monitoring/fincen314bpartner/", {
            "action": "renew_certification", "_selected_action": [acme["partner"].pk], "apply": "1",
            "certification_date": TODAY.isoformat(), "certification_expiry": TODAY.isoformat()}, follow=True)
        assert [m.level_tag for m in refused.context["messages"]] == ["error"]

    def test_record_an_inbound_request(self, staff, org, acme):
        response = staff(org, "l2_investigator").post("/admin/monitoring/fincen314brequest/add/", {
            "partner": acme["partner"].pk, "subject_name": "Phoned In Subject", "subject_ein": "123456789", "subject_address": "",
            "subject_wallets": "0xabc\n0xdef\n", "reason": "Asked by phone", "received_at": ""}, follow=True)
        assert response.status_code == 200
        stored = Fincen314bRequest.objects.get(subject_name="Phoned In Subject")
        assert (stored.direction, stored.status, stored.subject_ein, stored.subject_wallet_addresses, stored.organization_id) == (
            "inbound", "received", "12-3456789", ["0xabc", "0xdef"], org.pk)
        assert AuditLogEntry.objects.filter(action="fincen_314b.request_recorded", object_id=str(stored.pk)).exists()

    def test_a_viewer_cannot_record_one(self, staff, org, acme):
        before = Fincen314bRequest.objects.count()
        staff(org, "viewer").post("/admin/monitoring/fincen314brequest/add/", {
            "partner": acme["partner"].pk, "subject_name": "Nope", "subject_ein": "", "subject_address": "", "subject_wallets": "",
            "reason": "x", "received_at": ""})
        assert Fincen314bRequest.objects.count() == before

    def test_file_page_shows_its_matches(self, staff, org, acme):
        body = page(staff(org), f"/admin/monitoring/fincen314afile/{acme['file'].pk}/change/")
        assert "Acme Person" in body and Fincen314aFile.objects.get(pk=acme["file"].pk).status == "completed"


class TestLengths:
    """The console takes what the API takes: a text past its cap is the form's error, nothing stored."""

    def test_review_notes(self, staff, org, acme):
        from monitoring.fincen314a.services import NOTES_MAX_CHARS

        form = staff(org, "l2_investigator").post("/admin/monitoring/fincen314amatch/", {
            "action": "review", "_selected_action": [acme["match"].pk], "apply": "1", "result": "negative",
            "notes": "x" * (NOTES_MAX_CHARS + 1)})
        assert form.status_code == 200 and f"at most {NOTES_MAX_CHARS} characters" in form.content.decode()
        assert Fincen314aMatch.objects.get(pk=acme["match"].pk).review_status == "pending"

    def test_verification_notes(self, staff, org, acme):
        from monitoring.fincen314b.services import TEXT_MAX_CHARS

        staff(org, "l3_officer").post("/admin/monitoring/fincen314bpartner/", {
            "action": "verify", "_selected_action": [acme["partner"].pk], "apply": "1", "verified": "false",
            "verification_method": "fincen_lookup", "notes": "x" * (TEXT_MAX_CHARS + 1)})
        partner = Fincen314bPartner.objects.get(pk=acme["partner"].pk)
        assert (partner.status, partner.verification_notes) == ("verified", "")

    @pytest.mark.parametrize("field, value, message", [
        ("reason", "r" * 5001, "at most 5000 characters"),
        ("subject_wallets", "\n".join(f"0x{i:040x}" for i in range(51)), "At most 50 wallet addresses (this has 51)."),
        ("subject_wallets", "0x" + "a" * 199, "A wallet address has at most 200 characters"),
    ])
    def test_an_inbound_request(self, staff, org, acme, field, value, message):
        body = {"partner": acme["partner"].pk, "subject_name": "Too Long", "subject_ein": "", "subject_address": "",
                "subject_wallets": "", "reason": "Asked by phone", "received_at": "", field: value}
        response = staff(org, "l2_investigator").post("/admin/monitoring/fincen314brequest/add/", body)
        assert response.status_code == 200 and message in response.content.decode()
        assert not Fincen314bRequest.objects.filter(subject_name="Too Long").exists()
