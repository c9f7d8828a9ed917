from django.urls import path
from rest_framework.routers import SimpleRouter

from onboarding.api.check_views import EntityChecksViewSet
from onboarding.api.insight_views import EntityInsightsViewSet, SearchView
from onboarding.api.views import EntityViewSet

router = SimpleRouter(trailing_slash=False)
router.register("entities", EntityViewSet, basename="entity")
router.register("entities", EntityChecksViewSet, basename="entity-checks")
router.register("entities", EntityInsightsViewSet, basename="entity-insights")

urlpatterns = [path("search", SearchView.as_view(), name="onboarding-search"), *router.urls]
