"""Documents of every kind, for entities of each jurisdiction, validate against the schemas —
checked with lxml / jsonschema directly against the regulators' files in filings/schemas (or the project's own schema
for LCTR, TTR and the generic STR), not only through the renderers' own validation."""

import csv
import io
import json

import pytest
from lxml import etree

from filings.documents.examples import example_large_transaction, example_suspicious_activity
from filings.renderers import large_transaction_renderer, suspicious_activity_renderer
from tests.filings.helpers import edit, independent_errors

SUSPICIOUS = ["US", "CA", "AU", "GB", "JP", "DE", "FR", "NL", "BR"]
LARGE = ["US", "CA", "AU"]


def assert_valid(renderer, review):
    assert review.rendering is not None
    assert [issue.as_dict() for issue in review.errors] == []
    assert independent_errors(renderer.kind, renderer.jurisdiction, review.rendering.document) == []
    assert review.valid


@pytest.mark.parametrize("jurisdiction", SUSPICIOUS)
def test_suspicious_activity_report_validates(jurisdiction):
    renderer = suspicious_activity_renderer(jurisdiction)
    assert_valid(renderer, renderer.review(example_suspicious_activity(jurisdiction, transactions=5, subjects=10)))


@pytest.mark.parametrize("jurisdiction", LARGE)
def test_large_transaction_report_validates(jurisdiction):
    renderer = large_transaction_renderer(jurisdiction)
    assert_valid(renderer, renderer.review(example_large_transaction(jurisdiction, transactions=3, subjects=2)))


@pytest.mark.parametrize("jurisdiction", ["US", "CA", "AU", "GB"])
def test_thousand_transactions(jurisdiction):
    renderer = suspicious_activity_renderer(jurisdiction)
    assert_valid(renderer, renderer.review(example_suspicious_activity(jurisdiction, transactions=1000, subjects=10)))
    large = large_transaction_renderer(jurisdiction)
    if large:
        assert_valid(large, large.review(example_large_transaction(jurisdiction, transactions=1000, subjects=3)))


def test_minimal_forms_render_schema_valid_documents_with_business_errors():
    """An empty draft still renders; what is missing is reported, not hidden."""
    for jurisdiction in ("US", "AU", "GB"):
        renderer = suspicious_activity_renderer(jurisdiction)
        review = renderer.review({"subjects": [{"family_name": "Doe"}], "activity": {"start_date": "2025-01-01",
                                                                                     "categories": ["other"]}})
        assert not review.valid
        assert {"filer.legal_name", "activity.narrative"} <= {issue.path for issue in review.errors}


class TestSar:
    def test_parties_counts_and_attachment(self):
        renderer = suspicious_activity_renderer("US")
        review = renderer.review(example_suspicious_activity("US", transactions=1000, subjects=10))
        root = etree.fromstring(review.rendering.document)
        ns = {"fc2": "www.fincen.gov/base"}
        codes = [code.text for code in root.iterfind(".//fc2:Party/fc2:ActivityPartyTypeCode", ns)]
        assert codes[:5] == ["35", "37", "30", "8", "34"] and codes.count("33") == 10
        assert root.get("PartyCount") == "10" and root.get("ActivityCount") == "1" and root.get("AttachmentCount") == "1"
        assert root.get("TotalAmount") == root.findtext(".//fc2:TotalSuspiciousAmountText", namespaces=ns)
        subtypes = [int(value.text) for value in root.iterfind(".//fc2:SuspiciousActivitySubtypeID", ns)]
        assert subtypes == [114, 8999, 925]  # structuring, mixer ("other" money laundering), rapid movement
        (name, content), = review.rendering.attachments.items()
        assert root.findtext(".//fc2:OriginalAttachmentFileName", namespaces=ns) == name
        assert len(list(csv.reader(io.StringIO(content.decode())))) == 1001

    def test_long_narrative_is_cut_into_blocks(self):
        renderer = suspicious_activity_renderer("US")
        data = edit(example_suspicious_activity("US"), activity__narrative="word " * 2500)
        review = renderer.review(data)
        assert_valid(renderer, review)
        root = etree.fromstring(review.rendering.document)
        blocks = root.findall(".//{www.fincen.gov/base}ActivityNarrativeText")
        assert len(blocks) == 4 and all(len(block.text) <= 4000 for block in blocks)

    def test_too_long_narrative_is_an_error_but_the_document_stays_valid(self):
        renderer = suspicious_activity_renderer("US")
        review = renderer.review(edit(example_suspicious_activity("US"), activity__narrative="x" * 18_000))
        assert any(issue.path == "activity.narrative" and "17000" in issue.message for issue in review.errors)
        assert independent_errors("SAR", "US", review.rendering.document) == []


class TestCtr:
    def test_one_activity_per_business_day_and_details_add_up(self):
        renderer = large_transaction_renderer("US")
        review = renderer.review(example_large_transaction("US", transactions=300, subjects=2))
        assert_valid(renderer, review)
        ns = {"fc2": "www.fincen.gov/base"}
        root = etree.fromstring(review.rendering.document)
        activities = root.findall("fc2:Activity", ns)
        days = [activity.findtext(".//fc2:TransactionDateText", namespaces=ns) for activity in activities]
        assert len(days) == len(set(days)) == int(root.get("ActivityCount")) > 1
        total = 0
        for activity in activities:
            cash_in = int(activity.findtext(".//fc2:TotalCashInReceiveAmountText", namespaces=ns))
            cash_out = int(activity.findtext(".//fc2:TotalCashOutAmountText", namespaces=ns))
            details = {}
            for detail in activity.iterfind(".//fc2:CurrencyTransactionActivityDetail", ns):
                code = detail.findtext("fc2:CurrencyTransactionActivityDetailTypeCode", namespaces=ns)
                details[code] = details.get(code, 0) + int(detail.findtext("fc2:DetailTransactionAmountText", namespaces=ns))
            assert sum(v for k, v in details.items() if k in {"55", "23", "12", "49", "997", "53"}) == cash_in
            assert sum(v for k, v in details.items() if k in {"56", "32", "13", "48", "998", "54"}) == cash_out
            total += cash_in + cash_out
        assert int(root.get("TotalAmount")) == total
        assert int(root.get("PartyCount")) == len(root.findall(".//fc2:Party", ns))


def test_fintrac_str_references_resolve():
    renderer = suspicious_activity_renderer("CA")
    document = json.loads(renderer.render(renderer.parse(example_suspicious_activity("CA", transactions=50, subjects=4))))
    defined = {item["refId"] for item in document["definitions"]}
    used = {party["refId"] for tx in document["transactions"] for action in tx["startingActions"] for party in action["conductors"]}
    used |= {party["refId"] for tx in document["transactions"] for action in tx["completingActions"] for party in action["beneficiaries"]}
    assert used <= defined and len(document["transactions"]) == 50
