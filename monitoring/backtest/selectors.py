"""Backtest job reads, scoped to one organization and mode."""

from monitoring.models import BacktestJob


def backtest_job_of(*, organization, mode: str, job_id) -> BacktestJob | None:
    return BacktestJob.objects.filter(organization=organization, mode=mode, pk=job_id).first()
