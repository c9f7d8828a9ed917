"""Beat's sweeps at DEBUG: Celery's per-task lines for them, not other tasks'."""

import logging

import pytest

from common.log_filters import SweepsAtDebug

RECEIVED = "Task %(name)s[%(id)s] received"


def record(name: str, msg: str, args, level=logging.INFO) -> logging.LogRecord:
    line = logging.LogRecord(name, level, __file__, 1, msg, None, None)
    line.args = args  # a dict stays a dict (LogRecord's constructor unwraps a one-dict tuple only)
    return line


@pytest.fixture
def celery_at(request):
    loggers = [logging.getLogger(name) for name in ("celery.beat", "celery.worker.strategy", "celery.app.trace")]
    before = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(request.param)
    yield
    for logger, level in zip(loggers, before, strict=True):
        logger.setLevel(level)


@pytest.mark.parametrize("celery_at", [logging.INFO], indirect=True)
@pytest.mark.parametrize("line", [
    record("celery.worker.strategy", RECEIVED, {"name": "webhooks.sweep_deliveries", "id": "1"}),
    record("celery.app.trace", "Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s",
           {"name": "filings.sweep_sla_breaches", "id": "2", "runtime": 0.01, "return_value": None}),
    record("celery.beat", "Scheduler: Sending due task %s (%s)", ("webhooks.sweep_deliveries", "webhooks.sweep_deliveries")),
])
def test_sweep_lines_become_debug_and_are_dropped_at_info(celery_at, line):
    assert SweepsAtDebug().filter(line) is False and line.levelname == "DEBUG"


@pytest.mark.parametrize("celery_at", [logging.DEBUG], indirect=True)
def test_they_still_show_when_debug_is_on(celery_at):
    line = record("celery.worker.strategy", RECEIVED, {"name": "webhooks.sweep_deliveries", "id": "1"})
    assert SweepsAtDebug().filter(line) is True and line.levelno == logging.DEBUG


@pytest.mark.parametrize("line", [
    record("celery.worker.strategy", RECEIVED, {"name": "webhooks.deliver", "id": "3"}),
    record("celery.app.trace", "Task %(name)s[%(id)s] raised", {"name": "webhooks.sweep_deliveries", "id": "4"}, logging.ERROR),
    record("celery.beat", "beat: Starting...", ()),
])
def test_other_lines_are_untouched(line):
    level = line.levelno
    assert SweepsAtDebug().filter(line) is True and line.levelno == level


def test_the_settings_attach_it_to_celerys_loggers():
    for name in ("celery.beat", "celery.worker.strategy", "celery.app.trace"):
        assert any(isinstance(f, SweepsAtDebug) for f in logging.getLogger(name).filters), name
