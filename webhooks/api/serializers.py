from rest_framework import serializers

from common.api.fields import ChoiceField, StrictBooleanField
from common.api.serializers import StrictSerializer
from common.confidentiality import visible_event_types
from webhooks.models import Delivery, DeliveryAttempt, DeliveryStatus, WebhookEndpoint

EVENT_TYPES_HELP = "Event type names of the catalogue (docs/webhooks.md), for example alert.created."


class EndpointCreateRequest(StrictSerializer):
    url = serializers.CharField(max_length=2048, help_text="HTTPS URL of your receiver.")
    event_types = serializers.ListField(child=serializers.CharField(max_length=60), max_length=50, help_text=EVENT_TYPES_HELP)
    description = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    enabled = StrictBooleanField(required=False, default=True)


class EndpointUpdateRequest(StrictSerializer):
    url = serializers.CharField(max_length=2048, required=False)
    event_types = serializers.ListField(child=serializers.CharField(max_length=60), max_length=50, required=False,
                                        help_text=EVENT_TYPES_HELP)
    description = serializers.CharField(max_length=200, required=False, allow_blank=True)
    enabled = StrictBooleanField(required=False)


class EndpointResponse(serializers.ModelSerializer):
    class Meta:
        model = WebhookEndpoint
        fields = ["id", "url", "description", "event_types", "enabled", "mode", "created_at", "updated_at",
                  "secret_rotated_at"]
        read_only_fields = fields
        extra_kwargs = {"event_types": {"help_text": "The subscribed event types; below l2_investigator without sar.filed "
                                                     "(SAR confidentiality, docs/cases.md)."}}

    def to_representation(self, endpoint):
        data = super().to_representation(endpoint)
        request = self.context.get("request")  # the reads; the writes answer an admin
        if request is not None:
            data["event_types"] = visible_event_types(data["event_types"], request.auth)
        return data


class EndpointWithSecretResponse(EndpointResponse):
    signing_secret = serializers.CharField(help_text="Verifies our signatures. Shown once: store it now.")

    class Meta(EndpointResponse.Meta):
        fields = [*EndpointResponse.Meta.fields, "signing_secret"]
        read_only_fields = fields


class AttemptResponse(serializers.ModelSerializer):
    class Meta:
        model = DeliveryAttempt
        fields = ["number", "at", "finished_at", "status_code", "error", "duration_ms"]
        read_only_fields = fields


class DeliveryResponse(serializers.ModelSerializer):
    event_id = serializers.CharField(source="event.public_id")
    event_type = serializers.CharField(source="event.type")
    endpoint_id = serializers.UUIDField()
    attempt_history = AttemptResponse(source="attempt_log", many=True)

    class Meta:
        model = Delivery
        fields = ["id", "endpoint_id", "event_id", "event_type", "status", "attempts", "next_attempt_at", "last_status",
                  "last_error", "delivered_at", "created_at", "attempt_history"]
        read_only_fields = fields


class DeliveryPageResponse(serializers.Serializer):
    data = DeliveryResponse(many=True)
    total = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()
    has_more = serializers.BooleanField()


class DeliveryQuery(serializers.Serializer):
    status = ChoiceField(choices=DeliveryStatus.choices, required=False)
