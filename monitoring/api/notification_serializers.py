from rest_framework import serializers

from common.api.pagination import MAX_OFFSET
from common.api.serializers import StrictSerializer
from monitoring.models import Notification


class NotificationQuery(StrictSerializer):
    unread_only = serializers.BooleanField(required=False, default=False)
    limit = serializers.IntegerField(required=False, default=20, min_value=1, max_value=100)
    offset = serializers.IntegerField(required=False, default=0, min_value=0, max_value=MAX_OFFSET)


class NotificationResponse(serializers.ModelSerializer):
    id = serializers.CharField()

    class Meta:
        model = Notification
        fields = ["id", "type", "title", "body", "read", "entity_id", "alert_id", "case_id", "created_at", "read_at"]
        read_only_fields = fields


class NotificationListResponse(serializers.Serializer):
    notifications = NotificationResponse(many=True)
    unread_count = serializers.IntegerField()
