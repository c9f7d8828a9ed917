"""Shapes of compliance checks, screening hits, adverse media and external screening results."""

from rest_framework import serializers

from common.api.fields import ChoiceField, MultiLineTextField, StrictBooleanField
from common.api.serializers import StrictSerializer
from onboarding.api.serializers import without_nul
from onboarding.choices import CheckResult, CheckType, HitStatus
from onboarding.models import ComplianceCheck, ScreeningHit
from onboarding.sanctions.registry import list_name

# The results an external screening reports (docs/onboarding.md) (`not_configured` is ours, for provider checks).
EXTERNAL_RESULTS = [("pass", "pass"), ("fail", "fail"), ("review", "review"), ("error", "error")]


class CheckListQuery(serializers.Serializer):
    check_type = ChoiceField(choices=CheckType.choices, required=False)
    result = ChoiceField(choices=CheckResult.choices, required=False)


class ComplianceCheckResponse(serializers.ModelSerializer):
    entity_id = serializers.UUIDField()

    class Meta:
        model = ComplianceCheck
        fields = ["id", "entity_id", "check_type", "result", "provider", "external", "counts_toward_status", "score", "summary",
                  "requested_by", "created_at"]
        read_only_fields = fields


class ComplianceCheckDetailResponse(ComplianceCheckResponse):
    class Meta(ComplianceCheckResponse.Meta):
        fields = [*ComplianceCheckResponse.Meta.fields, "details", "raw_response"]
        read_only_fields = fields


class FalsePositiveResponse(serializers.Serializer):
    id = serializers.UUIDField()
    reason = serializers.CharField()
    decided_by = serializers.CharField()
    decided_at = serializers.DateTimeField(source="created_at")
    entry_version_hash = serializers.CharField()


class ScreeningHitResponse(serializers.ModelSerializer):
    check_id = serializers.UUIDField(source="check_run_id")
    check_type = ChoiceField(choices=[CheckType.SANCTIONS, CheckType.PEP], source="check_run.check_type",
                             help_text="sanctions, or pep for a match on a list of politically exposed persons.")
    entity_id = serializers.UUIDField()
    ubo_id = serializers.UUIDField(allow_null=True)
    wallet_id = serializers.UUIDField(allow_null=True)
    source = serializers.CharField(help_text="The list: ofac_sdn, un_consolidated, us_csl, os_<dataset>, ...")
    list_name = serializers.SerializerMethodField(help_text="The list's name, e.g. OFAC Specially Designated Nationals (SDN).")
    entry_uid = serializers.CharField(help_text="The entry's id on its list, as its publisher gives it (OFAC ent_num, UN DATAID, ...).")
    false_positive = FalsePositiveResponse(allow_null=True)

    class Meta:
        model = ScreeningHit
        fields = ["id", "check_id", "check_type", "entity_id", "subject_type", "subject_value", "ubo_id", "wallet_id", "source",
                  "list_name", "entry_uid", "entry_version_hash", "primary_name", "matched_name", "score", "outcome", "method", "status",
                  "active", "false_positive", "explanation", "created_at"]
        read_only_fields = fields

    def get_list_name(self, hit) -> str:
        return list_name(hit.source)


class HitListQuery(serializers.Serializer):
    status = ChoiceField(choices=HitStatus.choices, required=False)
    include_inactive = serializers.BooleanField(required=False, default=False,
                                                help_text="Also hits superseded by a later screening of the same subject.")


class FalsePositiveRequest(StrictSerializer):
    reason = MultiLineTextField(max_length=1000, help_text="Why this listed entry is not this entity (required).")


class AdverseMediaArticle(serializers.Serializer):
    title = serializers.CharField(required=False)
    url = serializers.CharField(required=False)
    source = serializers.CharField(required=False)
    published_at = serializers.CharField(required=False)
    snippet = serializers.CharField(required=False)
    categories = serializers.ListField(child=serializers.CharField(), required=False)
    score = serializers.FloatField(required=False)
    subject = serializers.CharField(help_text="entity, or ubo:<id>")


class AdverseMediaResponse(serializers.Serializer):
    entity_id = serializers.UUIDField()
    status = ChoiceField(choices=["not_screened", "not_configured", "clear", "found", "error"])
    check_id = serializers.UUIDField(allow_null=True)
    checked_at = serializers.DateTimeField(allow_null=True)
    provider = serializers.CharField(allow_null=True)
    summary = serializers.CharField(allow_null=True)
    article_count = serializers.IntegerField()
    articles = AdverseMediaArticle(many=True)


class ExternalScreeningRequest(StrictSerializer):
    entity_id = serializers.UUIDField()
    check_type = ChoiceField(choices=CheckType.choices)
    provider = serializers.CharField(max_length=100)
    result = ChoiceField(choices=EXTERNAL_RESULTS)
    score = serializers.FloatField(required=False, allow_null=True, min_value=0.0, max_value=1.0)
    details = serializers.DictField(required=False, default=dict, validators=[without_nul])
    update_compliance_status = StrictBooleanField(required=False, default=False)


class ExternalScreeningResponse(serializers.Serializer):
    id = serializers.UUIDField()
    entity_id = serializers.UUIDField()
    check_type = serializers.CharField()
    result = serializers.CharField()
    compliance_status_updated = serializers.BooleanField()
