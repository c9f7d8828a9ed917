from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from common.api.fields import PERIOD_FORMATS, ChoiceField, PeriodBoundField, StrictBooleanField
from common.api.serializers import StrictSerializer, validated
from common.api.views import V1APIView
from common.errors import NotFound
from monitoring.api.rules_views import RULE_ID, TAGS
from monitoring.backtest import BACKTEST_ROLE, rule_backtest
from monitoring.backtest.selectors import backtest_job_of
from monitoring.backtest.services import SYNC_MAX_EVENTS, backtest_job_create, needs_worker
from monitoring.backtest.sweep import MAX_COMBINATIONS
from monitoring.models.backtests import JobStatus


class BacktestRequest(StrictSerializer):
    parameters = serializers.DictField(required=False, default=dict,
                                       help_text="Candidate overrides, merged with the stored ones (null resets one).")
    from_date = PeriodBoundField(required=True, help_text=f"Start of the replayed range: {PERIOD_FORMATS}; a date is its start.")
    to_date = PeriodBoundField(end_of_day=True, required=True,
                               help_text=f"End of the replayed range, included: {PERIOD_FORMATS}; a date is its whole day.")
    grid = serializers.DictField(required=False, child=serializers.ListField(), help_text=(
        f"A sweep: candidate values per parameter, each combination (at most {MAX_COMBINATIONS}) merged over `parameters`."))
    objective = serializers.DictField(required=False, default=dict, help_text=(
        "With a grid: `maximise` (recall, precision or f1; default f1) under optional bounds min_precision, min_recall, min_f1, "
        "max_alerts_per_1000_entities, e.g. {\"maximise\": \"recall\", \"min_precision\": 0.5}."))
    asynchronous = StrictBooleanField(required=False, default=False, help_text=(
        f"Run in a worker (202 and a job to poll) even when the range holds at most {SYNC_MAX_EVENTS} events."))


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
    totals = serializers.DictField(help_text="Per side: alerts, hits, skipped evaluations and skipped_by_reason (each kind of "
                                   "skip, its figures as N: a hub above the degree bound, a graph search stopped at its "
                                   "budget, no USD price).")
    labels = serializers.DictField(help_text="The replayed entities, and the positives and negatives among them.")
    metrics = serializers.DictField(help_text=(
        "Per side: alerts, flagged_entities, true_positives, false_positives, unlabelled_flagged, precision, recall, f1, "
        "alerts_per_1000_entities and per_typology."))
    dispositions = serializers.DictField(help_text="How the rule's stored alerts first raised in the range were disposed.")
    entities = BacktestEntity(many=True, help_text="Per entity, without a grid.")
    sweep = serializers.DictField(required=False, help_text="With a grid: objective, combinations (parameters, metrics) and best.")


class BacktestJobResponse(serializers.Serializer):
    id = serializers.UUIDField()
    rule_code = serializers.CharField()
    status = ChoiceField(choices=JobStatus.values)
    request = serializers.DictField()
    result = BacktestResponse(allow_null=True)
    error = serializers.DictField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class RuleBacktestView(V1APIView):
    minimum_role = BACKTEST_ROLE

    @extend_schema(operation_id="rules_backtest", tags=TAGS, request=BacktestRequest, parameters=[
                       RULE_ID, OpenApiParameter("Location", str, OpenApiParameter.HEADER, response=[202],
                                                 description="With a 202: the job to poll, /v1/monitoring/backtests/{id}.")],
                   responses={200: BacktestResponse, 202: OpenApiResponse(BacktestJobResponse, description=(
                       "Queued in a worker: poll the job at the Location header."))}, description=(
                       "Replay stored history of the range through this rule with candidate parameters (or each combination of a "
                       "grid) and with the current settings; per side, the alerts each would have raised and how they score "
                       "against the labels (uploaded ones and alert dispositions). Creates nothing. A range holding more than "
                       f"{SYNC_MAX_EVENTS} events (or `asynchronous`) is run in a worker: 202, a job at the Location header. Admin role."))
    def post(self, request, rule_id):
        body = validated(BacktestRequest, request.data)
        principal = request.auth
        arguments = {"rule_id": rule_id, "parameters": body["parameters"], "start": body["from_date"], "end": body["to_date"],
                     "grid": body.get("grid"), "objective": body["objective"]}
        if body["asynchronous"] or needs_worker(principal=principal, start=body["from_date"], end=body["to_date"]):
            job = backtest_job_create(principal=principal, **arguments)
            return Response(BacktestJobResponse(job).data, status=status.HTTP_202_ACCEPTED,
                            headers={"Location": f"/v1/monitoring/backtests/{job.pk}"})
        return Response(BacktestResponse(rule_backtest(principal=principal, **arguments)).data)


class BacktestJobView(V1APIView):
    minimum_role = BACKTEST_ROLE

    @extend_schema(operation_id="backtests_get", tags=TAGS, responses={200: BacktestJobResponse},
                   description="A backtest run in a worker: queued, running, succeeded (with its result) or failed (with its error).")
    def get(self, request, job_id):
        job = backtest_job_of(organization=request.auth.organization, mode=request.auth.mode, job_id=job_id)
        if job is None:
            raise NotFound("No backtest of yours has this id.")
        return Response(BacktestJobResponse(job).data)
