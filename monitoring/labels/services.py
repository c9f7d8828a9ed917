"""Uploading labels: each row names an entity (entity_id or external_id), its label and optionally
its typology. Bad rows are reported by position and left out; the valid rows are stored (a label
replaces the entity's earlier one). docs/backtests.md, "Labels"."""

import uuid

from django.db import transaction

from common.audit import audit_record
from common.errors import ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from monitoring.alerts.services import DISPOSE_ROLE
from monitoring.models import EntityLabel
from monitoring.models.labels import LabelValue
from onboarding.models import Entity

LABEL_ROLE = DISPOSE_ROLE  # dispositions are labels: who may dispose an alert may label an entity
MAX_ROWS = 100_000
ALIASES = {"positive": LabelValue.POSITIVE, "negative": LabelValue.NEGATIVE, "true_positive": LabelValue.POSITIVE,
           "false_positive": LabelValue.NEGATIVE}
TYPOLOGY_LENGTH = 60


@transaction.atomic
def labels_upload(*, principal: Principal, rows: list[tuple[int, dict]], position: str = "line") -> dict:
    """Store the valid rows; {"stored", "created", "updated", "errors": [{position, "message"}]}.
    `position` names what the numbers are (CSV lines, JSON items)."""
    require_role(principal, LABEL_ROLE)
    if not rows:
        raise ValidationFailed.for_field("file", "No label rows.")
    if len(rows) > MAX_ROWS:
        raise ValidationFailed.for_field("file", f"{len(rows)} rows; an upload takes at most {MAX_ROWS}.")
    scope = {"organization": principal.organization, "mode": principal.mode}
    entities = _entities_named(scope, rows)
    labels, errors, seen = {}, [], {}
    for number, row in rows:
        found = _checked(row, entities)
        if isinstance(found, str):
            errors.append({position: number, "message": found})
        elif found[0] in seen:
            errors.append({position: number, "message": f"the entity is labelled already at {position} {seen[found[0]]}"})
        else:
            seen[found[0]] = number
            labels[found[0]] = found[1:]
    created, updated = _store(scope, principal, labels)
    audit_record(actor=principal, action="labels.uploaded", object_type="organization", object_id=principal.organization.pk, **scope,
                 after={"created": created, "updated": updated, "errors": len(errors)})
    return {"stored": created + updated, "created": created, "updated": updated, "errors": errors}


def _entities_named(scope: dict, rows: list[tuple[int, dict]]) -> dict[tuple[str, str], str]:
    """{("id" | "external_id", value): entity id} for the organization's entities the rows name."""
    ids = {row.get("entity_id") for _, row in rows if row.get("entity_id")}
    valid_ids = [value for value in ids if _is_uuid(value)]
    external = {row.get("external_id") for _, row in rows if row.get("external_id")}
    found = {("id", str(pk)): str(pk) for pk in Entity.objects.filter(**scope, pk__in=valid_ids).values_list("pk", flat=True)}
    found.update({("external_id", value): str(pk) for pk, value in Entity.objects.filter(**scope, external_id__in=external).values_list(
        "pk", "external_id")})
    return found


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _checked(row: dict, entities: dict) -> tuple[str, str, str] | str:
    """(entity id, label, typology), or what is wrong with the row."""
    if "_error" in row:
        return row["_error"]
    entity_id, external_id = row.get("entity_id", ""), row.get("external_id", "")
    if not entity_id and not external_id:
        return "entity_id or external_id is required"
    key = ("id", entity_id.lower()) if entity_id else ("external_id", external_id)
    if key not in entities:
        return f"no entity of yours has {'id' if entity_id else 'external_id'} {entity_id or external_id!r}"
    label = ALIASES.get(row.get("label", "").lower())
    if label is None:
        return f"label must be one of {', '.join(ALIASES)}"
    typology = row.get("typology", "")
    if len(typology) > TYPOLOGY_LENGTH:
        return f"typology has more than {TYPOLOGY_LENGTH} characters"
    return entities[key], label, typology


def _store(scope: dict, principal: Principal, labels: dict[str, tuple[str, str]]) -> tuple[int, int]:
    existing = {str(entity_id): pk for pk, entity_id in EntityLabel.objects.filter(**scope, entity_id__in=list(labels)).values_list(
        "pk", "entity_id")}
    new = [EntityLabel(**scope, entity_id=entity_id, label=label, typology=typology, uploaded_by=principal.user)
           for entity_id, (label, typology) in labels.items() if entity_id not in existing]
    changed = [EntityLabel(pk=existing[entity_id], label=label, typology=typology, uploaded_by=principal.user)
               for entity_id, (label, typology) in labels.items() if entity_id in existing]
    EntityLabel.objects.bulk_create(new, batch_size=1000)
    EntityLabel.objects.bulk_update(changed, ["label", "typology", "uploaded_by"], batch_size=1000)
    return len(new), len(changed)
