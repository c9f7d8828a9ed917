import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("compliance")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Static beat entries; django-celery-beat's DatabaseScheduler copies them into its tables.
app.conf.beat_schedule = {
    **(app.conf.beat_schedule or {}),
    "webhooks.sweep_deliveries": {"task": "webhooks.sweep_deliveries", "schedule": 5.0},
    "webhooks.sweep_callbacks": {"task": "webhooks.sweep_callbacks", "schedule": 60.0},
    "common.sweep_emails": {"task": "common.sweep_emails", "schedule": 60.0},
    "onboarding.sweep_unscreened": {"task": "onboarding.sweep_unscreened", "schedule": 300.0},
    "onboarding.sweep_rescreen_pending": {"task": "onboarding.sweep_rescreen_pending", "schedule": 300.0},
    "onboarding.sweep_kyb_expiry": {"task": "onboarding.sweep_kyb_expiry", "schedule": 3600.0},
    "filings.sweep_sla_breaches": {"task": "filings.sweep_sla_breaches", "schedule": 60.0},
    "compliance.sweep_transfers": {"task": "compliance.sweep_transfers", "schedule": 60.0},
    "compliance.publish_status": {"task": "compliance.publish_status", "schedule": 5.0},  # every enabled chain
    "compliance.republish_expiring": {"task": "compliance.republish_expiring", "schedule": 3600.0},  # statuses near expiry
    "monitoring.sweep_314a_files": {"task": "monitoring.sweep_314a_files", "schedule": 120.0},
    "monitoring.sweep_backtest_jobs": {"task": "monitoring.sweep_backtest_jobs", "schedule": 120.0},
    "monitoring.expire_314b_requests": {"task": "monitoring.expire_314b_requests", "schedule": 300.0},
}


@app.on_after_finalize.connect
def _settings_schedules(sender, **kwargs):
    """Entries whose schedule is a Django setting: added when the app is finalized (beat and the
    worker do it at start), since this module is imported while the settings are being read."""
    from django.conf import settings

    # The sanctions lists from their publishers (docs/screening.md "Refreshing the lists").
    sender.conf.beat_schedule["onboarding.refresh_sanctions"] = {
        "task": "onboarding.refresh_sanctions", "schedule": float(settings.SANCTIONS_REFRESH_INTERVAL)}
    # The chain indexer: a run for every enabled chain (docs/indexer.md).
    sender.conf.beat_schedule["monitoring.index_chains"] = {
        "task": "monitoring.index_chains", "schedule": float(settings.INDEXER_INTERVAL_SECONDS)}
