"""Credentials (docs/architecture.md §3): `Authorization: Bearer sk_test_…|sk_live_…` (API key), `Bearer st_…`
(session token from /v1/auth/login), or the Django session cookie (browser, CSRF enforced).

Each class returns (user, Principal); request.auth is the Principal the rest of the code uses.
"""

from rest_framework import authentication

from accounts import selectors as account_selectors
from common.errors import BadRequest, NotFound, Unauthenticated
from common.principal import ApiKeyUser, Principal
from organizations import keyauth
from organizations import selectors as org_selectors
from organizations.choices import Mode

API_KEY_PREFIXES = ("sk_test_", "sk_live_")
SESSION_TOKEN_PREFIX = "st_"


def bearer_token(request) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("The Authorization header must be 'Bearer <token>'.")
    return token.strip()


def session_principal(request, user, session_token=None) -> Principal:
    """A signed-in person acts for one organization at a time: the one named by the
    X-Organization header (id or slug), else their first membership; in live mode unless
    X-Mode says test."""
    mode = request.META.get("HTTP_X_MODE", Mode.LIVE).strip().lower()
    if mode not in Mode.values:
        raise BadRequest("X-Mode must be 'test' or 'live'.")
    wanted = request.META.get("HTTP_X_ORGANIZATION", "").strip()
    membership = org_selectors.membership_for_request(user=user, organization_ref=wanted or None)
    if wanted and membership is None:
        raise NotFound("No organization of yours matches the X-Organization header.")
    return Principal(
        credential="session",
        organization=membership.organization if membership else None,
        mode=mode,
        role=membership.role if membership else None,
        user=user,
        session_token=session_token,
    )


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        token = bearer_token(request)
        if not token or not token.startswith(API_KEY_PREFIXES):
            return None
        resolved = keyauth.authenticate(token)
        if resolved is None:
            raise Unauthenticated("The API key is unknown or has been revoked.")
        api_key, limit = resolved
        request._request.rate_limit = limit
        principal = Principal(
            credential="api_key", organization=api_key.organization, mode=api_key.mode,
            role=api_key.role, api_key=api_key,
        )
        return ApiKeyUser(api_key), principal

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class SessionTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        token = bearer_token(request)
        if not token:
            return None
        if not token.startswith(SESSION_TOKEN_PREFIX):
            raise Unauthenticated("The bearer token is neither an API key nor a session token.")
        session_token = account_selectors.session_token_by_secret(token)
        if session_token is None:
            raise Unauthenticated("The session token is unknown, expired or logged out.")
        user = session_token.user
        if not user.is_active:
            raise Unauthenticated("This account is disabled.")
        domain = account_selectors.sso_required_since(user, session_token.method)
        if domain is not None:  # refused while the domain enforces SSO, as a sign-in with that method would be
            raise Unauthenticated(f"{domain.domain} signs in through single sign-on now: this session no longer counts. "
                                  "Sign in again through your identity provider.")
        return user, session_principal(request, user, session_token)

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class CookieSessionAuthentication(authentication.SessionAuthentication):
    """The Django session cookie set by /v1/auth/login and the admin; CSRF-checked."""

    def authenticate(self, request):
        result = super().authenticate(request)
        if result is None:
            return None
        user, _ = result
        return user, session_principal(request, user)
