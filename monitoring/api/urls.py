from django.urls import path

from monitoring.api.backtest_views import RuleBacktestView
from monitoring.api.ingest_views import FiatEventIngestView, TransferBatchView, TransferIngestView
from monitoring.api.notification_views import NotificationReadView, NotificationsView
from monitoring.api.rules_views import RulesView, RuleView

urlpatterns = [
    path("transfers", TransferIngestView.as_view()),
    path("transfers/batch", TransferBatchView.as_view()),
    path("fiat-events", FiatEventIngestView.as_view()),
    path("notifications", NotificationsView.as_view()),
    path("notifications/<uuid:notification_id>/read", NotificationReadView.as_view()),
    path("rules", RulesView.as_view()),
    path("rules/<str:rule_id>", RuleView.as_view()),
    path("rules/<str:rule_id>/backtest", RuleBacktestView.as_view()),
]
