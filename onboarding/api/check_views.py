"""Compliance checks, screening hits (false positives), adverse media, and external screening results."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api.pagination import page_parameters, paged
from common.api.serializers import PAGE_PARAMETERS, validated, validated_query
from common.api.views import V1APIView
from common.errors import NotFound
from onboarding import selectors, services
from onboarding.api import check_serializers as s
from onboarding.api.base import ENTITY_ID, EntityScopedViewSet
from onboarding.choices import CheckResult, CheckType

UUID = "[0-9a-fA-F-]{36}"


def adverse_media_view(entity, check) -> dict:
    if check is None:
        return {"entity_id": entity.pk, "status": "not_screened", "check_id": None, "checked_at": None, "provider": None,
                "summary": None, "article_count": 0, "articles": []}
    articles = check.details.get("articles", []) if isinstance(check.details, dict) else []
    status = {CheckResult.NOT_CONFIGURED: "not_configured", CheckResult.ERROR: "error", CheckResult.PASS: "clear"}.get(
        check.result, "found")
    return {"entity_id": entity.pk, "status": status, "check_id": check.pk, "checked_at": check.created_at,
            "provider": check.provider, "summary": check.summary, "article_count": len(articles), "articles": articles}


@extend_schema(parameters=[ENTITY_ID])
class EntityChecksViewSet(EntityScopedViewSet):
    action_roles = {"false_positive": services.FALSE_POSITIVE_ROLE, "adverse_media_refresh": services.ONBOARD_ROLE}

    @extend_schema(operation_id="compliance_checks_list", tags=["onboarding"], parameters=[
        OpenApiParameter("check_type", str, enum=CheckType.values), OpenApiParameter("result", str, enum=CheckResult.values),
        *page_parameters(50, 500)],
        responses={200: paged(s.ComplianceCheckResponse)})
    @action(detail=True, methods=["get"], url_path="compliance-checks", pagination_class=None)
    def compliance_checks(self, request, entity_id=None):
        query = validated_query(s.CheckListQuery, request, also=PAGE_PARAMETERS)
        checks = selectors.checks_of_entity(self.entity(), **query)
        return self.page(checks, s.ComplianceCheckResponse, default=50, maximum=500)

    @extend_schema(operation_id="compliance_checks_get", tags=["onboarding"], responses={200: s.ComplianceCheckDetailResponse})
    @action(detail=True, methods=["get"], url_path=rf"compliance-checks/(?P<check_id>{UUID})")
    def compliance_check(self, request, entity_id=None, check_id=None):
        check = selectors.checks_of_entity(self.entity()).filter(pk=check_id).first()
        if check is None:
            raise NotFound("This entity has no compliance check with this id.")
        return Response(s.ComplianceCheckDetailResponse(check).data)

    @extend_schema(operation_id="screening_hits_list", tags=["onboarding"], parameters=[
        OpenApiParameter("status", str, enum=["open", "false_positive", "suppressed"]),
        OpenApiParameter("include_inactive", bool), *page_parameters(50, 500)],
        responses={200: paged(s.ScreeningHitResponse)})
    @action(detail=True, methods=["get"], url_path="screening-hits")
    def screening_hits(self, request, entity_id=None):
        query = validated_query(s.HitListQuery, request, also=PAGE_PARAMETERS)
        return self.page(selectors.hits_of_entity(self.entity(), **query), s.ScreeningHitResponse, default=50, maximum=500)

    @extend_schema(operation_id="screening_hits_false_positive", tags=["onboarding"], request=s.FalsePositiveRequest,
                   responses={200: s.ScreeningHitResponse})
    @action(detail=True, methods=["post"], url_path=rf"screening-hits/(?P<hit_id>{UUID})/false-positive")
    def false_positive(self, request, entity_id=None, hit_id=None):
        body = validated(s.FalsePositiveRequest, request.data)
        hit = services.hit_mark_false_positive(principal=request.auth, entity_id=entity_id, hit_id=hit_id, reason=body["reason"])
        return Response(s.ScreeningHitResponse(hit).data)

    @extend_schema(operation_id="adverse_media_get", tags=["onboarding"], responses={200: s.AdverseMediaResponse})
    @action(detail=True, methods=["get"], url_path="adverse-media")
    def adverse_media(self, request, entity_id=None):
        entity = self.entity()
        return Response(s.AdverseMediaResponse(adverse_media_view(entity, selectors.latest_check(entity, CheckType.ADVERSE_MEDIA))).data)

    @extend_schema(operation_id="adverse_media_refresh", tags=["onboarding"], request=None, responses={200: s.AdverseMediaResponse})
    @action(detail=True, methods=["post"], url_path="adverse-media/refresh")
    def adverse_media_refresh(self, request, entity_id=None):
        entity = self.entity()
        check = services.adverse_media_refresh(principal=request.auth, entity_id=entity.pk)
        return Response(s.AdverseMediaResponse(adverse_media_view(entity, check)).data)


class ExternalScreeningView(V1APIView):
    """POST /v1/monitoring/screening: a client's own provider result, stored as a compliance check."""

    minimum_role = services.EXTERNAL_ROLE

    @extend_schema(operation_id="monitoring_screening_ingest", tags=["monitoring"], request=s.ExternalScreeningRequest,
                   responses={200: s.ExternalScreeningResponse})
    def post(self, request):
        body = validated(s.ExternalScreeningRequest, request.data)
        check, updated = services.external_check_record(principal=request.auth, raw=dict(request.data), **body)
        return Response(s.ExternalScreeningResponse({"id": check.pk, "entity_id": check.entity_id, "check_type": check.check_type,
                                                     "result": check.result, "compliance_status_updated": updated}).data)
