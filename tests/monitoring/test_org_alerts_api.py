"""GET /v1/monitoring/alerts: the organization's alerts across entities, filtered and paged, scoped by organization and mode."""

from datetime import UTC, datetime, timedelta

import pytest

from monitoring.models import Alert
from onboarding.models import Entity

pytestmark = pytest.mark.django_db
URL = "/v1/monitoring/alerts"
DAY = datetime(2026, 3, 1, 12, tzinfo=UTC)


def _alert(org, entity, *, rule=(1, "large_transfer"), severity="medium", status="open", disposition="", days=0, mode="test"):
    at = DAY + timedelta(days=days)
    return Alert.objects.create(organization=org, mode=mode, entity=entity, rule_number=rule[0], rule_code=rule[1], rule_name=rule[1],
                                severity=severity, description="d", status=status, disposition=disposition, first_triggered_at=at,
                                last_triggered_at=at, sla_due_at=at + timedelta(days=3))


@pytest.fixture
def alerts(org, other_org):
    def entity(organization, name, mode="test"):
        return Entity.objects.create(organization=organization, mode=mode, legal_name=name, entity_type="business", jurisdiction="US")

    a, b = entity(org, "A"), entity(org, "B")
    made = {
        "a_large": _alert(org, a),
        "b_large_closed": _alert(org, b, status="closed", disposition="true_positive", days=1),
        "a_struct": _alert(org, a, rule=(3, "structuring_below_threshold"), severity="high", days=2),
        "b_struct_fp": _alert(org, b, rule=(3, "structuring_below_threshold"), status="closed", disposition="false_positive", days=3),
    }
    _alert(other_org, entity(other_org, "X"), days=1)  # another tenant
    _alert(org, entity(org, "L", mode="live"), mode="live", days=1)  # the other mode
    return made


def ids(response) -> list[str]:
    assert response.status_code == 200, response.json()
    return [row["id"] for row in response.json()["data"]]


class TestOrgAlerts:
    def test_all_of_this_org_and_mode_newest_first(self, api, org, key, alerts):
        response = api(key(org, role="viewer")).get(URL)
        assert response.json()["total"] == 4
        assert ids(response) == [str(alerts[name].pk) for name in ("b_struct_fp", "a_struct", "b_large_closed", "a_large")]
        row = response.json()["data"][0]
        assert row["rule_code"] == "structuring_below_threshold" and row["rule_id"] == "3" and row["disposition"] == "false_positive"
        assert row["entity_id"] == str(alerts["b_struct_fp"].entity_id) and "score" not in row and "evidence" not in row

    @pytest.mark.parametrize("query, expected", [
        ("rule=structuring_below_threshold", ["b_struct_fp", "a_struct"]),
        ("rule=3", ["b_struct_fp", "a_struct"]),
        ("severity=high", ["a_struct"]),
        ("status=closed", ["b_struct_fp", "b_large_closed"]),
        ("disposition=true_positive", ["b_large_closed"]),
        ("disposition=none", ["a_struct", "a_large"]),
        ("from_date=2026-03-02&to_date=2026-03-03", ["a_struct", "b_large_closed"]),
        ("rule=large_transfer&status=open", ["a_large"]),
    ])
    def test_filters(self, api, org, key, alerts, query, expected):
        assert ids(api(key(org)).get(f"{URL}?{query}")) == [str(alerts[name].pk) for name in expected]

    def test_paged_within_the_usual_limits(self, api, org, key, alerts):
        client = api(key(org))
        first, second = client.get(f"{URL}?limit=3").json(), client.get(f"{URL}?limit=3&offset=3").json()
        assert (len(first["data"]), len(second["data"]), first["total"]) == (3, 1, 4)
        assert ids(client.get(f"{URL}?limit=3")) + ids(client.get(f"{URL}?limit=3&offset=3")) == ids(client.get(URL))
        assert client.get(f"{URL}?limit=101").status_code == 422

    def test_other_tenants_and_modes(self, api, org, other_org, key, alerts):
        assert api(key(other_org)).get(URL).json()["total"] == 1
        assert api(key(org, mode="live")).get(URL).json()["total"] == 1

    @pytest.mark.parametrize("query, field", [
        ("rule=no_such_rule", "rule"), ("rule=99", "rule"), ("severity=huge", "severity"), ("disposition=maybe", "disposition"),
        ("from_date=2026-03-05&to_date=2026-03-01", "to_date"), ("statuss=open", "statuss"),
    ])
    def test_bad_filters_are_a_422(self, api, org, key, alerts, query, field):
        response = api(key(org)).get(f"{URL}?{query}")
        assert response.status_code == 422 and field in {d["field"] for d in response.json()["error"]["details"]}, response.json()

    def test_anonymous_is_a_401(self, api, alerts):
        assert api().get(URL).status_code == 401
