"""Monitoring's operations under /v1/onboarding/entities/{entity_id}/ (their published paths)."""

from django.urls import path

from monitoring.api import alert_views as views
from monitoring.api.graph_views import CounterpartyGraphView

urlpatterns = [
    path("entities/<uuid:entity_id>/alerts", views.EntityAlertsView.as_view()),
    path("entities/<uuid:entity_id>/alerts/<uuid:alert_id>", views.EntityAlertView.as_view()),
    path("entities/<uuid:entity_id>/alerts/<uuid:alert_id>/disposition", views.AlertDispositionView.as_view()),
    path("entities/<uuid:entity_id>/alerts/<uuid:alert_id>/ai-triage", views.AlertTriageView.as_view()),
    path("entities/<uuid:entity_id>/transfers", views.EntityTransfersView.as_view()),
    path("entities/<uuid:entity_id>/transfers/<uuid:transfer_id>", views.EntityTransferView.as_view()),
    path("entities/<uuid:entity_id>/fiat-events", views.EntityFiatEventsView.as_view()),
    path("entities/<uuid:entity_id>/fiat-events/<uuid:event_id>", views.EntityFiatEventView.as_view()),
    path("entities/<uuid:entity_id>/counterparty-graph", CounterpartyGraphView.as_view()),
]
