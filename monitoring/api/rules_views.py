"""GET /v1/monitoring/rules, GET and PATCH /v1/monitoring/rules/{rule_id}: the organization's rule settings."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from common.api.serializers import validated, validated_query
from common.api.views import V1APIView
from monitoring.api import rules_serializers as s
from monitoring.configuration import selectors, services
from monitoring.rules import Family

TAGS = ["monitoring"]
RULE_ID = OpenApiParameter("rule_id", str, OpenApiParameter.PATH, description="The rule's number (1–50) or code.")


class RulesView(V1APIView):
    @extend_schema(operation_id="rules_list", tags=TAGS, responses={200: s.RuleListResponse}, description=(
        "All 50 monitoring rules with this organization's settings (viewer or above), and what the lists they read hold. "
        "Not paginated: the catalogue is fixed."), parameters=[
        OpenApiParameter("family", str, enum=[str(family) for family in Family]),
        OpenApiParameter("enabled", bool),
    ])
    def get(self, request):
        query = validated_query(s.RuleListQuery, request)
        organization = request.auth.organization
        rules = selectors.rule_views(organization, **query)
        return Response({"data": s.RuleResponse(rules, many=True).data, "total": len(rules),
                         "lists": selectors.lists_summary(organization)})


class RuleView(V1APIView):
    action_roles = {"patch": services.SETTINGS_ROLE}

    @extend_schema(operation_id="rules_get", tags=TAGS, parameters=[RULE_ID], responses={200: s.RuleResponse},
                   description="One rule with this organization's settings (viewer or above).")
    def get(self, request, rule_id):
        return Response(s.RuleResponse(selectors.rule_view_of(request.auth.organization, rule_id)).data)

    @extend_schema(operation_id="rules_update", tags=TAGS, parameters=[RULE_ID], request=s.RuleSettingPatch,
                   responses={200: s.RuleResponse}, description=(
                       "Enable or disable a rule, override its parameters (merged with the stored overrides and validated "
                       "against the rule's parameter schema as one set) or its severity. Admin role."))
    def patch(self, request, rule_id):
        selectors.rule_or_404(rule_id)  # an unknown rule is a 404 before the body is judged
        services.rule_setting_update(principal=request.auth, rule_id=rule_id, **validated(s.RuleSettingPatch, request.data))
        return Response(s.RuleResponse(selectors.rule_view_of(request.auth.organization, rule_id)).data)
