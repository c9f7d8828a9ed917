"""The compliance report: one CSV of everything that happened to an entity in a date range, for
auditors. It opens cleanly in a spreadsheet: UTF-8 with a byte-order mark (Excel otherwise guesses
the encoding), every field quoted, CRLF line ends, and cells that a spreadsheet would run as a
formula (starting with = + - @, tab or carriage return) prefixed with an apostrophe (OWASP
"CSV injection"), and control, bidirectional and invisible characters shown as [U+XXXX]."""

from __future__ import annotations

import csv
import io

from common.text import printable
from onboarding.interfaces.reports import report_sections

HEADER = ["timestamp", "section", "kind", "summary", "reference", "actor", "details"]
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value) -> str:
    """The cell as text: control, bidirectional and invisible characters that older rows may hold shown
    as [U+XXXX] (a BEL or ESC written raw rings or drives the terminal the file is shown in), and a
    formula start escaped."""
    text = printable("" if value is None else str(value))
    return "'" + text if text.startswith(FORMULA_START) else text


def compliance_report_csv(entity, *, start, end, reader) -> str:
    """`reader` (a Principal) is handed to every section: below l2_investigator no SAR is listed."""
    rows = [row for section in report_sections().values() for row in section(entity, start=start, end=end, reader=reader)]
    rows.sort(key=lambda row: (row.at, row.section))
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(["entity_id", "legal_name", "jurisdiction", "status", "risk_tier", "period_from", "period_to"])
    writer.writerow([safe_cell(v) for v in (entity.pk, entity.legal_name, entity.jurisdiction, entity.status, entity.risk_tier,
                                            start.isoformat() if start else "", end.isoformat() if end else "")])
    writer.writerow([])
    writer.writerow(HEADER)
    for row in rows:
        details = "; ".join(f"{key}={value}" for key, value in row.extra.items() if value not in (None, ""))
        writer.writerow([safe_cell(v) for v in (row.at.isoformat(), row.section, row.kind, row.summary, row.reference, row.actor,
                                                details)])
    return out.getvalue()
