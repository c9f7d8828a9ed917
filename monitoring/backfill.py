"""Reading backfill files (CSV or JSON Lines of ingested transactions or fiat events) and keeping
a checkpoint so an interrupted load resumes where it stopped."""

import csv
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings

from common.errors import flatten_details
from common.parsers import loads_object
from monitoring.api.ingest_serializers import FiatEventRequest, IngestedTransactionRequest


def _json_lines(path: Path) -> Iterator[tuple[int, dict]]:
    with path.open(encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield number, loads_object(line, "the line")
                except ValueError as error:  # not JSON, not an object, or nested past the limit
                    yield number, {"__error__": str(error)}


def _csv_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """CSV rows with their line numbers (the header is line 1); empty cells are absent fields."""
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            yield reader.line_num, {key: value for key, value in row.items() if key and value not in ("", None)}


def read(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, record) for each data line of a CSV (with a header) or JSON Lines file."""
    yield from (_json_lines(path) if path.suffix.lower() in (".jsonl", ".ndjson") else _csv_rows(path))


def kind_of(record: dict) -> str:
    return "fiat" if "event_type" in record else "transaction"


def validated(record: dict) -> tuple[str, dict | None, list[str]]:
    """(kind, clean item, error messages: "field: message" each) for one record, checked as the API checks it."""
    kind = kind_of(record)
    if "__error__" in record:
        return kind, None, [record["__error__"]]
    record = {name: value for name, value in record.items() if name != "run_monitoring"}  # backfill never monitors
    serializer = (FiatEventRequest if kind == "fiat" else IngestedTransactionRequest)(data=record)
    if not serializer.is_valid():
        return kind, None, [f"{d['field']}: {d['message']}" if d["field"] else d["message"] for d in flatten_details(serializer.errors)]
    item = dict(serializer.validated_data)
    item.pop("run_monitoring", None)
    return kind, item, []


class Checkpoint:
    """Lines already stored, keyed by the file's path, size and modification time."""

    def __init__(self, path: Path, organization_slug: str, mode: str):
        stat = path.stat()
        key = hashlib.sha256(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{organization_slug}|{mode}".encode()).hexdigest()[:24]
        self.file = Path(settings.DATA_DIR) / "backfill" / f"{key}.json"
        self.file.parent.mkdir(parents=True, exist_ok=True)

    def done(self) -> int:
        return json.loads(self.file.read_text())["line"] if self.file.exists() else 0

    def save(self, line: int) -> None:
        self.file.write_text(json.dumps({"line": line}))

    def clear(self) -> None:
        self.file.unlink(missing_ok=True)
