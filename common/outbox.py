"""Enqueueing Celery tasks once the current transaction commits (docs/architecture.md §6): a task never runs
against rows it cannot see yet, and a rolled-back change enqueues nothing."""

import logging
from functools import partial

from django.db import transaction
from kombu.exceptions import OperationalError

logger = logging.getLogger("common.outbox")


def enqueue_on_commit(task, *args, **kwargs) -> None:
    transaction.on_commit(partial(_send, task, args, kwargs))


def _send(task, args, kwargs):
    try:
        task.apply_async(args=args, kwargs=kwargs)
    except (OperationalError, OSError):  # a broker outage only delays: beat sweepers pick the row up
        logger.warning("could not enqueue %s; the sweeper will retry", task.name, exc_info=True)
