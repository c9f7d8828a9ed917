"""CA LCTR: a FINTRAC large cash transaction report, as JSON in the project's own schema.

FINTRAC publishes no JSON Schema for the LCTR in the reference material, so
`filings/schemas/lctr.schema.json` is the project's own, written from FINTRAC's published field
list ("Reporting large cash transactions to FINTRAC", Annex A: general information, transaction
information, starting action, completing action) in the style of FINTRAC's STR API schema: the
same `reportDetails`, `definitions` (persons and entities by refId) and starting/completing
actions, plus the LCTR's own fields — the aggregation type and 24-hour window (PCMLTFR s. 126,
the 24-hour rule) and the threshold indicator of each transaction.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from filings.documents.issues import ValidationIssue, warning
from filings.documents.model import LargeTransactionForm, Transaction, subject_for
from filings.documents.vocabulary import AggregationBasis, Direction, SubjectRole
from filings.renderers.base import JSON, Renderer, Rendering
from filings.renderers.checks import filer_checks, large_transaction_checks
from filings.renderers.fintrac import codes
from filings.renderers.fintrac.parties import Definitions, amount_text, reference
from filings.renderers.fintrac.str_report import dump, fintrac_filer_checks, report_details
from filings.renderers.formatting import iso_day, iso_moment_utc, iso_time_utc
from filings.renderers.summary import value_in
from filings.renderers.text import Changes, fit

THRESHOLD = Decimal(10_000)
SCHEMA_ID = "https://compliance-service.example/schemas/fintrac-lctr/1"


class FintracLctrRenderer(Renderer):
    kind = "LCTR"
    family = "large_transaction"
    jurisdiction = "CA"
    content_type = JSON
    schema = "lctr.schema.json"
    regulator = "FINTRAC"

    def build(self, form: LargeTransactionForm) -> Rendering:
        changes = Changes()
        definitions = Definitions(form, changes)
        transactions = [self._transaction(form, definitions, tx, index, changes) for index, tx in enumerate(form.transactions)]
        definitions.ensure_all()
        details = report_details(form)
        del details["reportTypeCode"]
        details.update(self._window(form))
        document = {"$schema": SCHEMA_ID, "reportDetails": details, "definitions": definitions.items, "transactions": transactions}
        name = f"LCTR-{reference(form.report_reference or 'report', 60)}.json"
        return Rendering(document=dump(document), content_type=JSON, filename=name, changes=tuple(changes.issues()))

    @staticmethod
    def _window(form: LargeTransactionForm) -> dict:
        """Aggregation type and the 24-hour window: from the first transaction, 24 hours."""
        basis = form.aggregation_basis or (AggregationBasis.CONDUCTOR if len(form.transactions) > 1 else AggregationBasis.NOT_APPLICABLE)
        first = min((tx.timestamp for tx in form.transactions), default=None)
        window = {"aggregationType": basis.value}
        if first is not None:
            window["twentyFourHourPeriodStart"] = iso_moment_utc(first)
            window["twentyFourHourPeriodEnd"] = iso_moment_utc(first + timedelta(hours=24) - timedelta(seconds=1))
        return window

    def _transaction(self, form: LargeTransactionForm, definitions: Definitions, tx: Transaction, index: int, changes: Changes) -> dict:
        path = f"transactions.{index}"
        conductor = subject_for(form, tx)
        represented = [(i, s) for i, s in enumerate(form.subjects) if s.role == SubjectRole.ON_BEHALF_OF]
        beneficiaries = [(i, s) for i, s in enumerate(form.subjects) if s.role == SubjectRole.BENEFICIARY] or (
            [(form.subjects.index(conductor), conductor)] if conductor else [])
        conductors = []
        if conductor is not None:
            kind, ref = definitions.subject_ref(conductor, form.subjects.index(conductor), conductor=True)
            on_behalf = [dict(zip(("typeCode", "refId"), definitions.subject_ref(s, i, conductor=True), strict=True))
                         for i, s in represented]
            conductors.append({"typeCode": kind, "refId": ref, "onBehalfOfs": on_behalf})
        cad = value_in(tx, "CAD")
        starting = {"amount": amount_text(tx.amount, f"{path}.amount", changes), "currencyCode": tx.currency[:3],
                    "direction": "received" if tx.direction != Direction.OUT else "disbursed"}
        completing = {"dispositionCode": codes.DISPOSITION.get(tx.fiat_event_type, codes.DISPOSITION_DEPOSIT),
                      "amount": starting["amount"], "currencyCode": starting["currencyCode"]}
        if cad is not None:
            completing["valueInCanadianDollars"] = amount_text(cad, f"{path}.local_value", changes)
        details = {"dateOfTransaction": iso_day(tx.timestamp), "timeOfTransaction": iso_time_utc(tx.timestamp),
                   "methodCode": codes.METHOD_IN_PERSON, "thresholdIndicator": "above" if cad is not None and cad >= THRESHOLD else "below"}
        if tx.reference:
            details["reportingEntityTransactionReference"] = reference(tx.reference, 200)
        if tx.description:
            details["purpose"] = fit(tx.description, 200, path=f"{path}.description", changes=changes, label="Purpose")
        return {
            "reportingEntityLocationId": form.filer.reporting_entity_location_id or "",
            "transactionDetails": details,
            "startingActions": [{"details": starting, "conductors": conductors}],
            "completingActions": [{"details": completing, "beneficiaries": [
                dict(zip(("typeCode", "refId"), definitions.subject_ref(s, i), strict=True)) for i, s in beneficiaries]}],
        }

    def check(self, form: LargeTransactionForm) -> list[ValidationIssue]:
        issues = [*filer_checks(form, tin=False), *fintrac_filer_checks(form),
                  *large_transaction_checks(form, currency="CAD", threshold=THRESHOLD)]
        moments = [tx.timestamp for tx in form.transactions]
        if moments and max(moments) - min(moments) >= timedelta(hours=24):
            issues.append(warning("transactions", "The transactions span more than 24 hours; FINTRAC's 24-hour rule expects one "
                                                  "report per 24-hour window (PCMLTFR s. 126).", source="business"))
        return issues
