"""Validation against the regulators' own files (filings/schemas, as filings/schemas/MANIFEST.json records them), read
here with lxml / jsonschema directly: independent of filings.renderers.schemas."""

import copy
import json
from functools import cache
from pathlib import Path

import jsonschema
from lxml import etree

REPO = Path(__file__).resolve().parents[2]
PROJECT_SCHEMAS = REPO / "filings" / "schemas"
REFERENCE = PROJECT_SCHEMAS
REFERENCE_SCHEMAS = {
    "SAR": REFERENCE / "fincen" / "EFL_SARXBatchSchema.xsd",
    "CTR": REFERENCE / "fincen" / "EFL_CTRXBatchSchema.xsd",
    "SMR": REFERENCE / "austrac" / "SMRSchema.xsd",
    "STR-CA": REFERENCE / "fintrac" / "str-schema.json",
    "LCTR": PROJECT_SCHEMAS / "lctr.schema.json",
    "TTR": PROJECT_SCHEMAS / "ttr.xsd",
    "STR": PROJECT_SCHEMAS / "generic-str.schema.json",
}


@cache
def _xsd(path: Path) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(path)))


@cache
def _json_validator(path: Path) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads(path.read_text(encoding="utf-8")))


def schema_key(kind: str, jurisdiction: str) -> str:
    return "STR-CA" if (kind, jurisdiction) == ("STR", "CA") else kind


def independent_errors(kind: str, jurisdiction: str, document: bytes) -> list[str]:
    """Errors of the document against the schema file itself (lxml / jsonschema directly)."""
    path = REFERENCE_SCHEMAS[schema_key(kind, jurisdiction)]
    if path.suffix == ".xsd":
        schema = _xsd(path)
        return [] if schema.validate(etree.fromstring(document)) else [str(entry) for entry in schema.error_log]
    return [error.message for error in _json_validator(path).iter_errors(json.loads(document))]


def edit(data: dict, **changes) -> dict:
    data = copy.deepcopy(data)
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        target = data
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if value is DELETE:
            del target[int(last) if last.isdigit() else last]
        else:
            target[int(last) if last.isdigit() else last] = value
    return data


DELETE = object()
