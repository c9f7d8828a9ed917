"""A blank query parameter is no parameter: `?status=&limit=` lists as the bare path does (a form
with empty fields sends it), while a value that is there is still checked."""

import pytest

from onboarding.models import Entity

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api, org, key):
    return api(key(org))


@pytest.fixture
def entities(client):
    names = ["Nova Traders", "Orbit Payments", "Polar Mining"]
    for name in names:
        response = client.post("/v1/onboarding/entities", {"legal_name": name, "entity_type": "business", "jurisdiction": "US"},
                               format="json")
        assert response.status_code == 201, response.json()
    return names


def test_blank_filters_and_page_parameters_are_left_out(client, entities):
    bare = client.get("/v1/onboarding/entities").json()
    response = client.get("/v1/onboarding/entities?status=&risk_tier=&search=&limit=&offset=")
    body = response.json()
    assert response.status_code == 200, body
    assert (body["total"], body["limit"], body["offset"]) == (3, 50, 0) == (bare["total"], bare["limit"], bare["offset"])
    assert [row["id"] for row in body["data"]] == [row["id"] for row in bare["data"]]
    assert Entity.objects.count() == 3


def test_whitespace_alone_is_blank_too(client, entities):
    body = client.get("/v1/onboarding/entities?status=%20&limit=%20").json()
    assert (body["total"], body["limit"]) == (3, 50)


def test_a_value_given_is_still_checked(client, entities):
    response = client.get("/v1/onboarding/entities?status=approvd&limit=")
    assert response.status_code == 422
    assert [detail["field"] for detail in response.json()["error"]["details"]] == ["status"]
    filtered = client.get("/v1/onboarding/entities?status=pending&search=orbit&limit=").json()
    assert [row["legal_name"] for row in filtered["data"]] == ["Orbit Payments"]


def test_a_required_parameter_left_blank_is_missing(client, entities):
    response = client.get("/v1/onboarding/search?q=")
    assert response.status_code == 422
    details = response.json()["error"]["details"]
    assert [(d["field"], d["message"]) for d in details] == [("q", "This field is required.")]


def test_a_parameter_the_list_does_not_take_is_refused_naming_those_it_takes(client, entities):
    """A misspelt filter is an error the caller sees, not the whole list answered as the filtered one."""
    response = client.get("/v1/onboarding/entities?statuss=rejected&limit=10")
    assert response.status_code == 422
    details = response.json()["error"]["details"]
    assert details == [{"field": "statuss",
                        "message": "This parameter is not taken here; the parameters are status, risk_tier, search, limit, offset."}]
    entity_id = client.get("/v1/onboarding/entities").json()["data"][0]["id"]
    alerts = client.get(f"/v1/onboarding/entities/{entity_id}/alerts?severty=high")
    assert alerts.status_code == 422 and [d["field"] for d in alerts.json()["error"]["details"]] == ["severty"]
    assert client.get(f"/v1/onboarding/entities/{entity_id}/alerts?severity=high&limit=5&offset=0").status_code == 200
    # A list without paging refuses the page parameters too (its serializer is strict).
    assert [d["field"] for d in client.get("/v1/monitoring/rules?limit=5").json()["error"]["details"]] == ["limit"]
    # Blank or not, a name the list does not take is a mistake; DRF's format override is taken everywhere.
    assert client.get("/v1/onboarding/entities?statuss=").status_code == 422
    assert client.get("/v1/onboarding/entities?format=json").status_code == 200


def test_a_parameter_given_twice_is_refused(client, entities):
    response = client.get("/v1/onboarding/entities?status=rejected&status=")
    assert response.status_code == 422
    assert response.json()["error"]["details"] == [{"field": "status", "message": "Given more than once; give it once."}]


def test_lists_and_reads_without_paging_or_filters_refuse_what_they_do_not_take(client, entities):
    entity_id = client.get("/v1/onboarding/entities").json()["data"][0]["id"]
    audit = client.get(f"/v1/onboarding/entities/{entity_id}/audit?foo=1")
    assert audit.status_code == 422 and audit.json()["error"]["details"] == [
        {"field": "foo", "message": "This parameter is not taken here; the parameters are limit, offset."}]
    assert client.get(f"/v1/onboarding/entities/{entity_id}/audit?limit=5&offset=0").status_code == 200
    report = client.get(f"/v1/onboarding/entities/{entity_id}/compliance-report?limit=5")
    assert report.status_code == 422 and [d["field"] for d in report.json()["error"]["details"]] == ["limit"]
    assert [d["field"] for d in client.get("/v1/onboarding/search?q=orbit&offset=5").json()["error"]["details"]] == ["offset"]
    assert client.get("/v1/onboarding/search?q=orbit&limit=5").status_code == 200
