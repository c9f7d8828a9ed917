"""The form data of a filing: a jurisdiction-neutral, JSON-serialisable model.

Two forms share their parts:

- `SuspiciousActivityForm` — what a SAR (US), STR (CA and the generic STR) or SMR (AU) is
  rendered from;
- `LargeTransactionForm` — what a CTR (US), LCTR (CA) or TTR (AU) is rendered from.

Instances are immutable and hold typed values (Decimal amounts, `date`, timezone-aware UTC
`datetime`, docs/architecture.md §5). `parse.py` builds them from plain dicts with field-path errors;
`as_json` turns them back into plain dicts (the round trip is exact). Parsing checks shape and
types only; whether a form is complete enough for a given regulator is for the renderers' business
checks, so that a half-filled draft still renders and every gap is reported at once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from filings.documents.vocabulary import (
    AggregationBasis,
    AmendmentType,
    Direction,
    FiatEventType,
    FilerTinType,
    Gender,
    IdDocumentType,
    InstitutionType,
    PhoneType,
    SubjectRole,
    SubjectType,
    TaxIdType,
)

_FROZEN = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_FROZEN)
class Address:
    line1: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None  # ISO 3166-1 alpha-2


@dataclass(**_FROZEN)
class Filer:
    """The reporting institution. The first seven fields are the organization's `filer_profile`
    exactly, so the profile can be passed in as it is stored."""

    legal_name: str | None = None
    tin: str | None = None
    tin_type: FilerTinType | None = None
    address: Address | None = None
    primary_regulator: str | None = None
    contact_office: str | None = None
    contact_phone: str | None = None
    dba_name: str | None = None
    institution_type: InstitutionType | None = None
    institution_type_other: str | None = None
    # FinCEN Transmitter Control Code (BSA E-Filing batch transmitters).
    transmitter_control_code: str | None = None
    # FINTRAC or AUSTRAC reporting entity number (7 digits).
    reporting_entity_number: str | None = None
    # FINTRAC: the contact's id in FINTRAC's system and the location number where transactions happen.
    regulator_contact_id: int | None = None
    reporting_entity_location_id: str | None = None


@dataclass(**_FROZEN)
class PreparedBy:
    name: str | None = None
    title: str | None = None
    phone: str | None = None
    email: str | None = None


@dataclass(**_FROZEN)
class Amendment:
    type: AmendmentType = AmendmentType.INITIAL
    prior_report_id: str | None = None  # FinCEN BSA ID, FINTRAC/AUSTRAC report reference
    prior_report_date: date | None = None


@dataclass(**_FROZEN)
class TaxId:
    number: str
    type: TaxIdType = TaxIdType.OTHER
    country: str | None = None


@dataclass(**_FROZEN)
class IdDocument:
    type: IdDocumentType
    number: str
    country: str | None = None
    state: str | None = None
    issuer: str | None = None
    description: str | None = None  # what the document is, for type "other"
    issue_date: date | None = None
    expiry_date: date | None = None


@dataclass(**_FROZEN)
class Phone:
    number: str
    type: PhoneType | None = None
    extension: str | None = None


@dataclass(**_FROZEN)
class Wallet:
    address: str
    chain: str | None = None  # "ethereum", "bitcoin", ...
    chain_id: int | None = None
    asset: str | None = None


@dataclass(**_FROZEN)
class Subject:
    id: str  # reference used by Transaction.subject_id; "S1", "S2", ... when not given
    type: SubjectType = SubjectType.INDIVIDUAL
    role: SubjectRole = SubjectRole.SUBJECT
    given_name: str | None = None
    middle_name: str | None = None
    family_name: str | None = None
    name_suffix: str | None = None
    legal_name: str | None = None  # businesses
    dba_name: str | None = None
    alternate_names: tuple[str, ...] = ()
    birth_date: date | None = None
    gender: Gender | None = None
    nationality: str | None = None
    occupation: str | None = None
    tax_id: TaxId | None = None
    id_documents: tuple[IdDocument, ...] = ()
    addresses: tuple[Address, ...] = ()
    phones: tuple[Phone, ...] = ()
    emails: tuple[str, ...] = ()
    wallets: tuple[Wallet, ...] = ()
    is_customer: bool | None = None

    @property
    def is_business(self) -> bool:
        return self.type == SubjectType.BUSINESS

    @property
    def display_name(self) -> str:
        """The name as one string, as written (no transliteration)."""
        if self.is_business:
            return self.legal_name or self.dba_name or ""
        parts = (self.given_name, self.middle_name, self.family_name, self.name_suffix)
        return " ".join(part for part in parts if part)


@dataclass(**_FROZEN)
class Category:
    typology: str  # a key of typologies.TYPOLOGIES
    description: str | None = None  # free text, shown with "other" boxes and in generic reports


@dataclass(**_FROZEN)
class Counterparty:
    name: str | None = None
    type: SubjectType | None = None
    wallet: str | None = None
    account: str | None = None
    institution: str | None = None
    country: str | None = None


@dataclass(**_FROZEN)
class Location:
    name: str | None = None
    line1: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None


@dataclass(**_FROZEN)
class Money:
    amount: Decimal
    currency: str


@dataclass(**_FROZEN)
class Transaction:
    reference: str | None = None  # the project's id of the transaction or fiat event
    timestamp: datetime  # UTC
    amount: Decimal
    currency: str  # ISO 4217 code or asset label ("USDC", "ETH")
    usd_value: Decimal | None = None
    local_value: Money | None = None  # value in the reporting jurisdiction's currency (CAD, AUD)
    direction: Direction = Direction.IN
    fiat_event_type: FiatEventType | None = None  # None: an on-chain transfer
    chain: str | None = None
    chain_id: int | None = None
    tx_hash: str | None = None
    from_address: str | None = None
    to_address: str | None = None
    counterparty: Counterparty | None = None
    location: Location | None = None
    subject_id: str | None = None  # who conducted it; the first subject when not given
    business_date: date | None = None  # the business day it posts to (CTR); UTC date when not given
    attempted: bool = False
    description: str | None = None

    @property
    def is_on_chain(self) -> bool:
        return self.fiat_event_type is None

    @property
    def day(self) -> date:
        return self.business_date or self.timestamp.date()


@dataclass(**_FROZEN)
class SuspiciousActivity:
    amount_involved: Decimal | None = None
    currency: str = "USD"
    amount_unknown: bool = False
    start_date: date | None = None
    end_date: date | None = None
    categories: tuple[Category, ...] = ()
    # Codes from the regulator's own lists chosen by the officer, keyed by jurisdiction:
    # "US" FinCEN subtype ids, "AU" AUSTRAC suspReason codes, "CA" FINTRAC public-private
    # partnership project codes. Added to the codes mapped from `categories`.
    regulator_codes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    instruments: tuple[str, ...] = ()
    case_references: tuple[str, ...] = ()
    alert_references: tuple[str, ...] = ()
    narrative: str | None = None
    action_taken: str | None = None
    note_to_regulator: str | None = None  # FinCEN item 2 "Filing institution note to FinCEN"


@dataclass(**_FROZEN)
class SuspiciousActivityForm:
    filer: Filer
    subjects: tuple[Subject, ...] = ()
    activity: SuspiciousActivity = field(default_factory=SuspiciousActivity)
    transactions: tuple[Transaction, ...] = ()
    prepared_by: PreparedBy | None = None
    amendment: Amendment = field(default_factory=Amendment)
    filing_date: date | None = None
    report_reference: str | None = None  # the filer's own reference (case number)


@dataclass(**_FROZEN)
class LargeTransactionForm:
    filer: Filer
    subjects: tuple[Subject, ...] = ()
    transactions: tuple[Transaction, ...] = ()
    prepared_by: PreparedBy | None = None
    amendment: Amendment = field(default_factory=Amendment)
    filing_date: date | None = None
    report_reference: str | None = None
    aggregation_basis: AggregationBasis | None = None
    alert_references: tuple[str, ...] = ()
    notes: str | None = None


Form = SuspiciousActivityForm | LargeTransactionForm


def subject_for(form: Form, transaction: Transaction) -> Subject | None:
    """The subject who conducted a transaction: its `subject_id`, else the first subject."""
    by_id = {subject.id: subject for subject in form.subjects}
    if transaction.subject_id and transaction.subject_id in by_id:
        return by_id[transaction.subject_id]
    return form.subjects[0] if form.subjects else None


def as_json(value: Any) -> Any:
    """Plain JSON data for any form object: Decimal and dates as strings, None fields left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
        return {name: as_json(item) for name, item in items if item is not None and item != () and item != {}}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    return value
