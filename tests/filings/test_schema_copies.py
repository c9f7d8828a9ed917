"""The regulators' schemas the project loads at run time are the published files, as their manifest records them."""

import json

import pytest

from tests.filings.helpers import PROJECT_SCHEMAS

MANIFEST = json.loads((PROJECT_SCHEMAS / "MANIFEST.json").read_text())
REGULATORS = ["fincen/EFL_SARXBatchSchema.xsd", "fincen/EFL_CTRXBatchSchema.xsd", "fintrac/str-schema.json", "austrac/SMRSchema.xsd"]


def test_the_manifest_names_every_schema():
    listed = {item["file"] for item in MANIFEST["files"]}
    on_disk = {str(path.relative_to(PROJECT_SCHEMAS)) for path in PROJECT_SCHEMAS.rglob("*")
               if path.is_file() and path.name != "MANIFEST.json"}
    assert listed == on_disk and set(REGULATORS) <= listed


@pytest.mark.parametrize("name", ["lctr.schema.json", "ttr.xsd", "generic-str.schema.json"])
def test_own_schemas_say_they_are_the_projects_own(name):
    text = (PROJECT_SCHEMAS / name).read_text(encoding="utf-8")
    assert any(phrase in text for phrase in ("NOT FINTRAC", "not AUSTRAC", "not a regulator"))
    assert next(item for item in MANIFEST["files"] if item["file"] == name)["source"].startswith("this project")
