"""AU SMR: the AUSTRAC suspicious matter report XML (SMRSchema.xsd, SMR-2-0, rev 2.0a).

Subjects who are suspected (role subject/conductor/on behalf of) are `suspPerson`, others
(beneficiaries, other parties) `otherPerson`. Each transaction is a `txnDetail` with its AUD
amount, its foreign currency or digital currency, and the sender and payee: the subject by
reference (`sameAsSuspPerson`/`sameAsOtherPerson`) and the counterparty in full (`other`).

Transaction types: AUSTRAC's TransactionType codes are not explained in the schema, so each
transaction is reported as `OTHERS` with a description in `txnTypeOther` — the reference schema's
representation of the specification's "other transaction type" choice (see the schema header).
Reasons for suspicion come from the typology table (filings/documents/typologies.py).
"""

from __future__ import annotations

from decimal import Decimal

from lxml import etree

from filings.documents.issues import ValidationIssue, error
from filings.documents.model import Subject, SuspiciousActivityForm, Transaction, subject_for
from filings.documents.typologies import TYPOLOGIES
from filings.documents.vocabulary import FIAT_EVENT_LABEL, AmendmentType, Direction, SubjectRole, TaxIdType
from filings.renderers.austrac.common import ALPHANUMERIC, Writer, designated_service, file_name, re_number
from filings.renderers.base import XML, Renderer, Rendering
from filings.renderers.checks import filer_checks, suspicious_activity_checks
from filings.renderers.formatting import is_fiat, iso_day, plain
from filings.renderers.summary import amount_involved, value_in
from filings.renderers.text import Changes, keep_only, xml_safe

NAMESPACE = "http://austrac.gov.au/schema/reporting/SMR-2-0"
_SUSPECTED = frozenset((SubjectRole.SUBJECT, SubjectRole.CONDUCTOR, SubjectRole.ON_BEHALF_OF))
# Offence ranking: terrorism financing first (24-hour deadline, AML/CTF Act s. 41(2)(a)).
_OFFENCE_ORDER = ("TF", "ML", "PC", "TE")


def austrac_filer_checks(form) -> list[ValidationIssue]:
    """AUSTRAC's identifier of the reporting entity and its ban on tax file numbers (SMR and TTR)."""
    issues = []
    number = form.filer.reporting_entity_number or ""
    if not (number.isdigit() and len(number) <= 7):
        issues.append(error("filer.reporting_entity_number", "AUSTRAC needs the reporting entity's number (up to 7 digits)."))
    for index, subject in enumerate(form.subjects):
        # Taxation Administration Act 1953 s. 8WB: a TFN must not be disclosed to AUSTRAC.
        if subject.tax_id is not None and subject.tax_id.type == TaxIdType.TFN:
            issues.append(error(f"subjects.{index}.tax_id", "A tax file number must not be reported to AUSTRAC; remove it."))
    return issues


class AustracSmrRenderer(Renderer):
    kind = "SMR"
    family = "suspicious_activity"
    jurisdiction = "AU"
    content_type = XML
    schema = "austrac/SMRSchema.xsd"
    regulator = "AUSTRAC"

    def build(self, form: SuspiciousActivityForm) -> Rendering:
        changes = Changes()
        writer = Writer(NAMESPACE, "smrList", form, changes)
        name = file_name("SMR", self.filing_day(form))
        writer.add(writer.root, "reNumber", re_number(form))
        writer.add(writer.root, "fileName", name)
        writer.add(writer.root, "reportCount", "1")
        smr = writer.node(writer.root, "smr")
        self._header(writer, smr)
        self._details(writer, smr)
        grounds = writer.node(smr, "suspGrounds", "grounds")
        writer.required(grounds, "groundsForSuspicion", xml_safe(form.activity.narrative or ""))
        refs = self._persons(writer, smr)
        for index, tx in enumerate(form.transactions):
            self._transaction(writer, smr, tx, index, refs)
        self._additional(writer, smr)
        return Rendering(document=writer.serialise(), content_type=XML, filename=name, changes=tuple(changes.issues()))

    @staticmethod
    def _header(writer: Writer, smr: etree._Element) -> None:
        header = writer.node(smr, "header")
        writer.add(header, "reReportRef", writer.fit(writer.form.report_reference, 40, "report_reference", "Report reference"))
        writer.branch(header, "reportingBranch")

    @staticmethod
    def _details(writer: Writer, smr: etree._Element) -> None:
        form = writer.form
        details = writer.node(smr, "smDetails", "details")
        writer.add(details, "designatedSvc", designated_service(form))
        writer.add(details, "designatedSvcProvided", "Y" if form.transactions else "N")
        reasons: dict[str, list[str]] = {}
        for category in form.activity.categories:
            typology = TYPOLOGIES[category.typology]
            texts = reasons.setdefault(typology.austrac, [])
            if typology.austrac == "OTHERS":
                texts.append(category.description if category.typology == "other" and category.description else typology.label)
        for code in form.activity.regulator_codes.get("AU", ()):
            reasons.setdefault(code.upper(), [])
        for code, texts in reasons.items():
            element = writer.element(details, "suspReasons")
            writer.add(element, "suspReason", code)
            if code == "OTHERS":
                writer.add(element, "suspReasonOther", writer.fit("; ".join(texts), 200, "activity.categories", "Other reason"))
        amount, derived = amount_involved(form, "AUD")
        if derived:
            writer.changes.note("activity.amount_involved", f"Grand total taken from the transactions' AUD values: {amount} AUD.")
        writer.amount(details, "grandTotal", amount if amount is not None else Decimal(0), "activity.amount_involved")

    @staticmethod
    def _persons(writer: Writer, smr: etree._Element) -> dict[str, tuple[str, str]]:
        """Suspected persons first, then others (the schema's order); returns subject id ->
        (reference element name, xs:ID)."""
        refs = {}
        subjects = list(enumerate(writer.form.subjects))
        for tag, kind in (("suspPerson", "sameAsSuspPerson"), ("otherPerson", "sameAsOtherPerson")):
            for index, subject in subjects:
                if (subject.role in _SUSPECTED) == (tag == "suspPerson"):
                    element = AustracSmrRenderer._person(writer, smr, tag, subject, f"subjects.{index}")
                    refs[subject.id] = (kind, element.get("id"))
        return refs

    @staticmethod
    def _person(writer: Writer, smr: etree._Element, tag: str, subject: Subject, path: str) -> etree._Element:
        element = writer.node(smr, tag, "sp" if tag == "suspPerson" else "op")
        writer.party_details(element, subject, path)
        for index, wallet in enumerate(subject.wallets):
            writer.wallet(element, "digitalCurrencyWallet", wallet.address, f"{path}.wallets.{index}.address")
        writer.registrations(element, subject)
        if subject.is_business:
            business = writer.element(element, "businessDetails")
            writer.add(business, "incorpCountry", writer.country(subject.addresses[0].country) if subject.addresses else None)
        elif subject.birth_date or subject.nationality:
            individual = writer.element(element, "individualDetails")
            writer.add(individual, "dob", iso_day(subject.birth_date) if subject.birth_date and subject.birth_date.year >= 1870 else None)
            writer.add(individual, "citizenCountry", writer.country(subject.nationality))
        writer.identifications(element, subject, path)
        if subject.is_customer is not None:
            writer.add(element, "personIsCustomer", "Y" if subject.is_customer else "N")
        return element

    def _transaction(self, writer: Writer, smr: etree._Element, tx: Transaction, index: int, refs: dict) -> None:
        path = f"transactions.{index}"
        element = writer.node(smr, "txnDetail", "txn")
        writer.add(element, "txnDate", iso_day(tx.timestamp))
        writer.add(element, "txnType", "OTHERS")
        label = FIAT_EVENT_LABEL.get(tx.fiat_event_type) or f"digital currency transfer {tx.direction.value}"
        writer.add(element, "txnTypeOther", writer.fit(f"{label} ({tx.currency})", 200, f"{path}.fiat_event_type", "Transaction type"))
        writer.add(element, "txnCompleted", "N" if tx.attempted else "Y")
        writer.add(element, "txnRefNo", writer.fit(tx.reference, 40, f"{path}.reference", "Transaction reference"))
        aud = value_in(tx, "AUD")
        writer.amount(element, "txnAmount", aud if aud is not None else Decimal(0), f"{path}.local_value")
        if not tx.is_on_chain and tx.currency != "AUD" and is_fiat(tx.currency):
            foreign = writer.node(element, "foreignCurr", "fc")
            writer.add(foreign, "currency", tx.currency)
            writer.amount(foreign, "amount", tx.amount, f"{path}.amount")
        if tx.is_on_chain:
            self._digital_currency(writer, element, tx, path, aud)
        subject = subject_for(writer.form, tx)
        parties = ("senderDrawerIssuer", "payee") if tx.direction == Direction.OUT else ("payee", "senderDrawerIssuer")
        for tag in ("senderDrawerIssuer", "payee"):
            party = writer.node(element, tag, "sdi" if tag == "senderDrawerIssuer" else "payee")
            if tag == parties[0] and subject is not None and subject.id in refs:
                kind, ref = refs[subject.id]
                writer.element(party, kind, refId=ref)
            else:
                self._counterparty(writer, party, tx, path)

    @staticmethod
    def _digital_currency(writer: Writer, parent: etree._Element, tx: Transaction, path: str, aud) -> None:
        element = writer.node(parent, "digitalCurrency", "dc")
        writer.add(element, "code", keep_only(tx.currency, ALPHANUMERIC, path=f"{path}.currency", changes=writer.changes,
                                              label="Asset code"))
        writer.add(element, "description", writer.fit(f"{tx.currency} on {tx.chain or 'chain'}", 40, f"{path}.chain", "Asset"))
        if -tx.amount.normalize().as_tuple().exponent > 10:
            writer.changes.tally(f"{path}.amount", "Units rounded to AUSTRAC's 10 decimals")
        writer.add(element, "numberOfUnits", plain(tx.amount, max_places=10))
        if aud is not None:
            fiat = writer.node(element, "fiatCurrencyAmount", "fc")
            writer.add(fiat, "currency", "AUD")
            writer.amount(fiat, "amount", aud, f"{path}.local_value")
        writer.wallet(element, "blockchainTransactionId", tx.tx_hash, f"{path}.tx_hash")

    @staticmethod
    def _counterparty(writer: Writer, party: etree._Element, tx: Transaction, path: str) -> None:
        counterparty = tx.counterparty
        wallet = (counterparty.wallet if counterparty else None) or (tx.to_address if tx.direction == Direction.OUT else tx.from_address)
        if counterparty is None and not wallet:
            return
        other = writer.element(party, "other")
        writer.add(other, "fullName", writer.fit(counterparty.name if counterparty else None, 140, f"{path}.counterparty.name", "Name"))
        writer.wallet(other, "digitalCurrencyWallet", wallet, f"{path}.counterparty.wallet")

    @staticmethod
    def _additional(writer: Writer, smr: etree._Element) -> None:
        form = writer.form
        element = writer.node(smr, "additionalDetails", "add")
        offences = {TYPOLOGIES[category.typology].austrac_offence for category in form.activity.categories}
        writer.add(element, "offence", next((code for code in _OFFENCE_ORDER if code in offences), "ML"))
        amendment = form.amendment
        if amendment.type != AmendmentType.INITIAL and amendment.prior_report_date:
            previous = writer.node(element, "prevReported", "prev")
            writer.add(previous, "prevReportDate", iso_day(amendment.prior_report_date))
            writer.add(previous, "prevReportRef", writer.fit(amendment.prior_report_id, 40, "amendment.prior_report_id", "Prior report"))

    def check(self, form: SuspiciousActivityForm) -> list[ValidationIssue]:
        issues = [*filer_checks(form, tin=False), *austrac_filer_checks(form), *suspicious_activity_checks(form)]
        missing = [index for index, tx in enumerate(form.transactions) if value_in(tx, "AUD") is None]
        if missing:
            issues.append(error(f"transactions.{missing[0]}.local_value",
                                f"{len(missing)} transaction(s) have no AUD value; AUSTRAC reports amounts in AUD."))
        codes = form.activity.regulator_codes.get("AU", ())
        for code in codes:
            if not (len(code) == 2 and code.isalpha()):
                issues.append(error("activity.regulator_codes.AU", f"{code!r} is not an AUSTRAC reason-for-suspicion code."))
        return issues
