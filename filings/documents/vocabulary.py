"""The closed word lists of the form data: what an API client may send, in the project's own words.

Each renderer maps these words to its regulator's codes (FinCEN, FINTRAC, AUSTRAC); the words
themselves are jurisdiction-neutral. Typologies, which carry per-regulator codes, are in
`typologies.py`.
"""

from __future__ import annotations

from enum import StrEnum


class SubjectType(StrEnum):
    INDIVIDUAL = "individual"
    BUSINESS = "business"


class SubjectRole(StrEnum):
    """What a party did in the reported activity.

    A SAR/STR/SMR lists every party as a subject and uses the role for the relationship fields
    (FinCEN item 21, "subject's role in transaction"). A large-transaction report needs the roles
    to tell the person who conducted the transaction from the one it was conducted for
    (FinCEN CTR parts I-A/I-B; FINTRAC LCTR conductor / third party; AUSTRAC TTR customer /
    individual conducting / recipient).
    """

    SUBJECT = "subject"
    CONDUCTOR = "conductor"
    ON_BEHALF_OF = "on_behalf_of"
    BENEFICIARY = "beneficiary"
    OTHER = "other"


class Gender(StrEnum):
    MALE = "male"
    FEMALE = "female"
    UNKNOWN = "unknown"


class TaxIdType(StrEnum):
    SSN = "SSN"  # US social security number (or ITIN)
    ITIN = "ITIN"
    EIN = "EIN"
    ABN = "ABN"  # Australian business number
    ACN = "ACN"  # Australian company number
    TFN = "TFN"  # Australian tax file number: accepted here only so that the AU checks can refuse it
    SIN = "SIN"  # Canadian social insurance number: FINTRAC asks not to receive it
    BN = "BN"  # Canadian business number
    FOREIGN = "foreign"
    OTHER = "other"


class FilerTinType(StrEnum):
    """The organization's own TIN types (organizations.choices.TinType)."""

    EIN = "EIN"
    SSN = "SSN"
    FOREIGN = "foreign"


class IdDocumentType(StrEnum):
    PASSPORT = "passport"
    DRIVERS_LICENSE = "drivers_license"
    NATIONAL_ID = "national_id"
    ALIEN_REGISTRATION = "alien_registration"
    OTHER = "other"


class PhoneType(StrEnum):
    MOBILE = "mobile"
    HOME = "home"
    WORK = "work"
    FAX = "fax"


class InstitutionType(StrEnum):
    """The filer's kind of business (FinCEN "type of financial institution", FINTRAC activity
    sector, AUSTRAC designated service)."""

    VIRTUAL_ASSET_SERVICE_PROVIDER = "virtual_asset_service_provider"
    MONEY_SERVICES_BUSINESS = "money_services_business"
    DEPOSITORY_INSTITUTION = "depository_institution"
    SECURITIES_FUTURES = "securities_futures"
    CASINO = "casino"
    INSURANCE = "insurance"
    LOAN_FINANCE = "loan_finance"
    OTHER = "other"


class Direction(StrEnum):
    """As in monitoring: `in` when the money reaches the customer, `out` when it leaves."""

    IN = "in"
    OUT = "out"
    SELF = "self"


class FiatEventType(StrEnum):
    """The monitoring fiat event kinds (monitoring.rules.context.FIAT_EVENT_TYPES) plus cash."""

    WIRE_IN = "wire_in"
    WIRE_OUT = "wire_out"
    ACH_IN = "ach_in"
    ACH_OUT = "ach_out"
    CARD_LOAD = "card_load"
    CARD_PURCHASE = "card_purchase"
    CARD_ATM = "card_atm"
    CARD_REFUND = "card_refund"
    CHECK_DEPOSIT = "check_deposit"
    CHECK_PURCHASE = "check_purchase"
    CASH_DEPOSIT = "cash_deposit"
    CASH_WITHDRAWAL = "cash_withdrawal"


class Instrument(StrEnum):
    """Instruments and products involved (FinCEN SAR items 45-46, AUSTRAC designated services)."""

    VIRTUAL_CURRENCY = "virtual_currency"
    US_CURRENCY = "us_currency"
    FOREIGN_CURRENCY = "foreign_currency"
    FUNDS_TRANSFER = "funds_transfer"
    MONEY_ORDERS = "money_orders"
    BANK_CHECK = "bank_check"
    PERSONAL_BUSINESS_CHECK = "personal_business_check"
    TRAVELERS_CHECKS = "travelers_checks"
    GOVERNMENT_PAYMENT = "government_payment"
    PREPAID_ACCESS = "prepaid_access"
    CREDIT_CARD = "credit_card"
    DEBIT_CARD = "debit_card"
    DEPOSIT_ACCOUNT = "deposit_account"
    FOREX = "forex"
    SECURITIES = "securities"
    OTHER = "other"


class AmendmentType(StrEnum):
    """FinCEN SAR item 1 (initial / correct-amend / continuing); FINTRAC submit type; AUSTRAC
    "previously reported"."""

    INITIAL = "initial"
    CORRECTION = "correction"
    CONTINUING = "continuing"


class AggregationBasis(StrEnum):
    """Why several transactions are in one large-transaction report (FINTRAC's 24-hour rule,
    PCMLTFR s. 126; FinCEN's multiple-transaction aggregation, 31 CFR 1010.313)."""

    NOT_APPLICABLE = "not_applicable"
    CONDUCTOR = "conductor"
    ON_BEHALF_OF = "on_behalf_of"
    BENEFICIARY = "beneficiary"


FIAT_INSTRUMENT = {
    FiatEventType.WIRE_IN: Instrument.FUNDS_TRANSFER,
    FiatEventType.WIRE_OUT: Instrument.FUNDS_TRANSFER,
    FiatEventType.ACH_IN: Instrument.FUNDS_TRANSFER,
    FiatEventType.ACH_OUT: Instrument.FUNDS_TRANSFER,
    FiatEventType.CARD_LOAD: Instrument.PREPAID_ACCESS,
    FiatEventType.CARD_PURCHASE: Instrument.DEBIT_CARD,
    FiatEventType.CARD_ATM: Instrument.DEBIT_CARD,
    FiatEventType.CARD_REFUND: Instrument.DEBIT_CARD,
    FiatEventType.CHECK_DEPOSIT: Instrument.PERSONAL_BUSINESS_CHECK,
    FiatEventType.CHECK_PURCHASE: Instrument.BANK_CHECK,
    FiatEventType.CASH_DEPOSIT: Instrument.US_CURRENCY,
    FiatEventType.CASH_WITHDRAWAL: Instrument.US_CURRENCY,
}

FIAT_EVENT_LABEL = {
    FiatEventType.WIRE_IN: "incoming wire transfer",
    FiatEventType.WIRE_OUT: "outgoing wire transfer",
    FiatEventType.ACH_IN: "ACH credit",
    FiatEventType.ACH_OUT: "ACH debit",
    FiatEventType.CARD_LOAD: "card load",
    FiatEventType.CARD_PURCHASE: "card purchase",
    FiatEventType.CARD_ATM: "ATM withdrawal",
    FiatEventType.CARD_REFUND: "card refund",
    FiatEventType.CHECK_DEPOSIT: "check deposit",
    FiatEventType.CHECK_PURCHASE: "check purchase",
    FiatEventType.CASH_DEPOSIT: "cash deposit",
    FiatEventType.CASH_WITHDRAWAL: "cash withdrawal",
}
