"""Inbound provider callbacks that become compliance checks (docs/webhooks.md, "Payload formats").

The callbacks carry our entity id; the entity gives the organization and mode. They go through
the same service as `POST /v1/monitoring/screening` with `update_compliance_status`, acting as the
system, so flags, risk, status and on-chain updates follow exactly as for a client's own result.
"""

from common.errors import NotFound
from common.principal import Principal
from onboarding.choices import CheckResult, CheckType, EntityType
from onboarding.models import Entity
from onboarding.services.checks import external_check_record

IDENTITY_RESULTS = {"approved": CheckResult.PASS, "declined": CheckResult.FAIL, "review": CheckResult.REVIEW,
                    "error": CheckResult.ERROR}


def _entity(entity_id) -> Entity:
    entity = Entity.objects.select_related("organization").filter(pk=entity_id).first()
    if entity is None:
        raise NotFound(f"No entity {entity_id}.")
    return entity


def kyb_result(*, callback, payload) -> str:
    entity = _entity(payload["entity_id"])
    details = {**payload.get("details", {}), "provider_reference": payload.get("provider_reference", ""),
               "event_id": payload["event_id"], "completed_at": payload["completed_at"].isoformat()}
    check, _ = external_check_record(
        principal=Principal.system(entity.organization, entity.mode), entity_id=entity.pk, check_type=payload["check_type"],
        provider="kyb-provider", result=payload["result"], score=payload.get("score"), details=details,
        update_compliance_status=True, raw=callback_raw(callback))
    return f"compliance check {check.pk} ({payload['check_type']}: {payload['result']}) for entity {entity.pk}"


def identity_result(*, callback, payload) -> str:
    """A person's identity decision: the customer's own verification for an individual (kyb, the
    service's customer-verification check type), an owner's or controller's for a business (ubo)."""
    entity = _entity(payload["entity_id"])
    check_type = CheckType.KYB if entity.entity_type == EntityType.INDIVIDUAL else CheckType.UBO
    details = {**payload.get("details", {}), "verification_id": payload["verification_id"],
               "document_type": payload.get("document_type", ""), "event_id": payload["event_id"],
               "completed_at": payload["completed_at"].isoformat()}
    check, _ = external_check_record(
        principal=Principal.system(entity.organization, entity.mode), entity_id=entity.pk, check_type=check_type,
        provider="identity-provider", result=IDENTITY_RESULTS[payload["status"]], details=details,
        update_compliance_status=True, raw=callback_raw(callback))
    return f"compliance check {check.pk} ({check_type}: {payload['status']}) for entity {entity.pk}"


def callback_raw(callback) -> dict:
    import json

    return json.loads(callback.body)


def register() -> None:
    from webhooks.inbound.handlers import inbound_handler

    inbound_handler("kyb-provider")(kyb_result)
    inbound_handler("identity-provider")(identity_result)
