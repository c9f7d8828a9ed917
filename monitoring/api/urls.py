from django.urls import path

from monitoring.api.alert_views import OrgAlertsView
from monitoring.api.backtest_views import BacktestJobView, RuleBacktestView
from monitoring.api.fincen314a_views import Files314aView, Matches314aView, Review314aView, Upload314aView
from monitoring.api.fincen314b_views import Partner314bVerifyView, Partners314bView, Request314bRespondView, Requests314bView
from monitoring.api.ingest_views import FiatEventIngestView, TransferBatchView, TransferIngestView
from monitoring.api.label_views import LabelsView
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
    path("backtests/<uuid:job_id>", BacktestJobView.as_view()),
    path("labels", LabelsView.as_view()),
    path("alerts", OrgAlertsView.as_view()),
    path("314a/upload", Upload314aView.as_view()),
    path("314a/files", Files314aView.as_view()),
    path("314a/files/<uuid:file_id>/matches", Matches314aView.as_view()),
    path("314a/matches/<uuid:match_id>/review", Review314aView.as_view()),
    path("314b/partners", Partners314bView.as_view()),
    path("314b/partners/<uuid:partner_id>/verify", Partner314bVerifyView.as_view()),
    path("314b/requests", Requests314bView.as_view()),
    path("314b/requests/<uuid:request_id>/respond", Request314bRespondView.as_view()),
]
