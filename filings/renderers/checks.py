"""Business checks on top of the schemas: what a regulator's schema cannot see but an examiner would.

Each check is a pure function of the form returning issues with form-data paths. The renderers
combine the common ones below with their own (a FinCEN TCC, a FINTRAC reporting entity number, an
AUSTRAC ban on tax file numbers).
"""

from __future__ import annotations

from decimal import Decimal

from filings.documents.issues import ValidationIssue, error, warning
from filings.documents.model import Form, LargeTransactionForm, Subject, SuspiciousActivityForm
from filings.documents.vocabulary import AmendmentType
from filings.renderers.summary import total_in

# FinCEN SAR narrative: five blocks of 4,000 characters, the fifth limited to 1,000 (17,000 in all;
# FinCEN SAR XML user guide, ActivityNarrativeSequenceNumber).
FINCEN_NARRATIVE_LIMIT = 17_000


def filer_checks(form: Form, *, tin: bool = True) -> list[ValidationIssue]:
    filer, issues = form.filer, []
    if not filer.legal_name:
        issues.append(error("filer.legal_name", "The filing institution's legal name is missing."))
    if tin and not filer.tin:
        issues.append(error("filer.tin", "The filing institution's TIN is missing."))
    if tin and filer.tin and not filer.tin_type:
        issues.append(error("filer.tin_type", "Say whether the filer's TIN is an EIN, an SSN or a foreign TIN."))
    address = filer.address
    for field in ("line1", "city", "country"):
        if address is None or not getattr(address, field):
            issues.append(error(f"filer.address.{field}", "The filing institution's address is incomplete."))
    return issues


def subject_name_issue(subject: Subject, index: int) -> ValidationIssue | None:
    if subject.is_business and not (subject.legal_name or subject.dba_name):
        return error(f"subjects.{index}.legal_name", "The subject has no name: give the legal name of the business.")
    if not subject.is_business and not (subject.family_name or subject.given_name):
        return error(f"subjects.{index}.family_name", "The subject has no name: give at least the family name.")
    return None


def subject_checks(form: Form) -> list[ValidationIssue]:
    if not form.subjects:
        return [error("subjects", "The report names no subject.")]
    return [issue for index, subject in enumerate(form.subjects) if (issue := subject_name_issue(subject, index))]


def amendment_checks(form: Form) -> list[ValidationIssue]:
    amendment = form.amendment
    if amendment.type != AmendmentType.INITIAL and not amendment.prior_report_id:
        return [error("amendment.prior_report_id", f"A {amendment.type.value} report must name the prior report.")]
    return []


def _amount_checks(form: SuspiciousActivityForm) -> list[ValidationIssue]:
    activity = form.activity
    if activity.amount_involved is None or not form.transactions:
        return []
    total, missing = total_in(form.transactions, activity.currency)
    if missing:
        return [warning("activity.amount_involved", f"{missing} transaction(s) have no value in {activity.currency}; "
                                                    "the amount involved could not be compared with the transactions.", source="business")]
    # One currency unit of slack: regulators want whole units (FinCEN rounds cents up).
    if abs(total - activity.amount_involved) > Decimal(1):
        return [error("activity.amount_involved", f"The amount involved ({activity.amount_involved} {activity.currency}) does not "
                                                  f"match the transactions, which total {total} {activity.currency}.")]
    return []


def _date_checks(form: SuspiciousActivityForm) -> list[ValidationIssue]:
    activity, issues = form.activity, []
    if activity.start_date is None:
        issues.append(error("activity.start_date", "The date the suspicious activity began is missing."))
    if activity.start_date and activity.end_date and activity.end_date < activity.start_date:
        issues.append(error("activity.end_date", f"The activity ends ({activity.end_date}) before it starts ({activity.start_date})."))
    if form.filing_date and activity.start_date and activity.start_date > form.filing_date:
        issues.append(error("activity.start_date", "The activity starts after the filing date."))
    if activity.start_date and activity.end_date:
        outside = [index for index, tx in enumerate(form.transactions)
                   if not activity.start_date <= tx.timestamp.date() <= activity.end_date]
        if outside:
            issues.append(warning(f"transactions.{outside[0]}.timestamp",
                                  f"{len(outside)} transaction(s) fall outside the activity dates "
                                  f"{activity.start_date}–{activity.end_date}.", source="business"))
    return issues


def suspicious_activity_checks(form: SuspiciousActivityForm) -> list[ValidationIssue]:
    activity, issues = form.activity, []
    if not (activity.narrative or "").strip():
        issues.append(error("activity.narrative", "The narrative is missing: describe who, what, when, where, why and how."))
    if not activity.categories and not any(activity.regulator_codes.values()):
        issues.append(error("activity.categories", "Name at least one category of suspicious activity."))
    for index, category in enumerate(activity.categories):
        if category.typology == "other" and not category.description:
            issues.append(error(f"activity.categories.{index}.description", "Describe the \"other\" suspicious activity."))
    return [*issues, *_date_checks(form), *_amount_checks(form), *subject_checks(form), *amendment_checks(form)]


def large_transaction_checks(form: LargeTransactionForm, *, currency: str, threshold: Decimal,
                             inclusive: bool = True) -> list[ValidationIssue]:
    """Transactions present; each business day's total over the reporting threshold: "more than
    $10,000" for a CTR (31 CFR 1010.311), "$10,000 or more" for an LCTR (PCMLTFR s. 126) and a TTR
    (AML/CTF Act s. 43)."""
    if not form.transactions:
        return [error("transactions", "A large-transaction report needs at least one transaction.")]
    issues: list[ValidationIssue] = [*subject_checks(form), *amendment_checks(form)]
    by_day: dict = {}
    for index, tx in enumerate(form.transactions):
        by_day.setdefault(tx.day, []).append((index, tx))
    for day, rows in sorted(by_day.items()):
        total, missing = total_in((tx for _, tx in rows), currency)
        first = rows[0][0]
        if missing:
            issues.append(error(f"transactions.{first}", f"{missing} transaction(s) on {day} have no value in {currency}: "
                                                         f"give `usd_value` or `local_value`."))
        elif total < threshold or (total == threshold and not inclusive):
            issues.append(warning(f"transactions.{first}", f"Transactions on {day} total {total} {currency}, not over the "
                                                           f"{threshold} {currency} reporting threshold.", source="business"))
    return issues
