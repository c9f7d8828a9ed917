"""Lists published as one delimited table with a header row (the US Consolidated Screening List CSV,
the BIS Denied Persons List's tab-separated text).

Columns are found by their header name (case and surrounding spaces ignored), so a publisher adding
or reordering columns changes nothing. What makes the file unusable, or shows it was cut short, goes
to `report.incomplete` (which the loader refuses):

- no header row naming the required columns (the header is missing, or it is another file);
- a last row of the wrong width: a download cut short ends mid-row;
- an odd number of double quotes: the file ends inside a quoted field (a writer of CSV always
  closes its quotes and doubles a quote inside a field, so a whole file has an even number).

Any other row of the wrong width is skipped and counted, as is a row the csv module cannot read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from onboarding.sanctions.records import ParseReport, clean


def read_table(text: str, *, file: str, report: ParseReport, required: tuple[str, ...],
               delimiter: str = ",") -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, {column: cleaned cell}) for each data row of the expected width."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] | None = None
    last_malformed = False
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            report.read(file=file)
            report.skip(file=file, line=reader.line_num, reason=f"unreadable row: {error}")
            last_malformed = True
            continue
        if not row or all(not cell.strip() for cell in row):
            continue
        if header is None:
            header = [cell.strip().lower() for cell in row]
            missing = [column for column in required if column not in header]
            if missing:
                first = ", ".join(cell.strip()[:30] for cell in row[:4])
                report.incomplete.append(
                    f"{file} has no header row with the columns {', '.join(required)} (the first row reads {first!r}): "
                    "the file is damaged or is not this list")
                return
            continue
        report.read(file=file)
        if len(row) != len(header):
            report.skip(file=file, line=reader.line_num, reason=f"{len(row)} columns, expected {len(header)}")
            last_malformed = True
            continue
        last_malformed = False
        yield reader.line_num, {column: clean(cell) for column, cell in zip(header, row, strict=True)}
    if header is None:
        report.incomplete.append(f"{file} is empty")
    elif last_malformed:
        report.incomplete.append(f"{file}: the last row is incomplete: the download was cut short")
    elif text.count('"') % 2:
        report.incomplete.append(f"{file} ends inside a quoted field: the download was cut short")
