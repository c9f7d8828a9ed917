"""GET /v1/monitoring/rules, GET and PATCH /v1/monitoring/rules/{rule_id}, and rule_setting_update."""

import pytest
from django.utils import timezone

from common.models import AuditLogEntry
from monitoring.configuration.selectors import engine_settings
from monitoring.models import AddressTag, RuleSetting
from monitoring.rules import RULES
from onboarding.models import SanctionsDigitalAddress, SanctionsEntry, SanctionsList

pytestmark = pytest.mark.django_db
BASE = "/v1/monitoring/rules"
RULE_FIELDS = {
    "number", "code", "family", "enabled", "shadow", "severity", "default_severity", "score", "parameters", "overrides", "defaults",
    "parameter_schema", "override_errors", "fires_when", "typology", "applies_to", "value_based", "lists", "updated_at", "updated_by",
}


@pytest.fixture
def sanctions_address(db) -> SanctionsDigitalAddress:
    """One OFAC SDN entry with a digital-currency address, as load_sanctions stores it."""
    now = timezone.now()
    listed = SanctionsList.objects.create(source="ofac_sdn", loaded_at=now, checked_at=now, content_hash="0" * 64, name_count=1)
    entry = SanctionsEntry.objects.create(sanctions_list=listed, uid="12345", kind="entity", primary_name="LAZARUS GROUP")
    address = "0x" + "d" * 40
    return SanctionsDigitalAddress.objects.create(entry=entry, currency="ETH", address=address, address_as_listed=address)


def fields_of(response) -> dict[str, str]:
    return {detail["field"]: detail["message"] for detail in response.json()["error"].get("details", [])}


def audits(action="rule_setting.updated"):
    return AuditLogEntry.objects.filter(action=action).order_by("id")


class TestList:
    def test_anonymous(self, api):
        response = api().get(BASE)
        assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHENTICATED"

    def test_all_fifty_three_with_defaults(self, api, key, org):
        body = api(key(org, role="viewer")).get(BASE).json()
        assert body["total"] == 53 and [rule["number"] for rule in body["data"]] == list(range(1, 54))
        first = body["data"][0]
        assert set(first) == RULE_FIELDS
        assert first["code"] == "large_transfer" and first["family"] == "transactions"
        assert (first["enabled"], first["severity"], first["default_severity"], first["score"]) == (True, "medium", "medium", 10)
        assert first["parameters"] == first["defaults"] == {"threshold_usd": "10000"} and first["overrides"] == {}
        assert first["parameter_schema"] == [{"name": "threshold_usd", "type": "decimal", "default": "10000",
                                              "description": "smallest transfer that alerts", "minimum": "0"}]
        assert first["lists"] == ["asset_prices"] and first["updated_at"] is None and first["updated_by"] is None
        sanctioned = body["data"][1]
        assert sanctioned["lists"] == ["sanctions_addresses", "address_tags", "blocked_addresses"]
        assert sanctioned["parameters"] == {} and sanctioned["parameter_schema"] == []
        closed_days = next(p for p in body["data"][23]["parameter_schema"] if p["name"] == "closed_days")
        assert closed_days["type"] == "dates" and closed_days["default"] == []

    def test_a_signed_in_viewer_reads_too(self, api, org, member):
        _, token = member(org, "viewer")
        assert api(token).get(BASE).status_code == 200

    def test_other_organizations_settings_do_not_show(self, api, key, org, other_org):
        RuleSetting.objects.create(organization=other_org, rule_code="large_transfer", enabled=False,
                                   parameters={"threshold_usd": "1"}, severity="critical")
        first = api(key(org, role="viewer")).get(BASE).json()["data"][0]
        assert (first["enabled"], first["severity"], first["parameters"]) == (True, "medium", {"threshold_usd": "10000"})

    def test_filters(self, api, key, org):
        RuleSetting.objects.create(organization=org, rule_code="card_testing", enabled=False)
        client = api(key(org, role="viewer"))
        cards = client.get(f"{BASE}?family=card").json()
        assert [rule["number"] for rule in cards["data"]] == [39, 40, 41, 42, 43, 44] and cards["total"] == 6
        assert [rule["number"] for rule in client.get(f"{BASE}?enabled=false").json()["data"]] == [40]
        assert client.get(f"{BASE}?family=card&enabled=true").json()["total"] == 5

    @pytest.mark.parametrize("query", ["family=crypto", "enabled=perhaps", "colour=red", "limit=5"])
    def test_bad_query(self, api, key, org, query):
        response = api(key(org, role="viewer")).get(f"{BASE}?{query}")
        assert response.status_code == 422 and response.json()["error"]["code"] == "VALIDATION_ERROR"

    def test_lists_summary(self, api, key, org, other_org, sanctions_address):
        AddressTag.objects.create(organization=org, chain_id=1, address="0x" + "a" * 40, category="mixer")
        AddressTag.objects.create(organization=org, chain_id=None, address="0x" + "b" * 40, category="sanctions")
        AddressTag.objects.create(organization=other_org, chain_id=1, address="0x" + "c" * 40, category="mixer")
        lists = api(key(org, role="viewer")).get(BASE).json()["lists"]
        assert lists["address_tags"] == {"count": 2, "by_category": {"mixer": 1, "sanctions": 1}}
        assert lists["sanctions_addresses"] == {"count": 1, "by_list": {"ofac_sdn": 1}, "category": "sanctions"}
        assert lists["high_risk_jurisdictions"] == {"count": 0, "codes": ["IR", "KP", "MM"], "defaults_in_use": True}
        assert lists["asset_prices"] == {"count": 0} and lists["blocked_addresses"] == {"count": 0}
        assert lists["sanctions_names"] == {"count": 1}


class TestDetail:
    def test_anonymous(self, api):
        assert api().get(f"{BASE}/1").status_code == 401

    @pytest.mark.parametrize("rule_id", ["3", "03", "structuring_below_threshold"])
    def test_by_number_or_code(self, api, key, org, rule_id):
        body = api(key(org, role="viewer")).get(f"{BASE}/{rule_id}").json()
        assert set(body) == RULE_FIELDS and body["number"] == 3 and body["code"] == "structuring_below_threshold"
        assert body["parameters"] == {"threshold_usd": "10000", "band_floor_pct": "80", "min_count": 3, "window_hours": 24}

    @pytest.mark.parametrize("rule_id", ["0", "54", "-1", "nope", "³", "9" * 5000, "large_transfer%20"])
    def test_unknown_rule(self, api, key, org, rule_id):
        response = api(key(org, role="viewer")).get(f"{BASE}/{rule_id}")
        assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"


class TestPatch:
    def test_anonymous(self, api):
        assert api().patch(f"{BASE}/1", {"enabled": False}).status_code == 401
        assert not RuleSetting.objects.exists()

    @pytest.mark.parametrize("role", ["viewer", "l2_investigator", "l3_officer"])
    def test_below_admin(self, api, key, org, role):
        response = api(key(org, role=role)).patch(f"{BASE}/1", {"enabled": False})
        assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"
        assert not RuleSetting.objects.exists() and not audits().exists()

    def test_a_signed_in_non_admin_is_refused(self, api, org, member):
        _, token = member(org, "l3_officer")
        assert api(token).patch(f"{BASE}/1", {"enabled": False}).status_code == 403

    def test_fires_when_follows_the_parameters_in_force(self, api, key, org):
        """Issue 30: the definition listed after a change names the changed values, not the defaults alone."""
        response = api(key(org)).patch(f"{BASE}/rapid_pass_through", {"parameters": {"window_hours": 48}}, format="json")
        assert response.status_code == 200
        assert response.json()["fires_when"] == (
            "inbound transfers (≥ 1,000 USD) followed within 24 h by ≤ 3 outbound transfers totalling 90–110 % of them by default; "
            "here window_hours 48")
        listed = api(key(org, role="viewer")).get(f"{BASE}/rapid_pass_through").json()
        assert listed["fires_when"] == response.json()["fires_when"]
        assert RuleSetting.objects.get(organization=org, rule_code="rapid_pass_through").parameters == {"window_hours": 48}

    def test_success(self, api, key, org):
        response = api(key(org)).patch(f"{BASE}/structuring_below_threshold", {
            "enabled": False, "severity": "critical", "parameters": {"threshold_usd": "5000", "min_count": 4}})
        assert response.status_code == 200
        body = response.json()
        assert (body["number"], body["enabled"], body["severity"], body["default_severity"]) == (3, False, "critical", "high")
        assert body["parameters"] == {"threshold_usd": "5000", "band_floor_pct": "80", "min_count": 4, "window_hours": 24}
        assert body["overrides"] == {"threshold_usd": "5000", "min_count": 4} and body["updated_at"]
        stored = RuleSetting.objects.get(organization=org)
        assert (stored.rule_code, stored.enabled, stored.severity) == ("structuring_below_threshold", False, "critical")
        assert stored.parameters == {"threshold_usd": "5000", "min_count": 4}
        entry = audits().get()
        assert entry.organization_id == org.pk and entry.object_id == "structuring_below_threshold" and entry.actor_type == "api_key"
        assert entry.before == {"rule_code": "structuring_below_threshold", "enabled": True, "parameters": {}, "severity": "",
                               "shadow": False}
        assert entry.after == {"rule_code": "structuring_below_threshold", "enabled": False,
                               "parameters": {"threshold_usd": "5000", "min_count": 4}, "severity": "critical", "shadow": False}
        assert api(key(org, role="viewer")).get(f"{BASE}/3").json() == body

    def test_the_engine_sees_the_change(self, api, key, org):
        api(key(org)).patch(f"{BASE}/1", {"parameters": {"threshold_usd": 2500}, "severity": "low"})
        api(key(org)).patch(f"{BASE}/2", {"enabled": False})
        active = {a.rule.number: a for a in engine_settings(org).active}
        assert 2 not in active and str(active[1].params["threshold_usd"]) == "2500" and active[1].severity == "low"

    def test_by_a_signed_in_admin(self, api, org, member):
        user, token = member(org, "admin")
        body = api(token).patch(f"{BASE}/40", {"parameters": {"min_count": 8}}).json()
        assert body["parameters"]["min_count"] == 8 and body["updated_by"] == user.email
        assert audits().get().actor_id == str(user.pk)

    def test_other_tenant_untouched(self, api, key, org, other_org):
        theirs = RuleSetting.objects.create(organization=other_org, rule_code="large_transfer", parameters={"threshold_usd": "7000"})
        api(key(org)).patch(f"{BASE}/1", {"parameters": {"threshold_usd": "20000"}, "enabled": False})
        theirs.refresh_from_db()
        assert theirs.parameters == {"threshold_usd": "7000"} and theirs.enabled
        assert api(key(other_org)).get(f"{BASE}/1").json()["parameters"] == {"threshold_usd": "7000"}

    def test_overrides_merge_with_the_stored_ones(self, api, key, org):
        client = api(key(org))
        client.patch(f"{BASE}/3", {"parameters": {"min_count": 4}})
        body = client.patch(f"{BASE}/3", {"parameters": {"window_hours": 48}}).json()
        assert body["overrides"] == {"min_count": 4, "window_hours": 48}
        assert RuleSetting.objects.get().parameters == {"min_count": 4, "window_hours": 48}

    def test_cross_parameter_check_runs_on_the_merged_set(self, api, key, org):
        client = api(key(org))
        assert client.patch(f"{BASE}/fiat_structuring", {"parameters": {"band_floor_usd": "6000"}}).status_code == 200
        response = client.patch(f"{BASE}/fiat_structuring", {"parameters": {"threshold_usd": "5000"}})
        assert response.status_code == 422
        assert fields_of(response) == {"parameters": "band_floor_usd must be below threshold_usd"}
        assert RuleSetting.objects.get().parameters == {"band_floor_usd": "6000"}

    def test_null_resets_to_the_default(self, api, key, org):
        client = api(key(org))
        client.patch(f"{BASE}/3", {"parameters": {"min_count": 4, "window_hours": 48}, "severity": "low"})
        body = client.patch(f"{BASE}/3", {"parameters": {"min_count": None}, "severity": None}).json()
        assert body["overrides"] == {"window_hours": 48} and body["parameters"]["min_count"] == 3
        assert body["severity"] == "high"
        stored = RuleSetting.objects.get()
        assert stored.parameters == {"window_hours": 48} and stored.severity == ""
        assert audits().last().after["parameters"] == {"window_hours": 48}

    def test_nothing_changed_writes_nothing(self, api, key, org):
        client = api(key(org))
        assert client.patch(f"{BASE}/1", {}).status_code == 200
        assert client.patch(f"{BASE}/1", {"enabled": True, "parameters": {"threshold_usd": None}}).status_code == 200
        assert not RuleSetting.objects.exists() and not audits().exists()
        client.patch(f"{BASE}/1", {"enabled": False})
        client.patch(f"{BASE}/1", {"enabled": False})
        assert audits().count() == 1

    @pytest.mark.parametrize(("body", "field"), [
        ({"parameters": {"threshold_usd": "-5"}}, "parameters.threshold_usd"),
        ({"parameters": {"threshold_usd": "lots"}}, "parameters.threshold_usd"),
        ({"parameters": {"threshold_usd": True}}, "parameters.threshold_usd"),
        ({"parameters": {"threshold_usd": {"a": 1}}}, "parameters.threshold_usd"),
        ({"parameters": {"threshhold_usd": "5000"}}, "parameters.threshhold_usd"),
        ({"parameters": {"threshhold_usd": None}}, "parameters.threshhold_usd"),
        ({"parameters": ["threshold_usd"]}, "parameters"),
        ({"parameters": "5000"}, "parameters"),
        ({"severity": "urgent"}, "severity"),
        ({"enabled": "yes"}, "enabled"),
        ({"enabled": None}, "enabled"),
        ({"colour": "red"}, "colour"),
    ])
    def test_bad_input(self, api, key, org, body, field):
        response = api(key(org)).patch(f"{BASE}/1", body, format="json")
        assert response.status_code == 422 and response.json()["error"]["code"] == "VALIDATION_ERROR"
        assert field in fields_of(response)
        assert not RuleSetting.objects.exists() and not audits().exists()

    @pytest.mark.parametrize(("rule", "parameters", "field"), [
        ("3", {"min_count": 2.5}, "parameters.min_count"),
        ("3", {"window_hours": 0}, "parameters.window_hours"),
        ("3", {"band_floor_pct": 100}, "parameters"),
        ("38", {"event_types": ["wire_in", "telegram"]}, "parameters.event_types"),
        ("38", {"event_types": []}, "parameters.event_types"),
        ("24", {"business_day_timezone": "Mars/Olympus"}, "parameters.business_day_timezone"),
        ("24", {"closed_days": ["2025-02-30"]}, "parameters.closed_days"),
        ("2", {"threshold_usd": "1"}, "parameters.threshold_usd"),
    ])
    def test_parameter_schema_is_enforced(self, api, key, org, rule, parameters, field):
        response = api(key(org)).patch(f"{BASE}/{rule}", {"parameters": parameters}, format="json")
        assert response.status_code == 422 and field in fields_of(response)

    def test_a_bad_parameter_keeps_the_good_ones_of_the_same_patch_out(self, api, key, org):
        response = api(key(org)).patch(f"{BASE}/3", {"enabled": False, "parameters": {"min_count": 5, "window_hours": -1}})
        assert response.status_code == 422 and set(fields_of(response)) == {"parameters.window_hours"}
        assert fields_of(response)["parameters.window_hours"].startswith("window_hours must be at least 1")
        assert not RuleSetting.objects.exists()

    def test_out_of_range_json_number(self, api, key, org):
        response = api(key(org)).patch(f"{BASE}/1", '{"parameters": {"threshold_usd": 1e400}}', content_type="application/json")
        assert response.status_code == 422 and "parameters.threshold_usd" in fields_of(response)

    @pytest.mark.parametrize(("rule", "parameters", "field"), [
        ("1", {"threshold_usd": "1e999999999"}, "parameters.threshold_usd"),  # a billion digits once written out
        ("1", {"threshold_usd": "1" * 79}, "parameters.threshold_usd"),
        ("3", {"window_hours": "1E+999999999"}, "parameters.window_hours"),  # parsed before its maximum is checked
    ])
    def test_a_number_larger_than_any_amount_is_refused_before_it_is_written_out(self, api, key, org, rule, parameters, field):
        response = api(key(org)).patch(f"{BASE}/{rule}", {"parameters": parameters}, format="json")
        assert response.status_code == 422 and fields_of(response)[field].endswith("at most 78 digits before the decimal point")
        assert not RuleSetting.objects.exists() and not audits().exists()
        backtest = api(key(org)).post(f"{BASE}/{rule}/backtest", {"from_date": "2026-01-01", "to_date": "2026-02-01",
                                                                 "parameters": parameters}, format="json")
        assert backtest.status_code == 422 and field in fields_of(backtest)

    def test_the_largest_whole_number_is_kept_exactly(self, api, key, org):
        largest = "9" * 78
        response = api(key(org)).patch(f"{BASE}/1", {"parameters": {"threshold_usd": largest}}, format="json")
        assert response.status_code == 200 and response.json()["overrides"] == {"threshold_usd": largest}
        assert RuleSetting.objects.get(organization=org, rule_code="large_transfer").parameters == {"threshold_usd": largest}

    def test_unknown_rule(self, api, key, org):
        response = api(key(org)).patch(f"{BASE}/99", {"enabled": False})
        assert response.status_code == 404 and not RuleSetting.objects.exists()

    def test_not_json(self, api, key, org):
        response = api(key(org)).patch(f"{BASE}/1", "enabled", content_type="application/json")
        assert response.status_code == 400 and response.json()["error"]["code"] == "BAD_REQUEST"

    def test_stored_overrides_the_rule_no_longer_takes_are_shown_and_can_be_cleared(self, api, key, org):
        RuleSetting.objects.create(organization=org, rule_code="large_transfer", parameters={"threshold_usd": "500", "old_name": 3})
        client = api(key(org))
        body = client.get(f"{BASE}/1").json()
        assert body["parameters"] == {"threshold_usd": "500"} and set(body["override_errors"]) == {"old_name"}
        assert client.patch(f"{BASE}/1", {"enabled": False}).status_code == 200  # the parameters are not touched
        response = client.patch(f"{BASE}/1", {"parameters": {"threshold_usd": "600"}})
        assert response.status_code == 422 and "parameters.old_name" in fields_of(response)
        cleared = client.patch(f"{BASE}/1", {"parameters": {"old_name": None}}).json()
        assert cleared["override_errors"] == {} and cleared["overrides"] == {"threshold_usd": "500"}

    def test_every_rule_accepts_its_own_defaults_as_overrides(self, api, key, org):
        client = api(key(org))
        for rule in RULES:
            defaults = rule.describe()["defaults"]
            response = client.patch(f"{BASE}/{rule.code}", {"parameters": defaults}, format="json")
            assert response.status_code == 200, rule.code
            assert response.json()["parameters"] == defaults
