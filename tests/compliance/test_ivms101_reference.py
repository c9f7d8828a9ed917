"""The IVMS101 model is the reference's own: the proto files the service reads are the reference's,
byte for byte; the validator implements exactly the constraints the reference names; the reference's
fixtures validate (and its alternative spellings and both-persons fixture do not)."""

import json

import pytest

from compliance.ivms101 import schema
from compliance.ivms101.validation import CHECKS, validate
from tests.compliance.travel_rule_helpers import TESTDATA


def test_the_manifest_names_every_proto_file():
    manifest = json.loads((schema.PROTO_DIR.parent / "MANIFEST.json").read_text())
    assert {item["file"] for item in manifest["files"]} == {f"proto/{name}" for name in schema.PROTO_FILES} | {"LICENSE"}


def test_every_named_constraint_is_implemented_and_no_other():
    assert set(CHECKS) == schema.named_constraints()


def test_the_model_reads_the_references_cardinality_and_datatypes():
    messages = schema.model().messages
    assert messages["Address"].fields["addressLine"].maximum == 7
    assert messages["NaturalPersonNameId"].fields["primaryIdentifier"].datatype == "Max100Text"
    assert messages["Originator"].fields["originatorPersons"].minimum == 1
    assert messages["DateAndPlaceOfBirth"].fields["dateOfBirth"].pattern == "^([0-9]{4})-([0-9]{2})-([0-9]{2})$"
    assert schema.model().enums["AddressTypeCode"].codes == ("MISC", "HOME", "BIZZ", "GEOG")


VALID = [("person_natural_person.json", "Person"), ("person_legal_person.json", "Person"), ("natural_person.json", "NaturalPerson"),
         ("legal_person.json", "LegalPerson"), ("address.json", "Address"), ("national_identification.json", "NationalIdentification")]


@pytest.mark.parametrize(("name", "message"), VALID)
def test_the_references_fixtures_are_valid(name, message):
    assert validate(json.loads((TESTDATA / name).read_text()), message, "x") == []


def test_the_references_identity_payload_is_valid_and_its_alternative_spelling_is_not():
    payload = json.loads((TESTDATA / "identity_payload.json").read_text())
    assert validate(payload["originator"], "Originator", "o") == validate(payload["beneficiary"], "Beneficiary", "b") == []
    assert validate(payload["originatingVASP"]["originatingVASP"], "Person", "v") == []
    alt = json.loads((TESTDATA / "identity_payload_alt.json").read_text())
    assert validate(alt["originator"], "Originator", "o") and validate(alt["beneficiary"], "Beneficiary", "b")


def test_both_persons_is_refused():
    assert validate(json.loads((TESTDATA / "person_both_persons.json").read_text()), "Person", "p")[0]["message"].startswith(
        "An IVMS101 Person is exactly one of")
