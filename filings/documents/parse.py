"""Form data (plain dicts, as an API client sends them) -> the typed model, with field-path errors.

    form = parse_suspicious_activity_form(request.data)     # raises FormInvalid(issues)
    form = parse_large_transaction_form(request.data)

Unknown fields are refused (a typo must not silently drop data from a legal report). Only types
and formats are checked here; completeness is for the renderers' business checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from filings.documents.model import (
    Address,
    Amendment,
    Category,
    Counterparty,
    Filer,
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
)
from filings.documents.reader import Reader, join
from filings.documents.typologies import TYPOLOGIES
from filings.documents.vocabulary import (
    AggregationBasis,
    AmendmentType,
    Direction,
    FiatEventType,
    FilerTinType,
    Gender,
    IdDocumentType,
    InstitutionType,
    Instrument,
    PhoneType,
    SubjectRole,
    SubjectType,
    TaxIdType,
)

MAX_SUBJECTS = 999  # FinCEN: at most 999 subject parties in one SAR
MAX_TRANSACTIONS = 100_000


def _fields(*names: str) -> frozenset[str]:
    return frozenset(names)


def _address(reader: Reader, data: Any, path: str) -> Address | None:
    data = reader.obj(data, path, _fields("line1", "city", "state", "postal_code", "country"))
    if data is None:
        return None
    return Address(
        line1=reader.text(data, "line1", path), city=reader.text(data, "city", path, max_length=100),
        state=reader.text(data, "state", path, max_length=100), postal_code=reader.text(data, "postal_code", path, max_length=20),
        country=reader.country(data, "country", path),
    )


_FILER_FIELDS = _fields(
    "legal_name", "tin", "tin_type", "address", "primary_regulator", "contact_office", "contact_phone", "dba_name",
    "institution_type", "institution_type_other", "transmitter_control_code", "reporting_entity_number",
    "regulator_contact_id", "reporting_entity_location_id",
)


def _filer(reader: Reader, data: Any, path: str) -> Filer | None:
    data = reader.obj(data, path, _FILER_FIELDS)
    if data is None:
        return None
    return Filer(
        legal_name=reader.text(data, "legal_name", path, max_length=150), tin=reader.text(data, "tin", path, max_length=25),
        tin_type=reader.choice(data, "tin_type", path, FilerTinType),
        address=reader.child(data, "address", path, lambda v, p: _address(reader, v, p)),
        primary_regulator=reader.text(data, "primary_regulator", path, max_length=100),
        contact_office=reader.text(data, "contact_office", path, max_length=100),
        contact_phone=reader.text(data, "contact_phone", path, max_length=30), dba_name=reader.text(data, "dba_name", path, max_length=150),
        institution_type=reader.choice(data, "institution_type", path, InstitutionType),
        institution_type_other=reader.text(data, "institution_type_other", path, max_length=50),
        transmitter_control_code=reader.text(data, "transmitter_control_code", path, max_length=25),
        reporting_entity_number=reader.text(data, "reporting_entity_number", path, max_length=20),
        regulator_contact_id=reader.integer(data, "regulator_contact_id", path),
        reporting_entity_location_id=reader.text(data, "reporting_entity_location_id", path, max_length=30),
    )


def _prepared_by(reader: Reader, data: Any, path: str) -> PreparedBy | None:
    data = reader.obj(data, path, _fields("name", "title", "phone", "email"))
    if data is None:
        return None
    return PreparedBy(name=reader.text(data, "name", path, max_length=150), title=reader.text(data, "title", path, max_length=100),
                      phone=reader.text(data, "phone", path, max_length=30), email=reader.text(data, "email", path, max_length=254))


def _amendment(reader: Reader, data: Any, path: str) -> Amendment | None:
    data = reader.obj(data, path, _fields("type", "prior_report_id", "prior_report_date"))
    if data is None:
        return None
    return Amendment(type=reader.choice(data, "type", path, AmendmentType) or AmendmentType.INITIAL,
                     prior_report_id=reader.text(data, "prior_report_id", path, max_length=100),
                     prior_report_date=reader.day(data, "prior_report_date", path))


def _tax_id(reader: Reader, data: Any, path: str) -> TaxId | None:
    data = reader.obj(data, path, _fields("number", "type", "country"))
    if data is None:
        return None
    number = reader.text(data, "number", path, max_length=40, required=True)
    kind = reader.choice(data, "type", path, TaxIdType) or TaxIdType.OTHER
    country = reader.country(data, "country", path)
    return TaxId(number=number, type=kind, country=country) if number else None


def _id_document(reader: Reader, data: Any, path: str) -> IdDocument | None:
    data = reader.obj(data, path, _fields("type", "number", "country", "state", "issuer", "description", "issue_date", "expiry_date"))
    if data is None:
        return None
    kind = reader.choice(data, "type", path, IdDocumentType, required=True)
    number = reader.text(data, "number", path, max_length=40, required=True)
    document = IdDocument(
        type=kind or IdDocumentType.OTHER, number=number or "", country=reader.country(data, "country", path),
        state=reader.text(data, "state", path, max_length=100), issuer=reader.text(data, "issuer", path, max_length=100),
        description=reader.text(data, "description", path, max_length=100), issue_date=reader.day(data, "issue_date", path),
        expiry_date=reader.day(data, "expiry_date", path),
    )
    return document if kind and number else None


def _phone(reader: Reader, data: Any, path: str) -> Phone | None:
    data = reader.obj(data, path, _fields("number", "type", "extension"))
    if data is None:
        return None
    number = reader.text(data, "number", path, max_length=30, required=True)
    return Phone(number=number, type=reader.choice(data, "type", path, PhoneType),
                 extension=reader.text(data, "extension", path, max_length=10)) if number else None


def _wallet(reader: Reader, data: Any, path: str) -> Wallet | None:
    data = reader.obj(data, path, _fields("address", "chain", "chain_id", "asset"))
    if data is None:
        return None
    address = reader.text(data, "address", path, max_length=256, required=True)
    return Wallet(address=address, chain=reader.text(data, "chain", path, max_length=40), chain_id=reader.integer(data, "chain_id", path),
                  asset=reader.currency(data, "asset", path)) if address else None


_SUBJECT_FIELDS = _fields(
    "id", "type", "role", "given_name", "middle_name", "family_name", "name_suffix", "legal_name", "dba_name", "alternate_names",
    "birth_date", "gender", "nationality", "occupation", "tax_id", "id_documents", "addresses", "phones", "emails", "wallets",
    "is_customer",
)


def _subject(reader: Reader, data: Any, path: str, index: int) -> Subject | None:
    data = reader.obj(data, path, _SUBJECT_FIELDS)
    if data is None:
        return None
    return Subject(
        id=reader.text(data, "id", path, max_length=50) or f"S{index + 1}",
        type=reader.choice(data, "type", path, SubjectType) or SubjectType.INDIVIDUAL,
        role=reader.choice(data, "role", path, SubjectRole) or SubjectRole.SUBJECT,
        given_name=reader.text(data, "given_name", path, max_length=150),
        middle_name=reader.text(data, "middle_name", path, max_length=150),
        family_name=reader.text(data, "family_name", path, max_length=150),
        name_suffix=reader.text(data, "name_suffix", path, max_length=35),
        legal_name=reader.text(data, "legal_name", path, max_length=300), dba_name=reader.text(data, "dba_name", path, max_length=300),
        alternate_names=reader.texts(data, "alternate_names", path, max_length=300),
        birth_date=reader.day(data, "birth_date", path), gender=reader.choice(data, "gender", path, Gender),
        nationality=reader.country(data, "nationality", path), occupation=reader.text(data, "occupation", path, max_length=200),
        tax_id=reader.child(data, "tax_id", path, lambda v, p: _tax_id(reader, v, p)),
        id_documents=reader.items(data, "id_documents", path, lambda v, p: _id_document(reader, v, p), max_items=99),
        addresses=reader.items(data, "addresses", path, lambda v, p: _address(reader, v, p), max_items=99),
        phones=reader.items(data, "phones", path, lambda v, p: _phone(reader, v, p), max_items=99),
        emails=reader.texts(data, "emails", path, max_length=254),
        wallets=reader.items(data, "wallets", path, lambda v, p: _wallet(reader, v, p), max_items=1000),
        is_customer=reader.boolean(data, "is_customer", path),
    )


def _subjects(reader: Reader, data: Mapping, path: str = "") -> tuple[Subject, ...]:
    raw = data.get("subjects")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        reader.error(join(path, "subjects"), "Expected a list.")
        return ()
    if len(raw) > MAX_SUBJECTS:
        reader.error(join(path, "subjects"), f"At most {MAX_SUBJECTS} subjects.")
        return ()
    subjects = tuple(_subject(reader, item, join("subjects", index), index) for index, item in enumerate(raw))
    subjects = tuple(subject for subject in subjects if subject is not None)
    seen: set[str] = set()
    for index, subject in enumerate(subjects):
        if subject.id in seen:
            reader.error(f"subjects.{index}.id", f"Duplicate subject id {subject.id!r}.")
        seen.add(subject.id)
    return subjects


def _category(reader: Reader, data: Any, path: str) -> Category | None:
    if isinstance(data, str):
        data = {"typology": data}
    data = reader.obj(data, path, _fields("typology", "description"))
    if data is None:
        return None
    code = reader.text(data, "typology", path, max_length=50, required=True)
    if code and code not in TYPOLOGIES:
        reader.error(join(path, "typology"), f"{code!r} is not a known typology (see docs/filings.md).")
        return None
    return Category(typology=code, description=reader.text(data, "description", path, max_length=500)) if code else None


def _regulator_codes(reader: Reader, data: Mapping, path: str) -> dict[str, tuple[str, ...]]:
    raw = data.get("regulator_codes")
    here = join(path, "regulator_codes")
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        reader.error(here, "Expected an object keyed by jurisdiction.")
        return {}
    codes: dict[str, tuple[str, ...]] = {}
    for jurisdiction in raw:
        if not (isinstance(jurisdiction, str) and len(jurisdiction) == 2 and jurisdiction.isupper()):
            reader.error(join(here, str(jurisdiction)), "Keys are ISO 3166-1 alpha-2 codes, e.g. \"US\".")
            continue
        codes[jurisdiction] = reader.items(raw, jurisdiction, here, lambda v, p: reader.text_value(
            str(v) if isinstance(v, int) and not isinstance(v, bool) else v, p, max_length=20))
    return codes


_INSTRUMENTS = frozenset(member.value for member in Instrument)


def _instrument(reader: Reader, data: Any, path: str) -> str | None:
    value = reader.text_value(data, path, max_length=50)
    if value is not None and value not in _INSTRUMENTS:
        reader.error(path, f"{value!r} is not one of: {', '.join(Instrument)}.")
        return None
    return value


_ACTIVITY_FIELDS = _fields(
    "amount_involved", "currency", "amount_unknown", "start_date", "end_date", "categories", "regulator_codes", "instruments",
    "case_references", "alert_references", "narrative", "action_taken", "note_to_regulator",
)


def _activity(reader: Reader, data: Any, path: str) -> SuspiciousActivity | None:
    data = reader.obj(data, path, _ACTIVITY_FIELDS)
    if data is None:
        return None
    return SuspiciousActivity(
        amount_involved=reader.decimal(data, "amount_involved", path),
        currency=reader.currency(data, "currency", path, fiat_only=True) or "USD",
        amount_unknown=bool(reader.boolean(data, "amount_unknown", path)),
        start_date=reader.day(data, "start_date", path), end_date=reader.day(data, "end_date", path),
        categories=reader.items(data, "categories", path, lambda v, p: _category(reader, v, p), max_items=99),
        regulator_codes=_regulator_codes(reader, data, path),
        instruments=reader.items(data, "instruments", path, lambda v, p: _instrument(reader, v, p), max_items=31),
        case_references=reader.texts(data, "case_references", path, max_length=100),
        alert_references=reader.texts(data, "alert_references", path, max_length=100),
        narrative=reader.text(data, "narrative", path, max_length=100_000),
        action_taken=reader.text(data, "action_taken", path, max_length=4000),
        note_to_regulator=reader.text(data, "note_to_regulator", path, max_length=200),
    )


def _counterparty(reader: Reader, data: Any, path: str) -> Counterparty | None:
    data = reader.obj(data, path, _fields("name", "type", "wallet", "account", "institution", "country"))
    if data is None:
        return None
    return Counterparty(name=reader.text(data, "name", path, max_length=300), type=reader.choice(data, "type", path, SubjectType),
                        wallet=reader.text(data, "wallet", path, max_length=256),
                        account=reader.text(data, "account", path, max_length=100),
                        institution=reader.text(data, "institution", path, max_length=150), country=reader.country(data, "country", path))


def _location(reader: Reader, data: Any, path: str) -> Location | None:
    data = reader.obj(data, path, _fields("name", "line1", "city", "state", "postal_code", "country"))
    if data is None:
        return None
    return Location(name=reader.text(data, "name", path, max_length=150), line1=reader.text(data, "line1", path),
                    city=reader.text(data, "city", path, max_length=100), state=reader.text(data, "state", path, max_length=100),
                    postal_code=reader.text(data, "postal_code", path, max_length=20), country=reader.country(data, "country", path))


def _money(reader: Reader, data: Any, path: str) -> Money | None:
    data = reader.obj(data, path, _fields("amount", "currency"))
    if data is None:
        return None
    amount = reader.decimal(data, "amount", path, required=True)
    currency = reader.currency(data, "currency", path, required=True, fiat_only=True)
    return Money(amount=amount, currency=currency) if amount is not None and currency else None


_TRANSACTION_FIELDS = _fields(
    "reference", "timestamp", "amount", "currency", "usd_value", "local_value", "direction", "fiat_event_type", "chain", "chain_id",
    "tx_hash", "from_address", "to_address", "counterparty", "location", "subject_id", "business_date", "attempted", "description",
)


def _transaction(reader: Reader, data: Any, path: str) -> Transaction | None:
    data = reader.obj(data, path, _TRANSACTION_FIELDS)
    if data is None:
        return None
    timestamp = reader.moment(data, "timestamp", path, required=True)
    amount = reader.decimal(data, "amount", path, required=True)
    currency = reader.currency(data, "currency", path, required=True)
    rest = dict(
        reference=reader.text(data, "reference", path, max_length=200),
        usd_value=reader.decimal(data, "usd_value", path),
        local_value=reader.child(data, "local_value", path, lambda v, p: _money(reader, v, p)),
        direction=reader.choice(data, "direction", path, Direction) or Direction.IN,
        fiat_event_type=reader.choice(data, "fiat_event_type", path, FiatEventType),
        chain=reader.text(data, "chain", path, max_length=40), chain_id=reader.integer(data, "chain_id", path),
        tx_hash=reader.text(data, "tx_hash", path, max_length=200), from_address=reader.text(data, "from_address", path, max_length=256),
        to_address=reader.text(data, "to_address", path, max_length=256),
        counterparty=reader.child(data, "counterparty", path, lambda v, p: _counterparty(reader, v, p)),
        location=reader.child(data, "location", path, lambda v, p: _location(reader, v, p)),
        subject_id=reader.text(data, "subject_id", path, max_length=50), business_date=reader.day(data, "business_date", path),
        attempted=bool(reader.boolean(data, "attempted", path)), description=reader.text(data, "description", path, max_length=500),
    )
    if timestamp is None or amount is None or currency is None:
        return None
    return Transaction(timestamp=timestamp, amount=amount, currency=currency, **rest)


def _transactions(reader: Reader, data: Mapping, subjects: tuple[Subject, ...]) -> tuple[Transaction, ...]:
    transactions = reader.items(data, "transactions", "", lambda v, p: _transaction(reader, v, p), max_items=MAX_TRANSACTIONS)
    known = {subject.id for subject in subjects}
    raw = data.get("transactions") or []
    for index, item in enumerate(raw if isinstance(raw, list) else []):
        subject_id = item.get("subject_id") if isinstance(item, Mapping) else None
        if isinstance(subject_id, str) and subject_id.strip() and subject_id.strip() not in known:
            reader.error(f"transactions.{index}.subject_id", f"No subject has the id {subject_id!r}.")
    return transactions


_COMMON_FIELDS = ("filer", "subjects", "transactions", "prepared_by", "amendment", "filing_date", "report_reference")
_SAR_FIELDS = _fields(*_COMMON_FIELDS, "activity")
_LARGE_FIELDS = _fields(*_COMMON_FIELDS, "aggregation_basis", "alert_references", "notes")


def _common(reader: Reader, data: Mapping) -> dict:
    subjects = _subjects(reader, data)
    return dict(
        filer=reader.child(data, "filer", "", lambda v, p: _filer(reader, v, p)) or Filer(),
        subjects=subjects, transactions=_transactions(reader, data, subjects),
        prepared_by=reader.child(data, "prepared_by", "", lambda v, p: _prepared_by(reader, v, p)),
        amendment=reader.child(data, "amendment", "", lambda v, p: _amendment(reader, v, p)) or Amendment(),
        filing_date=reader.day(data, "filing_date", ""), report_reference=reader.text(data, "report_reference", "", max_length=100),
    )


def parse_suspicious_activity_form(data: Any) -> SuspiciousActivityForm:
    """The SAR/STR/SMR form from its JSON data. Raises FormInvalid with every issue."""
    reader = Reader()
    data = reader.obj(data, "", _SAR_FIELDS)
    reader.raise_if_invalid()
    common = _common(reader, data)
    activity = reader.child(data, "activity", "", lambda v, p: _activity(reader, v, p)) or SuspiciousActivity()
    reader.raise_if_invalid()
    return SuspiciousActivityForm(activity=activity, **common)


def parse_large_transaction_form(data: Any) -> LargeTransactionForm:
    """The CTR/LCTR/TTR form from its JSON data. Raises FormInvalid with every issue."""
    reader = Reader()
    data = reader.obj(data, "", _LARGE_FIELDS)
    reader.raise_if_invalid()
    common = _common(reader, data)
    form = LargeTransactionForm(
        aggregation_basis=reader.choice(data, "aggregation_basis", "", AggregationBasis),
        alert_references=reader.texts(data, "alert_references", "", max_length=100),
        notes=reader.text(data, "notes", "", max_length=4000), **common,
    )
    reader.raise_if_invalid()
    return form
