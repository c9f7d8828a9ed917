"""The schemas the project loads at run time are the reference files, byte for byte."""

import pytest

from tests.filings.helpers import PROJECT_SCHEMAS, REFERENCE

COPIES = ["fincen/EFL_SARXBatchSchema.xsd", "fincen/EFL_CTRXBatchSchema.xsd", "fintrac/str-schema.json", "austrac/SMRSchema.xsd"]


@pytest.mark.parametrize("name", COPIES)
def test_copy_is_identical_to_reference(name):
    assert (REFERENCE / name).is_file(), f"reference file missing: {REFERENCE / name}"
    assert (PROJECT_SCHEMAS / name).read_bytes() == (REFERENCE / name).read_bytes()


@pytest.mark.parametrize("name", ["lctr.schema.json", "ttr.xsd", "generic-str.schema.json"])
def test_own_schemas_say_they_are_the_projects_own(name):
    text = (PROJECT_SCHEMAS / name).read_text(encoding="utf-8")
    assert any(phrase in text for phrase in ("NOT FINTRAC", "not AUSTRAC", "not a regulator"))
