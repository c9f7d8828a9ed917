"""Every sweep task is on beat's schedule: a sweep nobody schedules never re-sends what a lost
message or a failed attempt left due (common.sweep_emails was missing)."""

from celery import current_app

from config.celery import app


def test_every_sweep_task_is_scheduled():
    app.loader.import_default_modules()
    sweeps = {name for name in current_app.tasks if ".sweep_" in name}
    scheduled = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert "common.sweep_emails" in sweeps
    assert sweeps - scheduled == set()
