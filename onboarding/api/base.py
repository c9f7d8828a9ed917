"""What the entity sub-resource viewsets share: the entity from the URL, scoped to the caller, and
pagination of a queryset with a list's own default and maximum."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from common.api.views import V1ViewSet
from onboarding import selectors

ENTITY_ID = OpenApiParameter("entity_id", OpenApiTypes.UUID, OpenApiParameter.PATH)


class EntityScopedViewSet(V1ViewSet):
    lookup_url_kwarg = "entity_id"

    def base_queryset(self):
        return selectors.entities_of(organization=self.principal.organization, mode=self.principal.mode)

    def entity(self):
        return self.get_object()
