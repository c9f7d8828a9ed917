"""Entity, wallet, check, hit, risk-history and audit reads, always scoped to one organization and mode
(except the system-wide reads of the re-screening jobs: sanctions lists are global)."""

import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.utils import timezone

from common.models import AuditLogEntry
from onboarding.choices import CheckResult, CheckType, EntityStatus, HitSubject, RiskTier, WalletStatus
from onboarding.kyb import valid_days
from onboarding.models import (
    BeneficialOwner,
    ComplianceCheck,
    Entity,
    KybPolicy,
    RiskAssessment,
    SanctionsEntry,
    SanctionsList,
    SanctionsListVersion,
    ScreeningHit,
    ScreeningListSetting,
    Wallet,
)
from onboarding.models.sanctions import ListCategory
from onboarding.sanctions.registry import default_enabled, known_specs, list_name

CONCLUSIVE_RESULTS = (CheckResult.PASS, CheckResult.REVIEW, CheckResult.FAIL)


def entities_of(*, organization, mode: str) -> QuerySet[Entity]:
    return (
        Entity.objects.filter(organization=organization, mode=mode)
        .prefetch_related(Prefetch("ubos", queryset=BeneficialOwner.objects.order_by("created_at", "id")),
                          Prefetch("wallets", queryset=Wallet.objects.order_by("created_at", "id")))
        .order_by("-created_at", "-id")
    )


def entities_filtered(*, organization, mode: str, status: str | None = None, risk_tier: str | None = None,
                      search: str | None = None) -> QuerySet[Entity]:
    entities = entities_of(organization=organization, mode=mode)
    if status:
        entities = entities.filter(status=status)
    if risk_tier:
        entities = entities.filter(risk_tier=risk_tier)
    if search:
        term = search.strip()
        entities = entities.filter(
            Q(legal_name__icontains=term) | Q(external_id=term) | Q(registration_number=term)
            | Q(wallets__address=term.lower()) | Q(wallets__address=term)
        ).distinct()
    return entities


def wallets_of_entity(entity: Entity) -> QuerySet[Wallet]:
    return Wallet.objects.filter(entity=entity).order_by("created_at", "id")


def entity_ids_to_rescreen() -> list:
    """Every entity, of every organization and mode, that is not rejected (a system-wide job)."""
    return list(Entity.objects.exclude(status=EntityStatus.REJECTED).order_by("created_at", "id").values_list("pk", flat=True))


# --- Re-screening after a list changed (system-wide: lists are global) ----------------------------

_IN_CHUNK = 500  # ids per IN (...) clause: SQLite's parameter limit
NAME_CHUNK = 5000


def _rescreenable_entities() -> QuerySet[Entity]:
    return Entity.objects.exclude(status=EntityStatus.REJECTED)


def entity_count_to_rescreen() -> int:
    """How many entities a full re-screening would queue (every organization and mode)."""
    return _rescreenable_entities().count()


def entity_name_rows():
    """(entity id, legal name, entity type, date of birth, jurisdiction) of the entities not rejected: what
    a re-screening screens of their own names. Streamed."""
    rows = _rescreenable_entities().order_by().values_list("pk", "legal_name", "entity_type", "date_of_birth", "jurisdiction")
    return rows.iterator(chunk_size=NAME_CHUNK)


def owner_name_rows():
    """(entity id, owner id, name, date of birth, nationality) of the beneficial owners of the entities not
    rejected. Streamed."""
    rows = (BeneficialOwner.objects.exclude(entity__status=EntityStatus.REJECTED).order_by()
            .values_list("entity_id", "pk", "name", "date_of_birth", "nationality"))
    return rows.iterator(chunk_size=NAME_CHUNK)


def entity_ids_with_active_hits(entries: dict[str, list[str]]) -> set:
    """Entities (not rejected) with an active screening hit, whatever its status, on one of `entries`
    ({list source: [entry uid]})."""
    found: set = set()
    for source, uids in entries.items():
        uids = sorted(set(uids))
        for start in range(0, len(uids), _IN_CHUNK):
            hits = ScreeningHit.objects.filter(active=True, source=source, entry_uid__in=uids[start:start + _IN_CHUNK])
            found.update(hits.exclude(entity__status=EntityStatus.REJECTED).order_by().values_list("entity_id", flat=True).distinct())
    return found


def entity_ids_with_wallets_at(addresses: set[str]) -> set:
    """Entities (not rejected) with an active wallet whose canonical address (onboarding.sanctions.addresses)
    is one of `addresses` (canonical forms, as the lists store them)."""
    from django.db.models.functions import Lower

    from onboarding.sanctions.addresses import canonical_address

    found: set = set()
    lowered = sorted({address.lower() for address in addresses})
    wallets = (Wallet.objects.filter(status=WalletStatus.ACTIVE).exclude(entity__status=EntityStatus.REJECTED)
               .annotate(address_lower=Lower("address")).order_by())
    for start in range(0, len(lowered), _IN_CHUNK):
        # Case-insensitively first (one read), then exactly as screening compares: a base58 address is case-sensitive.
        rows = wallets.filter(address_lower__in=lowered[start:start + _IN_CHUNK]).values_list("entity_id", "address", "chain_id")
        found.update(entity_id for entity_id, address, chain_id in rows if canonical_address(address, chain_id=chain_id) in addresses)
    return found


def entity_ids_screened_without_lists() -> set:
    """Entities (not rejected) with a sanctions check that could not screen because no list was loaded:
    a list's first load must reach them whatever their names."""
    checks = ComplianceCheck.objects.filter(check_type=CheckType.SANCTIONS, result=CheckResult.ERROR, details__error="lists_not_loaded")
    return set(checks.exclude(entity__status=EntityStatus.REJECTED).order_by().values_list("entity_id", flat=True).distinct())


def list_versions(versions: dict[str, int | None]) -> dict[str, SanctionsListVersion | None]:
    """{source: the list's version of that number} (None number: the latest); None when the list has no
    such version (a list loaded before versions were recorded, or deleted since)."""
    found = {}
    for source, number in versions.items():
        rows = SanctionsListVersion.objects.filter(sanctions_list__source=source).select_related("sanctions_list")
        found[source] = (rows.filter(number=number) if number is not None else rows).order_by("-number").first()
    return found


def list_version_number(*, source: str, content_hash: str) -> int | None:
    """The number of the list's latest version with this content hash (a ListChange that did not say)."""
    return (SanctionsListVersion.objects.filter(sanctions_list__source=source, content_hash=content_hash)
            .order_by("-number").values_list("number", flat=True).first())


def list_entry_uids(source: str) -> list[str]:
    return list(SanctionsEntry.objects.filter(sanctions_list__source=source).order_by("uid").values_list("uid", flat=True))


def lists_of(sources) -> dict[str, SanctionsList]:
    return {row.source: row for row in SanctionsList.objects.filter(source__in=list(sources))}


def lists_rescreen_pending(*, changed_before=None) -> dict:
    """{list id: rescreen_pending_since} of the sanctions lists whose change has not been re-screened
    against yet (a system-wide job); with `changed_before`, only those changed before then."""
    return dict(_lists_pending(changed_before).values_list("pk", "rescreen_pending_since"))


def list_sources_rescreen_pending(*, changed_before=None) -> list[str]:
    """The sources of the lists `lists_rescreen_pending` returns."""
    return list(_lists_pending(changed_before).values_list("source", flat=True))


def _lists_pending(changed_before) -> QuerySet[SanctionsList]:
    lists = SanctionsList.objects.filter(rescreen_pending_since__isnull=False)
    if changed_before is not None:
        lists = lists.filter(rescreen_pending_since__lt=changed_before)
    return lists.order_by("source")


def list_versions_not_rescreened(*, loaded_before, loaded_after, covered_sources=()) -> list[tuple[str, int]]:
    """(source, number) of the list versions whose targeted re-screening never ran (`rescreened_at` unset:
    its message was lost, and a later load re-screened only its own diff), loaded between `loaded_after`
    and `loaded_before`, oldest first (a system-wide job). The latest version of a list in
    `covered_sources` is left out: the marker sweep re-screens it (as the list's latest)."""
    latest = SanctionsListVersion.objects.filter(sanctions_list=OuterRef("sanctions_list")).order_by("-number").values("number")[:1]
    versions = (SanctionsListVersion.objects.filter(rescreened_at__isnull=True, loaded_at__lt=loaded_before, loaded_at__gte=loaded_after)
                .annotate(latest=Subquery(latest)))
    if covered_sources:
        versions = versions.exclude(sanctions_list__source__in=list(covered_sources), number=F("latest"))
    return list(versions.order_by("loaded_at", "sanctions_list__source", "number").values_list("sanctions_list__source", "number"))


def entity_ids_to_rescreen_for_list(*, organization_id, source: str, enabled: bool) -> list:
    """The entities of one organization (both modes, not rejected) to re-screen once it turned the list
    `source` on (`enabled`: all of them, any could be on it) or off (those with an active hit on that
    list: the hit goes at the re-screening). Oldest first."""
    entities = _rescreenable_entities().filter(organization_id=organization_id)
    if not enabled:
        entities = entities.filter(pk__in=ScreeningHit.objects.filter(organization_id=organization_id, active=True, source=source)
                                   .values("entity_id"))
    return list(entities.order_by("created_at", "id").values_list("pk", flat=True))


def entity_ids_unscreened(*, older_than, limit: int = 500) -> list:
    """Entities created before `older_than` with no sanctions check and no screening queued or running (leases
    live: onboarding.services.screening_claims)."""
    now = timezone.now()
    return list(Entity.objects.filter(created_at__lt=older_than).exclude(checks__check_type=CheckType.SANCTIONS)
                .exclude(screening_queued_until__gte=now).exclude(screening_running_until__gte=now)
                .order_by("created_at", "id").values_list("pk", flat=True)[:limit])


def entity_of(*, organization, mode: str, entity_id) -> Entity | None:
    return Entity.objects.filter(pk=entity_id, organization=organization, mode=mode).first()


def checks_of_entity(entity: Entity, *, check_type: str | None = None, result: str | None = None) -> QuerySet[ComplianceCheck]:
    checks = ComplianceCheck.objects.filter(entity=entity, organization=entity.organization_id, mode=entity.mode)
    if check_type:
        checks = checks.filter(check_type=check_type)
    if result:
        checks = checks.filter(result=result)
    return checks.order_by("-created_at", "-id")


def latest_check(entity: Entity, check_type: str) -> ComplianceCheck | None:
    return checks_of_entity(entity, check_type=check_type).first()


def _covers_names(check: ComplianceCheck) -> bool:
    """An external result, or a built-in run with a name (the entity's or an owner's) among its subjects:
    a wallet-only run (a wallet added later) says nothing about the names."""
    subjects = (check.details or {}).get("subjects") or []
    return check.external or not (subjects and all(subject.get("type") == HitSubject.WALLET for subject in subjects))


def latest_name_screening(entity: Entity) -> ComplianceCheck | None:
    """The latest sanctions check that counts and screened the entity's names (its own and its owners'):
    an external result, or a built-in run with a name among its subjects. A wallet-only run (a wallet
    added later) says nothing about the names, so it must not stand in for the run that screened them."""
    return _latest_name_screening(entity.pk)


def _latest_name_screening(entity_id) -> ComplianceCheck | None:
    checks = (ComplianceCheck.objects.filter(entity_id=entity_id, check_type=CheckType.SANCTIONS, counts_toward_status=True)
              .only("id", "entity_id", "result", "summary", "external", "provider", "details", "created_at")
              .order_by("-created_at", "-id"))
    return next((check for check in checks.iterator(chunk_size=20) if _covers_names(check)), None)


@dataclass(frozen=True)
class SanctionsScreenings:
    """What decides an entity's sanctions screening: the latest check that counts (whatever it covered)
    and the latest that covered the names (`latest_name_screening`); the same check when it covered them."""

    last: ComplianceCheck | None
    names: ComplianceCheck | None

    def failed(self) -> list[ComplianceCheck]:
        """The names' screening and the latest run, those of them that did not complete (`error`)."""
        return [check for check in dict.fromkeys((self.names, self.last)) if check is not None and check.result == CheckResult.ERROR]

    def unreadable(self) -> list[str]:
        """The names the names' screening could not read (a built-in run's `review` with no hit to decide)."""
        subjects = ((self.names.details or {}).get("subjects") or []) if self.names is not None else []
        return [subject["value"] for subject in subjects if subject.get("unreadable")]


def sanctions_screenings(entity_ids) -> dict:
    """{entity id: SanctionsScreenings} of the entities with a sanctions check that counts. One read for
    them all (the latest check per entity, one index probe each); only an entity whose latest run was
    wallet-only walks back to the run that screened its names."""
    latest = (ComplianceCheck.objects.filter(entity=OuterRef("pk"), check_type=CheckType.SANCTIONS, counts_toward_status=True)
              .order_by("-created_at", "-id").values("pk")[:1])
    latest_ids = dict(Entity.objects.filter(pk__in=entity_ids).annotate(latest=Subquery(latest)).filter(latest__isnull=False)
                      .values_list("pk", "latest"))
    checks = ComplianceCheck.objects.only("id", "entity_id", "result", "summary", "external", "provider", "details", "created_at")
    screenings = {}
    for check in checks.filter(pk__in=latest_ids.values()):
        names = check if _covers_names(check) else _latest_name_screening(check.entity_id)
        screenings[check.entity_id] = SanctionsScreenings(last=check, names=names)
    return screenings


def sanctions_screenings_of(entity: Entity) -> SanctionsScreenings:
    return sanctions_screenings([entity.pk]).get(entity.pk) or SanctionsScreenings(last=None, names=None)


def latest_conclusive_check(entity: Entity, check_type: str, *conditions, **filters) -> ComplianceCheck | None:
    """The latest check of the type that counts toward the entity's status and reached a result
    (pass, review or fail: not an error or an unconfigured provider), among those matching
    `conditions` (Q objects) and `filters`."""
    return (ComplianceCheck.objects.filter(*conditions, entity=entity, check_type=check_type, counts_toward_status=True,
                                           result__in=CONCLUSIVE_RESULTS, **filters)
            .order_by("-created_at", "-id").first())


def hits_of_entity(entity: Entity, *, status: str | None = None, include_inactive: bool = False) -> QuerySet[ScreeningHit]:
    hits = ScreeningHit.objects.filter(entity=entity, organization=entity.organization_id, mode=entity.mode)
    if not include_inactive:
        hits = hits.filter(active=True)
    if status:
        hits = hits.filter(status=status)
    return (hits.select_related("false_positive", "check_run").defer("check_run__details", "check_run__raw_response")
            .order_by("-created_at", "-score", "id"))


def risk_history_of(entity: Entity) -> QuerySet[RiskAssessment]:
    return RiskAssessment.objects.filter(entity=entity, organization=entity.organization_id, mode=entity.mode).order_by(
        "-created_at", "-id")


def audit_of_entity(entity: Entity) -> QuerySet[AuditLogEntry]:
    return AuditLogEntry.objects.filter(organization=entity.organization_id, object_type="entity",
                                        object_id=str(entity.pk)).order_by("-created_at", "-id")


# --- KYB review ------------------------------------------------------------------------------------

def kyb_policy(*, organization_id) -> KybPolicy:
    """The organization's KYB review policy, or the defaults (an unsaved row) when it has none."""
    return KybPolicy.objects.filter(organization_id=organization_id).first() or KybPolicy(organization_id=organization_id)


def _kyb_due_under(policy: KybPolicy, now) -> Q:
    """Verified long enough ago to be due under this policy, each tier by its own period."""
    due = Q()
    for tier in (*RiskTier.values, ""):
        due |= Q(risk_tier=tier, kyb_verified_at__lte=now - timedelta(days=valid_days(policy, tier)))
    return due


def entity_ids_kyb_due(*, now, limit: int = 500) -> list:
    """Active entities (every organization) whose passing KYB verification fell due and has not been
    marked expired: the sweep's work, oldest verification first."""
    policies = list(KybPolicy.objects.all())
    custom = [policy.organization_id for policy in policies]
    due = _kyb_due_under(KybPolicy(), now) & ~Q(organization_id__in=custom)
    for policy in policies:
        due |= Q(organization_id=policy.organization_id) & _kyb_due_under(policy, now)
    candidates = Entity.objects.filter(status=EntityStatus.ACTIVE, kyb_verified_at__isnull=False, kyb_expired_at__isnull=True)
    return list(candidates.filter(due).order_by("kyb_verified_at", "id").values_list("id", flat=True)[:limit])


# --- The lists an organization screens against -------------------------------------------------------

# How long a process keeps an organization's lists (screening_sources). The service that changes them
# drops its own process's copy at once; the other processes see the change within this time, as they
# see a reloaded list within SANCTIONS_INDEX_CHECK_SECONDS. Settings may override it.
SOURCES_CACHE_SECONDS = 10.0
_SOURCES_CACHE_SIZE = 10_000
_sources_cache: dict[str, tuple[float, frozenset[str]]] = {}


def screening_sources(organization) -> frozenset[str]:
    """The loaded lists (SanctionsList rows) the organization screens against: those its settings
    turn on (ScreeningListSetting), and where it has no setting, those on by default
    (registry.default_enabled: the bundled lists). `organization` is an Organization or its id.

    Read at every screening run, so kept per process for SOURCES_CACHE_SECONDS (one query when it is
    read: about 0.5 ms on SQLite, against a few microseconds from the cache)."""
    key = str(getattr(organization, "pk", organization))
    now = time.monotonic()
    cached = _sources_cache.get(key)
    if cached is not None and cached[0] > now:
        return cached[1]
    chosen = ScreeningListSetting.objects.filter(organization=key, source=OuterRef("source")).values("enabled")[:1]
    rows = SanctionsList.objects.annotate(chosen=Subquery(chosen)).values_list("source", "chosen")
    sources = frozenset(source for source, enabled in rows if (default_enabled(source) if enabled is None else enabled))
    if len(_sources_cache) >= _SOURCES_CACHE_SIZE:
        _sources_cache.clear()
    _sources_cache[key] = (now + float(getattr(settings, "SCREENING_SOURCES_CACHE_SECONDS", SOURCES_CACHE_SECONDS)), sources)
    return sources


def screening_sources_forget(organization=None) -> None:
    """Drop this process's copy of the organization's lists (of every organization's with None)."""
    if organization is None:
        _sources_cache.clear()
    else:
        _sources_cache.pop(str(getattr(organization, "pk", organization)), None)


@dataclass(frozen=True)
class ScreeningListView:
    """One list as the console shows it to an organization: what it is, whether and when it was
    loaded, and whether the organization screens against it (its own choice, or the default)."""

    source: str
    name: str
    category: str
    publisher: str
    loaded: bool
    published_at: object  # datetime or None
    loaded_at: object
    entry_count: int | None
    default: bool  # screened when the organization has not chosen
    chosen: bool | None  # the organization's setting, None when it has none
    updated_by: str
    updated_at: object

    @property
    def enabled(self) -> bool:
        return self.default if self.chosen is None else self.chosen

    @property
    def screened(self) -> bool:
        """Enabled and loaded: what a screening of the organization's entities uses."""
        return self.enabled and self.loaded


def screening_list_views(organization) -> list[ScreeningListView]:
    """Every list known to the registry or loaded, sanctions lists first, then by name."""
    specs = {spec.source: spec for spec in known_specs()}
    loaded = {row.source: row for row in SanctionsList.objects.all()}
    chosen = {row.source: row for row in ScreeningListSetting.objects.filter(organization=organization)}
    views = []
    for source in specs.keys() | loaded.keys():
        spec, row, setting = specs.get(source), loaded.get(source), chosen.get(source)
        views.append(ScreeningListView(
            source=source, name=list_name(source), category=row.category if row else spec.category,
            publisher=spec.publisher if spec else "", loaded=row is not None, published_at=row.published_at if row else None,
            loaded_at=row.loaded_at if row else None, entry_count=row.entry_count if row else None,
            default=default_enabled(source), chosen=setting.enabled if setting else None,
            updated_by=setting.updated_by if setting else "", updated_at=setting.updated_at if setting else None,
        ))
    return sorted(views, key=lambda view: (view.category != ListCategory.SANCTIONS, view.name.lower(), view.source))
