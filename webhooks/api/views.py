"""/v1/developer/webhook-endpoints: manage endpoints, send a test event, read deliveries, retry one."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api.pagination import page_parameters, paginator
from common.api.serializers import PAGE_PARAMETERS, validated, validated_query
from common.api.views import V1ViewSet
from common.errors import NotFound
from organizations.choices import Role
from webhooks import selectors, services
from webhooks.api import serializers as s

TAGS = ["developer"]
UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
ADMIN_ACTIONS = ("create", "partial_update", "destroy", "rotate_secret", "send_test", "retry_delivery")


class WebhookEndpointViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, V1ViewSet):
    """Endpoints of the caller's organization in the caller's mode. Reads: viewer and above;
    writes: admin. An API key or a user session."""

    serializer_class = s.EndpointResponse
    pagination_class = paginator(20, 100)
    action_roles = dict.fromkeys(ADMIN_ACTIONS, Role.ADMIN)

    def base_queryset(self):
        return selectors.endpoints_of(organization=self.principal.organization, mode=self.principal.mode)

    @extend_schema(operation_id="webhook_endpoints_list", tags=TAGS)
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(operation_id="webhook_endpoints_get", tags=TAGS)
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(operation_id="webhook_endpoints_create", request=s.EndpointCreateRequest,
                   responses={201: s.EndpointWithSecretResponse}, tags=TAGS)
    def create(self, request):
        endpoint = services.endpoint_create(principal=request.auth, **validated(s.EndpointCreateRequest, request.data))
        return Response(s.EndpointWithSecretResponse(endpoint).data, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="webhook_endpoints_update", request=s.EndpointUpdateRequest,
                   responses={200: s.EndpointResponse}, tags=TAGS)
    def partial_update(self, request, pk=None):
        changes = validated(s.EndpointUpdateRequest, request.data)
        endpoint = services.endpoint_update(principal=request.auth, endpoint_id=pk, changes=dict(changes))
        return Response(s.EndpointResponse(endpoint).data)

    @extend_schema(operation_id="webhook_endpoints_delete", responses={204: None}, tags=TAGS)
    def destroy(self, request, pk=None):
        services.endpoint_delete(principal=request.auth, endpoint_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(operation_id="webhook_endpoints_rotate_secret", request=None,
                   responses={200: s.EndpointWithSecretResponse}, tags=TAGS)
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request, pk=None):
        endpoint = services.endpoint_rotate_secret(principal=request.auth, endpoint_id=pk)
        return Response(s.EndpointWithSecretResponse(endpoint).data)

    @extend_schema(operation_id="webhook_endpoints_send_test", request=None, responses={202: s.DeliveryResponse}, tags=TAGS)
    @action(detail=True, methods=["post"], url_path="test")
    def send_test(self, request, pk=None):
        delivery = services.endpoint_send_test(principal=request.auth, endpoint_id=pk)
        return Response(self._delivery(delivery.endpoint, delivery.pk), status=status.HTTP_202_ACCEPTED)

    @extend_schema(operation_id="webhook_endpoints_deliveries", responses={200: s.DeliveryPageResponse}, tags=TAGS,
                   parameters=[OpenApiParameter("status", str, enum=["pending", "succeeded", "failed"]),
                               *page_parameters()])
    @action(detail=True, methods=["get"], url_path="deliveries")
    def deliveries(self, request, pk=None):
        query = validated_query(s.DeliveryQuery, request, also=PAGE_PARAMETERS)
        deliveries = selectors.visible_deliveries(selectors.deliveries_of(endpoint=self.get_object(), status=query.get("status")),
                                                  request.auth)
        page = self.paginate_queryset(deliveries)
        return self.get_paginated_response(s.DeliveryResponse(page, many=True).data)

    @extend_schema(operation_id="webhook_deliveries_retry", request=None, responses={202: s.DeliveryResponse}, tags=TAGS,
                   parameters=[OpenApiParameter("delivery_id", OpenApiTypes.UUID, OpenApiParameter.PATH)])
    @action(detail=True, methods=["post"], url_path=rf"deliveries/(?P<delivery_id>{UUID_PATTERN})/retry")
    def retry_delivery(self, request, pk=None, delivery_id=None):
        delivery = services.delivery_retry(principal=request.auth, endpoint_id=pk, delivery_id=delivery_id)
        return Response(self._delivery(delivery.endpoint, delivery.pk), status=status.HTTP_202_ACCEPTED)

    @staticmethod
    def _delivery(endpoint, delivery_id) -> dict:
        """Read again after the commit: with an eager or fast worker the first attempt may be done."""
        delivery = selectors.delivery_of(endpoint=endpoint, delivery_id=delivery_id)
        if delivery is None:
            raise NotFound("The delivery is gone: its endpoint was deleted.")
        return s.DeliveryResponse(delivery).data
