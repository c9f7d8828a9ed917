"""Webhook reads, scoped to one organization and mode, ordered, with related rows loaded."""

from django.db.models import Case, IntegerField, Prefetch, QuerySet, Value, When

from common.confidentiality import SAR_EVENT_TYPES, sar_visible
from webhooks.models import Delivery, DeliveryAttempt, DeliveryStatus, WebhookEndpoint


def endpoints_of(*, organization, mode: str) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(organization=organization, mode=mode).order_by("-created_at", "id")


def deliveries_of(*, endpoint: WebhookEndpoint, status: str | None = None) -> QuerySet[Delivery]:
    deliveries = Delivery.objects.filter(endpoint=endpoint, organization_id=endpoint.organization_id, mode=endpoint.mode)
    if status:
        deliveries = deliveries.filter(status=status)
    return (
        deliveries.select_related("event")
        .prefetch_related(Prefetch("attempt_log", queryset=DeliveryAttempt.objects.order_by("number")))
        .order_by("-created_at", "id")
    )


def visible_deliveries(deliveries: QuerySet[Delivery], reader) -> QuerySet[Delivery]:
    """Deliveries as `reader` may read them: those of `sar.filed` from l2_investigator (common.confidentiality)."""
    return deliveries if sar_visible(reader) else deliveries.exclude(event__type__in=SAR_EVENT_TYPES)


def delivery_of(*, endpoint: WebhookEndpoint, delivery_id) -> Delivery | None:
    return deliveries_of(endpoint=endpoint).filter(pk=delivery_id).first()


def failed_first(deliveries: QuerySet[Delivery]) -> QuerySet[Delivery]:
    """The back office's work queue: failed, then pending, then succeeded; newest first in each."""
    rank = Case(
        When(status=DeliveryStatus.FAILED, then=Value(0)),
        When(status=DeliveryStatus.PENDING, then=Value(1)),
        default=Value(2), output_field=IntegerField(),
    )
    return deliveries.annotate(status_rank=rank).order_by("status_rank", "-created_at", "id")
