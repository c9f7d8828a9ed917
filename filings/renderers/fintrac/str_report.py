"""CA STR: FINTRAC suspicious transaction report JSON (str-schema.json, draft-07).

Every transaction of the form becomes one FINTRAC transaction with one starting action (how it
began: amount, currency or virtual currency, addresses, the conductor) and one completing action
(how it ended: disposition, value in CAD, the beneficiary). For money leaving the customer
(`out`) the customer conducts and the counterparty benefits; for money reaching the customer
(`in`) the named counterparty conducts and the customer benefits (FINTRAC STR guidance, "starting
and completing actions"). Subjects go into `definitions` once per role (parties.Definitions).
"""

from __future__ import annotations

import json
import re

from filings.documents.issues import ValidationIssue, error
from filings.documents.model import SuspiciousActivityForm, Transaction, subject_for
from filings.documents.typologies import TYPOLOGIES
from filings.documents.vocabulary import AmendmentType, Direction, InstitutionType, TaxIdType
from filings.renderers.base import JSON, Renderer, Rendering
from filings.renderers.checks import filer_checks, suspicious_activity_checks
from filings.renderers.fintrac import codes
from filings.renderers.fintrac.parties import Definitions, amount_text, direction_code, reference, value_details
from filings.renderers.formatting import iso_day, iso_time_utc
from filings.renderers.summary import value_in
from filings.renderers.text import Changes, fit, xml_safe

_RE_NUMBER = re.compile(r"^\d{7}$")


def fintrac_filer_checks(form) -> list[ValidationIssue]:
    """FINTRAC's identifiers of the reporting entity (STR and LCTR)."""
    filer, issues = form.filer, []
    if not (filer.reporting_entity_number and _RE_NUMBER.match(filer.reporting_entity_number)):
        issues.append(error("filer.reporting_entity_number", "FINTRAC needs the 7-digit reporting entity number."))
    if filer.regulator_contact_id is None:
        issues.append(error("filer.regulator_contact_id", "FINTRAC needs the id of the contact for this report."))
    if not form.report_reference:
        issues.append(error("report_reference", "FINTRAC needs a report reference number unique to the filer."))
    for index, subject in enumerate(form.subjects):
        if subject.tax_id is not None and subject.tax_id.type == TaxIdType.SIN:
            issues.append(error(f"subjects.{index}.tax_id", "Do not report a Social Insurance Number to FINTRAC; it is left out."))
    return issues


def report_details(form) -> dict:
    filer = form.filer
    number = int(filer.reporting_entity_number) if filer.reporting_entity_number and _RE_NUMBER.match(filer.reporting_entity_number) else 0
    details = {
        "reportTypeCode": codes.REPORT_TYPE_STR,
        "submitTypeCode": codes.SUBMIT_TYPE[form.amendment.type],
        "activitySectorCode": codes.ACTIVITY_SECTOR[filer.institution_type or InstitutionType.VIRTUAL_ASSET_SERVICE_PROVIDER],
        "reportingEntityNumber": number,
        "submittingReportingEntityNumber": number,
        "reportingEntityReportReference": reference(form.report_reference or "report", 100),
        "reportingEntityContactId": filer.regulator_contact_id or 0,
    }
    return details


def dump(document: dict) -> bytes:
    return json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")


class FintracStrRenderer(Renderer):
    kind = "STR"
    family = "suspicious_activity"
    jurisdiction = "CA"
    content_type = JSON
    schema = "fintrac/str-schema.json"
    regulator = "FINTRAC"

    def build(self, form: SuspiciousActivityForm) -> Rendering:
        changes = Changes()
        definitions = Definitions(form, changes)
        transactions = [self._transaction(form, definitions, tx, index, changes) for index, tx in enumerate(form.transactions)]
        definitions.ensure_all()
        document = {
            "reportDetails": report_details(form),
            "detailsOfSuspicion": self._suspicion(form),
            "relatedReports": self._related(form),
            "definitions": definitions.items,
            "transactions": transactions,
        }
        if form.activity.action_taken:
            document["actionTaken"] = {"description": xml_safe(form.activity.action_taken)}
        reference_name = reference(form.report_reference or "report", 60)
        return Rendering(document=dump(document), content_type=JSON, filename=f"STR-{reference_name}.json",
                         changes=tuple(changes.issues()))

    @staticmethod
    def _suspicion(form: SuspiciousActivityForm) -> dict:
        activity = form.activity
        kinds = [TYPOLOGIES[category.typology].fintrac for category in activity.categories]
        # Terrorist financing outranks sanctions evasion, which outranks money laundering.
        kind = next((k for k in ("terrorist_financing", "sanctions_evasion") if k in kinds), "money_laundering")
        projects = [int(code) for code in activity.regulator_codes.get("CA", ()) if code.isdigit() and 0 < int(code) < 100_000]
        suspicion = {"descriptionOfSuspiciousActivity": xml_safe(activity.narrative or ""),
                     "suspicionTypeCode": codes.SUSPICION_TYPE[kind], "publicPrivatePartnershipProjectNameCodes": projects}
        return suspicion

    @staticmethod
    def _related(form: SuspiciousActivityForm) -> list[dict]:
        amendment = form.amendment
        if amendment.type == AmendmentType.INITIAL or not amendment.prior_report_id:
            return []
        return [{"reportingEntityReportReference": reference(amendment.prior_report_id, 100), "reportingEntityTransactionReferences": []}]

    def _transaction(self, form: SuspiciousActivityForm, definitions: Definitions, tx: Transaction, index: int,
                     changes: Changes) -> dict:
        path = f"transactions.{index}"
        subject = subject_for(form, tx)
        subject_index = form.subjects.index(subject) if subject else None
        outgoing = tx.direction == Direction.OUT
        conductors, beneficiaries = [], []
        if subject is not None and outgoing:
            kind, ref = definitions.subject_ref(subject, subject_index, conductor=True)
            conductors.append({"typeCode": kind, "refId": ref, "details": self._conductor_details(subject), "onBehalfOfs": []})
        elif (counterparty := definitions.counterparty_ref(tx.counterparty, f"{path}.counterparty", conductor=True)) is not None:
            conductors.append({"typeCode": counterparty[0], "refId": counterparty[1], "details": {}, "onBehalfOfs": []})
        if subject is not None and not outgoing:
            kind, ref = definitions.subject_ref(subject, subject_index)
            beneficiaries.append({"typeCode": kind, "refId": ref})
        starting = {**value_details(tx, path, changes), "direction": direction_code(tx),
                    "fundAssetVirtualCurrencyTypeCode": codes.VIRTUAL_CURRENCY if tx.is_on_chain else codes.FUNDS,
                    "conductorIndicator": bool(conductors)}
        completing = {**value_details(tx, path, changes), "dispositionCode": self._disposition(tx),
                      "involvementIndicator": False, "beneficiaryIndicator": bool(beneficiaries)}
        cad = value_in(tx, "CAD")
        if cad is not None:
            completing["valueInCanadianDollars"] = amount_text(cad, f"{path}.local_value", changes)
        details = {"attemptedTransactionIndicator": tx.attempted, "dateOfTransaction": iso_day(tx.timestamp),
                   "timeOfTransaction": iso_time_utc(tx.timestamp), "methodCode": codes.METHOD_ONLINE}
        if tx.reference:
            details["reportingEntityTransactionReference"] = reference(tx.reference, 200)
        if tx.description:
            details["purpose"] = fit(tx.description, 200, path=f"{path}.description", changes=changes, label="Purpose")
        return {
            "reportingEntityLocationId": form.filer.reporting_entity_location_id or "",
            "suspiciousTransactionDetails": details,
            "startingActions": [{"details": starting, "sourcesOfFundsOrVirtualCurrency": [], "conductors": conductors}],
            "completingActions": [{"details": completing, "involvements": [], "beneficiaries": beneficiaries}],
        }

    @staticmethod
    def _conductor_details(subject) -> dict:
        details = {}
        if subject.emails:
            details["emailAddress"] = subject.emails[0][:200]
        return details

    @staticmethod
    def _disposition(tx: Transaction) -> int:
        if tx.is_on_chain:
            return codes.DISPOSITION_VIRTUAL_CURRENCY_TRANSFER
        return codes.DISPOSITION.get(tx.fiat_event_type, codes.DISPOSITION_DEPOSIT)

    def check(self, form: SuspiciousActivityForm) -> list[ValidationIssue]:
        issues = [*filer_checks(form, tin=False), *fintrac_filer_checks(form), *suspicious_activity_checks(form)]
        if not form.transactions:
            issues.append(error("transactions", "A FINTRAC STR reports at least one transaction (completed or attempted)."))
        return issues
