from celery import shared_task

from common import mail


@shared_task(name="common.send_email", ignore_result=True, time_limit=60)
def send_email(email_id: str) -> None:
    mail.email_send(email_id)


@shared_task(name="common.sweep_emails", ignore_result=True, time_limit=120)
def sweep_emails() -> None:
    """Beat: re-send anything due (a lost broker message or a failed attempt)."""
    for email_id in mail.emails_due():
        mail.email_send(email_id)
