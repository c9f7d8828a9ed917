"""Risk history and explanation, peer group, related entities, activity feed, audit trail, reports, search."""

import datetime as dt

from django.http import HttpResponse, JsonResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api.pagination import page_parameters, page_params, paged
from common.api.schema import ANSWERS_NULL
from common.api.serializers import validated_query
from common.api.views import V1APIView
from common.confidentiality import visible_audit_entries
from onboarding import selectors, services
from onboarding.api import insight_serializers as s
from onboarding.api.base import ENTITY_ID, EntityScopedViewSet
from onboarding.insights.peer_group import peer_group
from onboarding.insights.related import related_entities
from onboarding.interfaces.activity import entity_activity
from onboarding.interfaces.search import search_all, searchable_types
from onboarding.reports.compliance_csv import compliance_report_csv
from onboarding.risk.narrative import risk_explanation


@extend_schema(parameters=[ENTITY_ID])
class EntityInsightsViewSet(EntityScopedViewSet):
    @extend_schema(operation_id="risk_history_list", tags=["onboarding"], responses={200: paged(s.RiskHistoryResponse)},
                   parameters=page_parameters(50, 500))
    @action(detail=True, methods=["get"], url_path="risk-history")
    def risk_history(self, request, entity_id=None):
        return self.page(selectors.risk_history_of(self.entity()), s.RiskHistoryResponse, default=50, maximum=500)

    @extend_schema(operation_id="ai_risk_explanation", tags=["onboarding"], responses={200: s.RiskExplanationResponse})
    @action(detail=True, methods=["get"], url_path="ai-risk-explanation")
    def ai_risk_explanation(self, request, entity_id=None):
        entity = self.entity()
        body = {"entity_id": entity.pk, "risk_score": entity.risk_score, "risk_tier": entity.risk_tier or None,
                "factors": entity.risk_factors, **risk_explanation(entity)}
        return Response(s.RiskExplanationResponse(body).data)

    @extend_schema(operation_id="peer_group_get", tags=["onboarding"],
                   responses={200: OpenApiResponse(s.PeerGroupResponse, description="The peer group, or null when there is no peer.")},
                   extensions={ANSWERS_NULL: True})
    @action(detail=True, methods=["get"], url_path="peer-group")
    def peer_group(self, request, entity_id=None):
        group = peer_group(self.entity())
        if group is None:
            return JsonResponse(None, safe=False)  # a JSON `null` body: DRF renders None as an empty one
        return Response(s.PeerGroupResponse(group).data)

    @extend_schema(operation_id="related_entities_list", tags=["onboarding"], responses={200: s.RelatedEntityResponse(many=True)})
    @action(detail=True, methods=["get"], url_path="related")
    def related(self, request, entity_id=None):
        return Response(s.RelatedEntityResponse(related_entities(self.entity()), many=True).data)

    @extend_schema(operation_id="activity_list", tags=["onboarding"], parameters=page_parameters(50, 200, offset=False),
                   responses={200: s.ActivityItemResponse(many=True)})
    @action(detail=True, methods=["get"], url_path="activity")
    def activity(self, request, entity_id=None):
        limit, _ = page_params(request, default=50, maximum=200)
        items = entity_activity(self.entity(), limit=limit)
        return Response(s.ActivityItemResponse([item.__dict__ for item in items], many=True).data)

    @extend_schema(operation_id="entity_audit_list", tags=["onboarding"], parameters=page_parameters(100, 500),
                   responses={200: s.AuditLogResponse(many=True)})
    @action(detail=True, methods=["get"], url_path="audit")
    def audit(self, request, entity_id=None):
        limit, offset = page_params(request, default=100, maximum=500)
        entries = visible_audit_entries(selectors.audit_of_entity(self.entity()), request.auth)[offset:offset + limit]
        return Response(s.AuditLogResponse(entries, many=True).data)

    @extend_schema(operation_id="compliance_report_csv", tags=["onboarding"],
                   parameters=[OpenApiParameter("from_date", OpenApiTypes.DATETIME), OpenApiParameter("to_date", OpenApiTypes.DATETIME)],
                   responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV for auditors")})
    @action(detail=True, methods=["get"], url_path="compliance-report")
    def compliance_report(self, request, entity_id=None):
        query = validated_query(s.ReportQuery, request)
        entity = self.entity()
        body = compliance_report_csv(entity, start=query.get("from_date"), end=query.get("to_date"), reader=request.auth)
        response = HttpResponse(body.encode("utf-8"), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="compliance-report-{entity.pk}-{dt.date.today():%Y%m%d}.csv"'
        return response

    @extend_schema(operation_id="compliance_certificate_pdf", tags=["onboarding"],
                   responses={(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="PDF certificate")})
    @action(detail=True, methods=["get"], url_path="compliance-certificate")
    def compliance_certificate(self, request, entity_id=None):
        entity = self.entity()
        pdf, digest = services.certificate_issue(principal=request.auth, entity=entity)
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="compliance-certificate-{entity.pk}.pdf"'
        response["X-Certificate-Hash"] = digest
        return response


class SearchView(V1APIView):
    @extend_schema(operation_id="onboarding_search", tags=["onboarding"], responses={200: s.SearchResponse},
                   parameters=[OpenApiParameter("q", str, required=True, description="2-200 characters"),
                               *page_parameters(5, 20, offset=False)])
    def get(self, request):
        query = validated_query(s.SearchQuery, request, also=("limit",))
        limit, _ = page_params(request, default=5, maximum=20)
        principal = request.auth
        results = search_all(organization=principal.organization, mode=principal.mode, q=query["q"], limit=limit)
        return Response(s.SearchResponse({"query": query["q"], "types": searchable_types(),
                                          "results": [r.__dict__ for r in results]}).data)
