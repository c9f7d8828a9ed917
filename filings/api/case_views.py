"""Cases: list and detail under the entity, assign, status, comment, generated text."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from common.api.pagination import page_parameters, paged
from common.api.serializers import PAGE_PARAMETERS, validated, validated_query
from common.errors import NotFound
from filings.api import serializers as s
from filings.api.base import TAGS_CASES, FilingsView
from filings.cases import selectors, services
from filings.cases.common import case_of
from filings.generation.service import generated
from organizations.choices import Role


def case_response(principal, case_id) -> dict:
    case = selectors.cases_of(organization=principal.organization, mode=principal.mode).get(pk=case_id)
    return s.CustomerCaseResponse(case).data


class EntityCasesView(FilingsView):
    @extend_schema(operation_id="entity_cases_list", responses={200: paged(s.CustomerCaseResponse)}, tags=TAGS_CASES,
                   parameters=[OpenApiParameter("status", str, enum=[c for c, _ in s.CaseStatus.choices]),
                               *page_parameters()])
    def get(self, request, entity_id):
        entity, query = self.entity(entity_id), validated_query(s.CaseListQuery, request, also=PAGE_PARAMETERS)
        cases = selectors.cases_of_entity(organization=entity.organization, mode=entity.mode, entity_id=entity.pk, **query)
        return self.page(cases, s.CustomerCaseResponse, filings_visible=selectors.filings_visible(request.auth.role))


class EntityCaseView(FilingsView):
    @extend_schema(operation_id="entity_cases_get", responses={200: s.CustomerCaseDetailResponse}, tags=TAGS_CASES)
    def get(self, request, entity_id, case_id):
        entity, visible = self.entity(entity_id), selectors.filings_visible(request.auth.role)
        case = selectors.case_detail(organization=entity.organization, mode=entity.mode, case_id=case_id, entity_id=entity.pk,
                                     with_filings=visible)
        if case is None:
            raise NotFound("No case of this entity has this id.")
        transactions, fiat = selectors.case_transactions(case), selectors.case_fiat_events(case)
        parts = {"alerts": list(selectors.case_alerts(case)), "transactions": list(transactions[:selectors.DETAIL_TRANSACTIONS]),
                 "fiat_events": list(fiat[:selectors.DETAIL_TRANSACTIONS]), "transaction_count": transactions.count(),
                 "fiat_event_count": fiat.count()}
        return Response(s.CustomerCaseDetailResponse(case, context={"parts": parts, "filings_visible": visible}).data)


class CaseAssignView(FilingsView):
    minimum_role = services.ASSIGN_ROLE

    @extend_schema(operation_id="cases_assign", request=s.CaseAssignRequest, responses={200: s.CustomerCaseResponse}, tags=TAGS_CASES)
    def post(self, request, case_id):
        body = validated(s.CaseAssignRequest, request.data)
        case = services.case_assign(principal=request.auth, case_id=case_id, assignee_id=body["assignee_id"])
        return Response(case_response(request.auth, case.pk))


class CaseStatusView(FilingsView):
    minimum_role = services.STATUS_ROLE

    @extend_schema(operation_id="cases_status", request=s.CaseStatusRequest, responses={200: s.CustomerCaseResponse}, tags=TAGS_CASES,
                   description="Moves the case along its state machine; a refused transition is 409 naming the allowed "
                               "targets. Reopening a closed case needs l3_officer or above; closing and reopening need a reason.")
    def post(self, request, case_id):
        body = validated(s.CaseStatusRequest, request.data)
        case = services.case_status_set(principal=request.auth, case_id=case_id, **body)
        return Response(case_response(request.auth, case.pk))


class CaseCommentView(FilingsView):
    minimum_role = services.COMMENT_ROLE

    @extend_schema(operation_id="cases_comment", request=s.CaseCommentRequest, responses={200: s.CaseEventResponse}, tags=TAGS_CASES)
    def post(self, request, case_id):
        body = validated(s.CaseCommentRequest, request.data)
        return Response(s.CaseEventResponse(services.case_comment_add(principal=request.auth, case_id=case_id, **body)).data)


class CaseSummaryView(FilingsView):
    minimum_role = Role.L1_ANALYST

    @extend_schema(operation_id="cases_ai_summary", responses={200: s.SummaryResponse}, tags=TAGS_CASES,
                   description="Built only from the case's facts (returned alongside); deterministic unless an "
                               "OpenAI-compatible model is configured. `generator` names what wrote it.")
    def get(self, request, case_id):
        case = case_of(request.auth, case_id)
        result = generated(case, purpose="summary", reader=request.auth)
        return Response(s.SummaryResponse({**result, "case_id": case.pk, "summary": result["text"]}).data)


class CaseNarrativeView(FilingsView):
    minimum_role = Role.L2_INVESTIGATOR

    @extend_schema(operation_id="cases_ai_sar_narrative", request=None, responses={200: s.NarrativeResponse}, tags=TAGS_CASES,
                   description="A SAR narrative (who, what, when, where, why, how) from the case's facts alone. "
                               "It is not stored: put it in the draft's activity.narrative after review.")
    def post(self, request, case_id):
        case = case_of(request.auth, case_id)
        result = generated(case, purpose="narrative", reader=request.auth)
        return Response(s.NarrativeResponse({**result, "case_id": case.pk, "narrative": result["text"]}).data)
