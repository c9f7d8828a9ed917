"""Provider checks (PEP, adverse media) and external screening results, stored as compliance checks.

Provider calls go over the network, so they run outside any transaction (`provider_checks_run`);
their answers are then recorded in one transaction (`provider_checks_record`).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from common.audit import actor_of, audit_record
from common.errors import NotFound
from common.permissions import require_role
from common.principal import Principal
from monitoring.notifications.services import notification_create
from onboarding.choices import CheckResult, CheckType
from onboarding.models import ComplianceCheck, Entity
from onboarding.providers import ProviderAnswer, Subject, screening_provider
from onboarding.risk import risk_recompute
from onboarding.services.entities import ONBOARD_ROLE, entity_flag_for_review
from onboarding.services.flags import flags_recompute
from onboarding.services.kyb import kyb_verification_record
from webhooks.services import event_emit

PROVIDER_CHECKS = (CheckType.PEP, CheckType.ADVERSE_MEDIA)
EXTERNAL_ROLE = ONBOARD_ROLE
NOT_CONFIGURED = "No screening provider is configured (SCREENING_PROVIDER_URL): not screened."


def provider_subjects(entity: Entity) -> list[Subject]:
    subjects = [Subject("entity", entity.legal_name, entity.entity_type,
                        entity.date_of_birth.isoformat() if entity.date_of_birth else None, entity.jurisdiction)]
    for ubo in entity.ubos.order_by("created_at", "id"):
        subjects.append(Subject(f"ubo:{ubo.pk}", ubo.name, "individual",
                                ubo.date_of_birth.isoformat() if ubo.date_of_birth else None, ubo.nationality or None))
    return subjects


def provider_checks_run(*, entity_id, check_types=PROVIDER_CHECKS, actor=None) -> list[ComplianceCheck]:
    """Ask the configured provider about the entity and its owners; record one check per type."""
    entity = Entity.objects.filter(pk=entity_id).first()
    if entity is None:
        return []
    provider = screening_provider()
    answers = {}
    for check_type in check_types:
        if provider is None:
            answers[check_type] = None
        else:
            answers[check_type] = [provider.screen(check_type, subject, reference=str(entity.pk)) for subject in provider_subjects(entity)]
    return provider_checks_record(entity_id=entity.pk, answers=answers, provider_name=provider.name if provider else "",
                                  actor=actor)


@transaction.atomic
def provider_checks_record(*, entity_id, answers: dict[str, list[ProviderAnswer] | None], provider_name: str,
                           actor=None) -> list[ComplianceCheck]:
    entity = Entity.objects.select_for_update(no_key=True).get(pk=entity_id)
    checks = [_record_provider_check(entity, check_type, subject_answers, provider_name, actor)
              for check_type, subject_answers in answers.items()]
    flags_recompute(entity=entity)
    risk_recompute(entity=entity, reason="PEP / adverse-media screening", actor=actor)
    return checks


def _record_provider_check(entity, check_type, subject_answers, provider_name, actor) -> ComplianceCheck:
    label = check_type.replace("_", " ")
    if subject_answers is None:
        return _check(entity, check_type, CheckResult.NOT_CONFIGURED, provider="none", actor=actor, summary=NOT_CONFIGURED,
                      details={"reason": "not_configured"})
    found = [a for a in subject_answers if a.result == "review"]
    failed = [a for a in subject_answers if a.result == "error"]
    result = CheckResult.REVIEW if found else CheckResult.ERROR if failed else CheckResult.PASS
    scores = [a.score for a in subject_answers if a.score is not None]
    items = [dict(item, subject=a.subject.key) for a in subject_answers for item in a.items]
    summary = (f"{label.capitalize()}: {len(items)} {'article(s)' if check_type == CheckType.ADVERSE_MEDIA else 'match(es)'} "
               f"for {len(found)} of {len(subject_answers)} subject(s)") + (f"; {len(failed)} failed" if failed else "") + "."
    details = {
        "subjects": [{"key": a.subject.key, "name": a.subject.name, "result": a.result, "error": a.error or None,
                      "reference": a.reference or None, "item_count": len(a.items)} for a in subject_answers],
        "matches" if check_type == CheckType.PEP else "articles": items,
    }
    raw = {a.subject.key: a.raw for a in subject_answers}
    check = _check(entity, check_type, result, provider=provider_name, actor=actor, summary=summary, details=details, raw=raw,
                   score=max(scores) if scores else None)
    if check_type == CheckType.ADVERSE_MEDIA and items and found:
        event_emit(organization=entity.organization, mode=entity.mode, type="adverse_media.detected", data={
            "entity_id": str(entity.pk), "check_id": str(check.pk), "article_count": len(items),
            "categories": sorted({str(c) for item in items for c in (item.get("categories") or []) if isinstance(c, str)}),
            "detected_at": check.created_at})
    notification_create(organization=entity.organization, mode=entity.mode, type="screening_complete", entity_id=entity.pk,
                        title=f"{label.capitalize()} screening of {entity.legal_name}: {result}", body=summary)
    return check


def _check(entity, check_type, result, *, provider, actor, summary, details, raw=None, score=None, external=False,
           counts=True) -> ComplianceCheck:
    check = ComplianceCheck.objects.create(
        organization_id=entity.organization_id, mode=entity.mode, entity=entity, check_type=check_type, result=result,
        provider=provider[:100], external=external, counts_toward_status=counts, score=score, summary=summary[:500],
        details=details, raw_response=raw, requested_by=actor_of(actor).label,
    )
    audit_record(actor=actor, action="entity.check_recorded", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode,
                 after={"check_id": str(check.pk), "check_type": check_type, "result": result, "provider": provider})
    kyb_verification_record(entity=entity, check=check)
    return check


# --- Adverse media on demand ---------------------------------------------------------------------

def adverse_media_refresh(*, principal: Principal, entity_id) -> ComplianceCheck:
    """A new adverse-media check now (the provider call runs outside a transaction)."""
    require_role(principal, ONBOARD_ROLE)
    if not Entity.objects.filter(pk=entity_id, organization=principal.organization, mode=principal.mode).exists():
        raise NotFound("No entity of yours has this id.")
    return provider_checks_run(entity_id=entity_id, check_types=(CheckType.ADVERSE_MEDIA,), actor=principal)[0]


# --- External results (POST /v1/monitoring/screening) --------------------------------------------

@transaction.atomic
def external_check_record(*, principal: Principal, entity_id, check_type: str, provider: str, result: str,
                          score: float | None = None, details: dict | None = None,
                          update_compliance_status: bool = False, raw: dict | None = None) -> tuple[ComplianceCheck, bool]:
    """Store a client's own provider result. With update_compliance_status the flags are recomputed
    (the result counts from now on), a review or fail result moves a pending entity to under review,
    and one on-chain status update is written per active wallet. Returns (check, status updated)."""
    require_role(principal, EXTERNAL_ROLE)
    entity = Entity.objects.select_for_update(no_key=True).filter(
        pk=entity_id, organization=principal.organization, mode=principal.mode).first()
    if entity is None:
        raise NotFound("No entity of yours has this id.")
    summary = f"External {check_type.replace('_', ' ')} result from {provider}: {result}."
    check = _check(entity, check_type, result, provider=provider, actor=principal, summary=summary, details=details or {},
                   raw=raw, score=score, external=True, counts=update_compliance_status)
    if not update_compliance_status:
        return check, False
    if result in (CheckResult.REVIEW, CheckResult.FAIL):
        entity_flag_for_review(entity=entity, reason=summary)
    flags_recompute(entity=entity, reason=summary, publish=True)  # one on-chain row per active wallet
    entity = risk_recompute(entity=entity, reason=f"external {check_type} result", actor=principal)
    Entity.objects.filter(pk=entity.pk).update(flags_updated_at=timezone.now(), updated_at=timezone.now())
    return check, True


# --- Certificates --------------------------------------------------------------------------------

def certificate_issue(*, principal: Principal, entity: Entity) -> tuple[bytes, str]:
    """Render the certificate and log its issue (with the verification hash) in the audit trail, so a
    presented certificate can be checked against what was issued."""
    from onboarding.reports.certificate import certificate_pdf

    pdf, digest = certificate_pdf(entity, issuer=principal.organization)
    audit_record(actor=principal, action="entity.certificate_issued", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode, after={"verification_hash": digest, "status": entity.status})
    return pdf, digest
