"""The form data of regulatory filings: model, vocabulary, typology table and parser.

    from filings.documents import parse_suspicious_activity_form, as_json, FormInvalid
"""

from filings.documents.issues import ValidationIssue
from filings.documents.model import (
    Address,
    Amendment,
    Category,
    Counterparty,
    Filer,
    Form,
    IdDocument,
    LargeTransactionForm,
    Location,
    Money,
    Phone,
    PreparedBy,
    Subject,
    SuspiciousActivity,
    SuspiciousActivityForm,
    TaxId,
    Transaction,
    Wallet,
    as_json,
)
from filings.documents.parse import parse_large_transaction_form, parse_suspicious_activity_form
from filings.documents.reader import FormInvalid
from filings.documents.typologies import TYPOLOGIES, Typology

__all__ = [
    "TYPOLOGIES", "Address", "Amendment", "Category", "Counterparty", "Filer", "Form", "FormInvalid", "IdDocument",
    "LargeTransactionForm", "Location", "Money", "Phone", "PreparedBy", "Subject", "SuspiciousActivity", "SuspiciousActivityForm",
    "TaxId", "Transaction", "Typology", "ValidationIssue", "Wallet", "as_json", "parse_large_transaction_form",
    "parse_suspicious_activity_form",
]
