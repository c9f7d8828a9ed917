"""Cases and filings under /v1/onboarding/ (the published paths, plus a filing's detail and document)."""

from django.urls import path

from filings.api import case_views as cases
from filings.api import report_views as reports

ENTITY = "entities/<uuid:entity_id>"
CASE = "cases/<uuid:case_id>"

urlpatterns = [
    path(f"{ENTITY}/cases", cases.EntityCasesView.as_view()),
    path(f"{ENTITY}/cases/<uuid:case_id>", cases.EntityCaseView.as_view()),
    path(f"{CASE}/assign", cases.CaseAssignView.as_view()),
    path(f"{CASE}/status", cases.CaseStatusView.as_view()),
    path(f"{CASE}/comment", cases.CaseCommentView.as_view()),
    path(f"{CASE}/ai-summary", cases.CaseSummaryView.as_view()),
    path(f"{CASE}/ai-sar-narrative", cases.CaseNarrativeView.as_view()),
    path(f"{CASE}/sar-draft", reports.SarDraftView.as_view()),
    path(f"{CASE}/sar-selection", reports.SarSelectionView.as_view()),
    path(f"{CASE}/sar-xml", reports.SarXmlView.as_view()),
    path(f"{CASE}/sar-validate", reports.SarValidateView.as_view()),
    path(f"{CASE}/file-sar", reports.FileSarView.as_view()),
    path(f"{ENTITY}/sar-history", reports.SarHistoryView.as_view()),
    path(f"{ENTITY}/filing-history", reports.FilingHistoryView.as_view()),
    path(f"{ENTITY}/ctr-history", reports.CtrHistoryView.as_view()),
    path(f"{ENTITY}/ctr-draft/<uuid:alert_id>", reports.CtrDraftView.as_view()),
    path(f"{ENTITY}/ctr-xml", reports.CtrXmlView.as_view()),
    path(f"{ENTITY}/ctr-validate", reports.CtrValidateView.as_view()),
    path(f"{ENTITY}/file-ctr", reports.FileCtrView.as_view()),
    path(f"{ENTITY}/filings/<uuid:filing_id>", reports.FilingView.as_view()),
    path(f"{ENTITY}/filings/<uuid:filing_id>/document", reports.FilingDocumentView.as_view()),
]
