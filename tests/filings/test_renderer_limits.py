"""Values at and past the regulators' limits: uint256-scale amounts, more CTR details than FinCEN
takes, cents in many details, a person with no address, an amount involved over 15 digits. Each is
rendered exactly or reported as an error naming the field — never an exception, never a silent
drop — and every document called valid validates against the regulator's own schema."""

from decimal import Decimal

import pytest
from lxml import etree

from filings.documents.examples import example_large_transaction, example_suspicious_activity
from filings.renderers import large_transaction_renderer, suspicious_activity_renderer
from filings.renderers.formatting import fixed, plain, whole_dollars
from tests.filings.helpers import edit, independent_errors
from tests.filings.test_documents_validate import assert_valid

# 2**256 - 1 wei in ether: the largest on-chain amount there is.
UINT256_ETH = "115792089237316195423570985008687907853269984665640564039457.584007913129639935"
FINCEN = {"fc2": "www.fincen.gov/base"}
AUSTRAC = {"smr": "http://austrac.gov.au/schema/reporting/SMR-2-0"}


def fincen_text(document: bytes, tag: str) -> list[str]:
    return [element.text for element in etree.fromstring(document).iterfind(f".//fc2:{tag}", FINCEN)]


def ctr_of(transactions: list[dict], **changes) -> dict:
    return edit(example_large_transaction("US", transactions=1, subjects=1), transactions=transactions, **changes)


def inflow(index: int, amount: str, currency: str) -> dict:
    return {"reference": f"t{index}", "timestamp": "2025-02-03T09:00:00Z", "amount": amount, "currency": currency,
            "usd_value": amount, "direction": "in", "subject_id": "S1"}


class TestWideAmounts:
    def test_formatting_keeps_every_digit(self):
        amount = Decimal(UINT256_ETH)
        assert plain(amount, max_places=10) == "115792089237316195423570985008687907853269984665640564039457.5840079131"
        assert fixed(Decimal("9" * 40), 2) == "9" * 40 + ".00"
        assert whole_dollars(Decimal("1" * 78 + ".01")) == "1" * 77 + "2"

    @pytest.mark.parametrize(("jurisdiction", "element"), [("AU", "numberOfUnits"), ("CA", "details/amount")])
    def test_uint256_units_fail_the_schema_not_the_renderer(self, jurisdiction, element):
        renderer = suspicious_activity_renderer(jurisdiction)
        review = renderer.review(edit(example_suspicious_activity(jurisdiction, transactions=2, subjects=1),
                                      transactions__0__amount=UINT256_ETH, transactions__0__currency="ETH"))
        assert review.valid is False
        assert any(element in issue.path or element in issue.message for issue in review.errors)
        assert b"115792089237316195423570985008687907853269984665640564039457.5840079131" in review.rendering.document

    @pytest.mark.parametrize("jurisdiction", ["AU", "CA"])
    def test_an_exponent_past_uint256_is_refused_when_read(self, jurisdiction):
        """"1e300" has one digit but 301 in a document: the form reader refuses it, like 97 digits."""
        currency = {"AU": "AUD", "CA": "CAD"}[jurisdiction]
        review = suspicious_activity_renderer(jurisdiction).review(edit(
            example_suspicious_activity(jurisdiction, transactions=2, subjects=1),
            transactions__0__local_value={"amount": "1e300", "currency": currency}))
        assert review.valid is False and review.rendering is None
        assert [issue.path for issue in review.errors] == ["transactions.0.local_value.amount"]

    def test_smr_grand_total_of_a_40_digit_aud_value_is_exact(self):
        renderer = suspicious_activity_renderer("AU")
        review = renderer.review(edit(example_suspicious_activity("AU", transactions=2, subjects=1), activity__currency="AUD",
                                      activity__amount_involved=None, transactions__0__local_value={"amount": "9" * 40, "currency": "AUD"}))
        assert review.valid is False
        assert any("grandTotal" in issue.message for issue in review.errors)
        root = etree.fromstring(review.rendering.document)
        # 10**40 - 1 plus the second transaction's 1,424.26 AUD (the example's), every digit kept
        assert root.findtext(".//smr:grandTotal", namespaces=AUSTRAC) == "1" + "0" * 36 + "1423.26"

    def test_ctr_total_of_a_78_digit_amount_is_exact_and_too_long(self):
        renderer = large_transaction_renderer("US")
        review = renderer.review(ctr_of([{**inflow(0, "1" * 78, "USD"), "fiat_event_type": "cash_deposit"},
                                         {**inflow(1, "1", "USD"), "fiat_event_type": "cash_deposit"}]))
        assert review.valid is False
        assert any("TotalCashInReceiveAmountText" in issue.path for issue in review.errors)
        assert etree.fromstring(review.rendering.document).get("TotalAmount") == "1" * 77 + "2"
        assert fincen_text(review.rendering.document, "TotalCashInReceiveAmountText") == ["1" * 77 + "2"]


class TestCtrDetails:
    def test_more_details_than_fincen_takes_is_an_error_naming_the_day(self):
        renderer = large_transaction_renderer("US")
        review = renderer.review(ctr_of([inflow(index, "100", f"TOK{index}") for index in range(230)]))
        assert review.valid is False
        (issue,) = [issue for issue in review.errors if issue.path == "transactions"]
        assert "2025-02-03" in issue.message and "230" in issue.message and "219" in issue.message
        assert len(fincen_text(review.rendering.document, "DetailTransactionAmountText")) == 219
        assert independent_errors("CTR", "US", review.rendering.document) == []

    def test_as_many_details_as_fincen_takes_add_up(self):
        renderer = large_transaction_renderer("US")
        review = renderer.review(ctr_of([inflow(index, "100", f"TOK{index}") for index in range(219)]))
        assert_valid(renderer, review)
        details = fincen_text(review.rendering.document, "DetailTransactionAmountText")
        assert len(details) == 219 and fincen_text(review.rendering.document, "TotalCashInReceiveAmountText") == ["21900"]

    def test_every_detail_is_rounded_up_and_the_totals_are_their_sum(self):
        renderer = large_transaction_renderer("US")
        review = renderer.review(ctr_of([inflow(index, "1000.40", f"TOK{index}") for index in range(14)]))
        assert_valid(renderer, review)
        document = review.rendering.document
        assert fincen_text(document, "DetailTransactionAmountText") == ["1001"] * 14
        assert fincen_text(document, "TotalCashInReceiveAmountText") == ["14014"]
        assert fincen_text(document, "IndividualEntityCashInAmountText") == ["14014"]
        assert etree.fromstring(document).get("TotalAmount") == "14014"

    def test_the_threshold_is_on_the_amounts_not_the_rounded_details(self):
        """31 CFR 1010.311: more than $10,000 in currency; rounding each detail up does not make a
        day of 9,999.80 reportable."""
        renderer = large_transaction_renderer("US")
        review = renderer.review(ctr_of([inflow(index, "499.99", f"TOK{index}") for index in range(20)]))
        assert fincen_text(review.rendering.document, "TotalCashInReceiveAmountText") == ["10000"]
        assert any("9999.80" in issue.message for issue in review.warnings)


def test_ctr_person_without_an_address_is_marked_unknown():
    renderer = large_transaction_renderer("US")
    data = example_large_transaction("US", transactions=3, subjects=1)
    data["subjects"].append({"id": "S3", "type": "individual", "given_name": "Wei", "family_name": "王", "role": "conductor"})
    data["transactions"][2]["subject_id"] = "S3"
    review = renderer.review(data)
    assert_valid(renderer, review)
    root = etree.fromstring(review.rendering.document)
    (party,) = [party for party in root.iterfind(".//fc2:Party", FINCEN)
                if party.findtext("fc2:PartyName/fc2:RawIndividualFirstName", namespaces=FINCEN) == "Wei"]
    address = party.find("fc2:Address", FINCEN)
    assert {etree.QName(child).localname: child.text for child in address} == {
        "CityUnknownIndicator": "Y", "CountryCodeUnknownIndicator": "Y", "StateCodeUnknownIndicator": "Y",
        "StreetAddressUnknownIndicator": "Y", "ZIPCodeUnknownIndicator": "Y"}


class TestSarAmountInvolved:
    @staticmethod
    def review(amount: str):
        data = example_suspicious_activity("US", transactions=2, subjects=1)
        second = Decimal(data["transactions"][1]["usd_value"])
        data = edit(data, activity__amount_involved=amount, transactions__0__usd_value=str(Decimal(amount) - second))
        return suspicious_activity_renderer("US").review(data)

    def test_over_15_digits_is_an_error_and_the_amount_unknown(self):
        review = self.review("99999999999999999")
        assert review.valid is False
        assert [issue.path for issue in review.errors] == ["activity.amount_involved"]
        document = review.rendering.document
        assert fincen_text(document, "TotalSuspiciousAmountText") == []
        assert fincen_text(document, "AmountUnknownIndicator") == ["Y"]
        assert independent_errors("SAR", "US", document) == []

    def test_15_digits_are_reported(self):
        renderer = suspicious_activity_renderer("US")
        review = self.review("999999999999999")
        assert_valid(renderer, review)
        document = review.rendering.document
        assert fincen_text(document, "TotalSuspiciousAmountText") == ["999999999999999"]
        assert fincen_text(document, "AmountUnknownIndicator") == []
        assert etree.fromstring(document).get("TotalAmount") == "999999999999999"
