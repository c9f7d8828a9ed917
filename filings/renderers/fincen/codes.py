"""FinCEN code tables (FinCEN SAR and CTR XML user guides; the enumerations of the two XSDs)."""

from __future__ import annotations

from filings.documents.vocabulary import FiatEventType, IdDocumentType, InstitutionType, Instrument, PhoneType, TaxIdType

NAMESPACE = "www.fincen.gov/base"

# ActivityPartyTypeCode
TRANSMITTER = "35"
TRANSMITTER_CONTACT = "37"
FILING_INSTITUTION = "30"  # SAR "filing institution", CTR "reporting financial institution"
CONTACT_OFFICE = "8"
ACTIVITY_INSTITUTION = "34"  # SAR "financial institution where activity occurred", CTR "transaction location"
SUBJECT = "33"
CTR_OWN_BEHALF = "50"
CTR_FOR_ANOTHER = "17"
CTR_ON_WHOSE_BEHALF = "23"

# PartyIdentificationTypeCode
ID_SSN_ITIN, ID_EIN, ID_TIN, ID_DRIVERS_LICENSE, ID_PASSPORT, ID_ALIEN_REGISTRATION, ID_FOREIGN = "1", "2", "4", "5", "6", "7", "9"
ID_TCC, ID_INTERNAL_CONTROL, ID_OTHER = "28", "29", "999"

FILER_TIN_TYPE = {"EIN": ID_EIN, "SSN": ID_SSN_ITIN, "foreign": ID_FOREIGN}
SUBJECT_TIN_TYPE = {
    TaxIdType.SSN: ID_SSN_ITIN, TaxIdType.ITIN: ID_SSN_ITIN, TaxIdType.EIN: ID_EIN,
}
ID_DOCUMENT_TYPE = {
    IdDocumentType.PASSPORT: ID_PASSPORT, IdDocumentType.DRIVERS_LICENSE: ID_DRIVERS_LICENSE,
    IdDocumentType.ALIEN_REGISTRATION: ID_ALIEN_REGISTRATION, IdDocumentType.NATIONAL_ID: ID_OTHER, IdDocumentType.OTHER: ID_OTHER,
}

PHONE_TYPE = {PhoneType.FAX: "F", PhoneType.MOBILE: "M", PhoneType.HOME: "R", PhoneType.WORK: "W"}

# PrimaryRegulatorTypeCode. The SAR list has FHFA (13) and "not applicable" (99); the CTR list has
# neither but has "unknown" (14). Money services businesses are examined by the IRS (31 CFR 1022.
# 380 registration; IRS SB/SE examines MSBs for BSA compliance).
REGULATORS = {
    "CFTC": "9", "FEDERAL RESERVE": "1", "FRB": "1", "FED": "1", "FDIC": "2", "IRS": "7", "NCUA": "3", "OCC": "4",
    "SEC": "6", "FHFA": "13",
}
SAR_REGULATORS = frozenset(("9", "1", "2", "7", "3", "4", "6", "13", "99"))
CTR_REGULATORS = frozenset(("9", "1", "2", "7", "3", "4", "6", "14"))

# OrganizationTypeID: a virtual-asset service provider is a money transmitter, i.e. an MSB
# (FinCEN guidance FIN-2019-G001 on convertible virtual currency business models).
ORGANIZATION_TYPE = {
    InstitutionType.VIRTUAL_ASSET_SERVICE_PROVIDER: 4, InstitutionType.MONEY_SERVICES_BUSINESS: 4,
    InstitutionType.DEPOSITORY_INSTITUTION: 2, InstitutionType.SECURITIES_FUTURES: 5, InstitutionType.CASINO: 1,
    InstitutionType.INSURANCE: 3, InstitutionType.LOAN_FINANCE: 11, InstitutionType.OTHER: 999,
}
CTR_ORGANIZATION_TYPES = frozenset((1, 2, 4, 5, 999))

# Assets: (AssetTypeID, AssetSubtypeID, OtherAssetSubtypeText). Type 5 "financial product",
# type 6 "financial instrument or payment mechanism". FinCEN's CVC advisory (FIN-2019-A003) has
# virtual currency reported as "Other" with a description.
ASSETS = {
    Instrument.VIRTUAL_CURRENCY: (6, 41, "Convertible virtual currency"),
    Instrument.US_CURRENCY: (6, 39, None), Instrument.FOREIGN_CURRENCY: (6, 32, None),
    Instrument.FUNDS_TRANSFER: (6, 33, None), Instrument.MONEY_ORDERS: (6, 36, None), Instrument.BANK_CHECK: (6, 31, None),
    Instrument.PERSONAL_BUSINESS_CHECK: (6, 37, None), Instrument.TRAVELERS_CHECKS: (6, 38, None),
    Instrument.GOVERNMENT_PAYMENT: (6, 35, None), Instrument.PREPAID_ACCESS: (5, 16, None), Instrument.CREDIT_CARD: (5, 5, None),
    Instrument.DEBIT_CARD: (5, 6, None), Instrument.DEPOSIT_ACCOUNT: (5, 46, None), Instrument.FOREX: (5, 7, None),
    Instrument.SECURITIES: (5, 19, None), Instrument.OTHER: (5, 30, "Other financial product"),
}

# CurrencyTransactionActivityDetailTypeCode by fiat event, each code belonging to the cash-in or
# the cash-out side (FinCEN CTR items 25 and 27). Events with no FinCEN equivalent, and on-chain
# transfers, are "other cash in/out" (997/998) with a description.
CASH_IN, CASH_OUT = "in", "out"
CTR_DETAIL = {
    FiatEventType.CASH_DEPOSIT: ("55", CASH_IN), FiatEventType.CASH_WITHDRAWAL: ("56", CASH_OUT),
    FiatEventType.WIRE_OUT: ("23", CASH_IN), FiatEventType.WIRE_IN: ("32", CASH_OUT),
    FiatEventType.CHECK_PURCHASE: ("12", CASH_IN), FiatEventType.CHECK_DEPOSIT: ("13", CASH_OUT),
    FiatEventType.CARD_LOAD: ("49", CASH_IN), FiatEventType.CARD_ATM: ("56", CASH_OUT),
}
OTHER_CASH_IN, OTHER_CASH_OUT, FOREIGN_CASH_IN, FOREIGN_CASH_OUT = "997", "998", "53", "54"
