"""Logging filters named in settings.LOGGING."""

import logging


def _task_name(record: logging.LogRecord) -> str:
    """The task a Celery log line is about: worker lines carry a dict with `name`, beat's
    "Sending due task %s (%s)" the entry and the task."""
    if isinstance(record.args, dict):
        return str(record.args.get("name", ""))
    if isinstance(record.args, tuple) and len(record.args) == 2:
        return str(record.args[1])
    return ""


class SweepsAtDebug(logging.Filter):
    """Beat's sweeps (tasks named `<app>.sweep_<what>`) run every few seconds; Celery logs the sending,
    the receipt and the success of each at INFO, three lines every 5 s of an idle `make run`. Those
    lines go to DEBUG; a sweep logs at INFO itself when it finds something to do."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or not _task_name(record).rpartition(".")[2].startswith("sweep_"):
            return True
        record.levelno, record.levelname = logging.DEBUG, logging.getLevelName(logging.DEBUG)
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
