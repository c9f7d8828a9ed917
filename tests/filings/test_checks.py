"""Business checks, broken forms with precise errors, and non-ASCII names."""

import json

import pytest
from lxml import etree

from filings.documents.examples import example_large_transaction, example_suspicious_activity
from filings.renderers import large_transaction_renderer, renderer_for, suspicious_activity_renderer
from tests.filings.helpers import DELETE, edit


def errors(review):
    return {issue.path: issue.message for issue in review.errors}


def warnings(review):
    return [(issue.path, issue.message) for issue in review.warnings]


@pytest.mark.parametrize(("changes", "path", "phrase"), [
    ({"activity__narrative": DELETE}, "activity.narrative", "narrative is missing"),
    ({"filer__tin": DELETE}, "filer.tin", "TIN is missing"),
    ({"activity__end_date": "2024-12-01"}, "activity.end_date", "before it starts"),
    ({"activity__amount_involved": "99"}, "activity.amount_involved", "does not match the transactions"),
    ({"subjects__0__given_name": DELETE, "subjects__0__family_name": DELETE}, "subjects.0.family_name", "no name"),
    ({"filer__transmitter_control_code": DELETE}, "filer.transmitter_control_code", "TCC"),
    ({"filer__primary_regulator": "Bank of Narnia"}, "filer.primary_regulator", "not a FinCEN regulator"),
    ({"activity__categories": []}, "activity.categories", "at least one category"),
    ({"amendment": {"type": "correction"}}, "amendment.prior_report_id", "prior report"),
])
def test_us_sar_business_checks(changes, path, phrase):
    review = suspicious_activity_renderer("US").review(edit(example_suspicious_activity("US"), **changes))
    assert not review.valid
    assert phrase in errors(review)[path]


def test_business_subject_without_a_name():
    data = edit(example_suspicious_activity("GB"), subjects__0={"id": "S1", "type": "business"})
    assert "legal name" in errors(suspicious_activity_renderer("GB").review(data))["subjects.0.legal_name"]


def test_australia_refuses_a_tax_file_number_and_needs_aud():
    data = edit(example_suspicious_activity("AU"), subjects__0__tax_id={"number": "123 456 782", "type": "TFN"},
                transactions__0__local_value=DELETE)
    found = errors(renderer_for("SMR", "AU").review(data))
    assert "tax file number" in found["subjects.0.tax_id"]
    assert "AUD" in found["transactions.0.local_value"]


def test_canada_needs_its_identifiers_and_leaves_out_a_sin():
    data = edit(example_suspicious_activity("CA"), filer__reporting_entity_number="12",
                subjects__0__tax_id={"number": "046 454 286", "type": "SIN"})
    review = renderer_for("STR", "CA").review(data)
    assert "7-digit" in errors(review)["filer.reporting_entity_number"]
    assert "Social Insurance Number" in errors(review)["subjects.0.tax_id"]
    assert "046 454 286" not in review.rendering.document.decode()


def test_ctr_under_the_threshold_is_a_warning():
    data = edit(example_large_transaction("US", transactions=1), transactions__0__amount="500", transactions__0__usd_value="500")
    review = large_transaction_renderer("US").review(data)
    assert review.valid and any("reporting threshold" in message for _, message in warnings(review))


def test_ctr_without_usd_value_for_foreign_currency():
    data = edit(example_large_transaction("US", transactions=1), transactions__0__currency="EUR", transactions__0__usd_value=DELETE)
    assert "usd_value" in errors(large_transaction_renderer("US").review(data))["transactions.0"]


class TestBrokenForms:
    def test_unreadable_form_gives_field_paths_and_no_document(self):
        review = renderer_for("SAR", "US").review({"subjects": [{"birth_date": "yesterday"}], "activity": {"amount_involved": "lots"}})
        assert review.rendering is None and not review.valid
        assert {item["path"] for item in review.as_dict()["errors"]} == {"subjects.0.birth_date", "activity.amount_involved"}
        assert all(item["line"] is None for item in review.as_dict()["errors"])

    def test_xml_schema_errors_carry_line_and_path(self):
        renderer = renderer_for("SAR", "US")
        review = renderer.review(edit(example_suspicious_activity("US"), activity__start_date=DELETE, activity__categories=[]))
        schema = [issue for issue in review.errors if issue.source == "schema"]
        assert schema, review.issues
        document = review.rendering.document.decode().splitlines()
        for issue in schema:
            assert issue.line and "SuspiciousActivity" in issue.path and issue.message
            assert "SuspiciousActivity" in document[issue.line - 1]
        assert {"activity.start_date", "activity.categories"} <= {issue.path for issue in review.errors}

    def test_validate_a_tampered_document(self):
        renderer = renderer_for("CTR", "US")
        form = renderer.parse(example_large_transaction("US"))
        document = renderer.render(form).replace(b"<fc2:TotalCashOutAmountText>", b"<fc2:TotalCashOutAmountText>1234567890123456", 1)
        (issue,) = renderer.validate(document)
        line = document.decode().splitlines()[issue.line - 1]
        assert "TotalCashOutAmountText" in line and "TotalCashOutAmountText" in issue.path and issue.source == "schema"

    def test_json_schema_errors_carry_a_pointer(self):
        renderer = renderer_for("STR", "CA")
        review = renderer.review(edit(example_suspicious_activity("CA"), transactions=[]))
        schema = [issue for issue in review.errors if issue.source == "schema"]
        assert [(issue.path, issue.line) for issue in schema] == [("/transactions", None)]
        assert "transactions" in errors(review)
        document = json.loads(renderer.render(renderer.parse(example_suspicious_activity("CA"))))
        document["reportDetails"]["reportingEntityNumber"] = "one"
        (issue,) = renderer.validate(json.dumps(document).encode())
        assert issue.path == "/reportDetails/reportingEntityNumber" and "number" in issue.message

    def test_not_well_formed(self):
        (issue,) = renderer_for("SMR", "AU").validate(b"<smrList>\n<oops></smrList>")
        assert issue.line == 2 and "well-formed" in issue.message


class TestNames:
    def test_fincen_transliterates_and_reports_it(self):
        review = renderer_for("SAR", "US").review(example_suspicious_activity("US", subjects=3))
        document = review.rendering.document.decode()
        parties, narrative = document.split("<fc2:ActivityNarrativeText>")
        assert "Mariya" in parties and "Ivanova" in parties and "Angstrom" in parties and "Мария" not in parties
        assert "Мария Иванова" in narrative  # the original, in the narrative
        assert ("subjects.1.family_name", "Family name 'Иванова' was transliterated to Latin letters as 'Ivanova'.") in warnings(review)

    def test_script_without_transliteration_is_sent_as_written_and_reported(self):
        data = edit(example_suspicious_activity("US"), subjects__0__given_name="太郎", subjects__0__family_name="山田")
        review = renderer_for("SAR", "US").review(data)
        assert review.valid and "山田" in review.rendering.document.decode()
        assert any(path == "subjects.0.family_name" and "no Latin transliteration" in message for path, message in warnings(review))

    @pytest.mark.parametrize(("kind", "jurisdiction"), [("SMR", "AU"), ("STR", "CA"), ("STR", "FR")])
    def test_other_regulators_keep_the_script(self, kind, jurisdiction):
        review = renderer_for(kind, jurisdiction).review(example_suspicious_activity(jurisdiction, subjects=3))
        document = review.rendering.document.decode()
        assert review.valid and "Иванова" in document and "محمد" in document
        assert not [message for _, message in warnings(review) if "transliterated" in message]

    def test_long_names_are_cut_and_reported(self):
        data = edit(example_suspicious_activity("US"), subjects__0__given_name="Maximilian" * 5)
        review = renderer_for("SAR", "US").review(data)
        first = etree.fromstring(review.rendering.document).findall(".//{www.fincen.gov/base}RawIndividualFirstName")[0].text
        assert len(first) <= 35 and any("truncated to 35" in message for _, message in warnings(review))
