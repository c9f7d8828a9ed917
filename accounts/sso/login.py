"""The sign-in itself, for both protocols: a login attempt kept server-side (state, nonce, PKCE
verifier, redirect), used once and bound to the browser that started it; then the member found or
provisioned just in time, and a session issued as the password login issues it."""

import logging
from dataclasses import dataclass
from datetime import timedelta

from allauth.account.models import EmailAddress
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import services as account_services
from accounts.choices import sso_sign_in_method
from accounts.models import SSOConnection, SSOLoginAttempt, User
from accounts.selectors import user_by_email
from accounts.sso.errors import SSOAccessDenied, SSOStateInvalid
from accounts.sso.selectors import email_domain
from accounts.sso.urls import safe_redirect
from common import crypto
from common.audit import audit_record
from common.secrets import random_base62, secret_hash
from organizations.models import Membership

logger = logging.getLogger("accounts.sso")
BROWSER_COOKIE = "svc_sso_binding"
GOOGLE = "google"  # attempt_consume's protocol for a Google sign-in (an attempt without connection)


@dataclass(frozen=True)
class StartedLogin:
    attempt: SSOLoginAttempt
    state: str
    browser_secret: str
    nonce: str
    verifier: str


@transaction.atomic
def login_start(*, connection: SSOConnection | None, redirect_url: str, browser_secret: str | None) -> StartedLogin:
    """A new attempt. The browser keeps `browser_secret` in a cookie (its own earlier one when it
    has it, so two tabs can sign in at once); only hashes of it and of the state are stored.
    No connection: a Google sign-in."""
    state, nonce, verifier = random_base62(43), random_base62(32), random_base62(64)
    browser_secret = browser_secret if browser_secret and len(browser_secret) == 43 else random_base62(43)
    attempt = SSOLoginAttempt.objects.create(
        connection=connection, state_hash=secret_hash(state), browser_hash=secret_hash(browser_secret), nonce=nonce,
        code_verifier_encrypted=crypto.encrypt(verifier), redirect_url=redirect_url,
        expires_at=timezone.now() + timedelta(seconds=settings.SSO_LOGIN_TTL_SECONDS),
    )
    SSOLoginAttempt.objects.filter(expires_at__lt=timezone.now() - timedelta(days=1)).delete()  # old ones need not stay
    return StartedLogin(attempt=attempt, state=state, browser_secret=browser_secret, nonce=nonce, verifier=verifier)


def attempt_consume(*, state: str, browser_secret: str | None, protocol: str) -> SSOLoginAttempt:
    """The attempt this state names, marked used (a second callback with it is refused), provided
    it is unexpired and was started by this browser."""
    attempts = SSOLoginAttempt.objects.select_related("connection__organization").filter(state_hash=secret_hash(state or ""))
    if protocol == GOOGLE:
        attempt = attempts.filter(connection__isnull=True).first()
    else:
        attempt = attempts.filter(connection__protocol=protocol).first()
    if attempt is None:
        raise SSOStateInvalid("This sign-in's state is unknown: start the sign-in again.")
    used = SSOLoginAttempt.objects.filter(pk=attempt.pk, used_at__isnull=True).update(used_at=timezone.now())
    if not used:
        raise SSOStateInvalid("This sign-in was already completed or refused: start the sign-in again.")
    if attempt.expires_at <= timezone.now():
        raise SSOStateInvalid("This sign-in took too long and has expired: start the sign-in again.")
    if not browser_secret or secret_hash(browser_secret) != attempt.browser_hash:
        raise SSOStateInvalid("This sign-in was started in another browser: start it again here.")
    if attempt.connection is not None and not attempt.connection.is_active:
        raise SSOStateInvalid("This SSO connection has been turned off.")
    if not safe_redirect(attempt.redirect_url):  # checked when stored; checked again before anyone is signed in
        raise SSOStateInvalid("The stored redirect is not a path on this service.")
    return attempt


def attempt_verifier(attempt: SSOLoginAttempt) -> str:
    return crypto.decrypt(attempt.code_verifier_encrypted) or ""


@dataclass(frozen=True)
class Identity:
    """Who the identity provider says signed in."""

    email: str
    email_verified: bool
    subject: str
    first_name: str = ""
    last_name: str = ""


def identity_check(connection: SSOConnection, identity: Identity) -> str:
    """The address, lower-cased, when the provider vouches for it and it is in one of the
    connection's verified domains; else SSOAccessDenied."""
    email = identity.email.strip().lower()
    if "@" not in email:
        raise SSOAccessDenied("The identity provider sent no e-mail address.")
    if not identity.email_verified:
        raise SSOAccessDenied("The identity provider does not vouch for this e-mail address (email_verified is not true).")
    domain = connection.domains.filter(domain=email_domain(email)).first()
    if domain is None:
        raise SSOAccessDenied(f"Addresses at {email_domain(email)} do not sign in through this connection.")
    if not domain.is_verified:
        raise SSOAccessDenied(f"{domain.domain} has not been verified for this connection yet.")
    return email


def sso_sign_in(*, connection: SSOConnection, identity: Identity, request=None) -> account_services.IssuedSession:
    """The member of this identity (created on first sign-in, with the connection's default role)
    signed in. A refusal is audited on the organization, outside the refused transaction."""
    try:
        return _sign_in(connection, identity, request)
    except SSOAccessDenied as exc:
        login_refused(connection=connection, reason=exc.message, email=identity.email)
        raise


@transaction.atomic
def _sign_in(connection: SSOConnection, identity: Identity, request) -> account_services.IssuedSession:
    email = identity_check(connection, identity)
    user = user_for_identity(email, identity)
    if not user.is_active:
        raise SSOAccessDenied("This account is disabled.")
    _membership(connection, user)
    return account_services.session_issue(
        user=user, request=request, method=sso_sign_in_method(connection.protocol),
        details={"connection_id": str(connection.pk), "organization_id": str(connection.organization_id), "subject": identity.subject},
    )


def user_for_identity(email: str, identity: Identity, source: str = "sso") -> User:
    """The user of this address, created (without a password) when there is none; its address is
    taken as verified, the provider having vouched for it (an unverified account is claimed)."""
    user = user_by_email(email)
    if user is None:
        try:
            with transaction.atomic():
                user = User.objects.create_user(email=email, password=None, first_name=identity.first_name[:150],
                                                last_name=identity.last_name[:150])
        except IntegrityError:  # the same person's first sign-in in two tabs
            user = user_by_email(email)
            return user
        audit_record(actor=user, action="user.created", object_type="user", object_id=user.pk,
                     after={"email": email, "source": source})
    if user.email_verified_at is None:  # the provider vouches for the address: its owner signs in
        _claim_unverified(user, source)
    return user


def _claim_unverified(user: User, source: str) -> None:
    """An account registered with this address but never verified may be someone else's (who typed
    the address without owning it): the person the provider vouches for takes it over, and the
    password set at registration stops working (a reset sets a new one)."""
    claimed_password = user.has_usable_password()
    user.email_verified_at = timezone.now()
    user.set_unusable_password()
    user.save(update_fields=["email_verified_at", "password"])
    EmailAddress.objects.update_or_create(user=user, email=user.email, defaults={"verified": True, "primary": True})
    audit_record(actor=user, action=f"user.claimed_by_{source}", object_type="user", object_id=user.pk,
                 after={"email": user.email, "verified_at": user.email_verified_at.isoformat(),
                        "password_removed": claimed_password})


def _membership(connection: SSOConnection, user: User) -> Membership:
    membership = Membership.objects.filter(organization=connection.organization, user=user).first()
    if membership is not None:
        return membership
    membership, created = Membership.objects.get_or_create(organization=connection.organization, user=user,
                                                           defaults={"role": connection.default_role})
    if created:
        audit_record(actor=user, action="member.provisioned", object_type="membership", object_id=user.pk,
                     organization=connection.organization,
                     after={"email": user.email, "role": membership.role, "sso_connection_id": str(connection.pk)})
    return membership


def login_refused(*, connection: SSOConnection, reason: str, email: str = "") -> None:
    logger.warning("sso sign-in refused: connection=%s reason=%s", connection.pk, reason)
    audit_record(actor=None, action="sso.login_refused", object_type="sso_connection", object_id=connection.pk,
                 organization=connection.organization, after={"reason": reason, "email": email})
