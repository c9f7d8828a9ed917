from rest_framework import serializers

from common.api.fields import ChoiceField, MultiLineTextField, OptionalChoiceField, PeriodQuery
from common.api.serializers import StrictSerializer
from common.chain import MAX_CHAIN_ID
from monitoring.alerts.services import NOTES_REQUIRED
from monitoring.choices import AlertStatus, CardType, CheckType, DepositMethod, Disposition, FiatEventType, Severity
from monitoring.models import Alert, FiatEvent, Transaction
from monitoring.rules.registry import get_rule


class AlertListQuery(serializers.Serializer):
    severity = ChoiceField(choices=Severity.choices, required=False)
    status = ChoiceField(choices=AlertStatus.choices, required=False)


class OrgAlertListQuery(AlertListQuery, PeriodQuery):
    rule = serializers.CharField(required=False, max_length=60, help_text="A rule code or number.")
    disposition = ChoiceField(choices=[*Disposition.values, "none"], required=False,
                              help_text="A disposition, or none for alerts not disposed yet.")

    def validate_rule(self, value):
        try:
            return get_rule(int(value) if value.isdigit() else value).code
        except (KeyError, ValueError):
            raise serializers.ValidationError(f"No rule {value!r}: use a number or a rule code.") from None


class CustomerAlertResponse(serializers.ModelSerializer):
    """What a client sees of an alert: no rule parameters, no scores (docs/rules.md, "The catalogue": evidence)."""

    rule_id = serializers.CharField(source="rule_number")
    transaction_count = serializers.IntegerField(help_text="How many transfers the alert involves.")
    case_id = serializers.UUIDField(source="case_link.case_id", default=None, allow_null=True,
                                    help_text="The investigation case the alert belongs to.")
    disposition = OptionalChoiceField(choices=Disposition.choices, help_text="null until the alert is disposed.")
    orphaned = serializers.BooleanField(
        read_only=True, help_text="true when a transfer of the alert was in a block a chain reorganisation orphaned "
                                  "(docs/indexer.md): the transfer is kept, marked orphaned, and out of every rule's history; "
                                  "the alert stays for an investigator.")

    class Meta:
        model = Alert
        fields = ["id", "entity_id", "case_id", "rule_id", "rule_code", "rule_name", "severity", "status", "description", "hit_count",
                  "transaction_count", "orphaned", "first_triggered_at", "last_triggered_at", "sla_due_at", "disposition", "disposed_at",
                  "created_at"]
        read_only_fields = fields


class CustomerAlertDetailResponse(CustomerAlertResponse):
    measured = serializers.SerializerMethodField(help_text="The values that crossed the rule's thresholds, per hit.")
    transaction_ids = serializers.SerializerMethodField()
    fiat_event_ids = serializers.SerializerMethodField()
    disposition_notes = serializers.CharField()
    disposed_by = serializers.CharField(source="disposed_by_label")

    class Meta(CustomerAlertResponse.Meta):
        fields = [*CustomerAlertResponse.Meta.fields, "disposition_notes", "disposed_by", "measured", "transaction_ids",
                  "fiat_event_ids"]
        read_only_fields = fields

    def get_measured(self, alert) -> list[dict]:
        return [{"triggered_at": hit.triggered_at, "event_id": str(hit.event_id), "values": hit.evidence.get("measured", {})}
                for hit in alert.hits.all()]

    def get_transaction_ids(self, alert) -> list[str]:
        return [str(tx.pk) for tx in alert.transactions.all()]

    def get_fiat_event_ids(self, alert) -> list[str]:
        return [str(event.pk) for event in alert.fiat_events.all()]


class AlertDispositionCreate(StrictSerializer):
    disposition = ChoiceField(choices=Disposition.choices)
    notes = MultiLineTextField(max_length=10_000, help_text="Required: why (what was reviewed, what it showed).",
                               error_messages={"required": NOTES_REQUIRED, "blank": NOTES_REQUIRED})


class AlertDispositionResponse(serializers.ModelSerializer):
    alert_id = serializers.UUIDField(source="id")
    disposed_by = serializers.CharField(source="disposed_by_label")
    notes = serializers.CharField(source="disposition_notes")

    class Meta:
        model = Alert
        fields = ["alert_id", "status", "disposition", "notes", "disposed_by", "disposed_at"]
        read_only_fields = fields


class TriageResponse(serializers.Serializer):
    alert_id = serializers.UUIDField()
    recommendation = ChoiceField(choices=["escalate", "review", "likely_false_positive"])
    priority_score = serializers.FloatField()
    reasons = serializers.ListField(child=serializers.CharField())
    generator = serializers.CharField()


class TransferListQuery(PeriodQuery):
    chain_id = serializers.IntegerField(min_value=0, max_value=MAX_CHAIN_ID, required=False)


class CustomerTransferResponse(serializers.ModelSerializer):
    direction = serializers.SerializerMethodField()
    orphaned = serializers.BooleanField(
        read_only=True, help_text="true when the chain indexer saw the transfer in a block a reorganisation later orphaned "
                                  "(docs/indexer.md): kept for audit, out of every rule's history and of reports.")

    class Meta:
        model = Transaction
        fields = ["id", "chain_id", "tx_hash", "log_index", "from_address", "to_address", "amount", "asset", "usd_value",
                  "timestamp", "reference", "direction", "monitored", "orphaned", "created_at"]
        read_only_fields = fields

    def get_direction(self, tx) -> str:
        entity_id = str(self.context["entity_id"])
        sides = tx.indexed if tx.orphaned else tx  # an orphan's customers are kept on its IndexedTransfer row
        sender, receiver = str(sides.from_entity_id) == entity_id, str(sides.to_entity_id) == entity_id
        return "self" if sender and receiver else "out" if sender else "in"


class EvaluatedDetail(serializers.Serializer):
    """What a transfer's or fiat event's detail adds to its list row: the rules skipped and the alerts."""

    alerts = CustomerAlertResponse(many=True)
    evaluation = serializers.SerializerMethodField(
        help_text='{"skipped": [{"rule", "entity_id", "reason"}]}: the rules skipped for it and why (e.g. no USD price); empty when '
                  'none. With rules in shadow mode, "shadow": [{"rule", "entity_id", "measured"}], what they would have raised.')
    FIELDS = ("evaluation", "alerts")

    def get_evaluation(self, record) -> dict:
        return record.evaluation or {"skipped": []}


class CustomerTransferDetailResponse(EvaluatedDetail, CustomerTransferResponse):
    class Meta(CustomerTransferResponse.Meta):
        fields = read_only_fields = [*CustomerTransferResponse.Meta.fields, *EvaluatedDetail.FIELDS]


class FiatEventListQuery(PeriodQuery):
    event_type = ChoiceField(choices=FiatEventType.choices, required=False)


class CustomerFiatEventResponse(serializers.ModelSerializer):
    """A fiat event as it was sent (`event_timestamp` is the event's time); optional fields not sent are null."""

    event_timestamp = serializers.DateTimeField(source="timestamp")
    card_type = OptionalChoiceField(choices=CardType.choices)
    check_type = OptionalChoiceField(choices=CheckType.choices)
    deposit_method = OptionalChoiceField(choices=DepositMethod.choices)
    merchant_category_code = serializers.SerializerMethodField()
    merchant_country = serializers.SerializerMethodField()
    check_number = serializers.SerializerMethodField()

    class Meta:
        model = FiatEvent
        fields = ["id", "entity_id", "event_type", "amount", "currency", "usd_value", "event_timestamp", "counterparty_name",
                  "counterparty_bank", "reference", "card_type", "merchant_category_code", "merchant_country", "check_type",
                  "check_number", "deposit_method", "monitored", "created_at"]
        read_only_fields = fields

    def get_merchant_category_code(self, event) -> str | None:
        return event.merchant_category_code or None

    def get_merchant_country(self, event) -> str | None:
        return event.merchant_country or None

    def get_check_number(self, event) -> str | None:
        return event.check_number or None


class CustomerFiatEventDetailResponse(EvaluatedDetail, CustomerFiatEventResponse):
    class Meta(CustomerFiatEventResponse.Meta):
        fields = read_only_fields = [*CustomerFiatEventResponse.Meta.fields, *EvaluatedDetail.FIELDS]
