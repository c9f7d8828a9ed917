"""FINTRAC person and entity "definitions" and transaction actions, shared by the STR and the LCTR.

FINTRAC reports name every person or entity once, in `definitions`, and refer to it by `refId`
from the transactions. The definition's `typeCode` says how much it carries (STR JSON schema,
`personEntityData`): 1/2 a name only, 3/4 the details of a person/entity, 5/6 the details of a
person with their employer / an entity with its beneficial ownership. A conductor refers to a
5/6, a beneficiary to a 3/4, a source of funds or an other party involved to a 1/2; one subject
may therefore need more than one definition, each with its own refId.

FINTRAC takes names in any script (French and other accents included), so names are not
transliterated, only cut to the schema's lengths, and every cut is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from filings.documents.model import Address, Counterparty, Form, Subject, Transaction
from filings.documents.vocabulary import Direction, TaxIdType
from filings.renderers.fintrac import codes
from filings.renderers.formatting import iso_day, plain, subdivision_code
from filings.renderers.text import Changes, fit

_REF_CHARS = re.compile(r"[^A-Za-z0-9_-]")
PERSON_NAME, ENTITY_NAME, PERSON_DETAILS, ENTITY_DETAILS, PERSON_EMPLOYER, ENTITY_OWNERSHIP = 1, 2, 3, 4, 5, 6
# An entity with its beneficial ownership (typeCode 6) must list each kind of owner, even if none.
_OWNERSHIP_LISTS = ("authorizedPersons", "registrationsIncorporations", "directorsOfCorporation", "personsOwningSharesOfCorporation",
                    "trusteesOfTrust", "settlorsOfTrust", "personsOwningUnitsOfTrust", "beneficiariesOfTrust",
                    "personsOwningEntityNotCorporationOrTrust")
_CODES_TO_STATE = frozenset(("CA", "US", "MX"))  # FINTRAC: province/state *codes* for these three countries


def reference(value: str, limit: int = 50) -> str:
    """A FINTRAC refId / reference: letters, digits, '-' and '_' only."""
    return _REF_CHARS.sub("-", value)[:limit] or "ref"


def amount_text(amount: Decimal, path: str, changes: Changes) -> str:
    """FINTRAC currencyAmount: up to 17 integer digits and 2 to 10 decimals."""
    if -amount.normalize().as_tuple().exponent > 10:
        changes.tally(path, "Amount rounded to FINTRAC's 10 decimals")
    return plain(amount, min_places=2, max_places=10)


@dataclass
class Definitions:
    """The `definitions` list, built on demand: `ref(subject, kind)` returns the refId and makes
    sure the definition exists."""

    form: Form
    changes: Changes
    items: list[dict] = field(default_factory=list)
    _refs: dict[tuple[str, int], str] = field(default_factory=dict)

    def fit(self, value: str | None, limit: int, path: str, label: str) -> str | None:
        return fit(value, limit, path=path, changes=self.changes, label=label)

    def subject_ref(self, subject: Subject, index: int, *, conductor: bool = False) -> tuple[int, str]:
        """(typeCode, refId) of a subject as a conductor (5/6) or as a party with details (3/4)."""
        if conductor:
            kind = ENTITY_OWNERSHIP if subject.is_business else PERSON_EMPLOYER
        else:
            kind = ENTITY_DETAILS if subject.is_business else PERSON_DETAILS
        key = (subject.id, kind)
        if key not in self._refs:
            self._refs[key] = reference(f"{subject.id}-{kind}")
            self.items.append(self._subject(subject, index, kind, self._refs[key]))
        return kind, self._refs[key]

    def counterparty_ref(self, counterparty: Counterparty | None, path: str, *, conductor: bool) -> tuple[int, str] | None:
        """A counterparty that has a name, as a conductor (5/6) or a name-only party (1/2)."""
        if counterparty is None or not counterparty.name:
            return None
        business = counterparty.type is not None and counterparty.type.value == "business"
        kind = (ENTITY_OWNERSHIP if business else PERSON_EMPLOYER) if conductor else (ENTITY_NAME if business else PERSON_NAME)
        key = (f"cp:{counterparty.name}", kind)
        if key not in self._refs:
            ref = reference(f"CP{len(self._refs) + 1}-{kind}")
            self._refs[key] = ref
            name = self.fit(counterparty.name, 100, f"{path}.name", "Counterparty name")
            entry = {"typeCode": kind, "refId": ref}
            entry.update({"nameOfEntity": name} if business else {"surname": name})
            if kind in (PERSON_EMPLOYER, ENTITY_OWNERSHIP):
                entry["identifications"] = []
            if kind == ENTITY_OWNERSHIP:
                entry.update({name: [] for name in _OWNERSHIP_LISTS})
            self.items.append(entry)
        return kind, self._refs[key]

    def ensure_all(self) -> None:
        """Every subject is defined at least once, even one no transaction refers to."""
        for index, subject in enumerate(self.form.subjects):
            if not any(key[0] == subject.id for key in self._refs):
                self.subject_ref(subject, index)

    # --- details ----------------------------------------------------------------------------

    def _subject(self, subject: Subject, index: int, kind: int, ref: str) -> dict:
        path = f"subjects.{index}"
        entry: dict = {"typeCode": kind, "refId": ref}
        if subject.is_business:
            entry["nameOfEntity"] = self.fit(subject.legal_name or subject.dba_name, 100, f"{path}.legal_name", "Legal name")
        else:
            entry["surname"] = self.fit(subject.family_name, 100, f"{path}.family_name", "Family name")
            entry["givenName"] = self.fit(subject.given_name, 100, f"{path}.given_name", "Given name")
            entry["otherNameInitial"] = self.fit(subject.middle_name, 100, f"{path}.middle_name", "Middle name")
            if subject.alternate_names:
                entry["alias"] = self.fit(subject.alternate_names[0], 100, f"{path}.alternate_names.0", "Alias")
        if subject.addresses:
            entry["addressTypeCode"] = 1
            entry["address"] = self.address(subject.addresses[0], f"{path}.addresses.0")
        if subject.phones:
            entry["telephoneNumber"] = self.fit(subject.phones[0].number, 20, f"{path}.phones.0.number", "Phone number")
            entry["extensionNumber"] = self.fit(subject.phones[0].extension, 10, f"{path}.phones.0.extension", "Extension")
        entry["identifications"] = self._identifications(subject, path)
        if subject.is_business:
            entry["natureOfPrincipalBusiness"] = self.fit(subject.occupation, 200, f"{path}.occupation", "Nature of business")
            lists = _OWNERSHIP_LISTS if kind == ENTITY_OWNERSHIP else _OWNERSHIP_LISTS[:2]
            entry.update({name: [] for name in lists})
        else:
            entry["dateOfBirth"] = iso_day(subject.birth_date)
            entry["countryOfResidenceCode"] = subject.addresses[0].country if subject.addresses else None
            entry["occupation"] = self.fit(subject.occupation, 200, f"{path}.occupation", "Occupation")
            if kind == PERSON_EMPLOYER:
                entry["countryOfCitizenshipCode"] = subject.nationality
        return {key: value for key, value in entry.items() if value is not None}

    def address(self, address: Address, path: str) -> dict:
        """A structured address (typeCode 1); province/state as a code for Canada, the U.S. and
        Mexico, as a name elsewhere."""
        result = {"typeCode": 1, "streetAddress": self.fit(address.line1, 100, f"{path}.line1", "Street address"),
                  "city": self.fit(address.city, 100, f"{path}.city", "City"),
                  "postalZipCode": self.fit(address.postal_code, 20, f"{path}.postal_code", "Postal code"),
                  "countryCode": address.country}
        code = subdivision_code(address.country, address.state) if address.country in _CODES_TO_STATE else None
        if code and len(code) == 2:
            result["provinceStateCode"] = code
        elif address.state:
            result["provinceStateName"] = self.fit(address.state, 100, f"{path}.state", "Province or state")
        return {key: value for key, value in result.items() if value is not None}

    def _identifications(self, subject: Subject, path: str) -> list[dict]:
        result = []
        for index, document in enumerate(subject.id_documents):
            here = f"{path}.id_documents.{index}"
            item = {"identifierTypeCode": codes.IDENTIFIER_TYPE[document.type],
                    "number": self.fit(document.number, 100, f"{here}.number", "ID number"),
                    "jurisdictionOfIssueCountryCode": document.country}
            if document.type.value == "other":
                item["identifierTypeOther"] = self.fit(document.description or "Other", 200, f"{here}.description", "ID type")
            code = subdivision_code(document.country, document.state) if document.state else None
            if code and len(code) == 2 and document.country in _CODES_TO_STATE:
                item["jurisdictionOfIssueProvinceStateCode"] = code
            elif document.state:
                item["jurisdictionOfIssueProvinceStateName"] = self.fit(document.state, 100, f"{here}.state", "Issuing state")
            result.append({key: value for key, value in item.items() if value is not None})
        tax_id = subject.tax_id
        # FINTRAC: a Social Insurance Number must not be reported (LCTR/STR field instructions).
        if tax_id is not None and tax_id.type != TaxIdType.SIN:
            result.append({"identifierTypeCode": codes.IDENTIFIER_OTHER,
                           "identifierTypeOther": f"Tax identification number ({tax_id.type.value})",
                           "number": self.fit(tax_id.number, 100, f"{path}.tax_id.number", "Tax id")}
                          | ({"jurisdictionOfIssueCountryCode": tax_id.country} if tax_id.country else {}))
        return result


def value_details(transaction: Transaction, path: str, changes: Changes) -> dict:
    """Amount, currency or virtual currency, and the chain identifiers of one transaction."""
    details: dict = {"amount": amount_text(transaction.amount, f"{path}.amount", changes)}
    if transaction.is_on_chain:
        details["virtualCurrencyTypeCode"] = transaction.currency[:20]
    else:
        details["currencyCode"] = transaction.currency[:3]
    details["virtualCurrencyTransactionIds"] = [transaction.tx_hash[:200]] if transaction.tx_hash else []
    details["sendingVirtualCurrencyAddresses"] = [transaction.from_address[:200]] if transaction.from_address else []
    details["receivingVirtualCurrencyAddresses"] = [transaction.to_address[:200]] if transaction.to_address else []
    return details


def direction_code(transaction: Transaction) -> int:
    return codes.DIRECTION_OUT if transaction.direction == Direction.OUT else codes.DIRECTION_IN
