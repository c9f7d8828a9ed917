"""Account writes: registration, e-mail verification, sign-in and out, password reset, profile."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import tokens
from accounts.models import SessionToken, User
from accounts.selectors import SESSION_METHOD_KEY, user_by_email
from accounts.sso import selectors as sso_selectors
from accounts.sso.errors import SSORequired
from common import ratelimit
from common.audit import audit_record
from common.context import current_request
from common.errors import Conflict, RateLimited, ServiceError, ValidationFailed
from common.mail import email_enqueue
from common.secrets import new_secret, secret_hash

PROFILE_FIELDS = ("first_name", "last_name", "job_title")


class InvalidCredentials(ServiceError):
    status_code = 401
    code = "INVALID_CREDENTIALS"
    default_message = "The e-mail address or password is wrong."


class EmailNotVerified(ServiceError):
    status_code = 403
    code = "EMAIL_NOT_VERIFIED"
    default_message = "Verify your e-mail address first: follow the link we sent, or ask for a new one."


@dataclass(frozen=True)
class IssuedSession:
    user: User
    token: str
    expires_at: datetime


def _password_checked(password: str, user: User | None = None) -> None:
    try:
        validate_password(password, user)
    except DjangoValidationError as exc:
        raise ValidationFailed(details=[{"field": "password", "message": m} for m in exc.messages]) from None


def _profile(user: User) -> dict:
    return {"email": user.email, **{f: getattr(user, f) for f in PROFILE_FIELDS}}


@transaction.atomic
def user_register(*, email: str, password: str, first_name: str = "", last_name: str = "") -> User:
    email = email.strip().lower()
    candidate = User(email=email, first_name=first_name, last_name=last_name)
    _password_checked(password, candidate)
    if user_by_email(email):
        raise Conflict("An account with this e-mail address already exists.")
    try:
        with transaction.atomic():
            user = User.objects.create_user(email=email, password=password, first_name=first_name, last_name=last_name)
    except IntegrityError:
        raise Conflict("An account with this e-mail address already exists.") from None
    EmailAddress.objects.create(user=user, email=email, primary=True, verified=False)
    audit_record(actor=user, action="user.registered", object_type="user", object_id=user.pk, after=_profile(user))
    email_enqueue(kind="verify_email", to=email, context={"user_id": str(user.pk)})
    return user


@transaction.atomic
def user_create_verified(*, email: str, password: str, actor=None, is_staff: bool = False) -> User:
    """For operators (create_org, the demo): an account whose e-mail is taken as verified."""
    email = email.strip().lower()
    user = user_by_email(email)
    if user is None:
        _password_checked(password, User(email=email))
        user = User.objects.create_user(email=email, password=password, is_staff=is_staff, is_superuser=is_staff)
        audit_record(actor=actor, action="user.created", object_type="user", object_id=user.pk, after=_profile(user))
    _mark_verified(user)
    return user


def _mark_verified(user: User) -> None:
    if user.email_verified_at is None:
        user.email_verified_at = timezone.now()
        user.save(update_fields=["email_verified_at"])
    EmailAddress.objects.update_or_create(user=user, email=user.email, defaults={"verified": True, "primary": True})


@transaction.atomic
def email_verify(*, token: str) -> User:
    user = tokens.user_for_verification_token(token)
    if user is None:
        raise ValidationFailed.for_field("token", "The verification link is invalid or has expired.")
    if user.email_verified_at is None:
        _mark_verified(user)
        audit_record(actor=user, action="user.email_verified", object_type="user", object_id=user.pk)
    return user


def _login_buckets(email: str) -> tuple[tuple[str, int], tuple[str, int]]:
    """(the address's bucket, the IP's bucket), each with its limit."""
    ip = current_request().ip or "unknown"
    return ((f"login-email:{email.lower()}", settings.LOGIN_FAILURE_LIMIT),
            (f"login-ip:{ip}", settings.LOGIN_FAILURE_LIMIT * 6))


def _throttled(result: ratelimit.LimitResult) -> RateLimited:
    return RateLimited(f"Too many failed sign-in attempts; retry {result.retry_when()}.", headers=result.refusal_headers())


def _count_attempt(email: str) -> None:
    """Refuse when the IP has too many failures; count this attempt against the address, in the
    same atomic step as the check (until a success clears it). Counting only after the password
    check let attempts sent at the same moment all pass the check: 16 parallel guesses at one
    address were all tried against a limit of 5."""
    (address, address_limit), (ip, ip_limit) = _login_buckets(email)
    window = settings.LOGIN_FAILURE_WINDOW_SECONDS
    by_ip = ratelimit.check(ip, limit=ip_limit, window=window, record=False)
    if not by_ip.allowed:
        raise _throttled(by_ip)
    by_address = ratelimit.check(address, limit=address_limit, window=window)
    if not by_address.allowed:
        raise _throttled(by_address)


def credentials_check(*, email: str, password: str) -> User:
    """The user these credentials name, or InvalidCredentials (counted towards the throttle)."""
    _count_attempt(email)
    user = auth.authenticate(email=email.strip().lower(), password=password)
    (address, _), (ip, ip_limit) = _login_buckets(email)
    if user is None:
        ratelimit.check(ip, limit=ip_limit, window=settings.LOGIN_FAILURE_WINDOW_SECONDS)
        raise InvalidCredentials()
    ratelimit.reset(address)  # a success clears the address's counter
    return user


def session_login(*, email: str, password: str, request=None) -> IssuedSession:
    # The credential check stays outside the transaction: a failure must stay counted.
    user = credentials_check(email=email, password=password)
    if not user.email_verified:
        raise EmailNotVerified()
    refuse_if_sso_required(user.email, exempt=user.is_superuser)
    return session_issue(user=user, request=request)


def refuse_if_sso_required(email: str, *, exempt: bool = False) -> None:
    """A verified domain whose connection enforces SSO signs in only through it (not with a password,
    nor with Google). The platform operator (superuser, `exempt`) is exempt, so that a broken
    identity provider locks no one out for good."""
    domain = sso_selectors.enforcing_domain_for_email(email)
    if domain is not None and not exempt:
        connection = domain.connection
        raise SSORequired(
            f"{domain.domain} signs in through single sign-on: use {settings.PUBLIC_URL}/v1/sso/{connection.protocol}/login"
            f"?connection_id={connection.pk}",
        )


@transaction.atomic
def session_issue(*, user: User, request=None, method: str = "password", details: dict | None = None) -> IssuedSession:
    """A session for a user whose identity is proven (password, SSO): a session token, and the
    Django session cookie when `request` is given. `method` and `details` go to the audit entry."""
    token = new_secret("st_", 48)
    context = current_request()
    session = SessionToken.objects.create(
        user=user, token_hash=secret_hash(token), ip_address=context.ip, user_agent=context.user_agent, method=method,
        expires_at=timezone.now() + timedelta(hours=settings.SESSION_TOKEN_TTL_HOURS),
    )
    if request is not None:
        auth.login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        request.session[SESSION_METHOD_KEY] = method
    after = None if method == "password" else {"method": method, **(details or {})}
    audit_record(actor=user, action="user.logged_in", object_type="session", object_id=session.pk, after=after)
    return IssuedSession(user=user, token=token, expires_at=session.expires_at)


@transaction.atomic
def session_end_for_sso(*, user: User, request, domain: str) -> None:
    """End a console (cookie) session opened without SSO once the person's domain enforces it, with
    an audit entry saying why. (A bearer session token is refused while the domain enforces SSO:
    common.authentication.SessionTokenAuthentication.)"""
    auth.logout(request)
    audit_record(actor=user, action="user.logged_out", object_type="session", object_id="cookie",
                 after={"reason": "sso_required", "domain": domain})


@transaction.atomic
def session_logout(*, user: User, session_token: SessionToken | None, request=None) -> None:
    if session_token is not None:
        SessionToken.objects.filter(pk=session_token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    if request is not None:
        auth.logout(request)
    audit_record(actor=user, action="user.logged_out", object_type="session",
                 object_id=session_token.pk if session_token else "cookie")


def verification_resend(*, email: str, password: str) -> None:
    user = credentials_check(email=email, password=password)
    if user.email_verified:
        raise Conflict("This e-mail address is already verified.")
    with transaction.atomic():
        email_enqueue(kind="verify_email", to=user.email, context={"user_id": str(user.pk)})


@transaction.atomic
def password_reset_request(*, email: str) -> None:
    """Always succeeds. The row is written whatever the address; the worker decides whether a
    message goes out, so neither the answer nor its timing tells whether the address exists.
    At most PASSWORD_RESET_EMAIL_LIMIT rows per address and hour, whatever the address too: anyone
    could otherwise fill a person's mailbox with reset links (and the outbox with rows)."""
    email = email.strip().lower()
    allowed = ratelimit.check(f"password-reset:{email}", limit=settings.PASSWORD_RESET_EMAIL_LIMIT,
                              window=settings.PASSWORD_RESET_EMAIL_WINDOW_SECONDS).allowed
    if allowed:
        email_enqueue(kind="password_reset", to=email, context={})


@transaction.atomic
def password_reset(*, token: str, password: str) -> User:
    user = tokens.user_for_password_reset_token(token)
    if user is None:
        raise ValidationFailed.for_field("token", "The reset link is invalid, already used or expired.")
    _password_checked(password, user)
    user.set_password(password)
    user.save(update_fields=["password"])
    revoked = SessionToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())
    audit_record(actor=user, action="user.password_reset", object_type="user", object_id=user.pk,
                 after={"sessions_revoked": revoked})
    return user


@transaction.atomic
def profile_update(*, user: User, changes: dict) -> User:
    before = _profile(user)
    for field, value in changes.items():
        setattr(user, field, value)
    user.save(update_fields=list(changes))
    audit_record(actor=user, action="user.profile_updated", object_type="user", object_id=user.pk,
                 before=before, after=_profile(user))
    return user
