"""Reports: SAR/STR/SMR of a case and CTR/LCTR/TTR of an entity — draft, document, validation,
filing — and the entity's filing histories with the stored documents."""

from __future__ import annotations

import base64

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response

from common.api.pagination import page_parameters, paged
from common.api.serializers import validated, validated_query
from common.errors import NotFound, ValidationFailed
from filings.api import serializers as s
from filings.api.base import TAGS_FILINGS, FilingsView, document_response
from filings.api.case_views import case_response
from filings.reports import coverage, drafts, filing, selectors
from filings.reports.drafts import FILE_ROLE, PREPARE_ROLE

FORM = {"application/json": {"type": "object", "description": "Form data (docs/filings.md); an empty body uses the stored draft."}}
DOCUMENT = {(200, "application/xml"): OpenApiResponse(OpenApiTypes.STR, description="The XML report (FinCEN, AUSTRAC)."),
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="The JSON report (FINTRAC, generic STR).")}
ALERT_ID = OpenApiParameter("alert_id", OpenApiTypes.UUID, description="With an empty body: the rule-24 alert whose draft to use.")


def draft_response(subject: drafts.Subject, data: dict, source: str, draft) -> dict:
    case = subject.case
    return s.ReportDraftResponse({
        "entity_id": subject.entity.pk, "case_id": case.pk if case else None, "alert_id": subject.alert.pk if subject.alert else None,
        "kind": subject.renderer.kind, "jurisdiction": subject.renderer.jurisdiction, "regulator": subject.renderer.regulator,
        "content_type": subject.renderer.content_type, "source": source,
        "prepared_by": draft.prepared_by_label if draft else None, "prepared_at": draft.prepared_at if draft else None,
        "validated_at": draft.validated_at if draft else None, "valid": draft.valid if draft else None,
        "deadline": s.deadline_of(case) if case else None, "form": data,
        "coverage": coverage.summary(subject.coverage()) if case else None,
    }).data


def rendered(subject: drafts.Subject, principal, body: dict | None):
    """sar-xml / ctr-xml: the document of the body's form data (saved as the draft), or of the
    stored draft, else the prefill."""
    data, _, from_body = drafts.form_or_current(subject, principal, body)
    review = drafts.review_or_422(subject, data)
    if from_body:
        drafts.draft_save(principal=principal, subject=subject, form_data=data)
    rendering = review.rendering
    return document_response(rendering.document, rendering.content_type, rendering.filename, headers={
        "X-Report-Kind": subject.renderer.kind, "X-Report-Valid": "true" if review.valid else "false",
        "X-Report-Errors": str(len(review.errors)), "X-Report-Warnings": str(len(review.warnings))})


def reviewed(subject: drafts.Subject, principal, body: dict | None) -> dict:
    """sar-validate / ctr-validate: schema and business checks; the body's form data is saved as
    the draft (unreadable form data is reported, not saved)."""
    return drafts.draft_validate(principal=principal, subject=subject, form_data=body).as_dict()


# --- Suspicious activity (case) ----------------------------------------------------------------

class SarDraftView(FilingsView):
    minimum_role = PREPARE_ROLE

    @extend_schema(operation_id="cases_sar_draft", responses={200: s.ReportDraftResponse}, tags=TAGS_FILINGS,
                   parameters=[OpenApiParameter("refresh", bool)],
                   description="The stored draft, else one prefilled from the filer profile, the entity and its owners, the "
                               "alerts and their transactions; with the 30-day deadline (31 CFR 1020.320(b)(3)).")
    def get(self, request, case_id):
        refresh = validated_query(s.DraftQuery, request)["refresh"]
        subject = drafts.sar_subject(request.auth, case_id)
        if refresh:
            return Response(draft_response(subject, subject.prefilled(request.auth), "prefilled", subject.stored()))
        return Response(draft_response(subject, *drafts.current_form(subject, request.auth)))


class SarSelectionView(FilingsView):
    minimum_role = PREPARE_ROLE

    @extend_schema(operation_id="cases_sar_selection", request=s.SarSelectionRequest, responses={200: s.ReportDraftResponse},
                   tags=TAGS_FILINGS,
                   description="Choose which of the case's alerts the report covers (by default those disposed true_positive or "
                               "inconclusive; an alert still open only when selected). The draft is prefilled again from the "
                               "selection — alerts, transactions, amount, dates, narrative — and the caller becomes its preparer. "
                               "409 for a closed case; 422 for an id that is not an alert of the case.")
    def post(self, request, case_id):
        body = validated(s.SarSelectionRequest, request.data)
        subject = drafts.sar_selection_set(principal=request.auth, case_id=case_id, include=body["include"], exclude=body["exclude"],
                                           reset=body["reset"])
        return Response(draft_response(subject, *drafts.current_form(subject, request.auth)))


class SarXmlView(FilingsView):
    minimum_role = PREPARE_ROLE

    @extend_schema(operation_id="cases_sar_xml", request=FORM, responses=DOCUMENT, tags=TAGS_FILINGS)
    def post(self, request, case_id):
        return rendered(drafts.sar_subject(request.auth, case_id), request.auth, self.form_body())


class SarValidateView(FilingsView):
    minimum_role = PREPARE_ROLE

    @extend_schema(operation_id="cases_sar_validate", request=FORM, responses={200: s.ValidationResponse}, tags=TAGS_FILINGS)
    def post(self, request, case_id):
        return Response(s.ValidationResponse(reviewed(drafts.sar_subject(request.auth, case_id), request.auth, self.form_body())).data)


class FileSarView(FilingsView):
    minimum_role = FILE_ROLE

    @extend_schema(operation_id="cases_file_sar", request=FORM, responses={200: s.FiledCaseResponse}, tags=TAGS_FILINGS,
                   description="Files the validated draft: the case must be in `determination` and the form data (an empty "
                               "body: the stored draft) the draft as last validated, else 409 `REVIEW_REQUIRED` naming what is "
                               "missing; validates again (422 with every error); applies four-eyes filing (403 `FOUR_EYES`; on by "
                               "default in live mode); stores the document and a filing record with what it covers and whether "
                               "four eyes applied; closes the case with filing status `filed`; emits `sar.filed`.")
    def post(self, request, case_id):
        record = filing.sar_file(principal=request.auth, case_id=case_id, form_data=self.form_body())
        return Response({**case_response(request.auth, record.case_id), "filing": s.FilingRecordResponse(record).data})


# --- Large transactions (entity) ---------------------------------------------------------------

class CtrDraftView(FilingsView):
    minimum_role = PREPARE_ROLE

    @extend_schema(operation_id="entity_ctr_draft", responses={200: s.ReportDraftResponse}, tags=TAGS_FILINGS,
                   parameters=[OpenApiParameter("refresh", bool)],
                   description="The large-transaction report of a rule-24 alert; 404 where the jurisdiction has none "
                               "(GB, JP, DE, FR, NL and others).")
    def get(self, request, entity_id, alert_id):
        refresh = validated_query(s.DraftQuery, request)["refresh"]
        subject = drafts.ctr_subject(request.auth, entity_id, alert_id=alert_id)
        if refresh:
            return Response(draft_response(subject, subject.prefilled(request.auth), "prefilled", subject.stored()))
        return Response(draft_response(subject, *drafts.current_form(subject, request.auth)))


class CtrBodyView(FilingsView):
    minimum_role = PREPARE_ROLE

    def subject(self, entity_id, body, *, minimum=PREPARE_ROLE):
        alert_id = validated_query(s.AlertQuery, self.request).get("alert_id")
        if body is None and alert_id is None:
            raise ValidationFailed.for_field(None, "Send the report's form data, or name alert_id to use its draft.")
        return drafts.ctr_subject(self.request.auth, entity_id, alert_id=alert_id, form_data=body, minimum=minimum)


class CtrXmlView(CtrBodyView):
    @extend_schema(operation_id="entity_ctr_xml", request=FORM, responses=DOCUMENT, tags=TAGS_FILINGS, parameters=[ALERT_ID])
    def post(self, request, entity_id):
        body = self.form_body()
        return rendered(self.subject(entity_id, body), request.auth, body)


class CtrValidateView(CtrBodyView):
    @extend_schema(operation_id="entity_ctr_validate", request=FORM, responses={200: s.ValidationResponse}, tags=TAGS_FILINGS,
                   parameters=[ALERT_ID])
    def post(self, request, entity_id):
        body = self.form_body()
        return Response(s.ValidationResponse(reviewed(self.subject(entity_id, body), request.auth, body)).data)


class FileCtrView(CtrBodyView):
    minimum_role = FILE_ROLE

    @extend_schema(operation_id="entity_file_ctr", request=FORM, responses={200: s.FilingRecordResponse}, tags=TAGS_FILINGS,
                   parameters=[ALERT_ID])
    def post(self, request, entity_id):
        alert_id = validated_query(s.AlertQuery, request).get("alert_id")
        record = filing.ctr_file(principal=request.auth, entity_id=entity_id, form_data=self.form_body(), alert_id=alert_id)
        return Response(s.FilingRecordResponse(record).data)


# --- Histories and documents -------------------------------------------------------------------

class HistoryView(FilingsView):
    minimum_role = PREPARE_ROLE
    selector = staticmethod(selectors.filings_of_entity)

    def get(self, request, entity_id):
        entity = self.entity(entity_id)
        return self.page(type(self).selector(organization=entity.organization, mode=entity.mode, entity_id=entity.pk),
                         s.FilingRecordResponse)


PAGE = page_parameters()


class SarHistoryView(HistoryView):
    selector = staticmethod(selectors.sar_history)

    @extend_schema(operation_id="entity_sar_history", responses={200: paged(s.FilingRecordResponse)}, tags=TAGS_FILINGS,
                   parameters=PAGE, description="Suspicious-activity reports (SAR, STR, SMR) filed on the entity.")
    def get(self, request, entity_id):
        return super().get(request, entity_id)


class FilingHistoryView(HistoryView):
    @extend_schema(operation_id="entity_filing_history", responses={200: paged(s.FilingRecordResponse)}, tags=TAGS_FILINGS,
                   parameters=PAGE, description="Every filing record of the entity (SAR, STR, SMR, CTR, LCTR, TTR).")
    def get(self, request, entity_id):
        return super().get(request, entity_id)


class CtrHistoryView(HistoryView):
    selector = staticmethod(selectors.ctr_history)

    @extend_schema(operation_id="entity_ctr_history", responses={200: paged(s.FilingRecordResponse)}, tags=TAGS_FILINGS,
                   parameters=PAGE, description="Large-transaction reports (CTR, LCTR, TTR) filed on the entity.")
    def get(self, request, entity_id):
        return super().get(request, entity_id)


class FilingView(FilingsView):
    minimum_role = PREPARE_ROLE

    def record(self, entity_id, filing_id):
        entity = self.entity(entity_id)
        record = selectors.filing_of(organization=entity.organization, mode=entity.mode, filing_id=filing_id, entity_id=entity.pk)
        if record is None:
            raise NotFound("No filing of this entity has this id.")
        return record

    @extend_schema(operation_id="entity_filings_get", responses={200: s.FilingRecordResponse}, tags=TAGS_FILINGS)
    def get(self, request, entity_id, filing_id):
        return Response(s.FilingRecordResponse(self.record(entity_id, filing_id)).data)


class FilingDocumentView(FilingView):
    @extend_schema(operation_id="entity_filings_document", responses=DOCUMENT, tags=TAGS_FILINGS,
                   parameters=[OpenApiParameter("attachment", str, description="The name of an attachment (the SAR's CSV).")],
                   description="The document exactly as filed (or one of its attachments).")
    def get(self, request, entity_id, filing_id):
        record = self.record(entity_id, filing_id)
        name = request.query_params.get("attachment")
        if name is None:
            return document_response(bytes(record.document), record.content_type, record.filename, attachment=True)
        if name not in (record.attachments or {}):
            raise NotFound("This filing has no attachment of that name.")
        return document_response(base64.b64decode(record.attachments[name]), "text/csv", name, attachment=True)
