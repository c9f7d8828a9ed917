"""Monitoring's Celery tasks: thin wrappers taking ids."""

from celery import shared_task
from django.db import OperationalError

from monitoring import risk_feed


# One transaction for all the entities: a deadlock victim or a lost connection rolls back the
# whole recomputation, which is idempotent, so the task runs again (after 1, 2, 4, ... s).
@shared_task(name="monitoring.recompute_entity_risk", ignore_result=True, time_limit=120, autoretry_for=(OperationalError,),
             retry_backoff=1, retry_backoff_max=60, retry_jitter=True, max_retries=5)
def recompute_entity_risk(entity_ids: list[str], reason: str) -> None:
    """After alerts were opened or disposed: the entities' risk scores take the new alert history in."""
    risk_feed.recompute(entity_ids, reason=reason)


@shared_task(name="monitoring.match_314a_file", ignore_result=True, time_limit=900, soft_time_limit=870)
def match_314a_file(file_id: str) -> None:
    """A 314(a) list uploaded: match its subjects against the organization's entities."""
    from monitoring.fincen314a.services import file_match

    file_match(file_id=file_id)


@shared_task(name="monitoring.sweep_314a_files", ignore_result=True, time_limit=60)
def sweep_314a_files() -> None:
    """Beat: hand again the 314(a) files still processing ten minutes after they were handed to a
    worker (a lost message, a killed worker). Matching a completed file does nothing."""
    from datetime import timedelta

    from django.utils import timezone

    from monitoring.fincen314a.services import files_to_resend

    for file_id in files_to_resend(older_than=timezone.now() - timedelta(minutes=10)):
        match_314a_file.delay(file_id)


@shared_task(name="monitoring.expire_314b_requests", ignore_result=True, time_limit=120)
def expire_314b_requests() -> None:
    """Beat: 314(b) requests still sent or received after their response deadline become expired."""
    from monitoring.fincen314b.services import requests_expire

    requests_expire()


@shared_task(name="monitoring.run_backtest", ignore_result=True, time_limit=900, soft_time_limit=870)
def run_backtest(job_id: str) -> None:
    """A backtest too large for a request (monitoring.backtest.services.SYNC_MAX_EVENTS)."""
    from monitoring.backtest.services import backtest_job_run

    backtest_job_run(job_id=job_id)


@shared_task(name="monitoring.sweep_backtest_jobs", ignore_result=True, time_limit=60)
def sweep_backtest_jobs() -> None:
    """Beat: hand again the backtest jobs still queued two minutes after they were handed to a worker."""
    from datetime import timedelta

    from django.utils import timezone

    from monitoring.backtest.services import jobs_to_resend

    for job_id in jobs_to_resend(older_than=timezone.now() - timedelta(minutes=2)):
        run_backtest.delay(job_id)


# The chain indexer's tasks live in its package; imported here so that the worker's autodiscovery registers them.
from monitoring.indexer.tasks import index_chain, index_chains  # noqa: E402, F401
