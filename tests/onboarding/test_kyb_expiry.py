"""KYB review: a passing KYB result starts the entity's verification period, the organization's policy
sets it by risk tier, the beat sweep marks it expired once and sends account.kyb_expired, and a new
passing result renews it."""

from datetime import timedelta

import pytest

from common.errors import Forbidden, ValidationFailed
from common.models import AuditLogEntry
from common.principal import Principal
from monitoring.models import Notification
from onboarding.models import ComplianceCheck, Entity, KybPolicy
from onboarding.services import kyb_expiry_sweep, kyb_policy_set
from onboarding.tasks import sweep_kyb_expiry
from tests.onboarding.helpers import PERSON, entity_url, screened
from webhooks.models import Event

pytestmark = pytest.mark.django_db
SCREENING_URL = "/v1/monitoring/screening"


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l3_officer"))


def active_entity(client, **overrides) -> dict:
    entity = client.post("/v1/onboarding/entities", {**PERSON, **overrides}, format="json").json()
    screened(entity)
    assert client.post(entity_url(entity, "approve"), {}, format="json").json()["status"] == "active"
    return entity


def kyb_result(client, entity, result="pass", **overrides) -> dict:
    response = client.post(SCREENING_URL, {"entity_id": entity["id"], "check_type": "kyb", "provider": "ClientCo",
                                           "result": result, **overrides}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def age(entity: dict, days: int) -> Entity:
    """The verification as if recorded `days` ago."""
    row = Entity.objects.get(pk=entity["id"])
    Entity.objects.filter(pk=row.pk).update(kyb_verified_at=row.kyb_verified_at - timedelta(days=days))
    return Entity.objects.get(pk=row.pk)


def set_tier(entity: dict, tier: str) -> None:
    Entity.objects.filter(pk=entity["id"]).update(risk_tier=tier)


def expired_events(entity: dict):
    return Event.objects.filter(type="account.kyb_expired", data__entity_id=entity["id"])


class TestVerification:
    def test_a_passing_kyb_result_starts_the_verification_and_the_api_shows_when_it_falls_due(self, client):
        entity = active_entity(client)
        assert client.get(entity_url(entity)).json()["kyb"] is None
        check = kyb_result(client, entity)
        stored = Entity.objects.get(pk=entity["id"])
        recorded = ComplianceCheck.objects.get(pk=check["id"])
        assert stored.kyb_check_id == recorded.pk and stored.kyb_verified_at == recorded.created_at and stored.kyb_expired_at is None
        kyb = client.get(entity_url(entity)).json()["kyb"]
        tier_days = {"low": 1095, "medium": 730, "high": 365, "critical": 365}[stored.risk_tier or "medium"]
        due = recorded.created_at + timedelta(days=tier_days)
        assert kyb == {"verified_at": kyb["verified_at"], "check_id": check["id"], "expires_at": kyb["expires_at"], "expired": False}
        assert kyb["expires_at"].replace("Z", "+00:00") == due.isoformat()
        listed = client.get("/v1/onboarding/entities").json()["data"][0]
        assert listed["kyb"] == kyb

    @pytest.mark.parametrize("result", ["fail", "review", "error"])
    def test_a_result_other_than_pass_does_not_renew(self, client, result):
        entity = active_entity(client)
        kyb_result(client, entity)
        before = age(entity, 10)
        kyb_result(client, entity, result=result)
        after = Entity.objects.get(pk=entity["id"])
        assert (after.kyb_verified_at, after.kyb_check_id) == (before.kyb_verified_at, before.kyb_check_id)

    def test_other_check_types_do_not_count(self, client):
        entity = active_entity(client)
        kyb_result(client, entity, check_type="aml")
        assert Entity.objects.get(pk=entity["id"]).kyb_verified_at is None


class TestSweep:
    def test_due_verification_expires_once_with_event_audit_and_notification(self, client, api, key, org):
        entity = active_entity(client)
        set_tier(entity, "high")
        check = kyb_result(client, entity)
        age(entity, 364)
        assert kyb_expiry_sweep() == 0 and not expired_events(entity).exists()
        aged = age(entity, 2)  # 366 days ago: past the high tier's 365
        assert kyb_expiry_sweep() == 1
        stored = Entity.objects.get(pk=entity["id"])
        due = aged.kyb_verified_at + timedelta(days=365)
        assert stored.kyb_expired_at == due and stored.status == "active"
        event = expired_events(entity).get()
        assert event.data == {"entity_id": entity["id"], "check_id": check["id"], "expired_at": due.isoformat().replace("+00:00", "Z")}
        assert event.organization_id == org.pk and event.mode == "test"
        audit = AuditLogEntry.objects.get(action="entity.kyb_expired", object_id=entity["id"])
        assert audit.after["check_id"] == check["id"] and audit.actor_type == "system"
        note = Notification.objects.get(type="entity_status_changed", entity_id=entity["id"], title__contains="KYB")
        assert "fell due on" in note.body
        assert client.get(entity_url(entity)).json()["kyb"]["expired"] is True
        # Sent once per verification.
        assert kyb_expiry_sweep() == 0 and expired_events(entity).count() == 1

    def test_a_new_passing_result_renews_and_a_later_expiry_is_sent_again(self, client):
        entity = active_entity(client)
        set_tier(entity, "critical")
        kyb_result(client, entity)
        age(entity, 400)
        assert kyb_expiry_sweep() == 1
        renewed = kyb_result(client, entity)
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.kyb_expired_at is None and str(stored.kyb_check_id) == renewed["id"]
        assert client.get(entity_url(entity)).json()["kyb"]["expired"] is False
        assert kyb_expiry_sweep() == 0
        age(entity, 366)
        assert kyb_expiry_sweep() == 1
        assert [e.data["check_id"] for e in expired_events(entity).order_by("created_at")][-1] == renewed["id"]
        assert expired_events(entity).count() == 2

    @pytest.mark.parametrize(("tier", "valid"), [("low", 1095), ("medium", 730), ("high", 365), ("critical", 365), ("", 730)])
    def test_each_tier_has_its_period(self, client, tier, valid):
        entity = active_entity(client)
        kyb_result(client, entity)
        set_tier(entity, tier)
        age(entity, valid - 1)
        assert kyb_expiry_sweep() == 0
        age(entity, 2)
        assert kyb_expiry_sweep() == 1

    def test_the_organization_policy_sets_the_periods_and_other_organizations_keep_theirs(self, client, api, key, org, other_org):
        mine = active_entity(client)
        theirs = active_entity(api(key(other_org, role="l3_officer")))
        for entity in (mine, theirs):
            kyb_result(client if entity is mine else api(key(other_org, role="l3_officer")), entity)
            set_tier(entity, "low")
            age(entity, 200)
        kyb_policy_set(principal=Principal.system(org, "test"), valid_days_low=180, valid_days_medium=90, valid_days_high=30,
                       valid_days_critical=30)
        assert kyb_expiry_sweep() == 1
        assert expired_events(mine).exists() and not expired_events(theirs).exists()
        policy = KybPolicy.objects.get(organization=org)
        assert (policy.valid_days_low, policy.valid_days_critical) == (180, 30)
        audit = AuditLogEntry.objects.get(action="kyb_policy.updated", organization_id=org.pk)
        assert audit.before is None and audit.after["valid_days_low"] == 180
        assert client.get(entity_url(mine)).json()["kyb"]["expired"] is True

    def test_only_active_entities_expire(self, client):
        entity = active_entity(client)
        kyb_result(client, entity)
        age(entity, 2000)
        assert client.post(entity_url(entity, "suspend"), {"reason": "closed"}, format="json").json()["status"] == "suspended"
        assert kyb_expiry_sweep() == 0 and Entity.objects.get(pk=entity["id"]).kyb_expired_at is None

    def test_the_beat_task_runs_the_sweep_in_chunks(self, client):
        entities = [active_entity(client, legal_name=f"Person {n}") for n in range(3)]
        for entity in entities:
            kyb_result(client, entity)
            age(entity, 2000)
        assert kyb_expiry_sweep(chunk=2) == 3
        for entity in entities:
            kyb_result(client, entity)
            age(entity, 2000)
        sweep_kyb_expiry()
        assert all(expired_events(entity).count() == 2 for entity in entities)


class TestPolicy:
    def test_admin_role_only(self, org, member):
        user, _ = member(org, "l3_officer")
        officer = Principal(credential="session", organization=org, mode="test", role="l3_officer", user=user)
        with pytest.raises(Forbidden):
            kyb_policy_set(principal=officer, valid_days_low=1, valid_days_medium=1, valid_days_high=1, valid_days_critical=1)
        assert not KybPolicy.objects.exists()

    @pytest.mark.parametrize("bad", [0, -1, 3651, "365", None, 1.5])
    def test_periods_from_one_day_to_ten_years(self, org, bad):
        with pytest.raises(ValidationFailed) as raised:
            kyb_policy_set(principal=Principal.system(org, "test"), valid_days_low=bad, valid_days_medium=730, valid_days_high=365,
                           valid_days_critical=365)
        assert [d["field"] for d in raised.value.details] == ["valid_days_low"]
        assert not KybPolicy.objects.exists()


class TestConsole:
    def test_the_policy_is_saved_through_the_service_by_an_admin_only(self, staff, org):
        refused = staff(org, "l3_officer").post("/admin/onboarding/kybpolicy/add/", {
            "organization": org.pk, "valid_days_low": "30", "valid_days_medium": "30", "valid_days_high": "30",
            "valid_days_critical": "30"})
        assert refused.status_code in (200, 302) and not KybPolicy.objects.exists()
        response = staff(org).post("/admin/onboarding/kybpolicy/add/", {
            "organization": org.pk, "valid_days_low": "1000", "valid_days_medium": "500", "valid_days_high": "200",
            "valid_days_critical": "90"})
        assert response.status_code == 302, response.content.decode()[:2000]
        policy = KybPolicy.objects.get(organization=org)
        assert (policy.valid_days_low, policy.valid_days_medium, policy.valid_days_high, policy.valid_days_critical) == (1000, 500, 200, 90)
        assert AuditLogEntry.objects.filter(action="kyb_policy.updated", object_id=str(policy.pk)).exists()

    def test_entity_page_and_filter_show_the_verification(self, staff, client, org):
        expired, valid = active_entity(client, legal_name="Old Verification"), active_entity(client, legal_name="Fresh Verification")
        never = active_entity(client, legal_name="Never Verified")
        for entity in (expired, valid):
            kyb_result(client, entity)
        age(expired, 2000)
        assert kyb_expiry_sweep() == 1
        console = staff(org)
        page = console.get(f"/admin/onboarding/entity/{expired['id']}/change/").content.decode()
        assert "KYB verification" in page and "Falls due" in page
        listing = lambda value: console.get(f"/admin/onboarding/entity/?kyb={value}").content.decode()  # noqa: E731
        assert "Old Verification" in listing("expired") and "Fresh Verification" not in listing("expired")
        assert "Fresh Verification" in listing("valid") and "Old Verification" not in listing("valid")
        assert never["legal_name"] in listing("none") and "Fresh Verification" not in listing("none")


def test_the_beat_schedule_runs_the_sweep_hourly():
    from config.celery import app

    entry = app.conf.beat_schedule["onboarding.sweep_kyb_expiry"]
    assert entry == {"task": "onboarding.sweep_kyb_expiry", "schedule": 3600.0}
    assert "onboarding.sweep_kyb_expiry" in app.tasks
