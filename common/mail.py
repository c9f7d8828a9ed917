"""Transactional e-mail: `email_enqueue` writes the row (in the caller's transaction) and
enqueues its sending on commit; `email_send` renders and sends one row, idempotently.

Each kind registers a renderer that turns the row's context into (subject, text) at send time.
"""

import logging
from collections.abc import Callable
from datetime import timedelta

from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from common.models import OutboundEmail

logger = logging.getLogger("common.mail")
RETRY_DELAYS = [timedelta(seconds=30), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2)]

Renderer = Callable[[OutboundEmail], tuple[str, str] | None]
_renderers: dict[str, Renderer] = {}


def email_renderer(kind: str):
    """Decorator: `@email_renderer("verify_email")` on a function row → (subject, body) or None (skip)."""

    def register(function: Renderer) -> Renderer:
        _renderers[kind] = function
        return function

    return register


def email_enqueue(*, kind: str, to: str, context: dict | None = None) -> OutboundEmail:
    from common import tasks
    from common.outbox import enqueue_on_commit

    row = OutboundEmail.objects.create(kind=kind, to=to, context=context or {}, next_attempt_at=timezone.now())
    enqueue_on_commit(tasks.send_email, str(row.pk))
    return row


def email_send(email_id) -> None:
    with transaction.atomic():
        row = OutboundEmail.objects.select_for_update().filter(pk=email_id, status=OutboundEmail.Status.PENDING).first()
        if row is None:
            return
        row.attempts += 1
        try:
            rendered = _renderers[row.kind](row)
            if rendered is not None:
                subject, body = rendered
                send_mail(subject, body, None, [row.to])
            row.status = OutboundEmail.Status.SENT
            row.sent_at = timezone.now()
            row.next_attempt_at = None
        except Exception as exc:  # noqa: BLE001 - any SMTP failure is retried on the schedule
            logger.warning("e-mail %s (%s) failed: %s", row.pk, row.kind, exc)
            row.last_error = str(exc)[:2000]
            if row.attempts > len(RETRY_DELAYS):
                row.status = OutboundEmail.Status.FAILED
                row.next_attempt_at = None
            else:
                row.next_attempt_at = timezone.now() + RETRY_DELAYS[row.attempts - 1]
        row.save()


def emails_due(limit: int = 500) -> list[str]:
    return [
        str(pk) for pk in OutboundEmail.objects.filter(
            status=OutboundEmail.Status.PENDING, next_attempt_at__lte=timezone.now()
        ).order_by("next_attempt_at").values_list("pk", flat=True)[:limit]
    ]
