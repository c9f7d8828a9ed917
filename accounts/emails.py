"""E-mails of the account flows, rendered at send time with fresh tokens."""

from urllib.parse import urlencode

from django.conf import settings
from django.template.loader import render_to_string

from accounts import tokens
from accounts.models import User
from accounts.selectors import user_by_email
from common.mail import email_renderer


def _link(path: str, token: str) -> str:
    return f"{settings.PUBLIC_URL}{path}?{urlencode({'token': token})}"


@email_renderer("verify_email")
def verify_email(row):
    user = User.objects.filter(pk=row.context.get("user_id"), is_active=True).first()
    if user is None or user.email_verified:
        return None
    link = _link("/accounts/verify-email/", tokens.verification_token(user))
    return "Verify your e-mail address", render_to_string("emails/verify_email.txt", {"user": user, "link": link})


@email_renderer("password_reset")
def password_reset(row):
    user = user_by_email(row.to)
    if user is None or not user.is_active:
        return None  # nothing is sent for an unknown address: the caller was told 200 all the same
    link = _link("/accounts/reset-password/", tokens.password_reset_token(user))
    minutes = settings.PASSWORD_RESET_TIMEOUT // 60
    return "Reset your password", render_to_string(
        "emails/password_reset.txt", {"user": user, "link": link, "minutes": minutes}
    )
