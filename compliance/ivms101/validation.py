"""Validation of IVMS101 JSON (the originator and beneficiary of a travel-rule transfer) against the
reference data model (compliance.ivms101.schema, read from the reference's proto files).

Checked from the reference, for every message: no field the message does not have; each field's
JSON type (object, list, string, whole number, enum code); its cardinality ("Required", "One or
more", "Zero to Seven"); its datatype ("Max100Text" and the other lengths, "CountryCode" as ISO
3166-1 alpha-2 or XX, "RegistrationAuthority" as a GLEIF RA code, a date's "Regex"); one member of a
oneof (a Person is a natural person or a legal person). Then the constraints the reference names
(`Constraint: ValidAddress` and the others), one function each below: the set of names is checked
against the reference by a test, so a constraint added there cannot go unnoticed here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

import pycountry

from compliance.ivms101.schema import Field, Message, model

Errors = list[dict]
MAX_TEXT = re.compile(r"^(?:Local)?Max(\d+)Text$")
REGISTRATION_AUTHORITY = re.compile(r"^RA[0-9]{6}$")  # codes of the GLEIF Registration Authorities List
LEI = re.compile(r"^[A-Z0-9]{18}[0-9]{2}$")  # IVMS101 datatype LEIText (ISO 17442)
LEGAL_PERSON_ID_TYPES = ("RAID", "MISC", "LEIX", "TXID")
UINT64_MAX = 2**64 - 1


def validate(value, message_name: str, path: str) -> Errors:
    """The errors of `value` as the IVMS101 message `message_name`, each {"field": dotted path, "message"}."""
    return _Walker().message(value, model().messages[message_name], path, ())


def _error(path: str, message: str) -> dict:
    return {"field": path, "message": message}


class _Walker:
    def message(self, value, message: Message, path: str, ancestors: tuple[str, ...]) -> Errors:
        if not isinstance(value, dict):
            return [_error(path, f"Expected an IVMS101 {message.name} object.")]
        errors = [_error(f"{path}.{name}", f"Not a field of the IVMS101 {message.name}; its fields are "
                                           f"{', '.join(message.fields)}.")
                  for name in value if name not in message.fields]
        for item in message.fields.values():
            errors += self.field(value.get(item.json_name), item, f"{path}.{item.json_name}", (*ancestors, message.name))
        errors += self._oneofs(value, message, path)
        if not errors:  # the constraints read fields whose shape is now known to be right
            for check in CHECKS_BY_MESSAGE.get(message.name, ()):
                errors += [_error(f"{path}.{suffix}" if suffix else path, text) for suffix, text in check(value, ancestors)]
        return errors

    @staticmethod
    def _oneofs(value: dict, message: Message, path: str) -> Errors:
        errors = []
        for group in message.oneofs().values():
            present = [item.json_name for item in group if value.get(item.json_name) is not None]
            if len(present) != 1:
                names = " or ".join(item.json_name for item in group)
                errors.append(_error(path, f"An IVMS101 {message.name} is exactly one of {names}"
                                           f"{'; both were given' if present else ''}."))
        return errors

    def field(self, value, item: Field, path: str, ancestors: tuple[str, ...]) -> Errors:
        if item.repeated:
            return self._repeated(value, item, path, ancestors)
        if value is None or (isinstance(value, str) and not value.strip() and item.type == "string"):
            return [_error(path, "This IVMS101 field is required.")] if item.minimum else []
        return self.single(value, item, path, ancestors)

    def _repeated(self, value, item: Field, path: str, ancestors) -> Errors:
        if value is None:
            value = []
        if not isinstance(value, list):
            return [_error(path, "Expected a list.")]
        if len(value) < item.minimum:
            return [_error(path, f"At least {item.minimum} required.")]
        if item.maximum is not None and len(value) > item.maximum:
            return [_error(path, f"At most {item.maximum} allowed; got {len(value)}.")]
        errors = []
        for index, element in enumerate(value):
            errors += self.single(element, item, f"{path}.{index}", ancestors)
        return errors

    def single(self, value, item: Field, path: str, ancestors) -> Errors:
        types = model()
        if item.type in types.messages:
            return self.message(value, types.messages[item.type], path, ancestors)
        if item.type in types.enums:
            codes = types.enums[item.type].codes
            if not isinstance(value, str) or value not in codes:
                return [_error(path, f"Not an IVMS101 {item.type} code; the codes are {', '.join(codes)}.")]
            return []
        if item.type == "uint64":
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= UINT64_MAX
            return [] if ok else [_error(path, "Expected a whole number of 0 or more.")]
        if not isinstance(value, str):
            return [_error(path, "Expected a string.")]
        return [_error(path, text) for text in _text_errors(value, item)]


def _text_errors(value: str, item: Field) -> list[str]:
    if "\x00" in value:
        return ["A text may not contain the NUL character."]
    if item.datatype and (match := MAX_TEXT.match(item.datatype)) and len(value) > int(match.group(1)):
        return [f"At most {match.group(1)} characters ({item.datatype}); got {len(value)}."]
    if item.datatype == "CountryCode" and not (value == "XX" or (len(value) == 2 and value.isupper()
                                                                  and pycountry.countries.get(alpha_2=value))):
        return [f"{value!r} is not an ISO 3166-1 alpha-2 country code (upper-case) or XX."]
    if item.datatype == "RegistrationAuthority" and not REGISTRATION_AUTHORITY.match(value):
        return [f"{value!r} is not a GLEIF registration authority code (RA followed by 6 digits)."]
    if item.pattern and not re.match(item.pattern, value):
        return [f"{value!r} does not match {item.pattern}."]
    return []


# --- The constraints the reference names -------------------------------------------------------
# Each takes the message (already well-formed) and the names of the messages above it, and returns
# (field path below the message, message) pairs.

Check = Callable[[dict, tuple[str, ...]], list[tuple[str, str]]]


def _legal_name_present(value: dict, _ancestors) -> list[tuple[str, str]]:
    """LegalNamePresent: one name identifier at least of type LEGL (natural persons: the same rule,
    written without a name on NaturalPersonName)."""
    kinds = [entry.get("nameIdentifierType") or entry.get("legalPersonNameIdentifierType")
             for entry in value.get("nameIdentifier") or []]
    return [] if "LEGL" in kinds else [("nameIdentifier", "At least one name identifier must be of type LEGL (the legal name).")]


def _legal_name_present_legal_person(value: dict, _ancestors) -> list[tuple[str, str]]:
    """LegalNamePresentLegalPerson: a legal person has a name (with a LEGL identifier, checked above)."""
    return [] if value.get("name") else [("name", "A legal person's name is required (with a LEGL name identifier).")]


def _valid_address(value: dict, _ancestors) -> list[tuple[str, str]]:
    """ValidAddress: addressLine, or streetName with buildingName and/or buildingNumber."""
    if value.get("addressLine") or (_given(value, "streetName") and (_given(value, "buildingName") or _given(value, "buildingNumber"))):
        return []
    return [("", "An address needs addressLine, or streetName with buildingName or buildingNumber.")]


def _date_in_past(value: dict, _ancestors) -> list[tuple[str, str]]:
    """DateInPast: a date of birth is a real date before today."""
    try:
        born = date.fromisoformat(value["dateOfBirth"])
    except ValueError:
        return [("dateOfBirth", f"{value['dateOfBirth']!r} is not a date of the calendar.")]
    return [] if born < date.today() else [("dateOfBirth", "A date of birth must be in the past.")]


def _valid_national_identifier_legal_person(value: dict, ancestors) -> list[tuple[str, str]]:
    """ValidNationalIdentifierLegalPerson: a legal person's identifier is of type RAID, MISC, LEIX or TXID."""
    if _owner(ancestors) != "LegalPerson" or value["nationalIdentifierType"] in LEGAL_PERSON_ID_TYPES:
        return []
    return [("nationalIdentifierType", f"A legal person's national identifier is of type {', '.join(LEGAL_PERSON_ID_TYPES)}.")]


def _complete_national_identifier_legal_person(value: dict, ancestors) -> list[tuple[str, str]]:
    """CompleteNationalIdentifierLegalPerson: no countryOfIssue, and a registrationAuthority unless LEIX."""
    if _owner(ancestors) != "LegalPerson":
        return []
    problems = []
    if _given(value, "countryOfIssue"):
        problems.append(("countryOfIssue", "A legal person's national identification has no countryOfIssue."))
    if value["nationalIdentifierType"] != "LEIX" and not _given(value, "registrationAuthority"):
        problems.append(("registrationAuthority", "Required for a legal person's identifier of a type other than LEIX."))
    return problems


def _valid_lei(value: dict, _ancestors) -> list[tuple[str, str]]:
    """ValidLEI: an LEIX identifier is an LEI (18 letters or digits, then 2 check digits)."""
    if value["nationalIdentifierType"] != "LEIX" or LEI.match(value["nationalIdentifier"]):
        return []
    return [("nationalIdentifier", "An LEI is 20 characters: 18 upper-case letters or digits, then 2 digits.")]


def _originator_information_legal_person(value: dict, ancestors) -> list[tuple[str, str]]:
    """OriginatorInformationLegalPerson: an originator that is a legal person has a GEOG address,
    a national identification or a customer number."""
    if "Originator" not in ancestors:
        return []
    geographic = any(address.get("addressType") == "GEOG" for address in value.get("geographicAddress") or [])
    if geographic or value.get("nationalIdentification") or _given(value, "customerNumber"):
        return []
    return [("", "An originator that is a legal person needs a geographicAddress of type GEOG, a nationalIdentification "
                 "or a customerNumber.")]


def _given(value: dict, name: str) -> bool:
    return isinstance(value.get(name), str) and bool(value[name].strip())


def _owner(ancestors: tuple[str, ...]) -> str | None:
    return ancestors[-1] if ancestors else None


CHECKS: dict[str, tuple[tuple[str, ...], Check]] = {
    "LegalNamePresent": (("LegalPersonName", "NaturalPersonName"), _legal_name_present),
    "LegalNamePresentLegalPerson": (("LegalPerson",), _legal_name_present_legal_person),
    "ValidAddress": (("Address",), _valid_address),
    "DateInPast": (("DateAndPlaceOfBirth",), _date_in_past),
    "ValidNationalIdentifierLegalPerson": (("NationalIdentification",), _valid_national_identifier_legal_person),
    "CompleteNationalIdentifierLegalPerson": (("NationalIdentification",), _complete_national_identifier_legal_person),
    "ValidLEI": (("NationalIdentification",), _valid_lei),
    "OriginatorInformationLegalPerson": (("LegalPerson",), _originator_information_legal_person),
}
CHECKS_BY_MESSAGE: dict[str, list[Check]] = {}
for _messages, _check in CHECKS.values():
    for _name in _messages:
        CHECKS_BY_MESSAGE.setdefault(_name, []).append(_check)
