from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from common.api.fields import PERIOD_FORMATS, ChoiceField, PeriodBoundField
from common.api.serializers import StrictSerializer, validated
from common.api.views import V1APIView
from monitoring.api.rules_views import RULE_ID, TAGS
from monitoring.backtest import BACKTEST_ROLE, rule_backtest


class BacktestRequest(StrictSerializer):
    parameters = serializers.DictField(required=False, default=dict,
                                       help_text="Candidate overrides, merged with the stored ones (null resets one).")
    from_date = PeriodBoundField(required=True, help_text=f"Start of the replayed range: {PERIOD_FORMATS}; a date is its start.")
    to_date = PeriodBoundField(end_of_day=True, required=True,
                               help_text=f"End of the replayed range, included: {PERIOD_FORMATS}; a date is its whole day.")


class BacktestTally(serializers.Serializer):
    alerts = serializers.IntegerField()
    hits = serializers.IntegerField()
    first_triggered_at = serializers.DateTimeField(allow_null=True)
    last_triggered_at = serializers.DateTimeField(allow_null=True)


class BacktestEntity(serializers.Serializer):
    entity_id = serializers.UUIDField()
    candidate = BacktestTally()
    current = BacktestTally()
    change = ChoiceField(choices=["new", "removed", "unchanged"])


class BacktestResponse(serializers.Serializer):
    rule = serializers.DictField()
    from_date = serializers.DateTimeField()
    to_date = serializers.DateTimeField()
    events_replayed = serializers.IntegerField()
    parameters = serializers.DictField()
    totals = serializers.DictField()
    entities = BacktestEntity(many=True)


class RuleBacktestView(V1APIView):
    minimum_role = BACKTEST_ROLE

    @extend_schema(operation_id="rules_backtest", tags=TAGS, parameters=[RULE_ID], request=BacktestRequest,
                   responses={200: BacktestResponse}, description=(
                       "Replay stored history of the range through this rule with candidate parameters and with the current "
                       "settings; per entity, the alerts each would have raised. Creates nothing. Admin role."))
    def post(self, request, rule_id):
        body = validated(BacktestRequest, request.data)
        report = rule_backtest(principal=request.auth, rule_id=rule_id, parameters=body["parameters"],
                               start=body["from_date"], end=body["to_date"])
        return Response(BacktestResponse(report).data)
