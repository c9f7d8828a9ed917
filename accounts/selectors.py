from django.utils import timezone

from accounts.models import SessionToken, User
from common.secrets import secret_hash


def session_token_by_secret(secret: str) -> SessionToken | None:
    return (
        SessionToken.objects.select_related("user")
        .filter(token_hash=secret_hash(secret), revoked_at__isnull=True, expires_at__gt=timezone.now())
        .first()
    )


def user_by_email(email: str) -> User | None:
    return User.objects.filter(email__iexact=email.strip()).first()
