"""One shape for every problem found in a filing, whoever finds it.

`path` is where the problem is: a form-data field path (`subjects.0.family_name`) for form and
business issues, the XPath-like path lxml reports (`/fc2:EFilingBatchXML/fc2:Activity/...`) or a
JSON Pointer (`/transactions/3/startingActions/0`) for schema issues. `line` is the line of the
XML document lxml reports, None for JSON and for form issues. `severity` is "error" (the report
must not be filed as it is) or "warning" (it may be filed; something was changed or is doubtful:
a transliterated name, a truncated field). `source` says who found it: "form" (reading the form
data), "render" (a deliberate change made while rendering), "schema" (the regulator's or the
project's schema), "business" (the checks on top of the schema).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]
Source = Literal["form", "render", "schema", "business"]


@dataclass(frozen=True, slots=True)
class ValidationIssue:
    path: str
    message: str
    line: int | None = None
    severity: Severity = "error"
    source: Source = "business"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def as_dict(self) -> dict:
        """The API's error item: {"path", "line", "message"} plus severity and source."""
        return {"path": self.path, "line": self.line, "message": self.message, "severity": self.severity, "source": self.source}


def warning(path: str, message: str, *, source: Source = "render") -> ValidationIssue:
    return ValidationIssue(path=path, message=message, severity="warning", source=source)


def error(path: str, message: str, *, source: Source = "business") -> ValidationIssue:
    return ValidationIssue(path=path, message=message, severity="error", source=source)
