from django.utils import timezone

from accounts.choices import SSO_SIGN_IN_METHODS
from accounts.models import SessionToken, SSODomain, User
from accounts.sso.selectors import enforcing_domain_for_email
from common.secrets import secret_hash

# Where the Django session keeps how its person signed in (accounts.services.session_issue); a
# session without it was opened by the console's password form.
SESSION_METHOD_KEY = "compliance_auth_method"


def session_token_by_secret(secret: str) -> SessionToken | None:
    return (
        SessionToken.objects.select_related("user")
        .filter(token_hash=secret_hash(secret), revoked_at__isnull=True, expires_at__gt=timezone.now())
        .first()
    )


def user_by_email(email: str) -> User | None:
    return User.objects.filter(email__iexact=email.strip()).first()


def sso_required_since(user: User, method: str) -> SSODomain | None:
    """The verified domain whose connection now enforces SSO for this person, when the session was
    not opened through SSO (a password, Google): such a session ends, as sign-in would be refused
    now. None for an SSO session, for the platform operator (exempt, as at sign-in) and elsewhere."""
    if method in SSO_SIGN_IN_METHODS or user.is_superuser:
        return None
    return enforcing_domain_for_email(user.email)
