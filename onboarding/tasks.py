"""Celery tasks: thin wrappers taking ids (STYLE "Side effects")."""

import logging
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from onboarding import selectors
from onboarding.sanctions import refresh
from onboarding.screening import rescreen
from onboarding.services import checks, kyb, screening

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
    sanctions re-screening task each; then the lists' rescreen markers seen at the start are cleared."""
    pending = selectors.lists_rescreen_pending()
    entity_ids = selectors.entity_ids_to_rescreen()
    _rescreen(entity_ids)
    screening.lists_rescreen_done(pending=pending)
    logger.info("re-screening all %d entities", len(entity_ids))


@shared_task(name="onboarding.sweep_rescreen_pending", ignore_result=True, time_limit=60)
def sweep_rescreen_pending() -> None:
    """Beat: a list changed ten minutes ago or more and still not re-screened against (the loading
    process died before its lists-changed callbacks, or the message was lost): re-screen now what
    the list's latest version can affect."""
    sources = selectors.list_sources_rescreen_pending(changed_before=timezone.now() - timedelta(minutes=10))
    if sources:
        rescreen_for_changes.delay(dict.fromkeys(sources))


@shared_task(name="onboarding.sweep_unscreened", ignore_result=True, time_limit=300)
def sweep_unscreened() -> None:
    """Beat: screen entities whose screening message was lost (no sanctions check two minutes on)."""
    for entity_id in selectors.entity_ids_unscreened(older_than=timezone.now() - timedelta(minutes=2)):
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
def refresh_sanctions_list(source: str, trigger: str = "beat") -> None:
    """Download and load one list from its publisher (onboarding.sanctions.refresh); the outcome is
    recorded by the service (refresh log, the list's last refresh, /health)."""
    done = refresh.sanctions_list_refresh(source=source, trigger=trigger)
    log = logger.info if done.outcome in refresh.GOOD_OUTCOMES else logger.warning
    log("sanctions refresh: %s", refresh.outcome_line(done))
