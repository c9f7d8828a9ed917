"""GET /v1/monitoring/notifications and POST .../{id}/read: the polling alternative to webhooks."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from common.api.pagination import page_parameters
from common.api.serializers import validated_query
from common.api.views import V1APIView
from monitoring.api import notification_serializers as s
from monitoring.notifications import selectors, services

TAGS = ["monitoring"]


class NotificationsView(V1APIView):
    @extend_schema(operation_id="notifications_list", tags=TAGS, responses={200: s.NotificationListResponse}, parameters=[
        OpenApiParameter("unread_only", bool, default=False),
        *page_parameters(),
    ])
    def get(self, request):
        query = validated_query(s.NotificationQuery, request)
        scope = {"organization": request.auth.organization, "mode": request.auth.mode, "role": request.auth.role}
        notifications = selectors.notifications_of(**scope, unread_only=query["unread_only"])
        page = notifications[query["offset"]:query["offset"] + query["limit"]]
        return Response({
            "notifications": s.NotificationResponse(page, many=True).data,
            "unread_count": selectors.unread_count(**scope),
        })


class NotificationReadView(V1APIView):
    @extend_schema(operation_id="notifications_read", tags=TAGS, request=None, responses={200: s.NotificationResponse})
    def post(self, request, notification_id):
        notification = services.notification_mark_read(principal=request.auth, notification_id=notification_id)
        return Response(s.NotificationResponse(notification).data)
