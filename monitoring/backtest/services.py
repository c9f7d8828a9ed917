"""Backtests: a rule's candidate parameters (or a grid of them) against its current settings on the
stored history of a range, scored against the organization's labels. Creates nothing but, for a
large range, the job that runs it in a worker (docs/backtests.md)."""

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import ValidationFailed
from common.outbox import enqueue_on_commit
from common.permissions import require_role
from common.principal import Principal
from monitoring.backtest import sweep
from monitoring.backtest.metrics import Population
from monitoring.backtest.replay import Outcomes, range_batch, replay
from monitoring.configuration.selectors import engine_settings, rule_or_404, rule_settings_of
from monitoring.configuration.services import merged_overrides
from monitoring.engine.gcpause import gc_paused
from monitoring.labels.selectors import entity_labels, rule_dispositions
from monitoring.models import BacktestJob
from monitoring.models.backtests import JobStatus
from organizations.choices import Role

BACKTEST_ROLE = Role.ADMIN
MAX_RANGE = timedelta(days=366)
# A range holding more events than this is backtested in a worker (202 and a job to poll): about
# two seconds of work on a loaded machine, what a request may take.
SYNC_MAX_EVENTS = 20_000


def _checked_range(start: datetime, end: datetime) -> None:
    if end <= start or end - start > MAX_RANGE:
        raise ValidationFailed.for_field("to_date", f"to_date must be after from_date and at most {MAX_RANGE.days} days later.")


def _checked_sweep(grid: dict | None, objective: dict | None) -> tuple[list[dict], dict | None]:
    """The grid's combinations and the objective, checked; ([], None) without a grid."""
    if grid is None:
        if objective:
            raise ValidationFailed.for_field("objective", "An objective chooses among the combinations of a grid: send a grid too.")
        return [], None
    return sweep.combinations(grid), sweep.check_objective(objective)


def rule_backtest(*, principal: Principal, rule_id, parameters: dict, start: datetime, end: datetime, grid: dict | None = None,
                  objective: dict | None = None) -> dict:
    """The report: per variant what it would have raised and how it scores against the labels."""
    require_role(principal, BACKTEST_ROLE)
    rule = rule_or_404(rule_id)
    _checked_range(start, end)
    stored = rule_settings_of(principal.organization).get(rule.code)
    stored_parameters = stored.parameters if stored else {}
    candidate = merged_overrides(rule, stored_parameters, parameters)
    combos, objective = _checked_sweep(grid, objective)
    candidates = [_field_errors_in("grid", lambda combo=combo: merged_overrides(rule, candidate, combo)) for combo in combos]
    variants = [_settings(principal, rule, parameters) for parameters in (None, candidate, *candidates)]
    with gc_paused():  # (the replay's objects form no cycles: monitoring.engine.gcpause)
        batch = range_batch(principal, start, end)
        current, proposed, *swept = replay(principal, batch, variants, start, end)
    population = Population.of(batch.entity_ids, entity_labels(organization=principal.organization, mode=principal.mode))
    report = {
        "rule": {"number": rule.number, "code": rule.code}, "from_date": start, "to_date": end,
        "events_replayed": len(batch.tx_rows) + len(batch.fiat_rows),
        "parameters": {"candidate": _shown(rule, candidate), "current": _shown(rule, stored_parameters)},
        "totals": {name: _totals(found) for name, found in (("candidate", proposed), ("current", current))},
        "labels": population.summary(),
        "metrics": {name: _scored(population, found) for name, found in (("candidate", proposed), ("current", current))},
        "dispositions": rule_dispositions(organization=principal.organization, mode=principal.mode, rule_code=rule.code,
                                          start=start, end=end),
        "entities": _entities(proposed, current) if grid is None else [],
    }
    if grid is not None:
        rows = [{"parameters": _shown(rule, parameters), "metrics": _scored(population, found)}
                for parameters, found in zip(candidates, swept, strict=True)]
        report["sweep"] = {"objective": objective, "combinations": rows, "best": sweep.best(rows, objective)}
    return report


def _field_errors_in(prefix: str, make):
    """Parameter errors of a grid combination, named under `grid`."""
    try:
        return make()
    except ValidationFailed as error:
        raise ValidationFailed(details=[{**detail, "field": str(detail.get("field") or "").replace("parameters", prefix, 1)}
                                        for detail in error.details]) from None


def _settings(principal: Principal, rule, parameters: dict | None):
    """Only this rule, enabled whatever is stored; None keeps the stored parameters (the current side)."""
    changes = {"enabled": True} if parameters is None else {"enabled": True, "parameters": parameters}
    return engine_settings(principal.organization, only=[rule.code], overrides={rule.code: changes})


def _shown(rule, overrides: dict) -> dict:
    return rule.params_json(rule.effective_params(overrides))


def _totals(found: Outcomes) -> dict:
    return {"alerts": sum(1 for tally in found.tallies.values() if tally.hits), "hits": sum(t.hits for t in found.tallies.values()),
            "skipped": found.skipped, "skipped_by_reason": dict(found.skipped_by_reason.most_common())}


def _scored(population: Population, found: Outcomes) -> dict:
    flagged = {entity for entity, tally in found.tallies.items() if tally.hits}
    return population.score(flagged, alerts=len(flagged))


def _entities(candidate: Outcomes, current: Outcomes) -> list[dict]:
    rows = []
    for entity_id in sorted(set(candidate.tallies) | set(current.tallies)):
        now, then = candidate.tallies.get(entity_id), current.tallies.get(entity_id)
        change = "unchanged" if bool(now) == bool(then) else "new" if now else "removed"
        rows.append({"entity_id": entity_id, "candidate": _tally(now), "current": _tally(then), "change": change})
    return rows


def _tally(tally) -> dict:
    if tally is None:
        return {"alerts": 0, "hits": 0, "first_triggered_at": None, "last_triggered_at": None}
    return tally.as_dict()


# --- In a worker -------------------------------------------------------------------------------

def needs_worker(*, principal: Principal, start: datetime, end: datetime) -> bool:
    """Whether the range is large enough to be backtested in a worker."""
    from monitoring.models import FiatEvent, Transaction

    scope = {"organization": principal.organization, "mode": principal.mode, "timestamp__gte": start, "timestamp__lte": end}
    count = Transaction.objects.filter(**scope, orphaned=False)[:SYNC_MAX_EVENTS + 1].count()
    return count + FiatEvent.objects.filter(**scope)[:SYNC_MAX_EVENTS + 1].count() > SYNC_MAX_EVENTS


@transaction.atomic
def backtest_job_create(*, principal: Principal, rule_id, parameters: dict, start: datetime, end: datetime, grid: dict | None = None,
                        objective: dict | None = None) -> BacktestJob:
    """Check what can be checked now (role, rule, range, parameters, grid), store the job queued
    and hand it to a worker on commit."""
    require_role(principal, BACKTEST_ROLE)
    rule = rule_or_404(rule_id)
    _checked_range(start, end)
    stored = rule_settings_of(principal.organization).get(rule.code)
    candidate = merged_overrides(rule, stored.parameters if stored else {}, parameters)
    for combo in _checked_sweep(grid, objective)[0]:
        _field_errors_in("grid", lambda combo=combo: merged_overrides(rule, candidate, combo))
    request = {"parameters": parameters, "from_date": start.isoformat(), "to_date": end.isoformat(), "grid": grid,
               "objective": objective}
    job = BacktestJob.objects.create(organization=principal.organization, mode=principal.mode, rule_code=rule.code, request=request,
                                     created_by=principal.user, enqueued_at=timezone.now())
    audit_record(actor=principal, action="backtest.queued", object_type="backtest_job", object_id=job.pk,
                 organization=principal.organization, mode=principal.mode, after={"rule": rule.code, **request})
    enqueue_on_commit(_tasks().run_backtest, str(job.pk))
    return job


def _tasks():
    from monitoring import tasks  # the task calls this module: imported late to break the cycle

    return tasks


def backtest_job_run(*, job_id) -> None:
    """Run a queued job (a second delivery of a job already taken does nothing) and store its
    report, or the error a request would have answered."""
    now = timezone.now()
    if not BacktestJob.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(status=JobStatus.RUNNING, started_at=now):
        return
    job = BacktestJob.objects.select_related("organization").get(pk=job_id)
    request = job.request
    principal = Principal.system(job.organization, job.mode)
    try:
        report = rule_backtest(principal=principal, rule_id=job.rule_code, parameters=request["parameters"],
                               start=datetime.fromisoformat(request["from_date"]), end=datetime.fromisoformat(request["to_date"]),
                               grid=request.get("grid"), objective=request.get("objective"))
    except ValidationFailed as error:
        BacktestJob.objects.filter(pk=job_id).update(status=JobStatus.FAILED, error={"details": error.details},
                                                     finished_at=timezone.now())
        return
    BacktestJob.objects.filter(pk=job_id).update(status=JobStatus.SUCCEEDED, result=stored_report(report), finished_at=timezone.now())


def stored_report(value):
    """The report as JSON, datetimes as the API writes them (UTC with Z)."""
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, dict):
        return {key: stored_report(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [stored_report(item) for item in value]
    return value


def jobs_to_resend(*, older_than: datetime) -> list[str]:
    """Queued jobs handed to a worker before `older_than` and never taken (a lost message)."""
    return [str(pk) for pk in BacktestJob.objects.filter(status=JobStatus.QUEUED, enqueued_at__lt=older_than).order_by(
        "enqueued_at").values_list("pk", flat=True)[:100]]
