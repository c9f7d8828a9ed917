"""AU TTR: an AUSTRAC threshold transaction report, as XML in the project's own schema.

AUSTRAC's TTR format is not in the reference material, so `filings/schemas/ttr.xsd` is the
project's own, written from the AML/CTF Act s. 43 and the Rules' TTR contents (see its header).
A TTR reports one threshold transaction (physical currency of AUD 10,000 or more): each form
transaction becomes one `ttr`, with the customer (the subject who conducted it), the person it was
conducted for when there is one, and the AUD total with its cash components.
"""

from __future__ import annotations

from decimal import Decimal

from filings.documents.issues import ValidationIssue
from filings.documents.model import LargeTransactionForm, Subject, Transaction, subject_for
from filings.documents.vocabulary import Direction, FiatEventType, SubjectRole
from filings.renderers.austrac.common import Writer, designated_service, file_name, re_number
from filings.renderers.austrac.smr import austrac_filer_checks
from filings.renderers.base import XML, Renderer, Rendering
from filings.renderers.checks import filer_checks, large_transaction_checks
from filings.renderers.formatting import is_fiat, iso_day
from filings.renderers.summary import value_in
from filings.renderers.text import Changes

NAMESPACE = "urn:compliance-service:filings:austrac-ttr:1"
THRESHOLD = Decimal(10_000)
TRANSACTION_TYPE = {
    FiatEventType.CASH_DEPOSIT: "DEPOSIT", FiatEventType.CASH_WITHDRAWAL: "WITHDRAWAL", FiatEventType.CARD_ATM: "WITHDRAWAL",
    FiatEventType.WIRE_IN: "TRANSFER_IN", FiatEventType.ACH_IN: "TRANSFER_IN", FiatEventType.WIRE_OUT: "TRANSFER_OUT",
    FiatEventType.ACH_OUT: "TRANSFER_OUT", FiatEventType.CHECK_PURCHASE: "INSTRUMENT_PURCHASE",
    FiatEventType.CHECK_DEPOSIT: "INSTRUMENT_CASHED", FiatEventType.CARD_LOAD: "CARD_LOAD",
}


class AustracTtrRenderer(Renderer):
    kind = "TTR"
    family = "large_transaction"
    jurisdiction = "AU"
    content_type = XML
    schema = "ttr.xsd"
    regulator = "AUSTRAC"

    def build(self, form: LargeTransactionForm) -> Rendering:
        changes = Changes()
        writer = Writer(NAMESPACE, "ttrList", form, changes)
        name = file_name("TTR", self.filing_day(form))
        writer.add(writer.root, "reNumber", re_number(form))
        writer.add(writer.root, "fileName", name)
        writer.add(writer.root, "reportCount", str(max(len(form.transactions), 1)))
        for index, tx in enumerate(form.transactions):
            self._ttr(writer, tx, index)
        return Rendering(document=writer.serialise(), content_type=XML, filename=name, changes=tuple(changes.issues()))

    def _ttr(self, writer: Writer, tx: Transaction, index: int) -> None:
        form = writer.form
        ttr = writer.node(writer.root, "ttr")
        header = writer.node(ttr, "header")
        writer.add(header, "reReportRef", writer.fit(form.report_reference, 40, "report_reference", "Report reference"))
        writer.branch(header, "reportingBranch")
        conductor = subject_for(form, tx)
        represented = next(((i, s) for i, s in enumerate(form.subjects) if s.role == SubjectRole.ON_BEHALF_OF), None)
        recipient = next(((i, s) for i, s in enumerate(form.subjects) if s.role == SubjectRole.BENEFICIARY), None)
        # Rules: the customer is whom the service is provided to; the individual conducting it is
        # reported separately when the customer is someone else.
        if represented is not None:
            self._party(writer, ttr, "customer", *represented)
            if conductor is not None:
                self._party(writer, ttr, "individualConducting", form.subjects.index(conductor), conductor)
        elif conductor is not None:
            self._party(writer, ttr, "customer", form.subjects.index(conductor), conductor)
        if recipient is not None:
            self._party(writer, ttr, "recipient", *recipient)
        self._transaction(writer, ttr, tx, index)

    @staticmethod
    def _party(writer: Writer, parent, tag: str, index: int, subject: Subject) -> None:
        path = f"subjects.{index}"
        element = writer.node(parent, tag, "party")
        element.set("partyType", "organisation" if subject.is_business else "individual")
        writer.party_details(element, subject, path)
        writer.add(element, "dob", iso_day(subject.birth_date) if subject.birth_date and subject.birth_date.year >= 1870 else None)
        writer.add(element, "occupation", writer.fit(subject.occupation, 150, f"{path}.occupation", "Occupation"))
        writer.registrations(element, subject)
        writer.identifications(element, subject, path)
        for wallet_index, wallet in enumerate(subject.wallets):
            writer.wallet(element, "digitalCurrencyWallet", wallet.address, f"{path}.wallets.{wallet_index}.address")

    @staticmethod
    def _transaction(writer: Writer, ttr, tx: Transaction, index: int) -> None:
        path = f"transactions.{index}"
        element = writer.node(ttr, "transaction", "txn")
        writer.add(element, "txnDate", iso_day(tx.timestamp))
        writer.add(element, "txnType", "DIGITAL_CURRENCY_EXCHANGE" if tx.is_on_chain else TRANSACTION_TYPE.get(tx.fiat_event_type, "OTHER"))
        writer.add(element, "txnDescription", writer.fit(tx.description, 200, f"{path}.description", "Description"))
        writer.add(element, "txnRefNo", writer.fit(tx.reference, 40, f"{path}.reference", "Transaction reference"))
        writer.add(element, "designatedSvc", designated_service(writer.form))
        writer.add(element, "direction", "provided" if tx.direction == Direction.OUT else "received")
        aud = value_in(tx, "AUD")
        writer.amount(element, "totalAmount", aud if aud is not None else Decimal(0), f"{path}.local_value")
        if tx.currency == "AUD":
            writer.amount(element, "audCashAmount", tx.amount, f"{path}.amount")
        elif is_fiat(tx.currency):
            foreign = writer.node(element, "foreignCash", "fc")
            writer.add(foreign, "currency", tx.currency)
            writer.amount(foreign, "amount", tx.amount, f"{path}.amount")

    def check(self, form: LargeTransactionForm) -> list[ValidationIssue]:
        return [*filer_checks(form, tin=False), *austrac_filer_checks(form),
                *large_transaction_checks(form, currency="AUD", threshold=THRESHOLD)]
