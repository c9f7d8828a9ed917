"""The organization's labels per entity, as backtests score against them.

Dispositions are labels: an entity with an alert disposed `true_positive` is positive, one with
only `false_positive` dispositions negative (`inconclusive` says nothing). An uploaded label
(EntityLabel) is the analyst's explicit word on the account and wins over the dispositions.
"""

from dataclasses import dataclass

from django.db.models import QuerySet

from monitoring.choices import Disposition
from monitoring.models import Alert, EntityLabel
from monitoring.models.labels import LabelValue


@dataclass(frozen=True)
class Label:
    positive: bool
    typology: str = ""
    source: str = "disposition"  # or "upload"


def labels_of(*, organization, mode: str) -> QuerySet[EntityLabel]:
    return EntityLabel.objects.filter(organization=organization, mode=mode).select_related("entity").order_by("entity_id")


def entity_labels(*, organization, mode: str) -> dict[str, Label]:
    found: dict[str, Label] = {}
    disposed = Alert.objects.filter(organization=organization, mode=mode,
                                    disposition__in=[Disposition.TRUE_POSITIVE, Disposition.FALSE_POSITIVE])
    for entity_id, disposition in disposed.values_list("entity_id", "disposition").order_by():
        entity_id = str(entity_id)
        positive = disposition == Disposition.TRUE_POSITIVE
        if positive or entity_id not in found:
            found[entity_id] = Label(positive=positive)
    for entity_id, label, typology in EntityLabel.objects.filter(organization=organization, mode=mode).values_list(
            "entity_id", "label", "typology").order_by():
        found[str(entity_id)] = Label(positive=label == LabelValue.POSITIVE, typology=typology, source="upload")
    return found


def rule_dispositions(*, organization, mode: str, rule_code: str, start, end) -> dict:
    """Per alert: how the rule's stored alerts first raised in the range were disposed."""
    rows = Alert.objects.filter(organization=organization, mode=mode, rule_code=rule_code, first_triggered_at__gte=start,
                                first_triggered_at__lte=end).values_list("disposition", flat=True).order_by()
    counts = {value: 0 for value in Disposition.values}
    undisposed = 0
    for disposition in rows:
        if disposition:
            counts[disposition] += 1
        else:
            undisposed += 1
    decided = counts[Disposition.TRUE_POSITIVE] + counts[Disposition.FALSE_POSITIVE]
    precision = round(counts[Disposition.TRUE_POSITIVE] / decided, 4) if decided else None
    return {"alerts": len(rows), "undisposed": undisposed, **counts, "precision": precision}
