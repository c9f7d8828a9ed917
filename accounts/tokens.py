"""Tokens sent by e-mail. None is stored: each is an HMAC the server can check.

- e-mail verification: a signed (user id, e-mail) with a time limit;
- password reset: Django's token generator, which hashes the password and last login into the
  token, so it stops working once used (single use) and after PASSWORD_RESET_TIMEOUT.
"""

import uuid

from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from accounts.models import User

VERIFY_SALT = "accounts.verify-email"
VERIFY_MAX_AGE = 3 * 24 * 3600


def verification_token(user: User) -> str:
    return signing.dumps({"u": str(user.pk), "e": user.email}, salt=VERIFY_SALT)


def user_for_verification_token(token: str) -> User | None:
    try:
        payload = signing.loads(token, salt=VERIFY_SALT, max_age=VERIFY_MAX_AGE)
    except signing.BadSignature:
        return None
    try:
        user_id = uuid.UUID(str(payload.get("u")))
    except ValueError:
        return None
    return User.objects.filter(pk=user_id, email=payload.get("e"), is_active=True).first()


def password_reset_token(user: User) -> str:
    return f"{urlsafe_base64_encode(force_bytes(user.pk))}.{default_token_generator.make_token(user)}"


def user_for_password_reset_token(token: str) -> User | None:
    uid, _, secret = token.partition(".")
    try:
        user_id = uuid.UUID(force_str(urlsafe_base64_decode(uid)))
    except (ValueError, TypeError, UnicodeDecodeError):
        return None
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not default_token_generator.check_token(user, secret):
        return None
    return user
