"""The filings app's models, one module per aggregate. Keep this file a plain list of imports."""

from filings.models.cases import Case, CaseAlert, CaseEvent, CaseSequence  # noqa: F401
from filings.models.reports import FilingRecord, ReportDraft  # noqa: F401
