"""Built-in sanctions screening through the real entity flow: names from the loaded OFAC and UN lists
(typos, reordered words, aliases, beneficial owners), ordinary names, wallet addresses, a reload that
re-screens, false positives, and screening with no list loaded."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from common.models import AuditLogEntry
from compliance.models import OnchainStatusUpdate
from config.celery import app
from monitoring.models import Notification
from onboarding.models import ComplianceCheck, Entity, RiskAssessment, SanctionsList, ScreeningFalsePositive, ScreeningHit, Wallet
from onboarding.sanctions.formats.ofac import parse_ofac
from onboarding.sanctions.loader import sanctions_list_load
from onboarding.tasks import screen_entity, sweep_rescreen_pending
from tests.onboarding.helpers import PLAIN_ETH, SANCTIONED_ETH, entity_url, onboard
from tests.onboarding.test_load_sanctions import NEW_ROW, edit_sdn
from webhooks.models import Event

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sanctions_index")]


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


def sanctions_check(entity_id) -> ComplianceCheck:
    return ComplianceCheck.objects.filter(entity_id=entity_id, check_type="sanctions").order_by("-created_at", "-id").first()


class TestNames:
    @pytest.mark.parametrize("name, body, listed", [
        ("Ismael Zambda Garcia", {"entity_type": "individual", "jurisdiction": "MX", "date_of_birth": "1948-01-01"}, "7226"),  # typo
        ("Garcia Ismael Zambada", {"entity_type": "individual", "jurisdiction": "MX"}, "7226"),  # reordered
        ("Aiman Zawahiri", {"entity_type": "individual", "jurisdiction": "EG"}, None),  # alias, spelling variant
        ("Secondeye Solution LLC", {"entity_type": "business", "jurisdiction": "RU"}, "30518"),  # legal form dropped
        ("BANCO NACIONAL DE CUBA", {"entity_type": "business", "jurisdiction": "CU"}, "306"),
    ])
    def test_listed_names_move_the_entity_to_review(self, client, django_capture_on_commit_callbacks, name, body, listed):
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": name, **body})
        check = sanctions_check(entity["id"])
        assert check.result in ("review", "fail") and check.score >= 0.85 and check.provider == "builtin"
        hit = ScreeningHit.objects.filter(entity_id=entity["id"], status="open").order_by("-score").first()
        assert hit.subject_type == "entity" and hit.score >= 0.85 and hit.entry_version_hash
        if listed:
            assert hit.entry_uid == listed
        assert hit.explanation and hit.matched_name
        assert {"subjects", "lists", "hits", "thresholds"} <= set(check.details)
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.status == "under_review" and "Sanctions screening" in stored.status_reason
        assert Notification.objects.filter(type="screening_complete", entity_id=entity["id"]).exists()
        assert Event.objects.filter(type="compliance.status_changed", data__entity_id=entity["id"],
                                    data__new_status="under_review").exists()

    @pytest.mark.parametrize("name, entity_type", [
        ("John Smith", "individual"), ("Maria Garcia", "individual"), ("Acme Trading LLC", "business"),
        ("Global Logistics Ltd", "business"), ("David Johnson", "individual"),
    ])
    def test_ordinary_names_pass(self, client, django_capture_on_commit_callbacks, name, entity_type):
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": name, "entity_type": entity_type,
                                                                       "jurisdiction": "US"})
        check = sanctions_check(entity["id"])
        assert check.result == "pass" and check.score < 0.85
        assert Entity.objects.get(pk=entity["id"]).status == "pending"
        assert not ScreeningHit.objects.filter(entity_id=entity["id"], score__gte=0.85).exists()

    def test_a_beneficial_owner_is_screened_with_birth_date_and_nationality(self, client, django_capture_on_commit_callbacks):
        entity = onboard(client, django_capture_on_commit_callbacks, {
            "legal_name": "Harbor Holdings BV", "entity_type": "business", "jurisdiction": "NL",
            "ubos": [{"name": "Ismael Zambada Garcia", "date_of_birth": "1948-01-01", "nationality": "MX", "ownership_pct": "40"}]})
        hit = ScreeningHit.objects.get(entity_id=entity["id"], subject_type="ubo", entry_uid="7226")
        assert hit.score == 1.0 and hit.outcome == "fail" and hit.ubo_id is not None
        adjustments = {a["field"]: a["finding"] for a in hit.explanation.get("adjustments", [])}
        assert adjustments.get("date_of_birth") == "match"
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.sanctioned and stored.status == "under_review" and stored.risk_tier == "critical"


class TestWallets:
    def test_a_listed_address_flags_the_wallet(self, client, django_capture_on_commit_callbacks):
        entity = onboard(client, django_capture_on_commit_callbacks, wallets=[
            {"chain_id": 1, "address": SANCTIONED_ETH.lower()}, {"chain_id": 1, "address": PLAIN_ETH}])
        flagged, clean = Wallet.objects.filter(entity_id=entity["id"]).order_by("created_at", "id")
        assert flagged.flagged and "SECONDEYE SOLUTION" in flagged.flag_reason and not clean.flagged
        hit = ScreeningHit.objects.get(entity_id=entity["id"], subject_type="wallet")
        assert (hit.score, hit.method, hit.wallet_id, hit.entry_uid) == (1.0, "exact_address", flagged.pk, "30518")
        event = Event.objects.get(type="compliance.wallet_flagged")
        assert event.data["address"] == SANCTIONED_ETH.lower() and event.data["wallet_id"] == str(flagged.pk)
        assert OnchainStatusUpdate.objects.filter(wallet=flagged, flagged=True, status="pending").count() == 1
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.status == "under_review" and stored.sanctioned

    def test_an_entity_found_sanctioned_or_cleared_writes_on_chain_rows_for_its_wallets(self, client,
                                                                                        django_capture_on_commit_callbacks):
        """The name is a confident match: the entity is sanctioned, so the oracle must block its clean
        wallets (compliance.status.wallet_blocked); cleared as a false positive, unblock them. Before,
        `sanctioned` changed with no on-chain row at all."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Nicolas Maduro Moros", "entity_type": "individual",
                                                                       "jurisdiction": "VE"},
                         wallets=[{"chain_id": 1, "address": PLAIN_ETH}, {"chain_id": 0, "address": "acct-1"}])
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.sanctioned and stored.status == "under_review"
        rows = OnchainStatusUpdate.objects.filter(entity_id=entity["id"]).order_by("created_at", "id")
        assert [(r.chain_id, r.address, r.flagged, r.reason, r.status) for r in rows] == [
            (1, PLAIN_ETH.lower(), True, "entity sanctioned", "pending"), (0, "acct-1", True, "entity sanctioned", "pending")]

        for hit in ScreeningHit.objects.filter(entity_id=entity["id"], active=True, status="open").order_by("-score"):
            if ScreeningHit.objects.get(pk=hit.pk).status == "open":
                cleared = client.post(entity_url(entity, f"screening-hits/{hit.pk}/false-positive"), {"reason": "other person"},
                                      format="json")
                assert cleared.status_code == 200
        assert not Entity.objects.get(pk=entity["id"]).sanctioned
        assert [(r.address, r.flagged, r.reason) for r in rows.all()[2:]] == [
            (PLAIN_ETH.lower(), False, "entity no longer sanctioned"), ("acct-1", False, "entity no longer sanctioned")]
        # A screening that changes nothing writes nothing.
        screen_entity(entity["id"], trigger="manual", providers=False)
        assert OnchainStatusUpdate.objects.filter(entity_id=entity["id"]).count() == 4

    def test_a_wallet_added_later_is_screened(self, client, django_capture_on_commit_callbacks):
        entity = onboard(client, django_capture_on_commit_callbacks)
        with django_capture_on_commit_callbacks(execute=True):
            added = client.post(entity_url(entity, "wallets"), {"chain_id": 137, "address": SANCTIONED_ETH}, format="json")
        assert added.status_code == 201
        assert Wallet.objects.get(pk=added.json()["id"]).flagged
        check = sanctions_check(entity["id"])
        assert check.result == "fail" and [s["type"] for s in check.details["subjects"]] == ["wallet"]


class TestFalsePositives:
    def fp_url(self, entity, hit):
        return entity_url(entity, f"screening-hits/{hit.pk}/false-positive")

    def test_cleared_hit_is_not_raised_again_until_the_entry_changes(self, client, django_capture_on_commit_callbacks, ofac_copy,
                                                                       fresh_index):
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Ismael Zambada Garcia",
                                                                       "entity_type": "individual", "jurisdiction": "US"})
        hit = ScreeningHit.objects.get(entity_id=entity["id"], entry_uid="7226", active=True)
        response = client.post(self.fp_url(entity, hit), {"reason": "Different person: born 1990, US citizen"}, format="json")
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "false_positive" and body["false_positive"]["reason"].startswith("Different person")
        decision = ScreeningFalsePositive.objects.get(entity_id=entity["id"])
        assert decision.decided_by.startswith("api_key:") and decision.entry_version_hash == hit.entry_version_hash
        assert not Entity.objects.get(pk=entity["id"]).sanctioned
        again = client.post(self.fp_url(entity, hit), {"reason": "twice"}, format="json")
        assert again.status_code == 409

        # A re-screening with the entry unchanged stores the hit as suppressed: not raised.
        with django_capture_on_commit_callbacks(execute=True):
            screen_entity.delay(entity["id"], trigger="manual", providers=False)
        latest = ScreeningHit.objects.get(entity_id=entity["id"], entry_uid="7226", active=True)
        assert latest.status == "suppressed" and latest.false_positive_id == decision.pk
        assert sanctions_check(entity["id"]).result == "pass"

        # The publisher changes the entry: the reload re-screens every entity and the hit is open again.
        edit_sdn(ofac_copy, replace=("Driver's License No. N36064231 (Mexico).", "Driver's License No. N36064231 (Mexico); Gender Male."))
        with django_capture_on_commit_callbacks(execute=True):
            call_command("load_sanctions", "--only", "ofac", "--ofac-dir", str(ofac_copy), stdout=io.StringIO())
        reraised = ScreeningHit.objects.get(entity_id=entity["id"], entry_uid="7226", active=True)
        assert reraised.status == "open" and reraised.entry_version_hash != decision.entry_version_hash
        check = sanctions_check(entity["id"])
        assert check.details["trigger"] == "lists_changed" and check.result == "fail"
        assert Entity.objects.get(pk=entity["id"]).sanctioned

    def test_an_approval_before_the_worker_screens_runs_the_screening(self, client):
        """Created and approved at once (the worker's task not run yet): the approval screens the entity
        itself. A plain name is approved; a listed one is refused naming its match, which stays on record."""
        plain = client.post("/v1/onboarding/entities", {"legal_name": "Blue Harbor Trading LLC", "entity_type": "business",
                                                        "jurisdiction": "US"}, format="json").json()
        approved = client.post(entity_url(plain, "approve"), {}, format="json")
        assert approved.status_code == 200 and approved.json()["status"] == "active"
        assert sanctions_check(plain["id"]).details["trigger"] == "approval" and sanctions_check(plain["id"]).result == "pass"

        listed = client.post("/v1/onboarding/entities", {"legal_name": "Ismael Zambada Garcia", "entity_type": "individual",
                                                         "jurisdiction": "MX"}, format="json").json()
        refused = client.post(entity_url(listed, "approve"), {}, format="json")
        hit = ScreeningHit.objects.filter(entity_id=listed["id"], status="open").order_by("-score").first()
        assert refused.status_code == 409 and hit is not None and str(hit.pk) in refused.json()["error"]["message"]
        assert Entity.objects.get(pk=listed["id"]).status == "under_review"

    def test_a_name_in_any_script_is_screened(self, client, django_capture_on_commit_callbacks):
        """A name in Chinese characters is read (anyascii) and screened: a completed check, never an `error`."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "金正恩", "entity_type": "individual",
                                                                       "jurisdiction": "KP"})
        check = sanctions_check(entity["id"])
        assert check.result in ("pass", "review", "fail")
        assert check.details["subjects"][0]["screened"] is True and check.details["subjects"][0]["unreadable"] is None

    def test_a_wallet_screening_does_not_stand_in_for_a_name_that_could_not_be_read(self, client,
                                                                                     django_capture_on_commit_callbacks):
        """A name whose letters have no transliteration at all is a `review` screening with the reason (never
        an error, never a pass); a clean wallet added later is screened on its own (pass) and must not let the
        entity through. A completed screening of the name (here the client's own provider's result) lets it
        through."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "𒀀𒀁", "entity_type": "individual",
                                                                       "jurisdiction": "IQ"})
        check = sanctions_check(entity["id"])
        assert check.result == "review" and "could not be read" in check.summary
        assert check.details["subjects"][0]["unreadable"].startswith("cannot read the letters of")
        assert Entity.objects.get(pk=entity["id"]).status == "under_review"
        factor = next(f for f in client.get(entity_url(entity)).json()["risk_factors"] if f["name"] == "screening")
        assert factor["detail"] == "A name the sanctions screening could not read awaits review." and factor["severity"] == 0.3
        with django_capture_on_commit_callbacks(execute=True):
            added = client.post(entity_url(entity, "wallets"), {"chain_id": 1, "address": PLAIN_ETH}, format="json")
        assert added.status_code == 201
        wallet_check = sanctions_check(entity["id"])
        assert wallet_check.result == "pass" and [s["type"] for s in wallet_check.details["subjects"]] == ["wallet"]
        audit_before = AuditLogEntry.objects.filter(object_id=entity["id"]).count()

        refused = client.post(entity_url(entity, "approve"), {}, format="json")

        assert refused.status_code == 409
        message = refused.json()["error"]["message"]
        assert message.startswith("The entity's last sanctions screening could not read 1 name(s)")
        assert "POST /v1/monitoring/screening" in message
        assert Entity.objects.get(pk=entity["id"]).status == "under_review"
        assert AuditLogEntry.objects.filter(object_id=entity["id"]).count() == audit_before
        assert client.get(f"/v1/compliance/status/{entity['id']}").json()["compliant"] is False

        recorded = client.post("/v1/monitoring/screening", {"entity_id": entity["id"], "check_type": "sanctions", "provider": "ClientCo",
                                                            "result": "pass", "update_compliance_status": True}, format="json")
        assert recorded.status_code == 200
        approved = client.post(entity_url(entity, "approve"), {}, format="json")
        assert approved.status_code == 200 and approved.json()["status"] == "active"

    def test_a_wallet_screening_does_not_hide_an_unreadable_name_from_the_risk_score(
            self, client, django_capture_on_commit_callbacks):
        """The risk factor reads the screenings as the approval does: a clean wallet screened after a name
        that could not be read keeps the finding. The client's own completed screening of the name clears it."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "𒀀𒀁", "entity_type": "individual",
                                                                       "jurisdiction": "CN"})
        entity = client.get(entity_url(entity)).json()
        factor = next(f for f in entity["risk_factors"] if f["name"] == "screening")
        assert factor["detail"] == "A name the sanctions screening could not read awaits review." and factor["severity"] == 0.3
        history = RiskAssessment.objects.filter(entity_id=entity["id"]).count()
        with django_capture_on_commit_callbacks(execute=True):
            added = client.post(entity_url(entity, "wallets"), {"chain_id": 1, "address": PLAIN_ETH}, format="json")
        assert added.status_code == 201 and sanctions_check(entity["id"]).result == "pass"
        factor = next(f for f in client.get(entity_url(entity)).json()["risk_factors"] if f["name"] == "screening")
        assert factor["detail"] == "A name the sanctions screening could not read awaits review." and factor["severity"] == 0.3
        stored = Entity.objects.get(pk=entity["id"])
        assert (stored.risk_score, stored.risk_tier) == (entity["risk_score"], entity["risk_tier"])
        assert RiskAssessment.objects.filter(entity_id=entity["id"]).count() == history  # the wallet's screening changed nothing

        recorded = client.post("/v1/monitoring/screening", {"entity_id": entity["id"], "check_type": "sanctions", "provider": "ClientCo",
                                                            "result": "pass", "update_compliance_status": True}, format="json")
        assert recorded.status_code == 200
        factor = next(f for f in client.get(entity_url(entity)).json()["risk_factors"] if f["name"] == "screening")
        assert factor["detail"] == "No open screening findings." and factor["severity"] == 0

    def test_a_wallet_added_before_the_names_were_screened_screens_them_too(self, client, django_capture_on_commit_callbacks):
        """The onboarding screening's message lost (its on-commit hook never ran), then a wallet added:
        its screening covers the names too. Before, it screened the wallet alone: the listed name
        raised nothing, the entity stayed pending, and its wallet-only check took it off the sweep of
        unscreened entities for good."""
        from onboarding.selectors import entity_ids_unscreened

        created = client.post("/v1/onboarding/entities", {"legal_name": "BANCO NACIONAL DE CUBA", "entity_type": "business",
                                                "jurisdiction": "CU"}, format="json")
        assert created.status_code == 201 and sanctions_check(created.json()["id"]) is None
        entity = created.json()
        with django_capture_on_commit_callbacks(execute=True):
            added = client.post(entity_url(entity, "wallets"), {"chain_id": 1, "address": PLAIN_ETH}, format="json")
        assert added.status_code == 201

        check = sanctions_check(entity["id"])
        assert [s["type"] for s in check.details["subjects"]] == ["entity", "wallet"] and check.result in ("review", "fail")
        assert ScreeningHit.objects.filter(entity_id=entity["id"], subject_type="entity", entry_uid="306", status="open").exists()
        assert Entity.objects.get(pk=entity["id"]).status == "under_review"
        assert client.get(entity_url(entity)).json()["status"] == "under_review"
        assert entity["id"] not in {str(pk) for pk in entity_ids_unscreened(older_than=timezone.now() + timedelta(minutes=5))}

    def test_approval_waits_until_every_open_match_is_decided(self, client, django_capture_on_commit_callbacks):
        """A possible match (review, not yet 'sanctioned') left open: approving is a 409 naming the
        match and what to do, nothing changes, the entity stays non-compliant; cleared with a reason,
        the entity is approved and compliant."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Ismael Zambda Garcia", "entity_type": "individual",
                                                                       "jurisdiction": "MX", "date_of_birth": "1948-01-01"})
        hits = list(ScreeningHit.objects.filter(entity_id=entity["id"], active=True, status="open", score__gte=0.85).order_by("-score"))
        assert hits and Entity.objects.get(pk=entity["id"]).status == "under_review"
        audit_before = AuditLogEntry.objects.filter(object_id=entity["id"]).count()
        refused = client.post(entity_url(entity, "approve"), {"notes": "looks fine"}, format="json")
        assert refused.status_code == 409
        message = refused.json()["error"]["message"]
        assert message.startswith(f"This entity has {len(hits)} open sanctions match")
        assert str(hits[0].pk) in message and hits[0].primary_name in message and "/false-positive" in message and "reject" in message
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.status == "under_review" and AuditLogEntry.objects.filter(object_id=entity["id"]).count() == audit_before
        assert client.get(f"/v1/compliance/status/{entity['id']}").json()["compliant"] is False

        for hit in hits:
            cleared = client.post(self.fp_url(entity, hit), {"reason": "Different person: born 1990"}, format="json")
            assert cleared.status_code == 200, cleared.json()
        weak = ScreeningHit.objects.get(pk=hits[0].pk)  # one kept for the record below the review threshold: no decision needed
        weak.pk, weak.status, weak.score, weak.false_positive = None, "open", 0.75, None
        weak.save()
        approved = client.post(entity_url(entity, "approve"), {"notes": "matches cleared"}, format="json")
        assert approved.status_code == 200 and approved.json()["status"] == "active"
        # The risk explanation shows the decision rather than reading as if nothing had been found.
        screening = next(f for f in approved.json()["risk_factors"] if f["name"] == "screening")
        cleared = f"{len(hits)} sanctions match{'es' if len(hits) > 1 else ''} cleared as false positive"
        assert screening["detail"].startswith("No open screening findings; " + cleared), screening
        assert client.get(f"/v1/compliance/status/{entity['id']}").json()["compliant"] is True

    def test_clearing_a_wallet_hit_unflags_the_wallet(self, client, django_capture_on_commit_callbacks):
        entity = onboard(client, django_capture_on_commit_callbacks, wallets=[{"chain_id": 1, "address": SANCTIONED_ETH}])
        hit = ScreeningHit.objects.get(entity_id=entity["id"], subject_type="wallet")
        assert client.post(self.fp_url(entity, hit), {"reason": "test fixture address"}, format="json").status_code == 200
        wallet = Wallet.objects.get(entity_id=entity["id"])
        assert not wallet.flagged and wallet.flag_reason == ""
        updates = OnchainStatusUpdate.objects.filter(wallet=wallet).order_by("created_at", "id")
        assert list(updates.values_list("flagged", flat=True)) == [True, False]

    def test_roles_tenancy_and_input(self, client, api, org, other_org, key, django_capture_on_commit_callbacks):
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Ismael Zambada Garcia",
                                                                       "entity_type": "individual", "jurisdiction": "MX"})
        hit = ScreeningHit.objects.filter(entity_id=entity["id"], status="open").first()
        url = self.fp_url(entity, hit)
        assert api().post(url, {"reason": "x"}, format="json").status_code == 401
        assert api(key(org, role="l1_analyst")).post(url, {"reason": "x"}, format="json").status_code == 403
        assert api(key(other_org, role="admin")).post(url, {"reason": "x"}, format="json").status_code == 404
        assert client.post(url, {}, format="json").status_code == 422
        assert client.post(url, {"reason": "   "}, format="json").status_code == 422
        assert client.post(entity_url(entity, f"screening-hits/{entity['id']}/false-positive"), {"reason": "x"},
                           format="json").status_code == 404
        assert ScreeningHit.objects.get(pk=hit.pk).status == "open"


class TestListChanges:
    def test_a_reload_rescreens_existing_entities(self, client, django_capture_on_commit_callbacks, ofac_copy, fresh_index):
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Boris Testovsky", "entity_type": "individual",
                                                                       "jurisdiction": "RU"})
        assert sanctions_check(entity["id"]).result == "pass"
        edit_sdn(ofac_copy, append=NEW_ROW)
        with django_capture_on_commit_callbacks(execute=True):
            call_command("load_sanctions", "--only", "ofac", "--ofac-dir", str(ofac_copy), stdout=io.StringIO())
        check = sanctions_check(entity["id"])
        assert check.details["trigger"] == "lists_changed" and check.result in ("review", "fail")
        assert ScreeningHit.objects.get(entity_id=entity["id"], active=True, status="open").entry_uid == "99999"
        assert Entity.objects.get(pk=entity["id"]).status == "under_review"

    def test_a_list_that_changed_is_rescreened_even_when_the_next_list_fails(self, client, django_capture_on_commit_callbacks,
                                                                             ofac_copy, un_copy, fresh_index):
        """OFAC changed and committed, then the UN download was empty: before, the UN's command error
        skipped the re-screening of the committed OFAC change, and the next run found OFAC unchanged,
        so it never happened. Now every list that committed is re-screened against, then the command
        exits non-zero naming what failed."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Boris Testovsky", "entity_type": "individual",
                                                                       "jurisdiction": "RU"})
        un_before = SanctionsList.objects.get(source="un_consolidated")
        edit_sdn(ofac_copy, append=NEW_ROW)
        un_copy.write_text("")
        out = io.StringIO()

        with django_capture_on_commit_callbacks(execute=True), pytest.raises(
                CommandError, match=r"1 problem\(s\); re-screening was started for ofac_sdn: un_consolidated: the files gave no entries"):
            call_command("load_sanctions", "--ofac-dir", str(ofac_copy), "--un-file", str(un_copy), stdout=out, stderr=io.StringIO())

        assert "ofac_sdn: loaded in" in out.getvalue() and "Re-screening hooks called for: ofac_sdn" in out.getvalue()
        check = sanctions_check(entity["id"])
        assert check.details["trigger"] == "lists_changed" and check.result in ("review", "fail")
        assert ScreeningHit.objects.get(entity_id=entity["id"], active=True, status="open").entry_uid == "99999"
        assert SanctionsList.objects.get(source="ofac_sdn").rescreen_pending_since is None  # re-screening queued
        un_after = SanctionsList.objects.get(source="un_consolidated")
        assert (un_after.content_hash, un_after.entry_count) == (un_before.content_hash, 1003)

    def test_the_beat_sweep_rescreens_a_change_whose_loader_died_before_notifying(self, client, django_capture_on_commit_callbacks,
                                                                                  ofac_copy, fresh_index):
        """The load committed (with its rescreen marker) and the process died before the lists-changed
        callbacks: the beat sweep re-screens once the change is ten minutes old, and clears the marker."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Boris Testovsky", "entity_type": "individual",
                                                                       "jurisdiction": "RU"})
        edit_sdn(ofac_copy, append=NEW_ROW)
        sanctions_list_load(parse_ofac(ofac_copy))  # what the command commits before it notifies
        ofac = SanctionsList.objects.get(source="ofac_sdn")
        assert ofac.rescreen_pending_since == ofac.loaded_at

        sweep_rescreen_pending.delay()  # a change just made: the command's own callbacks are due first
        assert sanctions_check(entity["id"]).details["trigger"] != "lists_changed"

        SanctionsList.objects.filter(pk=ofac.pk).update(rescreen_pending_since=timezone.now() - timedelta(minutes=11))
        with django_capture_on_commit_callbacks(execute=True):
            sweep_rescreen_pending.delay()
        check = sanctions_check(entity["id"])
        assert check.details["trigger"] == "lists_changed" and check.result in ("review", "fail")
        assert SanctionsList.objects.get(pk=ofac.pk).rescreen_pending_since is None
        checks = ComplianceCheck.objects.filter(entity_id=entity["id"], check_type="sanctions").count()
        sweep_rescreen_pending.delay()
        assert ComplianceCheck.objects.filter(entity_id=entity["id"], check_type="sanctions").count() == checks
        assert app.conf.beat_schedule["onboarding.sweep_rescreen_pending"]["task"] == "onboarding.sweep_rescreen_pending"

    def test_a_delisted_address_unflags_its_wallet(self, client, django_capture_on_commit_callbacks, ofac_copy, fresh_index):
        """OFAC removes the entry listing the wallet's address: the re-screening finds nothing and the
        wallet is no longer flagged (audit entry, on-chain row saying so). Before, the hit was superseded
        but the wallet stayed flagged, and blocked on-chain, for good."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Blue Harbor Trading LLC", "entity_type": "business",
                                                                       "jurisdiction": "US"},
                         wallets=[{"chain_id": 1, "address": SANCTIONED_ETH}])
        wallet = Wallet.objects.get(entity_id=entity["id"])
        assert wallet.flagged and Entity.objects.get(pk=entity["id"]).sanctioned
        edit_sdn(ofac_copy, drop="30518")

        with django_capture_on_commit_callbacks(execute=True):
            call_command("load_sanctions", "--only", "ofac", "--ofac-dir", str(ofac_copy), stdout=io.StringIO())

        check = sanctions_check(entity["id"])
        assert (check.details["trigger"], check.result) == ("lists_changed", "pass")
        assert not ScreeningHit.objects.filter(entity_id=entity["id"], active=True).exists()
        wallet.refresh_from_db()
        assert (wallet.flagged, wallet.flag_reason, wallet.flagged_at) == (False, "", None)
        assert not Entity.objects.get(pk=entity["id"]).sanctioned
        audit = AuditLogEntry.objects.get(object_id=entity["id"], action="wallet.unflagged")
        assert audit.after == {"wallet_id": str(wallet.pk), "address": wallet.address,
                               "reason": "address no longer listed (sanctions screening)"}
        last = OnchainStatusUpdate.objects.filter(wallet=wallet).order_by("created_at", "id").last()
        assert (last.flagged, last.reason, last.status) == (False, "address no longer listed (sanctions screening)", "pending")
        status = client.get(f"/v1/compliance/status/wallet/1/{SANCTIONED_ETH}").json()
        assert status["wallets"] == [{"chain_id": 1, "address": wallet.address, "flagged": False, "status": "active", "onchain": {
            # chain 1 is not one the oracle is published to: the pending row waits for nothing
            "state": "not_published", "flagged": None, "version": None, "tx_hash": None, "published_at": None, "confirmed_at": None}}]
        assert status["flags"]["sanctioned"] is False

    def test_with_no_list_loaded_the_check_is_an_error_never_a_pass(self, client, django_capture_on_commit_callbacks, fresh_index):
        SanctionsList.objects.all().delete()
        entity = onboard(client, django_capture_on_commit_callbacks)
        check = sanctions_check(entity["id"])
        assert check.result == "error" and check.details["error"] == "lists_not_loaded" and "Not screened" in check.summary
        factors = {f["name"]: f for f in Entity.objects.get(pk=entity["id"]).risk_factors}
        assert factors["screening"]["contribution"] > 0
