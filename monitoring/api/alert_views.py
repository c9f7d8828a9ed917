"""Alerts, transfers and fiat events of one entity (/v1/onboarding/entities/{entity_id}/...)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from common.api.pagination import page_parameters, paged
from common.api.serializers import PAGE_PARAMETERS, validated, validated_query
from common.api.views import V1APIView
from common.errors import NotFound
from monitoring.alerts import selectors, services
from monitoring.alerts.triage import triage
from monitoring.api import alert_serializers as s
from monitoring.choices import AlertStatus, Disposition, FiatEventType, Severity
from onboarding.models import Entity

TAGS = ["onboarding: alerts and transfers"]


class EntityScopedView(V1APIView):
    def entity(self, entity_id) -> Entity:
        principal = self.request.auth
        entity = Entity.objects.filter(pk=entity_id, organization=principal.organization, mode=principal.mode).first()
        if entity is None:
            raise NotFound("No entity of yours has this id.")
        return entity


class EntityAlertsView(EntityScopedView):
    @extend_schema(operation_id="entity_alerts_list", responses={200: paged(s.CustomerAlertResponse)}, tags=TAGS,
                   parameters=[OpenApiParameter("severity", str, enum=Severity.values),
                               OpenApiParameter("status", str, enum=AlertStatus.values), *page_parameters()])
    def get(self, request, entity_id):
        entity, query = self.entity(entity_id), validated_query(s.AlertListQuery, request, also=PAGE_PARAMETERS)
        alerts = selectors.alerts_of_entity(organization=entity.organization, mode=entity.mode, entity_id=entity.pk, **query)
        return self.page(alerts, s.CustomerAlertResponse)


class EntityAlertView(EntityScopedView):
    def alert(self, entity_id, alert_id):
        entity = self.entity(entity_id)
        alert = selectors.alert_detail(organization=entity.organization, mode=entity.mode, entity_id=entity.pk, alert_id=alert_id)
        if alert is None:
            raise NotFound("No alert of this entity has this id.")
        return alert

    @extend_schema(operation_id="entity_alerts_get", responses={200: s.CustomerAlertDetailResponse}, tags=TAGS)
    def get(self, request, entity_id, alert_id):
        return Response(s.CustomerAlertDetailResponse(self.alert(entity_id, alert_id)).data)


class AlertDispositionView(EntityScopedView):
    minimum_role = services.DISPOSE_ROLE

    @extend_schema(operation_id="entity_alerts_disposition", request=s.AlertDispositionCreate,
                   responses={200: s.AlertDispositionResponse}, tags=TAGS)
    def post(self, request, entity_id, alert_id):
        body = validated(s.AlertDispositionCreate, request.data)
        alert = services.alert_dispose(principal=request.auth, alert_id=alert_id, entity_id=self.entity(entity_id).pk, **body)
        return Response(s.AlertDispositionResponse(alert).data)


class AlertTriageView(EntityAlertView):
    @extend_schema(operation_id="entity_alerts_ai_triage", responses={200: s.TriageResponse}, tags=TAGS)
    def get(self, request, entity_id, alert_id):
        return Response(s.TriageResponse(triage(self.alert(entity_id, alert_id))).data)


class EntityTransfersView(EntityScopedView):
    @extend_schema(operation_id="entity_transfers_list", responses={200: paged(s.CustomerTransferResponse)}, tags=TAGS,
                   parameters=[OpenApiParameter("chain_id", int), OpenApiParameter("from_date", str),
                               OpenApiParameter("to_date", str), *page_parameters()])
    def get(self, request, entity_id):
        entity, query = self.entity(entity_id), validated_query(s.TransferListQuery, request, also=PAGE_PARAMETERS)
        transfers = selectors.transfers_of_entity(organization=entity.organization, mode=entity.mode, entity_id=entity.pk, **query)
        return self.page(transfers, s.CustomerTransferResponse, entity_id=entity.pk)


class EntityTransferView(EntityScopedView):
    @extend_schema(operation_id="entity_transfers_get", responses={200: s.CustomerTransferDetailResponse}, tags=TAGS)
    def get(self, request, entity_id, transfer_id):
        entity = self.entity(entity_id)
        transfer = selectors.transfer_detail(organization=entity.organization, mode=entity.mode, entity_id=entity.pk,
                                             transfer_id=transfer_id)
        if transfer is None:
            raise NotFound("No transfer of this entity has this id.")
        return Response(s.CustomerTransferDetailResponse(transfer, context={"entity_id": entity.pk}).data)


class EntityFiatEventsView(EntityScopedView):
    @extend_schema(operation_id="entity_fiat_events_list", responses={200: paged(s.CustomerFiatEventResponse)}, tags=TAGS,
                   parameters=[OpenApiParameter("event_type", str, enum=FiatEventType.values), OpenApiParameter("from_date", str),
                               OpenApiParameter("to_date", str), *page_parameters()],
                   description="The entity's fiat events (POST /v1/monitoring/fiat-events, backfill), newest first.")
    def get(self, request, entity_id):
        entity, query = self.entity(entity_id), validated_query(s.FiatEventListQuery, request, also=PAGE_PARAMETERS)
        events = selectors.fiat_events_of_entity(organization=entity.organization, mode=entity.mode, entity_id=entity.pk, **query)
        return self.page(events, s.CustomerFiatEventResponse)


class EntityFiatEventView(EntityScopedView):
    @extend_schema(operation_id="entity_fiat_events_get", responses={200: s.CustomerFiatEventDetailResponse}, tags=TAGS,
                   description="One fiat event with the rules it skipped and the alerts it is part of.")
    def get(self, request, entity_id, event_id):
        entity = self.entity(entity_id)
        event = selectors.fiat_event_detail(organization=entity.organization, mode=entity.mode, entity_id=entity.pk, event_id=event_id)
        if event is None:
            raise NotFound("No fiat event of this entity has this id.")
        return Response(s.CustomerFiatEventDetailResponse(event).data)


class OrgAlertsView(V1APIView):
    """GET /v1/monitoring/alerts: the organization's alerts across its entities (this mode's)."""

    @extend_schema(operation_id="monitoring_alerts_list", responses={200: paged(s.CustomerAlertResponse)}, tags=["monitoring: alerts"],
                   parameters=[OpenApiParameter("rule", str, description="A rule code or number."),
                               OpenApiParameter("severity", str, enum=Severity.values),
                               OpenApiParameter("status", str, enum=AlertStatus.values),
                               OpenApiParameter("disposition", str, enum=[*Disposition.values, "none"]),
                               OpenApiParameter("from_date", str, description="First triggered at or after (a date is its start)."),
                               OpenApiParameter("to_date", str, description="First triggered at or before (a date is its whole day)."),
                               *page_parameters()],
                   description="Alerts across the organization's entities, newest first, filtered by rule, severity, status, "
                               "disposition (none: not disposed) and the period of their first trigger.")
    def get(self, request):
        principal, query = request.auth, validated_query(s.OrgAlertListQuery, request, also=PAGE_PARAMETERS)
        return self.page(selectors.alerts_filtered(organization=principal.organization, mode=principal.mode, **query),
                         s.CustomerAlertResponse)
