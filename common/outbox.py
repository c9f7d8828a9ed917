"""Enqueueing Celery tasks once the current transaction commits (DESIGN §6): a task never runs
against rows it cannot see yet, and a rolled-back change enqueues nothing."""

from functools import partial

from django.db import transaction


def enqueue_on_commit(task, *args, **kwargs) -> None:
    transaction.on_commit(partial(_send, task, args, kwargs))


def _send(task, args, kwargs):
    try:
        task.apply_async(args=args, kwargs=kwargs)
    except Exception:  # noqa: BLE001 - a broker outage only delays: beat sweepers pick the row up
        import logging

        logging.getLogger("common.tasks").warning("could not enqueue %s; the sweeper will retry", task.name)
