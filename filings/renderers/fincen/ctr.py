"""US CTR: the FinCEN CTR batch XML (FinCEN Report 112, EFL_CTRXBatchSchema.xsd v1.2).

A CTR reports one business day's currency transactions of one person (31 CFR 1010.311; multiple
transactions aggregated under 1010.313). The form's transactions are grouped by business day and
each day becomes one Activity with its own parties: transmitter (35), transmitter contact (37),
reporting institution (30), contact office (8), transaction location (34), then the persons
involved — conducting on their own behalf (50), conducting for another (17), on whose behalf (23).

Each Activity's CurrencyTransactionActivity holds the day's totals and one detail per FinCEN
detail code (items 25/27) with the total of the transactions of that code; amounts are whole
dollars, each detail's cents rounded up on its own, and every total (the day's, a person's) is the
sum of its rounded details, so totals and details agree and no amount is understated. Per the CTR
XML user guide, `PartyCount` counts every Party in the batch and `TotalAmount` adds the cash-in and
cash-out totals of every Activity.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, localcontext

from lxml import etree

from filings.documents.issues import ValidationIssue, error
from filings.documents.model import LargeTransactionForm, Subject, Transaction
from filings.documents.vocabulary import FIAT_EVENT_LABEL, AmendmentType, Direction, FiatEventType, SubjectRole
from filings.renderers.base import XML, Renderer, Rendering
from filings.renderers.checks import filer_checks, large_transaction_checks
from filings.renderers.fincen import codes
from filings.renderers.fincen.batch import Batch, count_parties
from filings.renderers.fincen.parties import CTR, Context
from filings.renderers.fincen.sar import _file_stem, fincen_filer_checks
from filings.renderers.formatting import WIDE, currency_country, is_fiat, whole_dollars, yyyymmdd
from filings.renderers.summary import value_in
from filings.renderers.text import Changes

THRESHOLD = Decimal(10_000)
MAX_DETAILS = 219  # CurrencyTransactionActivityDetail maxOccurs in EFL_CTRXBatchSchema.xsd

Details = dict[tuple[str, str], Decimal]  # (detail code, "other" text or country) -> USD


@dataclass
class Day:
    """One business day's transactions, summed by detail code, for the day and for each person."""

    day: date
    details: Details = field(default_factory=lambda: defaultdict(Decimal))
    by_subject: dict[str, Details] = field(default_factory=lambda: defaultdict(lambda: defaultdict(Decimal)))
    atm: bool = False
    count: int = 0


def detail_of(transaction: Transaction) -> tuple[str, str, str]:
    """(FinCEN detail code, side, "other" text) of one transaction."""
    if transaction.currency != "USD" and is_fiat(transaction.currency):
        side = codes.CASH_IN if transaction.direction != Direction.OUT else codes.CASH_OUT
        return (codes.FOREIGN_CASH_IN if side == codes.CASH_IN else codes.FOREIGN_CASH_OUT), side, ""
    if transaction.fiat_event_type in codes.CTR_DETAIL:
        code, side = codes.CTR_DETAIL[transaction.fiat_event_type]
        return code, side, ""
    side = codes.CASH_OUT if transaction.direction == Direction.OUT else codes.CASH_IN
    label = FIAT_EVENT_LABEL.get(transaction.fiat_event_type) or f"virtual currency ({transaction.currency})"
    return (codes.OTHER_CASH_IN if side == codes.CASH_IN else codes.OTHER_CASH_OUT), side, label[:1].upper() + label[1:]


class FincenCtrRenderer(Renderer):
    kind = "CTR"
    family = "large_transaction"
    jurisdiction = "US"
    content_type = XML
    schema = "fincen/EFL_CTRXBatchSchema.xsd"
    regulator = "FinCEN"

    def build(self, form: LargeTransactionForm) -> Rendering:
        changes = Changes()
        context = Context(Batch("CTRX"), form, changes, CTR)
        total = Decimal(0)
        with localcontext(WIDE):  # sums of uint256-scale amounts stay exact
            for day in self._days(form, changes):
                total += self._activity(context, day)
        document = context.batch.serialise(TotalAmount=format(total, "f"), PartyCount=str(count_parties(context.batch.root)),
                                           ActivityCount=str(len(context.batch.root) - 1))
        return Rendering(document=document, content_type=XML, filename=f"CTR-{_file_stem(form)}.xml", changes=tuple(changes.issues()))

    @staticmethod
    def _days(form: LargeTransactionForm, changes: Changes) -> list[Day]:
        days: dict[date, Day] = {}
        first = form.subjects[0].id if form.subjects else ""
        for transaction in form.transactions:
            usd = value_in(transaction, "USD")
            if usd is None:
                continue  # reported by the business checks
            day = days.setdefault(transaction.day, Day(transaction.day))
            code, _, text = detail_of(transaction)
            country = currency_country(transaction.currency) if code in (codes.FOREIGN_CASH_IN, codes.FOREIGN_CASH_OUT) else ""
            if code in (codes.FOREIGN_CASH_IN, codes.FOREIGN_CASH_OUT) and not country:
                changes.tally("transactions", f"{transaction.currency} is not one country's currency; "
                                              "the foreign-currency country (item 25/27 z) is left blank")
            key = (code, text or country or "")
            day.details[key] += usd
            day.by_subject[transaction.subject_id or first][key] += usd
            day.atm = day.atm or transaction.fiat_event_type == FiatEventType.CARD_ATM
            day.count += 1
        return [days[key] for key in sorted(days)]

    def _activity(self, context: Context, day: Day) -> Decimal:
        form, batch = context.form, context.batch
        activity = batch.node(batch.root, "Activity")
        amendment = form.amendment
        if amendment.type == AmendmentType.CORRECTION:
            prior = "".join(filter(str.isdigit, amendment.prior_report_id or ""))
            context.batch.add(activity, "EFilingPriorDocumentNumber", prior if len(prior) == 14 else "0" * 14)
        context.batch.add(activity, "FilingDateText", yyyymmdd(self.filing_day(form)))
        association = batch.node(activity, "ActivityAssociation")
        for tag, on in (("CorrectsAmendsPriorReportIndicator", amendment.type == AmendmentType.CORRECTION),
                        ("FinCENDirectBackFileIndicator", False), ("InitialReportIndicator", amendment.type != AmendmentType.CORRECTION)):
            context.batch.indicator(association, tag, on)
        context.transmitter(activity)
        context.transmitter_contact(activity)
        context.filing_institution(activity)
        context.contact_office(activity)
        context.activity_institution(activity)
        self._persons(context, activity, day)
        return self._currency_activity(context, activity, day)

    def _persons(self, context: Context, activity: etree._Element, day: Day) -> None:
        """Who conducted the day's transactions, and anyone they were conducted for (every day)."""
        represented = {SubjectRole.ON_BEHALF_OF, SubjectRole.BENEFICIARY}
        someone_represented = any(subject.role in represented for subject in context.form.subjects)
        for index, subject in enumerate(context.form.subjects):
            if subject.role in represented:
                self._person(context, activity, subject, index, codes.CTR_ON_WHOSE_BEHALF, day)
            elif subject.id in day.by_subject:
                type_code = codes.CTR_FOR_ANOTHER if someone_represented else codes.CTR_OWN_BEHALF
                self._person(context, activity, subject, index, type_code, day)

    @staticmethod
    def _person(context: Context, activity: etree._Element, subject: Subject, index: int, type_code: str, day: Day) -> None:
        """Part I: a person involved, with the day's cash in and out attributed to them (items 21-22)."""
        path = f"subjects.{index}"
        cash_in, cash_out = _side_totals(_rounded_details(day.by_subject.get(subject.id, {})))
        fields = context.person_fields(subject)
        fields["IndividualEntityCashInAmountText"] = format(cash_in, "f") if cash_in else None
        fields["IndividualEntityCashOutAmountText"] = format(cash_out, "f") if cash_out else None
        party = context.party(activity, type_code, **fields)
        context.subject_names(party, subject, path, alternates=1)  # PartyName: at most 2
        # Items 9-13: the first address, or every "unknown" indicator when there is none.
        context.address(party, subject.addresses[0] if subject.addresses else None, f"{path}.addresses.0")
        if subject.phones:
            context.phone(party, subject.phones[0].number, f"{path}.phones.0.number", extension=subject.phones[0].extension)
        context.subject_tin(party, subject, path)
        context.subject_documents(party, subject, path, limit=1)  # PartyIdentification: at most 2 with the TIN
        context.occupation(party, subject.occupation, f"{path}.occupation")
        if subject.emails:
            context.email(party, subject.emails[0], f"{path}.emails.0")

    @staticmethod
    def _currency_activity(context: Context, activity: etree._Element, day: Day) -> Decimal:
        """Part II: the day's totals and details; the details add up to the totals by construction."""
        element = context.batch.node(activity, "CurrencyTransactionActivity")
        rows = _rounded_details(day.details)
        cash_in, cash_out = _side_totals(rows)
        for tag, on in (("AggregateTransactionIndicator", day.count > 1), ("ArmoredCarServiceIndicator", False),
                        ("ATMIndicator", day.atm), ("MailDepositShipmentIndicator", False), ("NightDepositIndicator", False),
                        ("SharedBranchingIndicator", False)):
            context.batch.indicator(element, tag, on)
        context.batch.add(element, "TotalCashInReceiveAmountText", format(cash_in, "f"))
        context.batch.add(element, "TotalCashOutAmountText", format(cash_out, "f"))
        context.batch.add(element, "TransactionDateText", yyyymmdd(day.day))
        for (code, text), amount in rows[:MAX_DETAILS]:  # more is an error of `check`
            detail = context.batch.node(element, "CurrencyTransactionActivityDetail")
            context.batch.add(detail, "CurrencyTransactionActivityDetailTypeCode", code)
            context.batch.add(detail, "DetailTransactionAmountText", format(amount, "f"))
            foreign = code in (codes.FOREIGN_CASH_IN, codes.FOREIGN_CASH_OUT)
            other = text if code in (codes.OTHER_CASH_IN, codes.OTHER_CASH_OUT) else ""
            context.batch.required(detail, "OtherCurrencyTransactionActivityDetailText", other)
            context.batch.required(detail, "OtherForeignCurrencyCountryText", text if foreign else None)
        return cash_in + cash_out

    def check(self, form: LargeTransactionForm) -> list[ValidationIssue]:
        return [*filer_checks(form), *fincen_filer_checks(form),
                *large_transaction_checks(form, currency="USD", threshold=THRESHOLD, inclusive=False),
                *self._detail_checks(form)]

    def _detail_checks(self, form: LargeTransactionForm) -> list[ValidationIssue]:
        """A day with more detail lines than the schema takes cannot be reported with details that
        add up to its totals. Lines are not merged: each "other" line carries its own description
        (item 25/27 z) and each foreign-currency line its country."""
        return [error("transactions", f"Transactions on {day.day} need {len(day.details)} currency transaction details "
                                      f"(items 25/27); FinCEN takes at most {MAX_DETAILS} in one CTR activity, so the "
                                      "details would not add up to the day's totals.")
                for day in self._days(form, Changes()) if len(day.details) > MAX_DETAILS]


def _rounded_details(details: Details) -> list[tuple[tuple[str, str], Decimal]]:
    """Each detail in whole dollars, its cents rounded up on its own (FinCEN CTR instructions:
    whole dollars, cents rounded up), so no detail is understated."""
    return [(key, Decimal(whole_dollars(amount))) for key, amount in details.items()]


def _side_totals(rows: list[tuple[tuple[str, str], Decimal]]) -> tuple[Decimal, Decimal]:
    """Cash in and cash out: the sums of the rounded details of each side (FinCEN: the detail
    amounts add up to the total cash in / cash out)."""
    return (sum((amount for (code, _), amount in rows if code in _IN_CODES), Decimal(0)),
            sum((amount for (code, _), amount in rows if code in _OUT_CODES), Decimal(0)))


_IN_CODES = frozenset(code for code, side in codes.CTR_DETAIL.values() if side == codes.CASH_IN) | {
    codes.OTHER_CASH_IN, codes.FOREIGN_CASH_IN}
_OUT_CODES = frozenset(code for code, side in codes.CTR_DETAIL.values() if side == codes.CASH_OUT) | {
    codes.OTHER_CASH_OUT, codes.FOREIGN_CASH_OUT}
