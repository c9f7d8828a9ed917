"""StrictSerializer: undeclared fields and JSON numbers for text fields (alone or in a list) are 422s, each named."""

import pytest
from rest_framework import serializers

from common.api.serializers import NUMBER_FOR_TEXT, StrictSerializer, validated
from monitoring.api.ingest_serializers import AmountField


class Sample(StrictSerializer):
    name = serializers.CharField()
    email = serializers.EmailField(required=False)
    count = serializers.IntegerField(required=False)
    amount = AmountField(required=False)
    echo = serializers.CharField(read_only=True)
    tags = serializers.ListField(child=serializers.CharField(), required=False)
    counts = serializers.ListField(child=serializers.IntegerField(), required=False)


def errors(data) -> dict:
    with pytest.raises(serializers.ValidationError) as caught:
        validated(Sample, data)
    return caught.value.detail


@pytest.mark.parametrize("value", [5, 0, -1, 1.5, 1e3])
def test_a_number_for_text_is_refused_by_name(value):
    assert errors({"name": value}) == {"name": [NUMBER_FOR_TEXT]}


def test_each_mistake_is_named_in_one_answer():
    found = errors({"name": 7, "email": 8, "nmae": "x"})
    assert set(found) == {"name", "email", "nmae"}


def test_text_numbers_where_numbers_are_taken_and_booleans_as_before():
    assert validated(Sample, {"name": "5", "count": 5, "amount": 1500}) == {"name": "5", "count": 5, "amount": "1500"}
    assert "name" in errors({"name": True})  # DRF's own refusal
    assert "name" in errors({"name": None})


def test_a_number_among_texts_is_refused_by_its_place():
    assert errors({"name": "x", "tags": ["a", 5, "b", 2.5]}) == {"tags": {1: [NUMBER_FOR_TEXT], 3: [NUMBER_FOR_TEXT]}}
    assert validated(Sample, {"name": "x", "tags": ["5"], "counts": [5]}) == {"name": "x", "tags": ["5"], "counts": [5]}


def test_through_the_api_the_place_is_named(api, org, key):
    """A 314(b) request's subject wallets: `subject.wallet_addresses.1` in the error envelope."""
    response = api(key(org, role="l3_officer")).post("/v1/monitoring/314b/requests", {
        "partner_id": "00000000-0000-0000-0000-000000000000", "subject": {"name": "S", "wallet_addresses": ["0xabc", 12345]},
        "reason": "r"}, format="json")
    assert response.status_code == 422
    assert {"field": "subject.wallet_addresses.1", "message": NUMBER_FOR_TEXT} in response.json()["error"]["details"]


def test_the_api_schema_describes_request_bodies_without_the_codes_notes():
    """drf-spectacular describes a body by the nearest docstring of its serializer's classes: the
    base class's notes for the code's readers (DRF's CharField, Stripe) described 50 request bodies."""
    from drf_spectacular.generators import SchemaGenerator

    components = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    leaked = sorted(name for name, component in components.items() if "as Stripe does" in component.get("description", ""))
    assert "BacktestRequest" in components and "IngestedTransactionRequest" in components
    assert leaked == []


def test_every_switch_of_a_request_body_takes_json_true_or_false_only():
    """DRF's BooleanField takes "yes", "off", 1 or "0": a JSON body's switch is StrictBooleanField.
    Query serializers (named …Query) read text and keep DRF's reading."""
    from django.urls import get_resolver
    from rest_framework import serializers

    from common.api.fields import StrictBooleanField
    from common.api.serializers import StrictSerializer

    assert get_resolver().url_patterns  # every API module imported, with its serializers

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    bodies = [cls for cls in subclasses(StrictSerializer) if not cls.__name__.endswith("Query")]
    lenient = sorted(f"{cls.__module__}.{cls.__name__}.{name}" for cls in bodies for name, field in cls._declared_fields.items()
                     if isinstance(field, serializers.BooleanField) and not isinstance(field, StrictBooleanField))
    strict = [name for cls in bodies for name, field in cls._declared_fields.items() if isinstance(field, StrictBooleanField)]
    assert lenient == []
    assert {"run_monitoring", "enabled", "enforce", "four_eyes_filing", "has_match", "verified"} <= set(strict)
