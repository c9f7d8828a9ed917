"""Risk: factors and tiers, history with events on change, the monitoring hook, and the explanation
(deterministic, and from an OpenAI-compatible endpoint on loopback)."""

import pytest

from onboarding.models import Entity, RiskAssessment
from onboarding.risk import FactorResult, RiskFactor, register_risk_factor, risk_recompute
from onboarding.risk import factors as risk_factors_module
from tests.onboarding.helpers import COMPANY, PERSON, entity_url
from tests.onboarding.loopback import LoopbackServer
from webhooks.models import Event

pytestmark = pytest.mark.django_db
URL = "/v1/onboarding/entities"


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


def create(client, body=PERSON, **overrides):
    response = client.post(URL, {**body, **overrides}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


class TestScore:
    def test_scored_at_onboarding_with_every_factor(self, client):
        body = create(client)
        names = [f["name"] for f in body["risk_factors"]]
        assert names == ["jurisdiction", "entity_profile", "screening", "alert_history", "behaviour"]
        assert sum(f["weight"] for f in body["risk_factors"]) == 100
        assert body["risk_score"] == round(sum(f["contribution"] for f in body["risk_factors"]))
        assert body["risk_tier"] == "low"
        history = RiskAssessment.objects.get(entity_id=body["id"])
        assert (history.previous_score, history.score, history.reason) == (None, body["risk_score"], "onboarding")
        event = Event.objects.get(type="entity.risk_score_changed", data__entity_id=body["id"])
        assert event.data["new_score"] == body["risk_score"] and event.data["previous_tier"] is None

    @pytest.mark.parametrize("overrides, tier", [
        ({"jurisdiction": "DK"}, "low"),
        ({"jurisdiction": "KP", "entity_type": "business", "industry": "crypto exchange", "legal_name": "X"}, "high"),
        ({"jurisdiction": "VG", "entity_type": "business", "industry": "casino"}, "medium"),
        ({"jurisdiction": "IR"}, "high"),  # a FATF call for action: at least high whatever else is known
        ({"jurisdiction": "CU"}, "high"),  # a comprehensive US embargo: likewise
        ({"jurisdiction": "NG"}, "medium"),  # increased monitoring adds points but sets no floor
    ])
    def test_tiers_follow_jurisdiction_and_industry(self, client, overrides, tier):
        body = create(client, **overrides)
        assert body["risk_tier"] == tier, body["risk_factors"]

    def test_recompute_without_change_writes_no_history(self, client):
        body = create(client)
        entity = Entity.objects.get(pk=body["id"])
        risk_recompute(entity=entity, reason="again")
        assert RiskAssessment.objects.filter(entity=entity).count() == 1

    def test_a_monitoring_factor_changes_the_score_and_the_history(self, client, monkeypatch):
        body = create(client)
        entity = Entity.objects.get(pk=body["id"])
        # A copy of the registry, restored afterwards: monitoring's own factors stay for later tests.
        monkeypatch.setattr(risk_factors_module, "_factors", dict(risk_factors_module._factors))
        register_risk_factor(RiskFactor("alert_history", "Alert history", 10, lambda e: FactorResult(1.0, "3 critical alerts.")))
        risk_recompute(entity=entity, reason="alert raised")
        entity.refresh_from_db()
        assert entity.risk_score == body["risk_score"] + 10
        history = client.get(entity_url(body, "risk-history")).json()
        assert history["total"] == 2 and history["data"][0]["reason"] == "alert raised"
        assert history["data"][0]["previous_score"] == body["risk_score"]
        factor = next(f for f in history["data"][0]["factors"] if f["name"] == "alert_history")
        assert factor["contribution"] == 10 and factor["detail"] == "3 critical alerts."


class TestManyAtOnce:
    """risks_recompute (a monitoring batch's recomputation): what risk_recompute writes for each
    entity, in the same number of statements for three entities as for six."""

    def test_writes_what_one_by_one_writes(self, client, monkeypatch):
        from common.models import AuditLogEntry
        from onboarding.risk.services import risks_recompute

        bodies = [create(client, legal_name=f"Person {i}") for i in range(4)]
        quiet = bodies[0]["id"]
        monkeypatch.setattr(risk_factors_module, "_factors", dict(risk_factors_module._factors))
        register_risk_factor(RiskFactor(
            "alert_history", "Alert history", 10, lambda entity, alerted: FactorResult(1.0 if entity.pk in alerted else 0.0, "alerts"),
            gather=lambda ids: {i for i in ids if str(i) != quiet}))
        changed = risks_recompute(entity_ids=[b["id"] for b in bodies], reason="alerts opened or extended")
        assert changed == 3
        for body in bodies:
            entity = Entity.objects.get(pk=body["id"])
            rows = RiskAssessment.objects.filter(entity=entity).order_by("created_at")
            factor = next(f for f in entity.risk_factors if f["name"] == "alert_history")
            if body["id"] == quiet:
                assert entity.risk_score == body["risk_score"] and rows.count() == 1 and factor["contribution"] == 0
                continue
            assert entity.risk_score == body["risk_score"] + 10 and factor["contribution"] == 10
            latest = rows.last()
            assert (rows.count(), latest.previous_score, latest.score, latest.reason) == (
                2, body["risk_score"], body["risk_score"] + 10, "alerts opened or extended")
            event = Event.objects.filter(type="entity.risk_score_changed", data__entity_id=body["id"]).order_by("created_at").last()
            assert (event.data["previous_score"], event.data["new_score"]) == (body["risk_score"], body["risk_score"] + 10)
            audit = AuditLogEntry.objects.filter(action="entity.risk_changed", object_id=body["id"]).order_by("created_at").last()
            assert audit.after["risk_score"] == body["risk_score"] + 10 and audit.before["risk_score"] == body["risk_score"]
        assert risks_recompute(entity_ids=[b["id"] for b in bodies], reason="again") == 0  # idempotent

    def test_statements_do_not_grow_with_the_entities(self, client, monkeypatch):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from onboarding.risk.services import risks_recompute

        bodies = [create(client, legal_name=f"Person {i}") for i in range(9)]
        monkeypatch.setattr(risk_factors_module, "_factors", dict(risk_factors_module._factors))
        register_risk_factor(RiskFactor("alert_history", "Alert history", 10, lambda entity: FactorResult(1.0, "alerts")))
        counts = []
        for group in (bodies[:3], bodies[3:]):
            with CaptureQueriesContext(connection) as captured:
                assert risks_recompute(entity_ids=[b["id"] for b in group], reason="alerts") == len(group)
            counts.append(len(captured.captured_queries))
        assert counts[0] == counts[1], counts


    def test_entities_of_several_organizations_and_modes_keep_their_own(self, api, org, other_org, key, monkeypatch):
        from common.models import AuditLogEntry
        from onboarding.risk import risks_recompute

        bodies = [create(api(key(tenant, role="l2_investigator", mode=mode)), legal_name=f"Person {tenant.slug} {mode}")
                  for tenant, mode in ((org, "test"), (org, "live"), (other_org, "test"))]
        monkeypatch.setattr(risk_factors_module, "_factors", dict(risk_factors_module._factors))
        register_risk_factor(RiskFactor("alert_history", "Alert history", 10, lambda entity: FactorResult(1.0, "alerts")))
        assert risks_recompute(entity_ids=[b["id"] for b in bodies], reason="alerts") == 3
        for body in bodies:
            entity = Entity.objects.get(pk=body["id"])
            scope = {"organization_id": entity.organization_id, "mode": entity.mode}
            latest = RiskAssessment.objects.filter(entity=entity).order_by("created_at").last()
            assert (latest.organization_id, latest.mode, latest.score) == (entity.organization_id, entity.mode, body["risk_score"] + 10)
            events = Event.objects.filter(type="entity.risk_score_changed", data__entity_id=body["id"], data__reason="alerts")
            assert list(events.values_list("organization_id", "mode")) == [tuple(scope.values())]
            audit = AuditLogEntry.objects.get(action="entity.risk_changed", object_id=body["id"], after__reason="alerts")
            assert (audit.organization_id, audit.mode) == tuple(scope.values())

    def test_unknown_ids_are_skipped_and_no_ids_read_nothing(self, client, monkeypatch):
        import uuid

        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from onboarding.risk import risks_recompute

        body = create(client)
        monkeypatch.setattr(risk_factors_module, "_factors", dict(risk_factors_module._factors))
        register_risk_factor(RiskFactor("alert_history", "Alert history", 10, lambda entity: FactorResult(1.0, "alerts")))
        assert risks_recompute(entity_ids=[uuid.uuid4(), body["id"]], reason="alerts") == 1
        assert Entity.objects.get(pk=body["id"]).risk_score == body["risk_score"] + 10
        with CaptureQueriesContext(connection) as captured:
            assert risks_recompute(entity_ids=[], reason="nothing") == 0
        assert [q["sql"] for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))] == []


class TestRiskHistoryEndpoint:
    def test_roles_tenancy_and_limits(self, client, api, org, other_org, key):
        body = create(client)
        url = entity_url(body, "risk-history")
        assert api().get(url).status_code == 401
        assert api(key(other_org)).get(url).status_code == 404
        assert api(key(org, role="viewer")).get(url).json()["limit"] == 50
        assert client.get(url, {"limit": 500}).status_code == 200
        assert client.get(url, {"limit": 501}).status_code == 422


class TestExplanation:
    def test_deterministic_by_default(self, client, settings):
        settings.OPENAI_BASE_URL = ""
        body = create(client, COMPANY, jurisdiction="KY", industry="payment processor")
        first = client.get(entity_url(body, "ai-risk-explanation")).json()
        again = client.get(entity_url(body, "ai-risk-explanation")).json()
        assert first == again and first["generated_by"] == "deterministic" and first["model"] is None
        assert "Blue Harbor Trading LLC" in first["narrative"] and "offshore financial centre" in first["narrative"]
        assert first["risk_score"] == body["risk_score"] and len(first["factors"]) == 5

    def test_from_an_openai_compatible_endpoint(self, client, settings):
        def reply(request):
            return 200, {"choices": [{"message": {"role": "assistant", "content": "Moderate risk: offshore jurisdiction."}}]}

        body = create(client, COMPANY, jurisdiction="KY")
        with LoopbackServer(reply) as server:
            settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.OPENAI_MODEL = server.url + "/v1", "sk-llm", "tiny-model"
            answer = client.get(entity_url(body, "ai-risk-explanation")).json()
        assert answer["generated_by"] == "llm" and answer["model"] == "tiny-model"
        assert answer["narrative"] == "Moderate risk: offshore jurisdiction."
        sent = server.requests[0]
        assert sent["path"] == "/v1/chat/completions" and sent["headers"]["Authorization"] == "Bearer sk-llm"
        assert sent["body"]["model"] == "tiny-model" and "jurisdiction" in sent["body"]["messages"][1]["content"]

    def test_a_failing_model_falls_back(self, client, settings):
        body = create(client)
        with LoopbackServer(lambda request: (500, {"error": "overloaded"})) as server:
            settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.OPENAI_MODEL = server.url, "k", "m"
            answer = client.get(entity_url(body, "ai-risk-explanation")).json()
        assert answer["generated_by"] == "deterministic" and "HTTPError" in answer["fallback_reason"]

    def test_tenancy(self, client, api, other_org, key):
        body = create(client)
        assert api().get(entity_url(body, "ai-risk-explanation")).status_code == 401
        assert api(key(other_org)).get(entity_url(body, "ai-risk-explanation")).status_code == 404


def test_the_explanation_names_the_floor_that_holds():
    """Factors come by points; the minimum quoted is the highest floor (alert history's 75 here, not the
    jurisdiction's 50 though the jurisdiction brings more points)."""
    from onboarding.models import Entity
    from onboarding.risk.narrative import deterministic_narrative

    entity = Entity(legal_name="Kish Trading", entity_type="business", jurisdiction="IR", risk_score=75, risk_tier="critical",
                    risk_factors=[
                        {"name": "jurisdiction", "label": "Jurisdiction", "weight": 25, "severity": 1, "contribution": 25,
                         "detail": "IR: FATF call for action.", "floor": 50},
                        {"name": "alert_history", "label": "Alert history", "weight": 10, "severity": 1, "contribution": 10,
                         "detail": "A confirmed critical alert.", "floor": 75},
                    ])
    text = deterministic_narrative(entity)
    assert text.endswith("A finding in alert history sets a minimum score of 75.")


class TestRecomputeCommand:
    """recompute_risk: stored scores brought up to the current model (here: scores left from before
    the jurisdiction floor), each change recorded; the rest untouched; filters and mistakes."""

    @staticmethod
    def run(*args) -> str:
        import io

        from django.core.management import call_command

        out = io.StringIO()
        call_command("recompute_risk", *args, stdout=out)
        return out.getvalue()

    def test_scores_again_and_records_each_change(self, client, org):
        iran, denmark = create(client, jurisdiction="IR"), create(client, jurisdiction="DK")
        # As stored before the floor: medium, 30.
        Entity.objects.filter(pk=iran["id"]).update(risk_score=30, risk_tier="medium")
        before = {e: RiskAssessment.objects.filter(entity_id=e).count() for e in (iran["id"], denmark["id"])}
        out = self.run("--org", org.slug)
        assert "2 entities to score again." in out
        assert "Done: 2 entities scored; 1 scores or tiers changed, each with a risk-history row ('risk model updated')." in out
        stored = Entity.objects.get(pk=iran["id"])
        assert (stored.risk_score, stored.risk_tier) == (50, "high")
        latest = RiskAssessment.objects.filter(entity_id=iran["id"]).order_by("-created_at", "-id").first()
        assert (latest.previous_score, latest.score, latest.reason) == (30, 50, "risk model updated")
        assert RiskAssessment.objects.filter(entity_id=iran["id"]).count() == before[iran["id"]] + 1
        assert RiskAssessment.objects.filter(entity_id=denmark["id"]).count() == before[denmark["id"]]
        assert Event.objects.filter(type="entity.risk_score_changed", data__entity_id=iran["id"], data__new_score=50).exists()
        assert "Done: 2 entities scored; no score or tier changed." in self.run()  # idempotent

    def test_filters_and_mistakes(self, client, org):
        create(client, jurisdiction="IR")
        create(client, jurisdiction="DK")
        assert "1 entities to score again." in self.run("--jurisdiction", "ir, kp", "--mode", "test")
        assert "0 entities to score again." in self.run("--mode", "live")
        from django.core.management import CommandError

        for args, message in ((("--org", "nope"), "No organization has the slug 'nope'."), (("--jurisdiction", ","), "names no code"),
                              (("--reason", "  "), "--reason is empty")):
            with pytest.raises(CommandError, match=message):
                self.run(*args)
