"""Form data -> model: types, field-path errors, the exact round trip."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from filings.documents import FormInvalid, as_json, parse_large_transaction_form, parse_suspicious_activity_form
from filings.documents.examples import example_large_transaction, example_suspicious_activity
from tests.filings.helpers import DELETE, edit


def issues_of(data, parse=parse_suspicious_activity_form):
    with pytest.raises(FormInvalid) as caught:
        parse(data)
    return {issue.path: issue.message for issue in caught.value.issues}


@pytest.mark.parametrize("jurisdiction", ["US", "CA", "AU", "GB"])
def test_round_trip_is_exact(jurisdiction):
    data = example_suspicious_activity(jurisdiction, transactions=20, subjects=6)
    form = parse_suspicious_activity_form(data)
    assert parse_suspicious_activity_form(as_json(form)) == form
    large = parse_large_transaction_form(example_large_transaction(jurisdiction, transactions=5))
    assert parse_large_transaction_form(as_json(large)) == large


def test_filer_profile_passes_straight_in():
    profile = {"legal_name": "Acme Bank N.A.", "tin": "12-3456789", "tin_type": "EIN",
               "address": {"line1": "1 Main St", "city": "Springfield", "state": "IL", "postal_code": "62701", "country": "us"},
               "primary_regulator": "OCC", "contact_office": "BSA Office", "contact_phone": "+1 217 555 0100"}
    form = parse_suspicious_activity_form({"filer": profile})
    assert form.filer.address.country == "US" and form.filer.tin_type == "EIN"


def test_typed_values():
    form = parse_suspicious_activity_form(example_suspicious_activity("US", transactions=2))
    tx = form.transactions[0]
    assert isinstance(tx.amount, Decimal) and tx.timestamp.tzinfo == UTC and tx.currency == "USDC"
    assert form.activity.start_date.isoformat() == "2025-01-02"


def test_offsets_become_utc_and_numbers_are_accepted():
    data = edit(example_suspicious_activity("US", transactions=1), transactions__0__timestamp="2025-01-02T10:00:00+02:00",
                transactions__0__amount=1250.5)
    tx = parse_suspicious_activity_form(data).transactions[0]
    assert tx.timestamp == datetime(2025, 1, 2, 8, 0, tzinfo=UTC) and tx.amount == Decimal("1250.5")


def test_errors_name_every_field():
    data = example_suspicious_activity("US", transactions=2)
    data = edit(data, filer__address__country="XX", subjects__0__birth_date="1990-02-30", subjects__1__favourite="blue",
                transactions__0__timestamp="2025-01-02T10:00:00", transactions__1__amount="-5",
                activity__categories=["structuring", "alchemy"], activity__currency="ZZZ")
    issues = issues_of(data)
    assert issues["filer.address.country"] == "'XX' is not an ISO 3166-1 alpha-2 country code."
    assert "not a date" in issues["subjects.0.birth_date"]
    assert issues["subjects.1.favourite"] == "Unknown field."
    assert issues["transactions.0.timestamp"] == "The timestamp needs a UTC offset or Z."
    assert "zero or more" in issues["transactions.1.amount"]
    assert "not a known typology" in issues["activity.categories.1.typology"]
    assert "ISO 4217" in issues["activity.currency"]


def test_missing_required_values_and_wrong_types():
    data = edit(example_suspicious_activity("US", transactions=1), transactions__0__currency=DELETE,
                subjects__0__id_documents=[{"type": "visa", "number": ""}], subjects__0__emails="a@example.com")
    issues = issues_of(data)
    assert issues["transactions.0.currency"] == "This field is required."
    assert "is not one of" in issues["subjects.0.id_documents.0.type"]
    assert issues["subjects.0.id_documents.0.number"] == "This field is required."
    assert issues["subjects.0.emails"] == "Expected a list."


def test_references_between_subjects_and_transactions():
    data = edit(example_suspicious_activity("US", transactions=1, subjects=2), transactions__0__subject_id="S9", subjects__1__id="S1")
    issues = issues_of(data)
    assert issues["transactions.0.subject_id"] == "No subject has the id 'S9'."
    assert issues["subjects.1.id"] == "Duplicate subject id 'S1'."


def test_not_an_object():
    assert issues_of([1, 2]) == {"$": "Expected a JSON object."}
    assert "aggregation_basis" in issues_of({"aggregation_basis": "weekly"}, parse_large_transaction_form)
