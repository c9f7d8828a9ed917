"""The IVMS101 data model, read from the reference's own protocol-buffer files (proto/, byte-identical
TRISA's files as published; compliance/ivms101/MANIFEST.json records their source, licence and SHA-256).

The reference is protobuf with the standard's rules written in comments beside each field: its
cardinality ("Required", "Optional", "One or more", "Zero to Seven"), its datatype ("Max100Text",
"CountryCode") and, for dates, a regular expression. This module parses the messages, enums and those
comments, so that validation (compliance.ivms101.validation) follows the reference itself rather than
a transcription of it. Field names are the IVMS101 JSON names (`json_name`, camelCase) and enum values
the four-letter codes (`LEGL`, `GEOG`), the JSON form the reference's testdata recommends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parent / "proto"
PROTO_FILES = ("enum.proto", "ivms101.proto", "identity.proto")
SCALARS = frozenset({"string", "uint64"})

_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"[^"]*"|[A-Za-z_][\w.]*|\d+|[{}\[\]=;,()<>]', re.S)
_DATATYPE = re.compile(r"Datatype:\s*[“\"](\w+)[”\"]")
_REGEX = re.compile(r"Regex:\s*(\S+)")
_CONSTRAINT = re.compile(r"^Constraint:\s*([A-Z]\w+)\s*$")
_CARDINALITIES = {
    "required": (1, 1), "optional": (0, 1), "one or more": (1, None), "zero or more": (0, None), "zero to seven": (0, 7),
}


@dataclass(frozen=True)
class Field:
    name: str  # the proto name (snake_case)
    json_name: str  # the IVMS101 JSON name
    type: str
    repeated: bool
    oneof: str | None
    minimum: int  # occurrences, from the cardinality comment
    maximum: int | None
    datatype: str | None
    pattern: str | None
    constraints: tuple[str, ...]


@dataclass
class Message:
    name: str
    fields: dict[str, Field] = field(default_factory=dict)  # by JSON name
    constraints: tuple[str, ...] = ()

    def oneofs(self) -> dict[str, list[Field]]:
        groups: dict[str, list[Field]] = {}
        for item in self.fields.values():
            if item.oneof:
                groups.setdefault(item.oneof, []).append(item)
        return groups


@dataclass(frozen=True)
class Enum:
    name: str
    codes: tuple[str, ...]  # LEGL, MAID, ...: the value names without the enum's prefix


@dataclass(frozen=True)
class Model:
    messages: dict[str, Message]
    enums: dict[str, Enum]


def _comment_lines(comments: list[str]) -> list[str]:
    lines = []
    for comment in comments:
        body = comment[2:] if comment.startswith("//") else comment[2:-2]
        lines.extend(line.strip().lstrip("*").strip() for line in body.splitlines())
    return [line for line in lines if line]


def _cardinality(lines: list[str], repeated: bool) -> tuple[int, int | None]:
    for line in lines:
        if line.lower() in _CARDINALITIES:
            return _CARDINALITIES[line.lower()]
    return (0, None) if repeated else (0, 1)


def _constraints(lines: list[str]) -> tuple[str, ...]:
    return tuple(match.group(1) for line in lines if (match := _CONSTRAINT.match(line)))


class _Parser:
    """A reader of the proto3 subset the reference uses: messages (fields, oneofs, field options),
    enums, and the syntax/package/option/import statements, which it skips."""

    def __init__(self, text: str):
        self.tokens = _TOKEN.findall(text)
        self.position = 0
        self.messages: dict[str, Message] = {}
        self.enums: dict[str, Enum] = {}

    def _next(self) -> tuple[str, list[str]]:
        """The next token and the comments just before it."""
        comments = []
        while self.position < len(self.tokens) and self.tokens[self.position].startswith(("//", "/*")):
            comments.append(self.tokens[self.position])
            self.position += 1
        if self.position >= len(self.tokens):
            return "", comments
        token = self.tokens[self.position]
        self.position += 1
        return token, comments

    def _expect(self, wanted: str) -> None:
        token, _ = self._next()
        if token != wanted:
            raise ValueError(f"IVMS101 proto: expected {wanted!r}, found {token!r}")

    def _skip_statement(self) -> None:
        while self._next()[0] not in (";", ""):
            pass

    def parse(self) -> None:
        while True:
            token, comments = self._next()
            if not token:
                return
            if token == "message":
                self._message(comments)
            elif token == "enum":
                self._enum()
            else:
                self._skip_statement()

    def _message(self, comments: list[str]) -> None:
        name, _ = self._next()
        message = Message(name, constraints=_constraints(_comment_lines(comments)))
        self._expect("{")
        self._body(message, oneof=None)
        self.messages[name] = message

    def _body(self, message: Message, oneof: str | None) -> None:
        while True:
            token, comments = self._next()
            if token == "}":
                return
            if token == "oneof":
                group, _ = self._next()
                self._expect("{")
                self._body(message, oneof=group)
                continue
            repeated = token == "repeated"
            type_name = self._next()[0] if repeated else token
            self._field(message, type_name, repeated, oneof, _comment_lines(comments))

    def _field(self, message: Message, type_name: str, repeated: bool, oneof: str | None, lines: list[str]) -> None:
        name, _ = self._next()
        self._expect("=")
        self._next()  # the field number
        json_name, token = _camel(name), self._next()[0]
        if token == "[":
            options = []
            while (token := self._next()[0]) != "]":
                options.append(token)
            for index, option in enumerate(options):
                if option == "json_name":
                    json_name = options[index + 2].strip('"')
            token = self._next()[0]
        if token != ";":
            raise ValueError(f"IVMS101 proto: expected ';' after field {name}, found {token!r}")
        minimum, maximum = _cardinality(lines, repeated)
        datatype = next((match.group(1) for line in lines if (match := _DATATYPE.search(line))), None)
        pattern = next((match.group(1) for line in lines if (match := _REGEX.search(line))), None)
        message.fields[json_name] = Field(name, json_name, type_name.rsplit(".", 1)[-1], repeated, oneof, minimum, maximum,
                                          datatype, pattern, _constraints(lines))

    def _enum(self) -> None:
        name, _ = self._next()
        self._expect("{")
        codes = []
        while (token := self._next()[0]) != "}":
            self._expect("=")
            self._next()
            self._expect(";")
            codes.append(token.rsplit("_", 1)[1])
        self.enums[name] = Enum(name, tuple(codes))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@cache
def model() -> Model:
    """The messages and enums of the three reference files."""
    parser = _Parser("\n".join((PROTO_DIR / name).read_text(encoding="utf-8") for name in PROTO_FILES))
    parser.parse()
    return Model(parser.messages, parser.enums)


def named_constraints() -> set[str]:
    """Every constraint the reference names (`Constraint: ValidAddress`), on messages and fields."""
    found = set()
    for message in model().messages.values():
        found.update(message.constraints)
        for item in message.fields.values():
            found.update(item.constraints)
    return found


def json_schema(message_name: str) -> dict:
    """The message as a JSON Schema for the OpenAPI document (inline: the messages nest without cycles).
    The reference's named constraints are not expressible here; the validator enforces them."""
    types = model()
    message = types.messages[message_name]
    properties = {name: _field_schema(item, types) for name, item in message.fields.items()}
    schema = {"type": "object", "title": f"IVMS101 {message.name}", "additionalProperties": False, "properties": properties}
    required = [name for name, item in message.fields.items() if item.minimum and not item.oneof]
    if required:
        schema["required"] = required
    if message.oneofs():
        schema["description"] = " ".join(f"Exactly one of {' or '.join(f.json_name for f in group)}."
                                         for group in message.oneofs().values())
    return schema


def _field_schema(item: Field, types: Model) -> dict:
    if item.type in types.messages:
        single = json_schema(item.type)
    elif item.type in types.enums:
        single = {"type": "string", "enum": list(types.enums[item.type].codes)}
    elif item.type == "uint64":
        single = {"type": "integer", "minimum": 0}
    else:
        single = {"type": "string"}
        if item.datatype and (match := re.match(r"^(?:Local)?Max(\d+)Text$", item.datatype)):
            single["maxLength"] = int(match.group(1))
        if item.datatype == "CountryCode":
            single["pattern"] = "^[A-Z]{2}$"
        if item.pattern:
            single["pattern"] = item.pattern
    if not item.repeated:
        return single
    array = {"type": "array", "items": single}
    if item.minimum:
        array["minItems"] = item.minimum
    if item.maximum is not None:
        array["maxItems"] = item.maximum
    return array
