"""FinCEN 314(b): partners (register, list, verify), requests (send, list, respond), delivery between
two organizations of the service and the answer coming back, and the expiry sweep."""

import uuid
from datetime import date, timedelta

import pytest
from django.utils import timezone

from common.models import AuditLogEntry
from monitoring import tasks
from monitoring.fincen314b.services import request_record_inbound, requests_expire
from monitoring.models import Fincen314bPartner, Fincen314bRequest
from organizations.models import Organization

pytestmark = pytest.mark.django_db
BASE = "/v1/monitoring/314b"
TODAY = date.today()


def partner_body(**changes) -> dict:
    return {"institution_name": "First Bank", "ein": "12-3456789", "contact_name": "Pat Lee", "contact_email": "pat@firstbank.example",
            "contact_phone": "+1 555 010 0000", "certification_date": (TODAY - timedelta(days=30)).isoformat(),
            "certification_expiry": (TODAY + timedelta(days=335)).isoformat(), **changes}


@pytest.fixture
def officer(api, key, org):
    return api(key(org, role="l3_officer"))


@pytest.fixture
def investigator(api, key, org):
    return api(key(org, role="l2_investigator"))


def register(client, **changes) -> dict:
    response = client.post(f"{BASE}/partners", partner_body(**changes), format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def verify(client, partner_id, verified=True, method="fincen_lookup", notes=""):
    return client.put(f"{BASE}/partners/{partner_id}/verify", {"verification_method": method, "verified": verified, "notes": notes},
                      format="json")


def verified_partner(client, **changes) -> dict:
    partner = register(client, **changes)
    assert verify(client, partner["partner_id"]).status_code == 200
    return partner


def send(client, partner_id, **changes):
    body = {"partner_id": partner_id, "subject": {"name": "Nova Traders LLC", "ein": "987654321", "address": "1 Main St, Springfield IL",
                                                  "wallet_addresses": ["0x" + "ab" * 20]},
            "reason": "Structured deposits across both institutions", **changes}
    return client.post(f"{BASE}/requests", body, format="json")


def errors(response) -> dict[str, str]:
    assert response.status_code == 422, (response.status_code, response.json())
    return {d["field"]: d["message"] for d in response.json()["error"]["details"]}


class TestPartners:
    def test_register(self, officer, org):
        body = register(officer, ein="123456789")
        partner = Fincen314bPartner.objects.get()
        assert body == {"partner_id": str(partner.pk), "institution_name": "First Bank", "ein": "12-3456789",
                        "status": "pending_verification", "contact_name": "Pat Lee", "contact_email": "pat@firstbank.example",
                        "contact_phone": "+1 555 010 0000", "certification_date": partner_body()["certification_date"],
                        "certification_expiry": partner_body()["certification_expiry"], "certification_expired": False,
                        "created_at": body["created_at"], "verified_at": None, "verified_by": None, "verification_method": None}
        assert (partner.organization_id, partner.mode, partner.ein) == (org.pk, "test", "12-3456789")
        assert AuditLogEntry.objects.filter(action="fincen_314b.partner_registered", object_id=str(partner.pk)).exists()

    @pytest.mark.parametrize(("changes", "field"), [
        ({"ein": "12-345678"}, "ein"), ({"ein": "AB-CDEFGHI"}, "ein"), ({"ein": "123-45-6789"}, "ein"),
        ({"ein": "\u0661\u0662-\u0663\u0664\u0665\u0666\u0667\u0668\u0669"}, "ein"),  # not ASCII digits: another EIN to compare
        ({"contact_email": "not-an-email"}, "contact_email"), ({"contact_phone": "call me"}, "contact_phone"),
        ({"certification_expiry": (TODAY - timedelta(days=31)).isoformat()}, "certification_expiry"),
        ({"certification_expiry": (TODAY - timedelta(days=30)).isoformat()}, "certification_expiry"),
        ({"certification_date": "01/02/2026"}, "certification_date"), ({"institution_name": ""}, "institution_name"),
        ({"colour": "red"}, "colour"),
    ])
    def test_bad_bodies(self, officer, changes, field):
        assert field in errors(officer.post(f"{BASE}/partners", partner_body(**changes), format="json"))
        assert not Fincen314bPartner.objects.exists()

    def test_a_missing_field(self, officer):
        body = partner_body()
        del body["contact_email"]
        assert "contact_email" in errors(officer.post(f"{BASE}/partners", body, format="json"))

    def test_one_partner_per_ein(self, officer):
        register(officer)
        again = officer.post(f"{BASE}/partners", partner_body(ein="123456789", institution_name="Same Bank"), format="json")
        assert again.status_code == 409 and Fincen314bPartner.objects.count() == 1

    def test_roles(self, api, key, org, investigator):
        assert investigator.post(f"{BASE}/partners", partner_body(), format="json").status_code == 403
        assert api(key(org, role="l1_analyst")).get(f"{BASE}/partners").status_code == 403
        assert investigator.get(f"{BASE}/partners").status_code == 200

    def test_list_is_scoped_and_filtered(self, api, key, org, other_org, officer, investigator):
        mine = verified_partner(officer)
        register(officer, ein="11-1111111", institution_name="Zeta Credit Union")
        register(api(key(other_org, role="admin")), institution_name="Their Partner")
        register(api(key(org, role="admin", mode="live")), institution_name="Live Partner")
        body = investigator.get(f"{BASE}/partners").json()
        assert body["total"] == 2 and [p["institution_name"] for p in body["partners"]] == ["First Bank", "Zeta Credit Union"]
        verified = investigator.get(f"{BASE}/partners", {"status": "verified"}).json()
        assert [p["partner_id"] for p in verified["partners"]] == [mine["partner_id"]]
        assert investigator.get(f"{BASE}/partners", {"status": "gone"}).status_code == 422


class TestVerify:
    def test_verified(self, officer):
        partner = register(officer)
        response = verify(officer, partner["partner_id"], notes="Listed on FinCEN's 314(b) participant list")
        assert response.status_code == 200, response.json()
        stored = Fincen314bPartner.objects.get()
        assert response.json() == {"partner_id": partner["partner_id"], "status": "verified", "verified_at": response.json()["verified_at"],
                                   "verified_by": stored.verified_by, "verification_method": "fincen_lookup"}
        assert stored.status == "verified" and stored.verified_at and stored.verified_by.startswith("api_key:")
        assert stored.verification_notes == "Listed on FinCEN's 314(b) participant list"
        assert AuditLogEntry.objects.get(action="fincen_314b.partner_verified").after["status"] == "verified"

    def test_a_failed_check_stops_sharing(self, officer):
        partner = verified_partner(officer)
        response = verify(officer, partner["partner_id"], verified=False, notes="Not on the current list")
        assert response.status_code == 200 and response.json()["status"] == "pending_verification"
        assert response.json()["verified_at"] is None
        assert send(officer, partner["partner_id"]).status_code == 409
        assert AuditLogEntry.objects.filter(action="fincen_314b.partner_verification_failed").exists()

    def test_an_expired_certification_cannot_be_verified(self, officer):
        partner = register(officer, certification_date=(TODAY - timedelta(days=400)).isoformat(),
                           certification_expiry=(TODAY - timedelta(days=35)).isoformat())
        assert partner["certification_expired"] is True
        response = verify(officer, partner["partner_id"])
        assert response.status_code == 409 and "expired" in response.json()["error"]["message"]
        assert Fincen314bPartner.objects.get().status == "pending_verification"

    @pytest.mark.parametrize("body", [{"verified": True}, {"verification_method": "fincen_lookup"},
                                      {"verification_method": "", "verified": True}, {"verification_method": "x", "verified": "perhaps"}])
    def test_bad_bodies(self, officer, body):
        partner = register(officer)
        assert officer.put(f"{BASE}/partners/{partner['partner_id']}/verify", body, format="json").status_code == 422
        assert Fincen314bPartner.objects.get().status == "pending_verification"

    def test_roles_and_tenancy(self, api, key, org, other_org, officer, investigator):
        partner = register(officer)
        assert verify(investigator, partner["partner_id"]).status_code == 403
        for client in (api(key(other_org, role="admin")), api(key(org, role="admin", mode="live"))):
            assert verify(client, partner["partner_id"]).status_code == 404
        assert verify(officer, uuid.uuid4()).status_code == 404
        assert Fincen314bPartner.objects.get().status == "pending_verification"


class TestRequests:
    def test_send(self, officer, investigator, org):
        partner = verified_partner(officer)
        response = send(investigator, partner["partner_id"])
        assert response.status_code == 200, response.json()
        body, stored = response.json(), Fincen314bRequest.objects.get()
        assert body == {"request_id": str(stored.pk), "partner_id": partner["partner_id"], "partner_name": "First Bank",
                        "direction": "outbound", "status": "sent",
                        "subject": {"name": "Nova Traders LLC", "ein": "98-7654321", "address": "1 Main St, Springfield IL",
                                    "wallet_addresses": ["0x" + "ab" * 20]},
                        "subject_name": "Nova Traders LLC", "reason": "Structured deposits across both institutions", "case_id": None,
                        "created_at": body["created_at"], "response_deadline": body["response_deadline"], "response": None,
                        "delivered_on_service": False}
        assert stored.response_deadline - stored.created_at == timedelta(days=14)
        assert AuditLogEntry.objects.filter(action="fincen_314b.request_sent", object_id=str(stored.pk)).exists()

    def test_an_unverified_or_expired_partner_is_refused(self, officer):
        pending = register(officer)
        response = send(officer, pending["partner_id"])
        assert response.status_code == 409 and "not verified" in response.json()["error"]["message"]
        lapsed = verified_partner(officer, ein="22-2222222")
        Fincen314bPartner.objects.filter(pk=lapsed["partner_id"]).update(certification_expiry=TODAY - timedelta(days=1))
        response = send(officer, lapsed["partner_id"])
        assert response.status_code == 409 and "expired" in response.json()["error"]["message"]
        assert not Fincen314bRequest.objects.exists()

    def test_a_case_of_yours(self, officer, org, other_org):
        from filings.models import Case
        from onboarding.models import Entity

        partner = verified_partner(officer)
        now = timezone.now()

        def case_of(organization):
            entity = Entity.objects.create(organization=organization, mode="test", legal_name="Nova", entity_type="business",
                                           jurisdiction="US")
            return Case.objects.create(organization=organization, mode="test", number=1, entity=entity, detected_at=now,
                                       sla_started_at=now, sla_due_at=now + timedelta(days=5))

        mine, theirs = case_of(org), case_of(other_org)
        response = send(officer, partner["partner_id"], case_id=str(mine.pk))
        assert response.status_code == 200 and response.json()["case_id"] == str(mine.pk)
        refused = send(officer, partner["partner_id"], case_id=str(theirs.pk))
        assert refused.status_code == 404 and Fincen314bRequest.objects.count() == 1

    @pytest.mark.parametrize(("changes", "field"), [
        ({"subject": {"ein": "12-3456789"}}, "subject.name"), ({"subject": {"name": "X", "ein": "1234"}}, "subject.ein"),
        ({"subject": {"name": "X", "wallet_addresses": "0xabc"}}, "subject.wallet_addresses"),
        ({"subject": {"name": "X", "colour": "red"}}, "subject.colour"), ({"reason": ""}, "reason"),
        ({"partner_id": "not-a-uuid"}, "partner_id"), ({"case_id": "nope"}, "case_id"), ({"extra": True}, "extra"),
    ])
    def test_bad_bodies(self, officer, changes, field):
        partner = verified_partner(officer)
        assert field in errors(send(officer, changes.pop("partner_id", partner["partner_id"]), **changes))
        assert not Fincen314bRequest.objects.exists()

    def test_roles_and_tenancy(self, api, key, org, other_org, officer):
        partner = verified_partner(officer)
        assert send(api(key(org, role="l1_analyst")), partner["partner_id"]).status_code == 403
        for client in (api(key(other_org, role="admin")), api(key(org, role="admin", mode="live"))):
            assert send(client, partner["partner_id"]).status_code == 404
        assert not Fincen314bRequest.objects.exists()

    def test_list_both_directions_filters_and_paging(self, api, key, org, other_org, officer, investigator):
        first = verified_partner(officer)
        second = verified_partner(officer, ein="33-3333333", institution_name="Second Bank")
        for _ in range(3):
            send(officer, first["partner_id"])
        send(officer, second["partner_id"])
        request_record_inbound(principal=_principal(org), partner_id=second["partner_id"], subject={"name": "Inbound Subject"},
                               reason="Their investigation")
        other = verified_partner(api(key(other_org, role="admin")))
        send(api(key(other_org, role="admin")), other["partner_id"])
        body = investigator.get(f"{BASE}/requests").json()
        assert body["total"] == 5 and body["requests"][0]["direction"] == "inbound" and body["requests"][0]["status"] == "received"
        assert {r["direction"] for r in body["requests"]} == {"inbound", "outbound"}
        by_partner = investigator.get(f"{BASE}/requests", {"partner_id": first["partner_id"]}).json()
        assert by_partner["total"] == 3 and {r["partner_id"] for r in by_partner["requests"]} == {first["partner_id"]}
        assert investigator.get(f"{BASE}/requests", {"status": "received"}).json()["total"] == 1
        assert investigator.get(f"{BASE}/requests", {"direction": "outbound", "status": "sent"}).json()["total"] == 4
        page = investigator.get(f"{BASE}/requests", {"limit": 2, "offset": 2}).json()
        assert (len(page["requests"]), page["total"], page["has_more"]) == (2, 5, True)
        assert investigator.get(f"{BASE}/requests").json()["limit"] == 20
        for query in ({"limit": 101}, {"limit": 0}, {"offset": -1}, {"status": "lost"}, {"partner_id": "x"}, {"colour": "red"}):
            assert investigator.get(f"{BASE}/requests", query).status_code == 422, query
        assert api(key(org, role="l1_analyst")).get(f"{BASE}/requests").status_code == 403


def _principal(org, role="l2_investigator", mode="test"):
    from common.principal import Principal

    return Principal(credential="system", organization=org, mode=mode, role=role)


class TestRespond:
    @pytest.fixture
    def inbound(self, officer, org):
        partner = verified_partner(officer)
        return request_record_inbound(principal=_principal(org), partner_id=partner["partner_id"], subject={"name": "Nova Traders LLC"},
                                      reason="Their investigation")

    def respond(self, client, request_id, **body):
        return client.post(f"{BASE}/requests/{request_id}/respond", {"has_match": True, "details": "Customer since 2021", **body},
                           format="json")

    def test_respond(self, investigator, inbound):
        response = self.respond(investigator, inbound.pk, share_sar_reference=True, sar_bsa_id="31000012345678")
        assert response.status_code == 200, response.json()
        inbound.refresh_from_db()
        assert response.json() == {"request_id": str(inbound.pk), "status": "responded", "response": {
            "has_match": True, "details": "Customer since 2021", "share_sar_reference": True, "sar_bsa_id": "31000012345678",
            "responded_at": response.json()["response"]["responded_at"], "responded_by": inbound.responded_by}}
        assert (inbound.status, inbound.has_match, inbound.sar_bsa_id) == ("responded", True, "31000012345678")
        assert AuditLogEntry.objects.filter(action="fincen_314b.request_responded", object_id=str(inbound.pk)).exists()
        again = self.respond(investigator, inbound.pk)
        assert again.status_code == 409

    def test_only_inbound_requests(self, officer):
        partner = verified_partner(officer)
        outbound = send(officer, partner["partner_id"]).json()
        response = self.respond(officer, outbound["request_id"])
        assert response.status_code == 409 and "outbound" in response.json()["error"]["message"]
        assert Fincen314bRequest.objects.get().status == "sent"

    def test_not_after_the_deadline_nor_an_expired_request(self, investigator, inbound):
        Fincen314bRequest.objects.filter(pk=inbound.pk).update(response_deadline=timezone.now() - timedelta(minutes=1))
        assert self.respond(investigator, inbound.pk).status_code == 409
        requests_expire()
        response = self.respond(investigator, inbound.pk)
        assert response.status_code == 409 and "expired" in response.json()["error"]["message"]

    def test_not_for_an_unverified_partner(self, investigator, officer, inbound):
        verify(officer, inbound.partner_id, verified=False)
        assert self.respond(investigator, inbound.pk).status_code == 409
        inbound.refresh_from_db()
        assert inbound.status == "received"

    @pytest.mark.parametrize(("body", "field"), [
        ({"has_match": None}, "has_match"), ({"share_sar_reference": True}, "sar_bsa_id"), ({"sar_bsa_id": "31000012345678"}, "sar_bsa_id"),
        ({"share_sar_reference": True, "sar_bsa_id": "123"}, "sar_bsa_id"), ({"extra": 1}, "extra"),
        ({"share_sar_reference": True, "sar_bsa_id": "\u0663" * 14}, "sar_bsa_id"),  # Arabic-Indic digits: shared as is before
    ])
    def test_bad_bodies(self, investigator, inbound, body, field):
        assert field in errors(self.respond(investigator, inbound.pk, **body))
        inbound.refresh_from_db()
        assert inbound.status == "received"

    def test_roles_and_tenancy(self, api, key, org, other_org, inbound):
        assert self.respond(api(key(org, role="l1_analyst")), inbound.pk).status_code == 403
        for client in (api(key(other_org, role="admin")), api(key(org, role="admin", mode="live"))):
            assert self.respond(client, inbound.pk).status_code == 404
        inbound.refresh_from_db()
        assert inbound.status == "received"


class TestBetweenOrganizationsOfTheService:
    """Acme (EIN 11-1111111) asks Globex (EIN 22-2222222); each has the other registered and verified."""

    @pytest.fixture
    def pair(self, api, key, org, other_org):
        Organization.objects.filter(pk=org.pk).update(filer_profile={"tin": "111111111", "tin_type": "EIN"})
        Organization.objects.filter(pk=other_org.pk).update(filer_profile={"tin": "22-2222222", "tin_type": "EIN"})
        acme, globex = api(key(org, role="l3_officer")), api(key(other_org, role="l3_officer"))
        globex_at_acme = verified_partner(acme, ein="22-2222222", institution_name="Globex Bank")
        acme_at_globex = verified_partner(globex, ein="11-1111111", institution_name="Acme Bank")
        return acme, globex, globex_at_acme, acme_at_globex

    def test_delivered_answered_and_the_answer_comes_back(self, pair, org, other_org):
        acme, globex, globex_at_acme, acme_at_globex = pair
        sent = send(acme, globex_at_acme["partner_id"]).json()
        assert sent["delivered_on_service"] is True
        received = globex.get(f"{BASE}/requests").json()["requests"]
        assert len(received) == 1
        (copy,) = received
        assert (copy["direction"], copy["status"], copy["partner_id"], copy["partner_name"]) == (
            "inbound", "received", acme_at_globex["partner_id"], "Acme Bank")
        assert copy["subject"] == sent["subject"] and copy["reason"] == sent["reason"] and copy["case_id"] is None
        assert copy["response_deadline"] == sent["response_deadline"]
        assert AuditLogEntry.objects.filter(organization=other_org, action="fincen_314b.request_received").exists()
        answer = globex.post(f"{BASE}/requests/{copy['request_id']}/respond", {"has_match": False, "details": "No such customer"},
                             format="json")
        assert answer.status_code == 200, answer.json()
        back = acme.get(f"{BASE}/requests").json()["requests"][0]
        assert back["request_id"] == sent["request_id"] and back["status"] == "responded"
        assert back["response"]["has_match"] is False and back["response"]["details"] == "No such customer"
        assert back["response"]["responded_by"].startswith("Globex Bank (api_key:")
        assert AuditLogEntry.objects.filter(organization=org, action="fincen_314b.response_received").exists()
        assert acme.post(f"{BASE}/requests/{sent['request_id']}/respond", {"has_match": True}, format="json").status_code == 409

    def test_not_delivered_unless_the_recipient_verified_the_sender(self, pair, org, other_org):
        acme, globex, globex_at_acme, acme_at_globex = pair
        verify(globex, acme_at_globex["partner_id"], verified=False)
        assert send(acme, globex_at_acme["partner_id"]).json()["delivered_on_service"] is False
        assert not Fincen314bRequest.objects.filter(organization=other_org).exists()

    @pytest.mark.parametrize("taken", ["22-2222222", "111111111"])
    def test_not_delivered_when_another_organization_states_the_same_ein(self, pair, api, key, make_org, other_org, taken):
        """A filer TIN is self-stated: a third organization stating the recipient's EIN (to read what is sent to it) or the
        sender's (to be answered in its name) makes the delivery ambiguous, so nothing is delivered to anyone."""
        acme, globex, globex_at_acme, _ = pair
        squatter = make_org("squatter")
        Organization.objects.filter(pk=squatter.pk).update(filer_profile={"tin": taken, "tin_type": "EIN"})
        verified_partner(api(key(squatter, role="l3_officer")), ein="11-1111111", institution_name="Acme Bank")
        sent = send(acme, globex_at_acme["partner_id"])
        assert sent.status_code == 200 and sent.json()["delivered_on_service"] is False
        assert not Fincen314bRequest.objects.filter(organization__in=[other_org, squatter]).exists()
        assert Fincen314bRequest.objects.get(pk=sent.json()["request_id"]).counterpart_id is None

    def test_not_delivered_to_the_other_mode(self, pair, api, key, org, other_org):
        acme, *_ = pair
        live = api(key(org, role="l3_officer", mode="live"))
        partner = verified_partner(live, ein="22-2222222", institution_name="Globex Bank")
        assert send(live, partner["partner_id"]).json()["delivered_on_service"] is False
        assert not Fincen314bRequest.objects.filter(organization=other_org).exists()


class TestExpiry:
    def test_sent_and_received_past_their_deadline_expire_once(self, officer, org):
        partner = verified_partner(officer)
        late = Fincen314bRequest.objects.get(pk=send(officer, partner["partner_id"]).json()["request_id"])
        current = Fincen314bRequest.objects.get(pk=send(officer, partner["partner_id"]).json()["request_id"])
        received = request_record_inbound(principal=_principal(org), partner_id=partner["partner_id"], subject={"name": "X"}, reason="r",
                                          received_at=timezone.now() - timedelta(days=15))
        Fincen314bRequest.objects.filter(pk=late.pk).update(response_deadline=timezone.now() - timedelta(seconds=1))
        tasks.expire_314b_requests.delay()
        statuses = dict(Fincen314bRequest.objects.values_list("pk", "status"))
        assert statuses == {late.pk: "expired", current.pk: "sent", received.pk: "expired"}
        assert AuditLogEntry.objects.filter(action="fincen_314b.request_expired").count() == 2
        assert requests_expire() == 0
        assert AuditLogEntry.objects.filter(action="fincen_314b.request_expired").count() == 2
        listed = officer.get(f"{BASE}/requests", {"status": "expired"}).json()
        assert {r["request_id"] for r in listed["requests"]} == {str(late.pk), str(received.pk)}

    def test_a_responded_request_does_not_expire(self, officer, org):
        partner = verified_partner(officer)
        inbound = request_record_inbound(principal=_principal(org), partner_id=partner["partner_id"], subject={"name": "X"}, reason="r")
        officer.post(f"{BASE}/requests/{inbound.pk}/respond", {"has_match": False}, format="json")
        Fincen314bRequest.objects.filter(pk=inbound.pk).update(response_deadline=timezone.now() - timedelta(days=1))
        assert requests_expire() == 0
        inbound.refresh_from_db()
        assert inbound.status == "responded"
