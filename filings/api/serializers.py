"""Shapes of the case and filing operations (docs/cases.md). Serializers only shape data."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api.fields import ChoiceField, MultiLineTextField, StrictBooleanField
from common.api.serializers import StrictSerializer
from filings import deadlines
from filings.choices import CaseStatus, FilingStatus
from filings.models import Case, CaseEvent, FilingRecord
from monitoring.api.alert_serializers import CustomerAlertResponse, CustomerTransferResponse
from monitoring.models import FiatEvent

# --- Requests ----------------------------------------------------------------------------------


class CaseListQuery(serializers.Serializer):
    status = ChoiceField(choices=CaseStatus.choices, required=False)


class CaseAssignRequest(StrictSerializer):
    assignee_id = serializers.UUIDField(help_text="A member of the organization, l2_investigator or above.")


class CaseStatusRequest(StrictSerializer):
    status = ChoiceField(choices=CaseStatus.choices)
    reason = MultiLineTextField(max_length=4000, required=False, allow_blank=True, default="",
                                help_text="Required when closing or reopening: it documents the decision.")


class CaseCommentRequest(StrictSerializer):
    body = MultiLineTextField(max_length=10_000)


class AlertQuery(serializers.Serializer):
    alert_id = serializers.UUIDField(required=False)


class DraftQuery(serializers.Serializer):
    refresh = serializers.BooleanField(required=False, default=False,
                                       help_text="true: a fresh prefill, ignoring the stored draft.")


# --- Responses ---------------------------------------------------------------------------------


class DeadlineResponse(serializers.Serializer):
    detected_at = serializers.DateTimeField()
    report_due_at = serializers.DateTimeField(allow_null=True)
    days_remaining = serializers.IntegerField(allow_null=True)
    overdue = serializers.BooleanField()
    basis = serializers.CharField()


def deadline_of(case: Case) -> dict:
    now = timezone.now()
    continuing = case.last_filed_at and case.report_due_at == deadlines.continuing_report_due_at(case.last_filed_at)
    basis = (f"continuing activity: {deadlines.CONTINUING_REPORT_DAYS} days from the last filing" if continuing
             else f"{deadlines.REGULATION}: {deadlines.SAR_FILING_DAYS} days from initial detection")
    return {"detected_at": case.detected_at, "report_due_at": case.report_due_at,
            "days_remaining": deadlines.days_remaining(case.report_due_at, now),
            "overdue": bool(not case.is_closed and case.report_due_at and case.report_due_at < now), "basis": basis}


class CoveredAlertResponse(serializers.Serializer):
    alert_id = serializers.UUIDField()
    rule = serializers.CharField()
    rule_code = serializers.CharField()
    status = serializers.CharField(help_text="The alert's status: open, in_review or closed.")
    disposition = serializers.CharField(allow_null=True)
    transactions = serializers.IntegerField(allow_null=True, help_text="Its on-chain transactions.")
    reason = serializers.CharField(help_text="Why the report covers it or leaves it out.")
    selected_by_investigator = serializers.BooleanField(help_text="Whether this is the investigator's choice rather than the default.")


class CoverageResponse(serializers.Serializer):
    included = CoveredAlertResponse(many=True, help_text="The alerts the report covers: their transactions are its transactions.")
    excluded = CoveredAlertResponse(many=True, help_text="The case's alerts left out, and why.")


class FiledSelectionResponse(CoverageResponse):
    choices = serializers.DictField(child=serializers.BooleanField(), help_text="The investigator's choices: alert id → included.")


class SarSelectionRequest(StrictSerializer):
    include = serializers.ListField(child=serializers.UUIDField(), required=False, default=list, max_length=1000,
                                    help_text="Alert ids of the case to cover (e.g. an alert still open).")
    exclude = serializers.ListField(child=serializers.UUIDField(), required=False, default=list, max_length=1000,
                                    help_text="Alert ids of the case to leave out.")
    reset = StrictBooleanField(required=False, default=False, help_text="Drop the earlier choices first (back to the default).")


class FilingRecordResponse(serializers.ModelSerializer):
    bsa_id = serializers.SerializerMethodField(help_text="The regulator's acknowledgement id; null until recorded.")
    filed_by = serializers.CharField(source="filed_by_label")
    prepared_by = serializers.CharField(source="prepared_by_label")
    attachment_names = serializers.SerializerMethodField()
    document_url = serializers.SerializerMethodField()
    selection = serializers.SerializerMethodField(help_text="What a case's report covers, as filed (null for a CTR or an older record).")
    four_eyes_required = serializers.BooleanField(allow_null=True, help_text=(
        "Whether four-eyes filing applied: the filer could not be the preparer (null for an older record)."))
    four_eyes_setting = serializers.CharField(help_text="The organization's four_eyes_filing when filed: default, on or off.")

    class Meta:
        model = FilingRecord
        fields = ["id", "kind", "family", "jurisdiction", "entity_id", "case_id", "alert_id", "tracking_id", "bsa_id",
                  "report_reference", "amendment_type", "prior_report_id", "amount", "currency", "activity_start_date",
                  "activity_end_date", "filing_date", "filed_at", "filed_by", "prepared_by", "four_eyes_required", "four_eyes_setting",
                  "selection", "content_type", "filename", "document_sha256", "attachment_names", "document_url", "warnings"]
        read_only_fields = fields

    def get_bsa_id(self, record) -> str | None:
        return record.bsa_id or None

    @extend_schema_field(FiledSelectionResponse(allow_null=True))
    def get_selection(self, record) -> dict | None:
        return record.selection or None

    def get_attachment_names(self, record) -> list[str]:
        return sorted(record.attachments or {}) if "attachments" not in record.get_deferred_fields() else []

    def get_document_url(self, record) -> str:
        return f"/v1/onboarding/entities/{record.entity_id}/filings/{record.pk}/document"


class CustomerCaseResponse(serializers.ModelSerializer):
    reference = serializers.CharField(help_text="CASE-000123: sequential per organization and mode.")
    assigned_to = serializers.UUIDField(source="assigned_to_id", allow_null=True)
    assigned_to_email = serializers.EmailField(source="assigned_to.email", allow_null=True, default=None)
    alert_count = serializers.IntegerField(default=None)
    allowed_transitions = serializers.SerializerMethodField(help_text="The statuses this case can move to now.")
    deadline = serializers.SerializerMethodField()
    sla_breached = serializers.SerializerMethodField()
    merged_into = serializers.UUIDField(source="merged_into_id", allow_null=True)
    filing_status = ChoiceField(choices=FilingStatus.choices, allow_null=True, help_text=(
        "Where the case's report stands; null for a reader below l2_investigator (the existence of a SAR is confidential)."))

    class Meta:
        model = Case
        fields = ["id", "reference", "entity_id", "title", "status", "priority", "origin", "allowed_transitions", "assigned_to",
                  "assigned_to_email", "assigned_at", "alert_count", "filing_status", "deadline", "sla_due_at", "sla_breached",
                  "closed_at", "merged_into", "created_at", "updated_at"]
        read_only_fields = fields

    def to_representation(self, case):
        data = super().to_representation(case)
        if not self.context.get("filings_visible", True):
            data["filing_status"] = None
        return data

    def get_allowed_transitions(self, case) -> list[str]:
        return list(CaseStatus.targets(case.status))

    def get_deadline(self, case) -> DeadlineResponse:
        return DeadlineResponse(deadline_of(case)).data

    def get_sla_breached(self, case) -> bool:
        return not case.is_closed and case.sla_due_at < timezone.now()


class CaseEventResponse(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor_label")
    actor_id = serializers.UUIDField(allow_null=True)

    class Meta:
        model = CaseEvent
        fields = ["id", "case_id", "kind", "actor", "actor_id", "body", "data", "created_at"]
        read_only_fields = fields


class FiatEventSummary(serializers.ModelSerializer):
    class Meta:
        model = FiatEvent
        fields = ["id", "event_type", "amount", "currency", "usd_value", "timestamp", "counterparty_name", "counterparty_bank",
                  "reference", "merchant_country"]
        read_only_fields = fields


class CustomerCaseDetailResponse(CustomerCaseResponse):
    alerts = serializers.SerializerMethodField()
    transactions = serializers.SerializerMethodField()
    fiat_events = serializers.SerializerMethodField()
    transaction_count = serializers.SerializerMethodField()
    fiat_event_count = serializers.SerializerMethodField()
    events = CaseEventResponse(many=True)
    filings = FilingRecordResponse(many=True)

    class Meta(CustomerCaseResponse.Meta):
        fields = [*CustomerCaseResponse.Meta.fields, "alerts", "transaction_count", "transactions", "fiat_event_count",
                  "fiat_events", "events", "filings"]
        read_only_fields = fields

    def _parts(self):
        return self.context["parts"]

    def get_alerts(self, case) -> CustomerAlertResponse(many=True):
        return CustomerAlertResponse(self._parts()["alerts"], many=True).data

    def get_transactions(self, case) -> CustomerTransferResponse(many=True):
        return CustomerTransferResponse(self._parts()["transactions"], many=True, context={"entity_id": case.entity_id}).data

    def get_fiat_events(self, case) -> FiatEventSummary(many=True):
        return FiatEventSummary(self._parts()["fiat_events"], many=True).data

    def get_transaction_count(self, case) -> int:
        return self._parts()["transaction_count"]

    def get_fiat_event_count(self, case) -> int:
        return self._parts()["fiat_event_count"]


class ValidationIssueResponse(serializers.Serializer):
    path = serializers.CharField(help_text="Form-data path (subjects.0.family_name) or the document's path (schema issues).")
    line = serializers.IntegerField(allow_null=True, help_text="Line of the XML document; null for JSON and form issues.")
    message = serializers.CharField()
    severity = ChoiceField(choices=["error", "warning"])
    source = ChoiceField(choices=["form", "render", "schema", "business"])


class ValidationResponse(serializers.Serializer):
    valid = serializers.BooleanField()
    errors = ValidationIssueResponse(many=True)
    warnings = ValidationIssueResponse(many=True)


class ReportDraftResponse(serializers.Serializer):
    entity_id = serializers.UUIDField()
    case_id = serializers.UUIDField(allow_null=True)
    alert_id = serializers.UUIDField(allow_null=True)
    kind = serializers.CharField()
    jurisdiction = serializers.CharField()
    regulator = serializers.CharField()
    content_type = serializers.CharField()
    source = ChoiceField(choices=["stored", "prefilled"])
    prepared_by = serializers.CharField(allow_null=True)
    prepared_at = serializers.DateTimeField(allow_null=True)
    validated_at = serializers.DateTimeField(allow_null=True)
    valid = serializers.BooleanField(allow_null=True)
    deadline = DeadlineResponse(allow_null=True)
    coverage = CoverageResponse(allow_null=True, help_text=(
        "A case's report: the alerts it covers and those left out, each with its reason; change it with sar-selection."))
    form = serializers.JSONField(help_text="The form data (docs/filings.md): edit it and send it to *-xml, *-validate, file-*.")


class GeneratedTextResponse(serializers.Serializer):
    case_id = serializers.UUIDField()
    generator = serializers.CharField(help_text="deterministic | llm: what wrote the text.")
    model = serializers.CharField(allow_null=True)
    fallback_reason = serializers.CharField(allow_null=True)
    facts = serializers.JSONField(help_text="Everything the text may use: who, what, when, where, why, how.")


class SummaryResponse(GeneratedTextResponse):
    summary = serializers.CharField()


class NarrativeResponse(GeneratedTextResponse):
    narrative = serializers.CharField(help_text="Paste it into the draft's activity.narrative after review.")


class FiledCaseResponse(CustomerCaseResponse):
    filing = FilingRecordResponse(help_text="The filing record just stored.")

    class Meta(CustomerCaseResponse.Meta):
        fields = [*CustomerCaseResponse.Meta.fields, "filing"]
        read_only_fields = fields
