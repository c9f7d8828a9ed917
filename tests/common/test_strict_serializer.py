"""StrictSerializer: undeclared fields and JSON numbers for text fields are 422s, each named."""

import pytest
from rest_framework import serializers

from common.api.serializers import StrictSerializer, validated
from monitoring.api.ingest_serializers import AmountField


class Sample(StrictSerializer):
    name = serializers.CharField()
    email = serializers.EmailField(required=False)
    count = serializers.IntegerField(required=False)
    amount = AmountField(required=False)
    echo = serializers.CharField(read_only=True)


def errors(data) -> dict:
    with pytest.raises(serializers.ValidationError) as caught:
        validated(Sample, data)
    return caught.value.detail


@pytest.mark.parametrize("value", [5, 0, -1, 1.5, 1e3])
def test_a_number_for_text_is_refused_by_name(value):
    assert errors({"name": value}) == {"name": ["Give text here (a JSON string), not a number."]}


def test_each_mistake_is_named_in_one_answer():
    found = errors({"name": 7, "email": 8, "nmae": "x"})
    assert set(found) == {"name", "email", "nmae"}


def test_text_numbers_where_numbers_are_taken_and_booleans_as_before():
    assert validated(Sample, {"name": "5", "count": 5, "amount": 1500}) == {"name": "5", "count": 5, "amount": "1500"}
    assert "name" in errors({"name": True})  # DRF's own refusal
    assert "name" in errors({"name": None})
