"""Reading a 314(a) subject list (CSV with a header row) into checked subject rows.

Strict: every problem is reported (up to MAX_REPORTED), each naming the line of the file (the header
is line 1, so the first subject is line 2, as a spreadsheet numbers it) and the column, and nothing
is stored while one remains. A list is regulatory input: a silently skipped or mangled subject is a
subject not searched for.
"""

import csv
import datetime as dt
import io
import re
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from common.errors import ValidationFailed
from monitoring.models.fincen314a import SubjectType

MAX_REPORTED = 50
COLUMNS = ("Name", "SSN_ITIN", "DOB", "Address", "City", "State", "Zip", "Phone", "Email", "Type", "EIN")
# Beyond the documented columns (docs/information-sharing.md): FinCEN's own tracking number, and other names separated by ";".
EXTRA_COLUMNS = ("Tracking_Number", "Alt_Names")
KNOWN = {name.lower(): name for name in (*COLUMNS, *EXTRA_COLUMNS)}
LENGTHS = {"Name": 300, "Address": 300, "City": 100, "Email": 254, "Tracking_Number": 40, "Alt_Names": 1000}
# USPS codes: the states, DC, the territories and the armed forces' codes.
STATES = frozenset({
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD", "MA",
    "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN",
    "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC", "AS", "GU", "MP", "PR", "VI", "UM", "FM", "MH", "PW", "AA", "AE", "AP"
})
# ASCII digits only (re.ASCII): \d would also take other scripts' digits ("١٢٣-٤٥-٦٧٨٩"), whose tax-id
# hash is not the one of the same number in ASCII, so the subject would silently match no customer.
SSN = re.compile(r"^\d{3}-?\d{2}-?\d{4}$", re.ASCII)
EIN = re.compile(r"^\d{2}-?\d{7}$", re.ASCII)
ZIP = re.compile(r"^\d{5}(-?\d{4})?$", re.ASCII)
PHONE = re.compile(r"^\+?[0-9 ().\-]{7,25}$")


@dataclass
class SubjectRow:
    row_number: int
    name: str
    tracking_number: str = ""
    alt_names: list[str] = field(default_factory=list)
    subject_type: str = ""
    date_of_birth: dt.date | None = None
    address: str = ""
    city: str = ""
    state: str = ""
    zip: str = ""
    phone: str = ""
    email: str = ""
    ssn_itin: str = ""
    ein: str = ""


class Problems:
    def __init__(self):
        self.items: list[dict] = []

    def add(self, row: int | None, column: str | None, message: str) -> None:
        where = ", ".join(part for part in (f"line {row}" if row else "", f"column {column}" if column else "") if part)
        self.items.append({"field": "file", "row": row, "column": column, "message": f"{where}: {message}" if where else message})

    def raise_if_any(self, total_rows: int | None = None) -> None:
        if not self.items:
            return
        shown = self.items[:MAX_REPORTED]
        more = f" ({len(self.items) - MAX_REPORTED} more not listed)" if len(self.items) > MAX_REPORTED else ""
        raise ValidationFailed(f"The 314(a) file has {len(self.items)} problem{'s' if len(self.items) > 1 else ''}; "
                               f"the first: {shown[0]['message']}{more}. Nothing was stored.", details=shown)


def refuse(message: str, row: int | None = None, column: str | None = None):
    problems = Problems()
    problems.add(row, column, message)
    problems.raise_if_any()


def decoded(content: bytes) -> str:
    """UTF-8 text (a byte-order mark is allowed), without NUL bytes: anything else is not a CSV file."""
    if not content.strip():
        refuse("The file is empty: a 314(a) list has a header row and one row per subject.")
    if b"\x00" in content:
        refuse("This is not a CSV text file (it contains NUL bytes): upload the 314(a) list as CSV.")
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content[:exc.start].count(b"\n") + 1
        refuse(f"The file is not UTF-8 text (byte {exc.start}): save the list as CSV UTF-8.", row=line)


def _header(names: list[str], problems: Problems) -> list[str]:
    columns, seen = [], set()
    for position, raw in enumerate(names, start=1):
        name = KNOWN.get(raw.strip().lower())
        if name is None:
            problems.add(1, raw.strip() or f"#{position}", "Unknown column. The columns are " + ", ".join((*COLUMNS, *EXTRA_COLUMNS)) + ".")
        elif name in seen:
            problems.add(1, name, "The column appears twice in the header.")
        columns.append(name or "")
        seen.add(name)
    if "Name" not in seen:
        problems.add(1, "Name", "The header has no Name column (required).")
    return columns


def parse(content: bytes, *, max_subjects: int, today: dt.date) -> list[SubjectRow]:
    text = decoded(content)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    problems = Problems()
    try:
        header = next(reader, None)
        if not header or not any(cell.strip() for cell in header):
            refuse("The first line must be the header (Name, SSN_ITIN, DOB, ...).", row=1)
        columns = _header(header, problems)
        problems.raise_if_any()
        rows: list[SubjectRow] = []
        for cells in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue  # a blank line
            if len(rows) >= max_subjects:
                refuse(f"The file has more than {max_subjects} subjects, the most one upload takes: split the list.")
            if len(cells) != len(columns):
                problems.add(line, None, f"The row has {len(cells)} cells; the header has {len(columns)} columns.")
                continue
            row = _subject(line, dict(zip(columns, (cell.strip() for cell in cells), strict=True)), problems, today)
            if row is not None:
                rows.append(row)
            if len(problems.items) > MAX_REPORTED:
                break
    except csv.Error as exc:
        problems.add(reader.line_num or None, None, f"This is not valid CSV: {exc}.")
    problems.raise_if_any()
    if not rows:
        refuse("The file has a header but no subject rows.")
    return rows


def _subject(line: int, values: dict, problems: Problems, today: dt.date) -> SubjectRow | None:
    found = len(problems.items)
    for column, limit in LENGTHS.items():
        if len(values.get(column, "")) > limit:
            problems.add(line, column, f"At most {limit} characters.")
    if not values.get("Name"):
        problems.add(line, "Name", "Required: every subject has a name.")
    row = SubjectRow(row_number=line, name=values.get("Name", ""), tracking_number=values.get("Tracking_Number", ""),
                     alt_names=[name.strip() for name in values.get("Alt_Names", "").split(";") if name.strip()],
                     address=values.get("Address", ""), city=values.get("City", ""))
    row.subject_type = _type(line, values.get("Type", ""), problems)
    row.date_of_birth = _dob(line, values.get("DOB", ""), problems, today)
    row.state = _checked(line, "State", values.get("State", "").upper(), lambda v: v in STATES,
                         "Not a two-letter US state or territory code (USPS).", problems)
    row.zip = _checked(line, "Zip", values.get("Zip", ""), ZIP.match, "A ZIP code is 5 digits, or ZIP+4 (12345-6789).", problems)
    row.phone = _checked(line, "Phone", values.get("Phone", ""), PHONE.match, "Not a telephone number.", problems)
    row.ssn_itin = _checked(line, "SSN_ITIN", values.get("SSN_ITIN", ""), SSN.match,
                            "An SSN or ITIN is 9 digits (123-45-6789 or 123456789).", problems)
    row.ein = _checked(line, "EIN", values.get("EIN", ""), EIN.match, "An EIN is 9 digits (12-3456789 or 123456789).", problems)
    row.email = _checked(line, "Email", values.get("Email", ""), _is_email, "Not an e-mail address.", problems)
    return row if len(problems.items) == found else None


def _checked(line: int, column: str, value: str, test, message: str, problems: Problems) -> str:
    if value and not test(value):
        problems.add(line, column, message)
    return value


def _is_email(value: str) -> bool:
    try:
        validate_email(value)
    except ValidationError:
        return False
    return True


def _type(line: int, value: str, problems: Problems) -> str:
    if not value:
        return ""
    for choice in SubjectType.values:
        if value.lower() == choice.lower():
            return choice
    problems.add(line, "Type", "Individual or Business.")
    return ""


def _dob(line: int, value: str, problems: Problems, today: dt.date) -> dt.date | None:
    if not value:
        return None
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value, re.ASCII):
            raise ValueError
        born = dt.date.fromisoformat(value)
    except ValueError:
        problems.add(line, "DOB", f"{value!r} is not a date in the form YYYY-MM-DD.")
        return None
    if born > today or born.year < 1850:
        problems.add(line, "DOB", f"{value} is not a possible date of birth.")
        return None
    return born
