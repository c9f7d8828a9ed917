"""Celery tasks: thin wrappers taking ids (STYLE "Side effects")."""

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from onboarding import selectors
from onboarding.sanctions import refresh
from onboarding.screening import rescreen
from onboarding.services import checks, kyb, screening, screening_claims

logger = logging.getLogger(__name__)


@shared_task(name="onboarding.screen_entity", ignore_result=True, time_limit=300, soft_time_limit=280)
def screen_entity(entity_id: str, trigger: str = "onboarding", providers: bool = True) -> None:
    """Sanctions screening of the entity's names and wallets; then PEP and adverse media."""
    screening.entity_screen(entity_id=entity_id, trigger=trigger)
    if providers:
        checks.provider_checks_run(entity_id=entity_id)


@shared_task(name="onboarding.screen_wallet", ignore_result=True, time_limit=120)
def screen_wallet(wallet_id: str) -> None:
    screening.wallet_screen(wallet_id=wallet_id)


def _rescreen(entity_ids) -> None:
    for entity_id in entity_ids:
        screen_entity.delay(str(entity_id), trigger="lists_changed", providers=False)


@shared_task(name="onboarding.rescreen_for_changes", ignore_result=True, time_limit=900, soft_time_limit=880)
def rescreen_for_changes(versions: dict) -> None:
    """After sanctions lists changed ({source: version number}, None for the latest): one sanctions
    re-screening task per entity the versions' diffs can affect (onboarding.screening.rescreen), then
    the markers those loads set are cleared."""
    plan = rescreen.plan_for_versions(versions)
    _rescreen(sorted(plan.selection.entity_ids, key=str))
    screening.list_versions_rescreened(changes=plan.changes, entities=len(plan.selection.entity_ids))
    screening.lists_rescreen_done(pending=plan.markers)
    logger.info("%s", plan.describe())


@shared_task(name="onboarding.rescreen_all", ignore_result=True, time_limit=600)
def rescreen_all() -> None:
    """Every entity still in play, whatever changed (an operator's `rescreen_entities --all`): one
    sanctions re-screening task each; then the lists' rescreen markers seen at the start are cleared,
    and the list versions loaded before the start that were never re-screened are marked re-screened
    (this covers their diffs: the beat sweep has nothing left to do for them)."""
    started = timezone.now()
    pending = selectors.lists_rescreen_pending()
    entity_ids = selectors.entity_ids_to_rescreen()
    _rescreen(entity_ids)
    screening.lists_rescreen_done(pending=pending)
    screening.list_versions_rescreened_all(loaded_before=started, entities=len(entity_ids))
    logger.info("re-screening all %d entities", len(entity_ids))


@shared_task(name="onboarding.rescreen_organization_list", ignore_result=True, time_limit=600, soft_time_limit=580)
def rescreen_organization_list(organization_id: str, source: str, enabled: bool) -> None:
    """After an organization turned the list `source` on or off (screening_list_set): re-screen its
    entities (both modes) the choice can affect. Turned on: every entity not rejected (any may be on
    the list); turned off: those with an active hit on that list (the re-screening deactivates it). Each
    screening waits until every worker's copy of the organization's lists has expired."""
    entity_ids = selectors.entity_ids_to_rescreen_for_list(organization_id=organization_id, source=source, enabled=enabled)
    # A worker keeps an organization's lists for up to SOURCES_CACHE_SECONDS (selectors.screening_sources):
    # screened sooner, an entity could be screened against the lists of before the change.
    countdown = float(getattr(settings, "SCREENING_SOURCES_CACHE_SECONDS", selectors.SOURCES_CACHE_SECONDS)) + 1
    for entity_id in entity_ids:
        screen_entity.apply_async(args=(str(entity_id),), kwargs={"trigger": "lists_changed", "providers": False}, countdown=countdown)
    logger.info("re-screening %d entities of organization %s: list %s turned %s", len(entity_ids), organization_id, source,
                "on" if enabled else "off")


# A list version loaded this long ago and not re-screened yet: its re-screening message was lost.
RESCREEN_GRACE = timedelta(minutes=10)
# Versions loaded longer ago than this many days are left alone by the sweep (SANCTIONS_RESCREEN_SWEEP_DAYS).
RESCREEN_SWEEP_DAYS = 7


@shared_task(name="onboarding.sweep_rescreen_pending", ignore_result=True, time_limit=60)
def sweep_rescreen_pending() -> None:
    """Beat: re-screen what a list change ten minutes ago or more can affect when its re-screening never ran.

    1. Lists still marked (`rescreen_pending_since`: the loading process died before its lists-changed
       callbacks, or the message was lost): what the list's latest version can affect; the marker is
       cleared as before (onboarding.screening.rescreen.plan_for_versions).
    2. List versions never re-screened (`rescreened_at` unset): a version whose message was lost while a
       later load re-screened its own diff and cleared the marker. One task per version, oldest first,
       with its number; the latest version of a list already sent in 1 is not sent twice.

    2 looks back SANCTIONS_RESCREEN_SWEEP_DAYS days (default 7) only. The versions loaded before
    `rescreened_at` was set by every targeted re-screening (or re-screened by `rescreen_entities --all`
    before it marked them) have it unset forever: without the bound, the first sweep would queue every
    one of them, a list's first load with the rest. A lost message is found within minutes; a version
    older than the bound is an operator's `rescreen_entities --list SOURCE --list-version N`. A version
    sent once is not sent again: its task sets `rescreened_at`."""
    now = timezone.now()
    loaded_before = now - RESCREEN_GRACE
    sources = selectors.list_sources_rescreen_pending(changed_before=loaded_before)
    if sources:
        rescreen_for_changes.delay(dict.fromkeys(sources))
    days = int(getattr(settings, "SANCTIONS_RESCREEN_SWEEP_DAYS", RESCREEN_SWEEP_DAYS))
    for source, number in selectors.list_versions_not_rescreened(loaded_before=loaded_before, loaded_after=now - timedelta(days=days),
                                                                 covered_sources=sources):
        rescreen_for_changes.delay({source: number})


@shared_task(name="onboarding.sweep_unscreened", ignore_result=True, time_limit=300)
def sweep_unscreened() -> None:
    """Beat: screen entities whose screening message was lost (no sanctions check two minutes on, and no
    screening queued or running: each sent task takes the entity's queued lease, onboarding.services.screening_claims)."""
    for entity_id in selectors.entity_ids_unscreened(older_than=timezone.now() - timedelta(minutes=2)):
        if screening_claims.claim_queued(entity_id):
            screen_entity.delay(str(entity_id), trigger="sweep")


@shared_task(name="onboarding.sweep_kyb_expiry", ignore_result=True, time_limit=600, soft_time_limit=580)
def sweep_kyb_expiry() -> None:
    """Beat: mark KYB verifications past their review period expired and send account.kyb_expired."""
    kyb.kyb_expiry_sweep()


@shared_task(name="onboarding.refresh_sanctions", ignore_result=True, time_limit=60)
def refresh_sanctions() -> None:
    """Beat (every SANCTIONS_REFRESH_INTERVAL): one refresh task per scheduled list, each with its own
    time limit, so that a slow publisher holds up only its own list. A list that failed is simply
    tried again at the next run."""
    for source in refresh.scheduled_sources():
        refresh_sanctions_list.delay(source)


@shared_task(name="onboarding.refresh_sanctions_list", ignore_result=True, time_limit=1800, soft_time_limit=1740)
def refresh_sanctions_list(source: str, trigger: str = "beat", actor_id: str | None = None) -> None:
    """Download and load one list from its publisher (onboarding.sanctions.refresh); the outcome is
    recorded by the service (refresh log, the list's last refresh, /health). `actor_id`: the console
    user who asked, for the audit trail."""
    from accounts.models import User

    actor = User.objects.filter(pk=actor_id).first() if actor_id else None
    done = refresh.sanctions_list_refresh(source=source, trigger=trigger, actor=actor)
    log = logger.info if done.outcome in refresh.GOOD_OUTCOMES else logger.warning
    log("sanctions refresh: %s", refresh.outcome_line(done))
