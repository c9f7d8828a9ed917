"""Shapes of risk history, the risk explanation, peer group, related entities, activity, audit and search."""

from rest_framework import serializers

from common.api.fields import ChoiceField, PeriodQuery
from onboarding.api.serializers import RiskFactorResponse
from onboarding.models import RiskAssessment


class RiskHistoryResponse(serializers.ModelSerializer):
    previous_tier = serializers.SerializerMethodField()
    factors = RiskFactorResponse(many=True)
    actor = serializers.CharField(source="actor_label")

    class Meta:
        model = RiskAssessment
        fields = ["id", "score", "tier", "previous_score", "previous_tier", "reason", "factors", "actor", "created_at"]
        read_only_fields = fields

    def get_previous_tier(self, row) -> str | None:
        return row.previous_tier or None


class RiskExplanationResponse(serializers.Serializer):
    entity_id = serializers.UUIDField()
    risk_score = serializers.IntegerField(allow_null=True)
    risk_tier = serializers.CharField(allow_null=True)
    narrative = serializers.CharField()
    generated_by = ChoiceField(choices=["deterministic", "llm"])
    model = serializers.CharField(allow_null=True)
    fallback_reason = serializers.CharField(allow_null=True, help_text="Why the configured model was not used, when it was not.")
    factors = RiskFactorResponse(many=True)


class Spread(serializers.Serializer):
    entity = serializers.FloatField(allow_null=True)
    peer_mean = serializers.FloatField(allow_null=True)
    peer_median = serializers.FloatField(allow_null=True)
    percentile = serializers.IntegerField(allow_null=True, help_text="Share of peers below the entity, 0-100.")


class PeerCriteria(serializers.Serializer):
    entity_type = serializers.CharField()
    industry = serializers.CharField()
    jurisdiction = serializers.CharField()


class PeerGroupResponse(serializers.Serializer):
    entity_id = serializers.UUIDField()
    criteria = PeerCriteria()
    peer_count = serializers.IntegerField()
    risk_score = Spread()
    risk_tiers = serializers.DictField(child=serializers.IntegerField())
    window_days = serializers.IntegerField()
    volume_usd = Spread(allow_null=True, help_text="30-day volume in USD; null until monitoring has data.")
    transaction_count = Spread(allow_null=True, help_text="30-day transaction count; null until monitoring has data.")


class RelationReason(serializers.Serializer):
    type = ChoiceField(choices=["shared_ubo", "shared_tax_id", "shared_counterparties", "jurisdiction_cluster"])
    detail = serializers.CharField()


class RelatedEntityResponse(serializers.Serializer):
    entity_id = serializers.UUIDField()
    legal_name = serializers.CharField()
    entity_type = serializers.CharField()
    jurisdiction = serializers.CharField()
    status = serializers.CharField()
    risk_tier = serializers.CharField(allow_null=True)
    reasons = RelationReason(many=True)


class ActivityItemResponse(serializers.Serializer):
    at = serializers.DateTimeField()
    type = serializers.CharField()
    summary = serializers.CharField()
    data = serializers.DictField()


class AuditLogResponse(serializers.Serializer):
    id = serializers.IntegerField()
    action = serializers.CharField()
    actor_type = serializers.CharField()
    actor = serializers.CharField(source="actor_label")
    before = serializers.JSONField(help_text="Any JSON value; null when there was nothing before.")
    after = serializers.JSONField(help_text="Any JSON value; null when nothing is left after.")
    request_id = serializers.CharField()
    created_at = serializers.DateTimeField()


class SearchQuery(serializers.Serializer):
    q = serializers.CharField(min_length=2, max_length=200, trim_whitespace=True)


class SearchResultResponse(serializers.Serializer):
    type = serializers.CharField()
    id = serializers.CharField()
    title = serializers.CharField()
    subtitle = serializers.CharField()
    status = serializers.CharField(allow_null=True)
    matched = serializers.ListField(child=serializers.CharField())


class SearchResponse(serializers.Serializer):
    query = serializers.CharField()
    types = serializers.ListField(child=serializers.CharField(), help_text="The types searched (entities now; alerts, cases "
                                                                          "and transfers when their apps register).")
    results = SearchResultResponse(many=True)


class ReportQuery(PeriodQuery):
    pass
