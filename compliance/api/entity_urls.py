"""Compliance's operation under /v1/onboarding/entities/{entity_id}/ (its published path)."""

from django.urls import path

from compliance.api.transfer_views import EntityTravelRuleView

urlpatterns = [
    path("entities/<uuid:entity_id>/transfers/<str:tx_hash>/travel-rule", EntityTravelRuleView.as_view()),
]
