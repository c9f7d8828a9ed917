"""Label files as rows with their position: a CSV with a header row (line numbers as an editor
shows them) or a JSON list of objects (item numbers from 1)."""

import csv
import io

from common.errors import ValidationFailed

COLUMNS = ("entity_id", "external_id", "label", "typology")


def csv_rows(content: bytes) -> list[tuple[int, dict]]:
    """[(line, {column: value})]; blank lines are skipped. A file that is not UTF-8 text with a
    header naming `label` and one of entity_id / external_id is refused whole."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationFailed.for_field("file", "The file is not UTF-8 text.") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [name.strip().lower() for name in next(reader, [])]
    unknown = [name for name in header if name not in COLUMNS]
    if "label" not in header or not {"entity_id", "external_id"} & set(header) or unknown:
        raise ValidationFailed.for_field("file", f"Line 1 must be a header with label and entity_id or external_id (optional: "
                                                 f"typology){'; unknown: ' + ', '.join(unknown) if unknown else ''}.")
    rows = []
    for values in reader:
        if not any(value.strip() for value in values):
            continue
        line = reader.line_num
        if len(values) != len(header):
            rows.append((line, {"_error": f"{len(values)} values for {len(header)} columns"}))
            continue
        rows.append((line, {name: value.strip() for name, value in zip(header, values, strict=True)}))
    return rows


def json_rows(items) -> list[tuple[int, dict]]:
    if not isinstance(items, list):
        raise ValidationFailed.for_field("labels", "labels must be a list of objects.")
    rows = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            rows.append((number, {"_error": "not an object"}))
        elif set(item) - set(COLUMNS):
            rows.append((number, {"_error": f"unknown field {sorted(set(item) - set(COLUMNS))[0]}"}))
        else:
            rows.append((number, {name: "" if value is None else str(value).strip() for name, value in item.items()}))
    return rows
