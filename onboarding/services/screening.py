"""Built-in sanctions screening of an entity: its name, its beneficial owners' names (with date of
birth and nationality) and its wallet addresses, against the loaded lists (onboarding.screening)
that the entity's organization screens against (onboarding.selectors.screening_sources).

A run stores one `sanctions` compliance check, made against the organization's lists of category
`sanctions`, and one ScreeningHit per listed entry found per subject; it supersedes the earlier hits
of its check type on the subjects it screened. A hit on an entry that an investigator marked false
positive for this entity is stored as `suppressed` while the entry's version hash is unchanged. An
open hit at or above the review threshold moves a pending entity to under review and flags the
wallet it was found on. With no list loaded the check is an `error`: never a pass.

When the organization also screens against lists of category `pep` (politically exposed persons,
such as an OpenSanctions PEP dataset), the same run screens the names (not the wallets) against them
and stores a separate `pep` check with its own hits: a match there sets the entity's `pep` flag
(onboarding.services.flags), never `sanctioned`, and flags no wallet. With no PEP list chosen, no
`pep` check is written here (a configured PEP provider's checks are onboarding.services.checks').
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import Conflict, NotFound, ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from compliance.services import onchain_updates_write
from monitoring.notifications.services import notification_create
from onboarding.choices import BUILTIN_PROVIDER, CheckResult, CheckType, HitStatus, HitSubject, WalletStatus
from onboarding.models import (
    ComplianceCheck,
    Entity,
    SanctionsList,
    SanctionsListVersion,
    ScreeningFalsePositive,
    ScreeningHit,
    Wallet,
)
from onboarding.models.sanctions import ListCategory
from onboarding.risk import risk_recompute
from onboarding.sanctions.registry import list_name
from onboarding.screening import (
    ListsNotLoaded,
    UnscreenableName,
    get_index,
    outcome,
    screen_address,
    screen_name,
    screening_lists,
)
from onboarding.screening.thresholds import fail_threshold, review_threshold
from onboarding.selectors import latest_name_screening, screening_sources
from onboarding.services import screening_claims
from onboarding.services.entities import REVIEW_ROLE, entity_flag_for_review
from onboarding.services.flags import flags_recompute
from webhooks.services import event_emit

FALSE_POSITIVE_ROLE = REVIEW_ROLE


@dataclass(frozen=True)
class Subject:
    key: str  # entity | ubo:<id> | wallet:<id>
    type: str  # HitSubject
    value: str  # the name or address screened
    kind: str | None = None
    date_of_birth: object = None
    country: str | None = None  # nationality
    jurisdiction: str | None = None  # where a business is registered
    ubo_id: object = None
    wallet_id: object = None
    chain_id: int | None = None


@dataclass
class Findings:
    hits: dict[str, list] = field(default_factory=dict)  # subject key -> [Hit]
    errors: dict[str, str] = field(default_factory=dict)  # subject key -> why it was not screened
    unreadable: dict[str, str] = field(default_factory=dict)  # subject key -> why its name cannot be read (a `review`)
    lists_missing: bool = False
    sources: frozenset[str] = frozenset()  # the lists screened against


@dataclass(frozen=True)
class ScreeningPlan:
    """The loaded lists an organization's run screens against, by what a match on them means."""

    sanctions: frozenset[str]
    pep: frozenset[str]


CHECK_LABELS = {CheckType.SANCTIONS: "Sanctions", CheckType.PEP: "PEP"}


def entity_name_subject(*, legal_name: str, entity_type: str, date_of_birth, jurisdiction: str) -> Subject:
    """The entity's own name; its jurisdiction is where it is registered, not a nationality: it can only raise a
    score (onboarding.screening.evidence)."""
    return Subject("entity", HitSubject.ENTITY, legal_name, kind=entity_type, date_of_birth=date_of_birth, jurisdiction=jurisdiction)


def owner_name_subject(*, ubo_id, name: str, date_of_birth, nationality: str) -> Subject:
    return Subject(f"ubo:{ubo_id}", HitSubject.UBO, name, kind="individual", date_of_birth=date_of_birth, country=nationality or None,
                   ubo_id=ubo_id)


def name_subjects(entity: Entity) -> list[Subject]:
    subjects = [entity_name_subject(legal_name=entity.legal_name, entity_type=entity.entity_type, date_of_birth=entity.date_of_birth,
                                    jurisdiction=entity.jurisdiction)]
    for ubo in entity.ubos.order_by("created_at", "id"):
        subjects.append(owner_name_subject(ubo_id=ubo.pk, name=ubo.name, date_of_birth=ubo.date_of_birth, nationality=ubo.nationality))
    return subjects


def wallet_subject(wallet: Wallet) -> Subject:
    return Subject(f"wallet:{wallet.pk}", HitSubject.WALLET, wallet.address, wallet_id=wallet.pk, chain_id=wallet.chain_id)


def screening_plan(organization) -> ScreeningPlan:
    """The organization's lists (an Organization or its id) as this process's index holds them. A
    chosen list the index does not have yet (loaded by another process in the last seconds) has the
    index checked against the database first, as a re-screening for a change does."""
    sources = screening_sources(organization)
    index = get_index()
    if not sources <= index.lists.keys():
        index = get_index(max_age=0)
    return ScreeningPlan(sanctions=index.sources_of(ListCategory.SANCTIONS, sources), pep=index.sources_of(ListCategory.PEP, sources))


def screen_subjects(subjects: list[Subject], *, sources: frozenset[str] | None = None) -> Findings:
    """Screen every subject against `sources` (in memory, no writes); None: every loaded list of
    category sanctions (never a PEP list, whose matches are no sanctions hits)."""
    if sources is None:
        sources = get_index().sources_of(ListCategory.SANCTIONS)
    findings = Findings(sources=sources)
    for subject in subjects:
        try:
            if subject.type == HitSubject.WALLET:
                hits = screen_address(subject.value, chain_id=subject.chain_id, sources=sources)
            else:
                hits = screen_name(subject.value, kind=subject.kind, date_of_birth=subject.date_of_birth, country=subject.country,
                                   jurisdiction=subject.jurisdiction, sources=sources)
        except ListsNotLoaded:
            findings.lists_missing = True
            return findings
        except UnscreenableName as exc:
            findings.unreadable[subject.key] = str(exc) or "the name's letters cannot be read"
            findings.hits[subject.key] = []
            continue
        findings.hits[subject.key] = hits
    return findings


# --- Runs ----------------------------------------------------------------------------------------

def entity_screen(*, entity_id, trigger: str = "onboarding") -> ComplianceCheck | None:
    """Screen the entity's names and all its active wallets (task entry point; None if the entity is gone,
    or when an onboarding or sweep screening finds another screening of the entity running:
    onboarding.services.screening_claims)."""
    if not screening_claims.claim_run(entity_id, trigger=trigger):
        return None
    try:
        return _entity_screen(entity_id, trigger)
    finally:
        screening_claims.release(entity_id)


def _entity_screen(entity_id, trigger: str) -> ComplianceCheck | None:
    entity = Entity.objects.filter(pk=entity_id).first()
    if entity is None:
        return None
    if trigger == "lists_changed":
        # This process checks its index against the lists at most every 30 s: a re-screening for a
        # change must not run on the index of before it, or the change is never screened against.
        get_index(max_age=0)
    plan = screening_plan(entity.organization_id)
    names = name_subjects(entity)
    wallets = entity.wallets.filter(status=WalletStatus.ACTIVE).order_by("created_at", "id")
    subjects = names + [wallet_subject(wallet) for wallet in wallets]
    return screening_record(entity_id=entity.pk, subjects=subjects, findings=screen_subjects(subjects, sources=plan.sanctions),
                            trigger=trigger, pep_findings=screen_subjects(names, sources=plan.pep) if plan.pep else None)


def wallet_screen(*, wallet_id, trigger: str = "wallet_added") -> ComplianceCheck | None:
    """Screen one wallet; the names too when they were never screened (the onboarding run's message
    lost or still queued): a wallet-only check would take the entity off the unscreened sweep's list
    (any sanctions check) while its names stayed unscreened until the lists next changed."""
    wallet = Wallet.objects.select_related("entity").filter(pk=wallet_id).first()
    if wallet is None:
        return None
    if latest_name_screening(wallet.entity) is None:
        return entity_screen(entity_id=wallet.entity_id, trigger=trigger)
    subjects = [wallet_subject(wallet)]
    sources = screening_plan(wallet.entity.organization_id).sanctions  # a wallet is screened for sanctions only
    return screening_record(entity_id=wallet.entity_id, subjects=subjects, findings=screen_subjects(subjects, sources=sources),
                            trigger=trigger)


@transaction.atomic
def screening_record(*, entity_id, subjects: list[Subject], findings: Findings, trigger: str,
                     pep_findings: Findings | None = None) -> ComplianceCheck | None:
    """Store a run: the `sanctions` check of `findings` and, with `pep_findings` (the names screened
    against the organization's PEP lists), a `pep` check. Returns the sanctions check."""
    entity = Entity.objects.select_for_update(no_key=True).filter(pk=entity_id).first()
    if entity is None:
        return None
    check = _record_check(entity, CheckType.SANCTIONS, subjects, findings, trigger)
    if pep_findings is not None:
        _record_check(entity, CheckType.PEP, [s for s in subjects if s.type != HitSubject.WALLET], pep_findings, trigger)
    flags_recompute(entity=entity)
    # After the flags, so that the on-chain rows say what the entity is now. A wallet screened again and
    # found on no list (the publisher delisted the address) is no longer blocked.
    screened_wallets = {s.wallet_id for s in subjects if s.wallet_id and s.key in findings.hits}
    _unflag_wallets(entity, screened_wallets, actor=None, reason="address no longer listed (sanctions screening)")
    risk_recompute(entity=entity, reason=f"sanctions screening ({trigger})")
    return check


def _record_check(entity: Entity, check_type: str, subjects: list[Subject], findings: Findings, trigger: str) -> ComplianceCheck:
    check = ComplianceCheck.objects.create(
        organization_id=entity.organization_id, mode=entity.mode, entity=entity, check_type=check_type,
        result=CheckResult.ERROR, provider=BUILTIN_PROVIDER, requested_by="system", summary="",
    )
    if findings.lists_missing:
        _not_screened(entity, check, subjects, trigger)
    else:
        hits = _store_hits(entity, check, subjects, findings)
        _conclude(entity, check, subjects, findings, hits, trigger)
    _notify(entity, check)
    return check


def _subject_details(subjects: list[Subject], findings: Findings) -> list[dict]:
    return [{"key": s.key, "type": s.type, "value": s.value, "screened": s.key in findings.hits and s.key not in findings.unreadable,
             "error": findings.errors.get(s.key), "unreadable": findings.unreadable.get(s.key),
             "hit_count": len(findings.hits.get(s.key, []))} for s in subjects]


def _not_screened(entity: Entity, check: ComplianceCheck, subjects: list[Subject], trigger: str) -> None:
    category = ListCategory.PEP if check.check_type == CheckType.PEP else ListCategory.SANCTIONS
    if get_index().sources_of(category):
        check.summary = (f"Not screened: none of the {category} lists this organization screens against is loaded (choose them "
                         "in the console's screening lists).")
    else:
        check.summary = "Not screened: no sanctions list is loaded (run `manage.py load_sanctions`)."
    check.details = {"trigger": trigger, "error": "lists_not_loaded", "subjects": _subject_details(subjects, Findings()), "lists": []}
    check.save(update_fields=["summary", "details", "updated_at"])
    audit_record(actor=None, action="entity.screened", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode,
                 after={"check_id": str(check.pk), "check_type": check.check_type, "result": check.result, "trigger": trigger})


def _store_hits(entity: Entity, check: ComplianceCheck, subjects: list[Subject], findings: Findings) -> list[ScreeningHit]:
    screened = [s for s in subjects if s.key in findings.hits]
    ScreeningHit.objects.filter(entity=entity, active=True, subject_key__in=[s.key for s in screened],
                                check_run__check_type=check.check_type).update(active=False, updated_at=timezone.now())
    cleared = {(fp.source, fp.entry_uid, fp.entry_version_hash): fp for fp in ScreeningFalsePositive.objects.filter(entity=entity)}
    rows = []
    for subject in screened:
        for hit in findings.hits[subject.key]:
            decision = cleared.get((hit.source, hit.entry_uid, hit.entry_version_hash))
            rows.append(ScreeningHit(
                organization_id=entity.organization_id, mode=entity.mode, check_run=check, entity=entity,
                subject_type=subject.type, subject_key=subject.key, subject_value=subject.value[:300],
                ubo_id=subject.ubo_id, wallet_id=subject.wallet_id, source=hit.source, entry_uid=hit.entry_uid,
                entry_version_hash=hit.entry_version_hash, primary_name=hit.primary_name[:512], matched_name=hit.matched_name[:512],
                score=hit.score, outcome=hit.outcome, method=hit.method, explanation=hit.explanation,
                status=HitStatus.SUPPRESSED if decision else HitStatus.OPEN, false_positive=decision,
            ))
    return ScreeningHit.objects.bulk_create(rows)


def _conclude(entity, check, subjects, findings, hits, trigger) -> None:
    """The check's result from its open hits. A sanctions check is pass, review or fail by the best
    score; a PEP check is `review` when a match reaches the review threshold (being a politically
    exposed person calls for due diligence, as a PEP provider's match does), else pass."""
    open_hits = [hit for hit in hits if hit.status == HitStatus.OPEN]
    best = max((hit.score for hit in open_hits), default=0.0)
    raised = [hit for hit in open_hits if hit.score >= review_threshold()]
    result = outcome(best) if check.check_type == CheckType.SANCTIONS else CheckResult.REVIEW if raised else CheckResult.PASS
    if result == CheckResult.PASS and findings.unreadable:
        result = CheckResult.REVIEW  # a name nobody could read is for an analyst: never a pass, never an error
    if result == CheckResult.PASS and findings.errors:
        result = CheckResult.ERROR
    check.result, check.score = result, round(best, 4)
    label = CHECK_LABELS[check.check_type]
    check.summary = _summary(label, result, raised, hits, findings)
    check.details = {
        "trigger": trigger, "subjects": _subject_details(subjects, findings), "lists": screening_lists(findings.sources),
        "thresholds": {"review": review_threshold(), "fail": fail_threshold()},
        "hits": [{"hit_id": str(h.pk), "subject": h.subject_key, "source": h.source, "list_name": list_name(h.source),
                  "entry_uid": h.entry_uid, "primary_name": h.primary_name, "matched_name": h.matched_name, "score": h.score,
                  "outcome": h.outcome, "status": h.status, "explanation": h.explanation} for h in hits],
    }
    check.save(update_fields=["result", "score", "summary", "details", "updated_at"])
    audit_record(actor=None, action="entity.screened", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode,
                 after={"check_id": str(check.pk), "check_type": check.check_type, "result": result, "score": check.score,
                        "trigger": trigger, "hits_raised": len(raised), "hits_suppressed": len(hits) - len(open_hits)})
    if raised:
        best_hit = max(raised, key=lambda h: h.score)
        entity_flag_for_review(entity=entity, reason=f"{label} screening: {len(raised)} possible match(es); best "
                                                     f"{best_hit.primary_name} ({best_hit.source}) at {best_hit.score:.2f}.")
    elif findings.unreadable:
        entity_flag_for_review(entity=entity, reason=f"{label} screening: {len(findings.unreadable)} name(s) could not be read; "
                                                     "review them by hand.")
    if check.check_type == CheckType.SANCTIONS:
        _flag_wallets(entity, raised)


def _summary(label: str, result: str, raised: list, hits: list, findings: Findings) -> str:
    suppressed = sum(1 for h in hits if h.status == HitStatus.SUPPRESSED)
    parts = [f"{len(raised)} possible match(es) at or above review" if raised else "no match at or above review"]
    if suppressed:
        parts.append(f"{suppressed} cleared as false positive(s)")
    if findings.unreadable:
        parts.append(f"{len(findings.unreadable)} name(s) could not be read (no transliteration of their letters): review by hand")
    if findings.errors:
        parts.append(f"{len(findings.errors)} subject(s) could not be screened")
    return f"{label} screening {result}: " + "; ".join(parts) + "."


def _flag_wallets(entity: Entity, raised: list[ScreeningHit]) -> None:
    now = timezone.now()
    for wallet_id in dict.fromkeys(hit.wallet_id for hit in raised if hit.wallet_id):
        wallet = Wallet.objects.select_for_update().get(pk=wallet_id)
        if wallet.flagged:
            continue
        best = max((h for h in raised if h.wallet_id == wallet_id), key=lambda h: h.score)
        reason = f"Listed digital-currency address of {best.primary_name} ({best.source} {best.entry_uid})."
        wallet.flagged, wallet.flag_reason, wallet.flagged_at = True, reason[:500], now
        wallet.save(update_fields=["flagged", "flag_reason", "flagged_at", "updated_at"])
        event_emit(organization=entity.organization, mode=entity.mode, type="compliance.wallet_flagged", data={
            "entity_id": str(entity.pk), "wallet_id": str(wallet.pk), "chain_id": wallet.chain_id, "address": wallet.address,
            "reason": reason, "flagged_at": now})
        audit_record(actor=None, action="wallet.flagged", object_type="entity", object_id=entity.pk,
                     organization=entity.organization, mode=entity.mode,
                     after={"wallet_id": str(wallet.pk), "address": wallet.address, "reason": reason})
        onchain_updates_write(entity=entity, wallets=[wallet], reason=reason)


def _notify(entity: Entity, check: ComplianceCheck) -> None:
    notification_create(organization=entity.organization, mode=entity.mode, type="screening_complete", entity_id=entity.pk,
                        title=f"{CHECK_LABELS[check.check_type]} screening of {entity.legal_name}: {check.result}", body=check.summary)


def list_versions_rescreened(*, changes: list, entities: int) -> None:
    """Record on each list version of `changes` how many entities its re-screening queued."""
    now = timezone.now()
    for change in changes:
        if change.version:
            SanctionsListVersion.objects.filter(sanctions_list__source=change.source, number=change.version).update(
                rescreened_entities=entities, rescreened_at=now)


def list_versions_rescreened_all(*, loaded_before, entities: int) -> int:
    """After a re-screening of every entity: mark the versions loaded before it started that were never
    re-screened (their diffs are covered). Returns how many."""
    return SanctionsListVersion.objects.filter(rescreened_at__isnull=True, loaded_at__lt=loaded_before).update(
        rescreened_entities=entities, rescreened_at=timezone.now())


def lists_rescreen_done(*, pending: dict) -> int:
    """Clear the rescreen markers read before every entity was queued (`pending`: list id -> marker
    seen). A list loaded again meanwhile carries a newer marker and stays pending. Returns how many."""
    return sum(SanctionsList.objects.filter(pk=pk, rescreen_pending_since=since).update(rescreen_pending_since=None)
               for pk, since in pending.items())


# --- False positives -----------------------------------------------------------------------------

@transaction.atomic
def hit_mark_false_positive(*, principal: Principal, entity_id, hit_id, reason: str) -> ScreeningHit:
    """Clear a hit: this entity is not that listed entry. Every open hit of this entity on the same
    entry version is cleared with it; later screenings store such hits as suppressed until the
    publisher changes the entry. L2 investigator or above; the reason is required."""
    require_role(principal, FALSE_POSITIVE_ROLE)
    if not (reason or "").strip():
        raise ValidationFailed.for_field("reason", "Say why this hit is a false positive.")
    entity = Entity.objects.select_for_update(no_key=True).filter(
        pk=entity_id, organization=principal.organization, mode=principal.mode).first()
    if entity is None:
        raise NotFound("No entity of yours has this id.")
    hit = ScreeningHit.objects.filter(pk=hit_id, entity=entity).first()
    if hit is None:
        raise NotFound("This entity has no screening hit with this id.")
    if hit.status != HitStatus.OPEN:
        raise Conflict(f"This hit is {hit.status.replace('_', ' ')} already.")
    decision, _ = ScreeningFalsePositive.objects.get_or_create(
        entity=entity, source=hit.source, entry_uid=hit.entry_uid, entry_version_hash=hit.entry_version_hash,
        defaults={"organization": entity.organization, "mode": entity.mode, "reason": reason.strip()[:1000],
                  "decided_by": principal.actor_label, "decided_by_user": principal.user})
    same_entry = ScreeningHit.objects.filter(entity=entity, status=HitStatus.OPEN, source=hit.source, entry_uid=hit.entry_uid,
                                             entry_version_hash=hit.entry_version_hash)
    wallet_ids = set(same_entry.exclude(wallet=None).values_list("wallet_id", flat=True))
    same_entry.update(status=HitStatus.FALSE_POSITIVE, false_positive=decision, updated_at=timezone.now())
    audit_record(actor=principal, action="screening_hit.false_positive", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode,
                 after={"hit_id": str(hit.pk), "source": hit.source, "entry_uid": hit.entry_uid,
                        "entry_version_hash": hit.entry_version_hash, "primary_name": hit.primary_name, "reason": reason.strip()})
    flags_recompute(entity=entity)
    _unflag_wallets(entity, wallet_ids, actor=principal, reason="screening hit cleared as a false positive")
    risk_recompute(entity=entity, reason="screening hit marked false positive", actor=principal)
    hit.refresh_from_db()
    return hit


def _unflag_wallets(entity: Entity, wallet_ids: set, *, actor, reason: str) -> None:
    """Unflag those of `wallet_ids` that no open hit at or above review keeps flagged (audit entry and
    on-chain status row for each)."""
    for wallet in Wallet.objects.select_for_update().filter(pk__in=wallet_ids, flagged=True).order_by("pk"):
        still_listed = ScreeningHit.objects.filter(wallet=wallet, active=True, status=HitStatus.OPEN,
                                                   score__gte=review_threshold()).exists()
        if still_listed:
            continue
        wallet.flagged, wallet.flag_reason, wallet.flagged_at = False, "", None
        wallet.save(update_fields=["flagged", "flag_reason", "flagged_at", "updated_at"])
        audit_record(actor=actor, action="wallet.unflagged", object_type="entity", object_id=entity.pk,
                     organization=entity.organization, mode=entity.mode,
                     after={"wallet_id": str(wallet.pk), "address": wallet.address, "reason": reason})
        onchain_updates_write(entity=entity, wallets=[wallet], reason=reason)
