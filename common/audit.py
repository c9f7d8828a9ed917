"""The audit writer. Services call `audit_record` inside their transaction, so the entry and the
change commit or roll back together."""

import json
from dataclasses import dataclass

from django.core.serializers.json import DjangoJSONEncoder

from common.context import current_request
from common.models import AuditLogEntry
from common.pg import insert_all
from common.principal import Principal


@dataclass(frozen=True)
class Actor:
    type: str
    id: str = ""
    label: str = ""


SYSTEM = Actor(AuditLogEntry.ActorType.SYSTEM, "", "system")


def actor_of(who) -> Actor:
    """A Principal, a User, an Actor or None (the system) → Actor."""
    if who is None:
        return SYSTEM
    if isinstance(who, Actor):
        return who
    if isinstance(who, Principal):
        if who.api_key is not None:
            return Actor(AuditLogEntry.ActorType.API_KEY, str(who.api_key.pk), f"{who.api_key.name} ({who.api_key.prefix}…)")
        if who.user is None:
            return SYSTEM
        who = who.user
    return Actor(AuditLogEntry.ActorType.USER, str(who.pk), who.email)


def _jsonable(value):
    return None if value is None else json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def _entry(who, request, *, action: str, object_type: str, object_id, organization_id, mode: str, before, after) -> AuditLogEntry:
    return AuditLogEntry(
        organization_id=organization_id,
        mode=mode or "",
        actor_type=who.type,
        actor_id=who.id,
        actor_label=who.label,
        action=action,
        object_type=object_type,
        object_id=str(object_id),
        before=_jsonable(before),
        after=_jsonable(after),
        request_id=request.request_id,
        ip_address=request.ip,
    )


def audit_record(*, actor, action: str, object_type: str, object_id, organization=None, mode: str = "",
                 before: dict | None = None, after: dict | None = None) -> AuditLogEntry:
    entry = _entry(actor_of(actor), current_request(), action=action, object_type=object_type, object_id=object_id,
                   organization_id=organization.pk if organization is not None else None, mode=mode, before=before, after=after)
    entry.save(force_insert=True)
    return entry


def audit_records(*, actor, action: str, object_type: str, changes: list[tuple]) -> list[AuditLogEntry]:
    """audit_record for many objects in one insert (a monitoring batch's cases or risk changes):
    `changes` are (object, before, after), each object with organization_id, mode and pk."""
    who, request = actor_of(actor), current_request()
    return insert_all(AuditLogEntry, [
        _entry(who, request, action=action, object_type=object_type, object_id=obj.pk, organization_id=obj.organization_id,
               mode=obj.mode, before=before, after=after)
        for obj, before, after in changes
    ])
