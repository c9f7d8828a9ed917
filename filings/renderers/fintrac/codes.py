"""FINTRAC option codes used in the STR (FINTRAC API report submission, STR JSON schema v1).

FINTRAC's schema types every coded field as `optionTypeCode` (an integer 1-99999) and publishes
the values in its API code tables, which are not part of the reference material. The values
below are in this one module so that they can be checked against FINTRAC's current tables in
one place before go-live (docs/filings.md, "What is left"); the schema accepts any of them.
"""

from __future__ import annotations

from filings.documents.vocabulary import AmendmentType, FiatEventType, IdDocumentType, InstitutionType

REPORT_TYPE_STR = 1
SUBMIT_TYPE = {AmendmentType.INITIAL: 1, AmendmentType.CORRECTION: 2, AmendmentType.CONTINUING: 1}

ACTIVITY_SECTOR = {
    InstitutionType.VIRTUAL_ASSET_SERVICE_PROVIDER: 8, InstitutionType.MONEY_SERVICES_BUSINESS: 8,
    InstitutionType.DEPOSITORY_INSTITUTION: 1, InstitutionType.SECURITIES_FUTURES: 12, InstitutionType.CASINO: 5,
    InstitutionType.INSURANCE: 10, InstitutionType.LOAN_FINANCE: 1, InstitutionType.OTHER: 99,
}
SUSPICION_TYPE = {"money_laundering": 1, "terrorist_financing": 2, "sanctions_evasion": 3}

METHOD_IN_PERSON, METHOD_ONLINE, METHOD_OTHER = 1, 2, 99
DIRECTION_IN, DIRECTION_OUT = 1, 2
FUNDS, CASH, VIRTUAL_CURRENCY = 1, 2, 3

# Disposition of the completing action.
DISPOSITION_DEPOSIT, DISPOSITION_OUTGOING_TRANSFER, DISPOSITION_VIRTUAL_CURRENCY_TRANSFER, DISPOSITION_CASH_OUT = 1, 2, 3, 4
DISPOSITION = {
    FiatEventType.WIRE_OUT: DISPOSITION_OUTGOING_TRANSFER, FiatEventType.ACH_OUT: DISPOSITION_OUTGOING_TRANSFER,
    FiatEventType.CASH_WITHDRAWAL: DISPOSITION_CASH_OUT, FiatEventType.CARD_ATM: DISPOSITION_CASH_OUT,
}

IDENTIFIER_TYPE = {
    IdDocumentType.DRIVERS_LICENSE: 1, IdDocumentType.PASSPORT: 2, IdDocumentType.NATIONAL_ID: 3,
    IdDocumentType.ALIEN_REGISTRATION: 4, IdDocumentType.OTHER: 99,
}
IDENTIFIER_OTHER = 99
