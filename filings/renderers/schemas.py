"""Loading the schemas the project keeps under filings/schemas/ and validating documents against them.

Schemas are parsed once per process (lru_cache). XML is parsed without network access, DTDs or
entity expansion, so a stored or uploaded document cannot make the validator fetch or expand
anything. Issues carry lxml's line number and path for XML, a JSON Pointer for JSON.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import jsonschema
from lxml import etree

from filings.documents.issues import ValidationIssue

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
_MESSAGE_LIMIT = 400


def schema_path(name: str) -> Path:
    return SCHEMA_DIR / name


def _safe_parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)


@lru_cache(maxsize=16)
def xml_schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(schema_path(name)), _safe_parser()))


@lru_cache(maxsize=16)
def json_validator(name: str) -> jsonschema.Draft7Validator:
    schema = json.loads(schema_path(name).read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def _short(message: str) -> str:
    return message if len(message) <= _MESSAGE_LIMIT else message[: _MESSAGE_LIMIT - 1] + "…"


def validate_xml(document: bytes, schema_name: str) -> list[ValidationIssue]:
    try:
        tree = etree.fromstring(document, _safe_parser())
    except etree.XMLSyntaxError as exc:
        return [ValidationIssue(path="/", line=exc.lineno, message=f"Not well-formed XML: {exc.msg}", source="schema")]
    schema = xml_schema(schema_name)
    if schema.validate(tree):
        return []
    return [
        ValidationIssue(path=entry.path or "/", line=entry.line, message=_short(entry.message), source="schema")
        for entry in schema.error_log
    ]


def json_pointer(parts) -> str:
    return "/" + "/".join(str(part).replace("~", "~0").replace("/", "~1") for part in parts) if parts else "/"


def validate_json(document: bytes, schema_name: str) -> list[ValidationIssue]:
    try:
        instance = json.loads(document)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return [ValidationIssue(path="/", message=f"Not valid JSON: {exc}", source="schema")]
    errors = sorted(json_validator(schema_name).iter_errors(instance), key=lambda error: list(map(str, error.absolute_path)))
    return [ValidationIssue(path=json_pointer(error.absolute_path), message=_short(error.message), source="schema") for error in errors]
