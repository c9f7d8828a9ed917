from rest_framework.routers import SimpleRouter

from onboarding.api.views import EntityViewSet

router = SimpleRouter(trailing_slash=False)
router.register("entities", EntityViewSet, basename="entity")

urlpatterns = router.urls
