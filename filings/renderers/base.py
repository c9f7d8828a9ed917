"""The renderer interface: one class per (report kind, jurisdiction), all used the same way.

    renderer = renderer_for("SAR", "US")
    form = renderer.parse(request_json)              # FormInvalid(issues) when unreadable
    rendering = renderer.build(form)                 # document bytes + warnings + attachments
    issues = renderer.validate(rendering.document, form)   # schema + business checks
    review = renderer.review(request_json)           # all of the above in one call

`render(form) -> bytes` and `validate(document, form) -> list[ValidationIssue]` are the two
primitives; `review` is what the API's *-validate operations want (`review.as_dict()` is
`{"valid": ..., "errors": [...]}`), and `review.rendering` is what *-xml returns and file-*
stores.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, ClassVar

from filings.documents.issues import ValidationIssue
from filings.documents.model import Form, LargeTransactionForm, SuspiciousActivityForm
from filings.documents.parse import parse_large_transaction_form, parse_suspicious_activity_form
from filings.documents.reader import FormInvalid
from filings.renderers.schemas import validate_json, validate_xml

XML = "application/xml"
JSON = "application/json"


@dataclass(frozen=True, slots=True)
class Rendering:
    """One rendered report. `changes` are warnings about what rendering altered (transliterated,
    truncated, rounded); `attachments` are files that go with the report (file name -> bytes)."""

    document: bytes
    content_type: str
    filename: str
    changes: tuple[ValidationIssue, ...] = ()
    attachments: Mapping[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Review:
    """The outcome of reading, rendering and validating form data."""

    issues: tuple[ValidationIssue, ...]
    rendering: Rendering | None = None
    form: Form | None = None

    @property
    def valid(self) -> bool:
        return self.rendering is not None and not any(issue.is_error for issue in self.issues)

    @property
    def errors(self) -> list[ValidationIssue]:
        return [issue for issue in self.issues if issue.is_error]

    @property
    def warnings(self) -> list[ValidationIssue]:
        return [issue for issue in self.issues if not issue.is_error]

    def as_dict(self) -> dict:
        """{"valid": bool, "errors": [...], "warnings": [...]} with {"path", "line", "message", ...} items."""
        return {"valid": self.valid, "errors": [issue.as_dict() for issue in self.errors],
                "warnings": [issue.as_dict() for issue in self.warnings]}


class Renderer(ABC):
    """One regulator's report of one kind. Subclasses set the class attributes and `build`."""

    kind: ClassVar[str]  # "SAR", "STR", "SMR", "CTR", "LCTR", "TTR"
    family: ClassVar[str]  # "suspicious_activity" or "large_transaction"
    jurisdiction: str  # ISO 3166-1 alpha-2
    content_type: ClassVar[str]  # XML or JSON
    schema: ClassVar[str]  # file under filings/schemas/
    regulator: ClassVar[str]

    def __init__(self, jurisdiction: str | None = None):
        if jurisdiction is not None:
            self.jurisdiction = jurisdiction

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.kind} {self.jurisdiction}>"

    @property
    def form_class(self) -> type:
        return SuspiciousActivityForm if self.family == "suspicious_activity" else LargeTransactionForm

    def parse(self, data: Any) -> Form:
        """The form from JSON data. Raises FormInvalid with every issue."""
        if self.family == "suspicious_activity":
            return parse_suspicious_activity_form(data)
        return parse_large_transaction_form(data)

    @abstractmethod
    def build(self, form: Form) -> Rendering:
        """The report document, with the changes rendering made and any attachments."""

    def render(self, form: Form) -> bytes:
        return self.build(form).document

    def schema_issues(self, document: bytes) -> list[ValidationIssue]:
        if self.content_type == XML:
            return validate_xml(document, self.schema)
        return validate_json(document, self.schema)

    @abstractmethod
    def check(self, form: Form) -> list[ValidationIssue]:
        """The business checks on top of the schema, with form-data paths."""

    def validate(self, document: bytes, form: Form | None = None) -> list[ValidationIssue]:
        """Schema issues of the document, then the business checks of the form it came from."""
        issues = self.schema_issues(document)
        if form is not None:
            issues.extend(self.check(form))
        return issues

    def review(self, data: Any) -> Review:
        """Read (a dict or a form), render and validate; every issue in one list, changes included."""
        if isinstance(data, self.form_class):
            form = data
        else:
            try:
                form = self.parse(data)
            except FormInvalid as invalid:
                return Review(issues=tuple(invalid.issues))
        rendering = self.build(form)
        issues = [*self.validate(rendering.document, form), *rendering.changes]
        return Review(issues=tuple(issues), rendering=rendering, form=form)

    @staticmethod
    def filing_day(form: Form) -> date:
        """The filing date on the form, else today (UTC)."""
        return form.filing_date or datetime.now(UTC).date()
