from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import SimpleRouter

from common import health
from common.api.fallback import UnknownRouteView
from onboarding.api.check_views import ExternalScreeningView
from organizations.api.views import ApiKeyViewSet, OrganizationsView, WhoAmIView
from webhooks.api.urls import inbound_urlpatterns
from webhooks.api.views import WebhookEndpointViewSet

developer = SimpleRouter(trailing_slash=False)
developer.register("api-keys", ApiKeyViewSet, basename="api-key")
developer.register("webhook-endpoints", WebhookEndpointViewSet, basename="webhook-endpoint")

v1 = [
    path("openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("docs", SpectacularSwaggerView.as_view(url_name="openapi"), name="docs"),
    path("redoc", SpectacularRedocView.as_view(url_name="openapi"), name="redoc"),
    path("auth/", include("accounts.api.urls")),
    path("sso/", include("accounts.api.sso_urls")),
    path("organizations", OrganizationsView.as_view()),
    path("organizations/", include("organizations.api.urls")),
    path("developer/whoami", WhoAmIView.as_view()),
    path("developer/", include(developer.urls)),
    path("compliance/", include("compliance.api.urls")),  # early: the most frequent calls
    path("onboarding/", include("onboarding.api.urls")),
    path("onboarding/", include("monitoring.api.entity_urls")),
    path("onboarding/", include("filings.api.urls")),
    path("onboarding/", include("compliance.api.entity_urls")),
    path("monitoring/screening", ExternalScreeningView.as_view(), name="monitoring-screening"),
    path("monitoring/", include("monitoring.api.urls")),
    path("webhooks/", include(inbound_urlpatterns)),
    path("travel-rule/", include("compliance.api.vasp_urls")),
]

urlpatterns = [
    path("", RedirectView.as_view(url="/v1/docs"), name="root"),  # a browser at the bare address finds the API's pages
    path("health", health.health, name="health"),
    path("health/live", health.live, name="health-live"),
    path("v1/", include(v1)),
    re_path(r"^v1(/.*)?$", UnknownRouteView.as_view()),
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
]
