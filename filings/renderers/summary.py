"""Facts derived from a form's transactions, shared by the checks, narratives and renderers."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from decimal import Decimal

from filings.documents.model import Form, SuspiciousActivityForm, Transaction
from filings.documents.vocabulary import FIAT_INSTRUMENT, Instrument
from filings.renderers.formatting import WIDE


def value_in(transaction: Transaction, currency: str) -> Decimal | None:
    """The transaction's value in `currency`: its amount, its local value, or its USD value."""
    if transaction.currency == currency:
        return transaction.amount
    if transaction.local_value is not None and transaction.local_value.currency == currency:
        return transaction.local_value.amount
    if currency == "USD":
        return transaction.usd_value
    return None


def total_in(transactions: Iterable[Transaction], currency: str) -> tuple[Decimal, int]:
    """The sum of the values in `currency` and how many transactions had no such value."""
    total, missing = Decimal(0), 0
    for transaction in transactions:
        value = value_in(transaction, currency)
        if value is None:
            missing += 1
        else:
            total = WIDE.add(total, value)  # exact for uint256-scale amounts
    return total, missing


def date_range(transactions: Iterable[Transaction]) -> tuple[date, date] | None:
    days = [transaction.timestamp.date() for transaction in transactions]
    return (min(days), max(days)) if days else None


def instruments(form: SuspiciousActivityForm) -> list[str]:
    """The instruments named on the form plus those the transactions show, in a stable order."""
    found = list(dict.fromkeys(form.activity.instruments))
    for transaction in form.transactions:
        instrument = Instrument.VIRTUAL_CURRENCY if transaction.is_on_chain else FIAT_INSTRUMENT[transaction.fiat_event_type]
        if instrument.value not in found:
            found.append(instrument.value)
    return found


def amount_involved(form: SuspiciousActivityForm, currency: str) -> tuple[Decimal | None, bool]:
    """The amount involved in `currency`: the form's when it is in that currency, else the sum of
    the transactions' values when every one has a value in it. The flag says it was derived."""
    activity = form.activity
    if activity.amount_involved is not None and activity.currency == currency:
        return activity.amount_involved, False
    if not form.transactions:
        return None, False
    total, missing = total_in(form.transactions, currency)
    return (None, False) if missing else (total, True)


def asset_totals(transactions: Iterable[Transaction]) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = {}
    for transaction in transactions:
        totals[transaction.currency] = WIDE.add(totals.get(transaction.currency, Decimal(0)), transaction.amount)
    return totals


def transactions_of(form: Form, subject_id: str) -> list[Transaction]:
    first = form.subjects[0].id if form.subjects else None
    return [tx for tx in form.transactions if (tx.subject_id or first) == subject_id]
