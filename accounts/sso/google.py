"""Sign-in with Google (/v1/auth/google), the third-party login flow: OpenID Connect's
authorization code flow with PKCE, state and nonce against Google's endpoints, through the same
relying-party code as organization OIDC (accounts.sso.oidc) and the same one-use, browser-bound
login attempts (accounts.sso.login), without a connection.

Anyone with a Google account whose address Google has verified signs in: to the account of that
address, or a new one (no organization: they create one or accept an invitation). An address in a
domain whose organization enforces SSO is refused, as the password login refuses it."""

from django.conf import settings
from django.db import transaction

from accounts import services as account_services
from accounts.selectors import user_by_email
from accounts.sso import login, oidc
from accounts.sso.errors import SSOAccessDenied, SSOAssertionInvalid
from common.errors import NotFound

ISSUERS = ("https://accounts.google.com", "accounts.google.com")  # the ID token's `iss`, either spelling
SCOPES = "openid email profile"


def redirect_uri() -> str:
    return f"{settings.PUBLIC_URL}/v1/auth/google/callback"


def _provider() -> dict:
    """Google's endpoints, as its discovery document names them (fixed here: the document need
    not be fetched at each sign-in, and tests point them at a stand-in)."""
    if not (settings.GOOGLE_CLIENT_ID and settings.GOOGLE_CLIENT_SECRET):
        raise NotFound("Sign-in with Google is not configured on this service (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET).")
    return {"authorization_endpoint": settings.GOOGLE_AUTHORIZATION_URL, "token_endpoint": settings.GOOGLE_TOKEN_URL,
            "jwks_uri": settings.GOOGLE_JWKS_URL, "token_endpoint_auth_methods_supported": ["client_secret_basic"]}


def google_login_begin(*, redirect_url: str, browser_secret: str | None) -> tuple[str, str]:
    """(Google's authorization URL, the browser-binding secret for the cookie)."""
    provider = _provider()
    started = login.login_start(connection=None, redirect_url=redirect_url, browser_secret=browser_secret)
    url = oidc.authorization_url(provider, client_id=settings.GOOGLE_CLIENT_ID, scopes=SCOPES, redirect_uri=redirect_uri(),
                                 state=started.state, nonce=started.nonce, verifier=started.verifier)
    return url, started.browser_secret


def google_login_finish(*, state: str, code: str | None, error: str | None, browser_secret: str | None,
                        request=None) -> tuple[account_services.IssuedSession, str]:
    """(the session, the redirect_url the sign-in was started with)."""
    provider = _provider()
    attempt = login.attempt_consume(state=state, browser_secret=browser_secret, protocol=login.GOOGLE)
    if error:
        raise SSOAccessDenied(f"Google did not sign you in: {error[:200]}.")
    if not code:
        raise SSOAssertionInvalid("Google sent no authorization code.")
    tokens = oidc.code_exchange(provider, client_id=settings.GOOGLE_CLIENT_ID, client_secret=settings.GOOGLE_CLIENT_SECRET,
                                code=code, verifier=login.attempt_verifier(attempt), redirect_uri=redirect_uri())
    claims = oidc.id_token_claims(id_token=tokens["id_token"], jwks_uri=provider["jwks_uri"], issuer=ISSUERS,
                                  client_id=settings.GOOGLE_CLIENT_ID, nonce=attempt.nonce)
    identity = login.Identity(email=str(claims.get("email") or ""), email_verified=claims.get("email_verified") is True,
                              subject=str(claims["sub"]), first_name=str(claims.get("given_name") or ""),
                              last_name=str(claims.get("family_name") or ""))
    return _sign_in(identity, request), attempt.redirect_url


@transaction.atomic
def _sign_in(identity: login.Identity, request) -> account_services.IssuedSession:
    email = identity.email.strip().lower()
    if "@" not in email:
        raise SSOAccessDenied("Google sent no e-mail address (the 'email' scope).")
    if not identity.email_verified:
        raise SSOAccessDenied("Google has not verified this account's e-mail address.")
    user = user_by_email(email)
    account_services.refuse_if_sso_required(email, exempt=user is not None and user.is_superuser)
    if user is not None and not user.is_active:
        raise SSOAccessDenied("This account is disabled.")
    user = login.user_for_identity(email, identity, source="google")
    return account_services.session_issue(user=user, request=request, method="google", details={"subject": identity.subject})
