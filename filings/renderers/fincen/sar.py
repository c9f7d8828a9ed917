"""US SAR: the FinCEN SAR batch XML (FinCEN Report 111, EFL_SARXBatchSchema.xsd v1.2).

One batch with one Activity. Parties in the order of the FinCEN SAR XML user guide: transmitter
(35), transmitter contact (37), filing institution (30), contact office (8), financial institution
where the activity occurred (34), then one subject (33) per form subject. The batch attributes
follow the user guide: `PartyCount` counts the subject parties, `TotalAmount` adds up the
TotalSuspiciousAmountText values, the attachment counts say whether the transaction CSV goes with
the SAR.
"""

from __future__ import annotations

from decimal import Decimal

from lxml import etree

from filings.documents.issues import ValidationIssue, error
from filings.documents.model import Subject, SuspiciousActivityForm
from filings.documents.typologies import TYPOLOGIES, fincen_type_of
from filings.documents.vocabulary import AmendmentType, SubjectRole
from filings.renderers.base import XML, Renderer, Rendering
from filings.renderers.checks import FINCEN_NARRATIVE_LIMIT, filer_checks, suspicious_activity_checks
from filings.renderers.fincen import codes
from filings.renderers.fincen.batch import Batch, count_parties
from filings.renderers.fincen.narrative import attachment_name, blocks, compose, transactions_csv
from filings.renderers.fincen.parties import SAR, Context
from filings.renderers.formatting import digits, whole_dollars, yyyymmdd
from filings.renderers.summary import amount_involved, instruments, transactions_of
from filings.renderers.text import Changes, xml_safe

# The subtypes the SAR schema accepts (ValidateSuspiciousActivitySubtypeID), for officer-chosen codes.
FINCEN_SUBTYPES = frozenset((
    106, 111, 112, 113, 114, 301, 304, 305, 308, 309, 310, 312, 320, 321, 322, 323, 324, 325, 401, 402, 403, 404, 405, 409,
    501, 502, 504, 505, 506, 507, 601, 603, 604, 608, 609, 701, 801, 804, 805, 806, 807, 808, 809, 812, 820, 821, 822, 823,
    824, 901, 903, 904, 905, 907, 908, 909, 910, 911, 913, 917, 920, 921, 922, 924, 925, 926, 927, 928, 1001, 1003, 1005,
    1006, 1007, 1101, 1102, 1201, 1202, 1203, 1204, 1999, 3999, 4999, 5999, 6999, 7999, 8999, 9999, 10999, 11999, 12999,
))
MAX_SUBJECTS = 999  # FinCEN SAR: up to 999 subjects
MAX_AMOUNT_DIGITS = 15  # TotalSuspiciousAmountText is a RestrictString15


class FincenSarRenderer(Renderer):
    kind = "SAR"
    family = "suspicious_activity"
    jurisdiction = "US"
    content_type = XML
    schema = "fincen/EFL_SARXBatchSchema.xsd"
    regulator = "FinCEN"

    def build(self, form: SuspiciousActivityForm) -> Rendering:
        changes = Changes()
        context = Context(Batch("SARX"), form, changes, SAR)
        attachment = attachment_name(form) if form.transactions else None
        activity = self._activity(context, attachment)
        self._parties(context, activity)
        total = self._suspicious_activity(context, activity)
        self._assets(context, activity)
        self._narrative(context, activity, attachment)
        document = context.batch.serialise(
            TotalAmount=total or "0", PartyCount=str(count_parties(context.batch.root, codes.SUBJECT)), ActivityCount="1",
            ActivityAttachmentCount="1" if attachment else "0", AttachmentCount="1" if attachment else "0",
        )
        attachments = {attachment: transactions_csv(form)} if attachment else {}
        return Rendering(document=document, content_type=XML, filename=f"SAR-{_file_stem(form)}.xml",
                         changes=tuple(changes.issues()), attachments=attachments)

    # --- Activity ---------------------------------------------------------------------------

    def _activity(self, context: Context, attachment: str | None) -> etree._Element:
        form, batch = context.form, context.batch
        activity = batch.node(batch.root, "Activity")
        amendment = form.amendment
        if amendment.type != AmendmentType.INITIAL:
            # Item 1: the prior report's 14-digit BSA ID, or 14 zeros when it is not known.
            prior = "".join(filter(str.isdigit, amendment.prior_report_id or ""))
            context.batch.add(activity, "EFilingPriorDocumentNumber", prior if len(prior) == 14 else "0" * 14)
        context.batch.add(activity, "FilingDateText", yyyymmdd(self.filing_day(form)))
        note = context.fit(form.activity.note_to_regulator, 50, "activity.note_to_regulator", "Note to FinCEN")
        context.batch.add(activity, "FilingInstitutionNotetoFinCEN", note)
        association = batch.node(activity, "ActivityAssociation")
        context.batch.flag(association, "ContinuingActivityReportIndicator", amendment.type == AmendmentType.CONTINUING)
        context.batch.flag(association, "CorrectsAmendsPriorReportIndicator", amendment.type == AmendmentType.CORRECTION)
        context.batch.flag(association, "InitialReportIndicator", amendment.type == AmendmentType.INITIAL)
        if attachment:
            context.batch.add(batch.node(activity, "ActivitySupportDocument"), "OriginalAttachmentFileName", attachment)
        return activity

    def _parties(self, context: Context, activity: etree._Element) -> None:
        context.transmitter(activity)
        context.transmitter_contact(activity)
        context.filing_institution(activity)
        context.contact_office(activity)
        # Online activity: no branch (item 67, "no branch activity involved").
        context.activity_institution(activity, NoBranchActivityInvolvedIndicator="Y")
        for index, subject in enumerate(context.form.subjects[:MAX_SUBJECTS]):
            self._subject(context, activity, subject, index)

    def _subject(self, context: Context, activity: etree._Element, subject: Subject, index: int) -> None:
        path = f"subjects.{index}"
        fields = {**context.person_fields(subject), **self._role_fields(context.form, subject)}
        party = context.party(activity, codes.SUBJECT, **fields)
        context.subject_names(party, subject, path)
        for address_index, address in enumerate(subject.addresses[:99] or [None]):
            context.address(party, address, f"{path}.addresses.{address_index}")
        for phone_index, phone in enumerate(subject.phones[:99]):
            context.phone(party, phone.number, f"{path}.phones.{phone_index}.number", extension=phone.extension,
                          type_code=codes.PHONE_TYPE.get(phone.type) if phone.type else None)
        context.subject_tin(party, subject, path)
        context.subject_documents(party, subject, path)
        context.occupation(party, subject.occupation, f"{path}.occupation")
        for email_index, email in enumerate(subject.emails[:99]):
            context.email(party, email, f"{path}.emails.{email_index}")
        self._relationship(context, party, subject)

    @staticmethod
    def _role_fields(form: SuspiciousActivityForm, subject: Subject) -> dict[str, str]:
        """Item 21, the subject's role: purchaser/sender, payee/receiver, or both."""
        if subject.role == SubjectRole.BENEFICIARY:
            return {"PayeeReceiverIndicator": "Y"}
        directions = {tx.direction.value for tx in transactions_of(form, subject.id)}
        if {"in", "out"} <= directions:
            return {"BothPurchaserSenderPayeeReceiveIndicator": "Y"}
        if directions == {"in"}:
            return {"PayeeReceiverIndicator": "Y"}
        if directions == {"out"} or subject.role == SubjectRole.CONDUCTOR:
            return {"PurchaserSenderIndicator": "Y"}
        return {}

    @staticmethod
    def _relationship(context: Context, party: etree._Element, subject: Subject) -> None:
        """Item 24, the subject's relationship to the filing institution."""
        if subject.is_customer is None:
            return
        association = context.batch.node(party, "PartyAssociation")
        context.batch.flag(association, "CustomerIndicator", subject.is_customer)
        context.batch.flag(association, "NoRelationshipToInstitutionIndicator", not subject.is_customer)
        tin = (digits(context.form.filer.tin) or "")[:25]
        context.batch.add(association, "SubjectRelationshipFinancialInstitutionTINText", tin or None)

    # --- Suspicious activity ------------------------------------------------------------------

    def _suspicious_activity(self, context: Context, activity: etree._Element) -> str | None:
        form, changes = context.form, context.changes
        element = context.batch.node(activity, "SuspiciousActivity")
        amount, derived = amount_involved(form, "USD")
        total = _total_suspicious_amount(amount)
        if derived and total:
            changes.note("activity.amount_involved", f"Amount involved taken from the transactions' USD values: {total} USD.")
        if total and len(total) > MAX_AMOUNT_DIGITS:
            total = None  # an error of `_sar_checks`; item 29 then says "amount unknown"
        no_amount = amount is not None and amount == 0
        context.batch.flag(element, "AmountUnknownIndicator", total is None and not no_amount)
        context.batch.flag(element, "NoAmountInvolvedIndicator", no_amount)
        start, end = form.activity.start_date, form.activity.end_date or form.activity.start_date
        context.batch.add(element, "SuspiciousActivityFromDateText", yyyymmdd(start))
        context.batch.add(element, "SuspiciousActivityToDateText", yyyymmdd(end))
        context.batch.add(element, "TotalSuspiciousAmountText", total)
        for subtype, other in self._classifications(context):
            classification = context.batch.node(element, "SuspiciousActivityClassification")
            context.batch.add(classification, "OtherSuspiciousActivityTypeText", other)
            context.batch.add(classification, "SuspiciousActivitySubtypeID", subtype)
            context.batch.add(classification, "SuspiciousActivityTypeID", fincen_type_of(subtype))
        return total

    @staticmethod
    def _classifications(context: Context) -> list[tuple[int, str | None]]:
        """(subtype, "other" text) pairs; typologies sharing a subtype are merged (the schema's
        Unique-SuspiciousActivitySubtypeID), their "other" texts joined."""
        activity = context.form.activity
        others: dict[int, list[str]] = {}
        for category in activity.categories:
            typology = TYPOLOGIES[category.typology]
            texts = others.setdefault(typology.fincen, [])
            if typology.fincen % 100 == 99:
                text = category.description if category.typology == "other" and category.description else typology.fincen_other
                if text not in texts:
                    texts.append(text)
        for code in activity.regulator_codes.get("US", ()):
            if code.isdigit() and int(code) in FINCEN_SUBTYPES:
                subtype = int(code)
                texts = others.setdefault(subtype, [])
                if subtype % 100 == 99 and not texts:
                    texts.append("Other")
        return [(subtype, context.fit("; ".join(texts), 50, "activity.categories", "Other activity description") if texts else None)
                for subtype, texts in others.items()]

    @staticmethod
    def _assets(context: Context, activity: etree._Element) -> None:
        """Items 45-46: the instruments involved, one per AssetSubtypeID (Unique-AssetSubtypeID)."""
        seen: set[int] = set()
        for instrument in instruments(context.form)[:31]:
            asset_type, subtype, other = codes.ASSETS[instrument]
            if subtype in seen:
                continue
            seen.add(subtype)
            element = context.batch.node(activity, "Assets")
            context.batch.add(element, "AssetSubtypeID", subtype)
            context.batch.add(element, "AssetTypeID", asset_type)
            context.batch.add(element, "OtherAssetSubtypeText", other)

    @staticmethod
    def _narrative(context: Context, activity: etree._Element, attachment: str | None) -> None:
        text = xml_safe(compose(context.form, attachment, context.changes))
        for number, block in enumerate(blocks(text) or [""], start=1):
            element = context.batch.node(activity, "ActivityNarrativeInformation")
            context.batch.add(element, "ActivityNarrativeSequenceNumber", number)
            etree.SubElement(element, f"{{{codes.NAMESPACE}}}ActivityNarrativeText").text = block

    # --- business checks ----------------------------------------------------------------------

    def check(self, form: SuspiciousActivityForm) -> list[ValidationIssue]:
        return [*filer_checks(form), *fincen_filer_checks(form), *suspicious_activity_checks(form), *_sar_checks(form)]


def fincen_filer_checks(form) -> list[ValidationIssue]:
    """What FinCEN needs of the filer beyond the common checks (SAR and CTR alike)."""
    filer, issues = form.filer, []
    if not filer.transmitter_control_code:
        issues.append(error("filer.transmitter_control_code", "FinCEN batch filing needs the transmitter's TCC."))
    regulator = (filer.primary_regulator or "").strip().upper()
    if not regulator:
        issues.append(error("filer.primary_regulator", "The filer's primary federal regulator is missing (IRS for an MSB)."))
    elif regulator not in codes.REGULATORS:
        issues.append(error("filer.primary_regulator", f"{filer.primary_regulator!r} is not a FinCEN regulator: use one of "
                                                       "CFTC, FDIC, Federal Reserve, FHFA, IRS, NCUA, OCC, SEC."))
    if not filer.contact_office:
        issues.append(error("filer.contact_office", "The contact office for FinCEN's questions is missing."))
    if not filer.contact_phone:
        issues.append(error("filer.contact_phone", "The contact office's phone number is missing."))
    return issues


def _sar_checks(form: SuspiciousActivityForm) -> list[ValidationIssue]:
    issues = []
    narrative = form.activity.narrative or ""
    if len(narrative) > FINCEN_NARRATIVE_LIMIT:
        issues.append(error("activity.narrative", f"The narrative has {len(narrative)} characters; FinCEN accepts "
                                                  f"{FINCEN_NARRATIVE_LIMIT}. Shorten it (the transactions go in the attachment)."))
    if len(form.subjects) > MAX_SUBJECTS:
        issues.append(error("subjects", f"FinCEN accepts at most {MAX_SUBJECTS} subjects in one SAR."))
    for code in form.activity.regulator_codes.get("US", ()):
        if not (code.isdigit() and int(code) in FINCEN_SUBTYPES):
            issues.append(error("activity.regulator_codes.US", f"{code!r} is not a FinCEN suspicious activity subtype."))
    total = _total_suspicious_amount(amount_involved(form, "USD")[0])
    if total and len(total) > MAX_AMOUNT_DIGITS:
        issues.append(error("activity.amount_involved", f"The amount involved is {total} USD; FinCEN takes at most "
                                                        f"{MAX_AMOUNT_DIGITS} digits (item 29), so it is reported as unknown."))
    return issues


def _total_suspicious_amount(amount: Decimal | None) -> str | None:
    """Item 29 in whole dollars, cents rounded up; None when the amount is unknown or zero."""
    return whole_dollars(amount) if amount is not None and amount > 0 else None


def _file_stem(form) -> str:
    reference = form.report_reference or "report"
    return "".join(char if char.isalnum() or char in "-_" else "-" for char in reference)[:60]
