from django.urls import path

from monitoring.api.notification_views import NotificationReadView, NotificationsView

urlpatterns = [
    path("notifications", NotificationsView.as_view()),
    path("notifications/<uuid:notification_id>/read", NotificationReadView.as_view()),
]
