"""OIDC sign-in, start to finish: /v1/sso/oidc/login sends the browser to the provider, and
/v1/sso/oidc/callback exchanges the code it brings back for a session."""

from django.conf import settings

from accounts import services as account_services
from accounts.models import SSOConnection
from accounts.sso import login, oidc
from accounts.sso.errors import SSOAccessDenied, SSOAssertionInvalid, SSOProviderUnavailable
from common import crypto


def redirect_uri() -> str:
    return f"{settings.PUBLIC_URL}/v1/sso/oidc/callback"


def oidc_login_begin(*, connection: SSOConnection, redirect_url: str, browser_secret: str | None) -> tuple[str, str]:
    """(the provider's authorization URL, the browser-binding secret for the cookie)."""
    config = oidc.provider_configuration(connection.oidc_issuer)
    started = login.login_start(connection=connection, redirect_url=redirect_url, browser_secret=browser_secret)
    url = oidc.authorization_url(config, client_id=connection.oidc_client_id, scopes=connection.oidc_scopes,
                                 redirect_uri=redirect_uri(), state=started.state, nonce=started.nonce, verifier=started.verifier)
    return url, started.browser_secret


def oidc_login_finish(*, state: str, code: str | None, issuer: str | None, error: str | None, browser_secret: str | None,
                      request=None) -> tuple[account_services.IssuedSession, str]:
    """(the session, the redirect_url the sign-in was started with)."""
    attempt = login.attempt_consume(state=state, browser_secret=browser_secret, protocol="oidc")
    connection = attempt.connection
    try:
        identity = _identity(connection, attempt, code=code, issuer=issuer, error=error)
    except (SSOAssertionInvalid, SSOAccessDenied, SSOProviderUnavailable) as exc:
        login.login_refused(connection=connection, reason=exc.message)
        raise
    issued = login.sso_sign_in(connection=connection, identity=identity, request=request)
    return issued, attempt.redirect_url


def _identity(connection: SSOConnection, attempt, *, code: str | None, issuer: str | None, error: str | None) -> login.Identity:
    if error:
        raise SSOAccessDenied(f"The identity provider did not sign you in: {error[:200]}.")
    if not code:
        raise SSOAssertionInvalid("The identity provider sent no authorization code.")
    if issuer is not None and issuer != connection.oidc_issuer:  # RFC 9207: an answer from another provider (mix-up)
        raise SSOAssertionInvalid("The authorization response comes from another issuer than this connection's.")
    config = oidc.provider_configuration(connection.oidc_issuer)
    tokens = oidc.code_exchange(config, client_id=connection.oidc_client_id,
                                client_secret=crypto.decrypt(connection.oidc_client_secret_encrypted) or "",
                                code=code, verifier=login.attempt_verifier(attempt), redirect_uri=redirect_uri())
    claims = oidc.id_token_claims(id_token=tokens["id_token"], jwks_uri=config["jwks_uri"], issuer=connection.oidc_issuer,
                                  client_id=connection.oidc_client_id, nonce=attempt.nonce)
    if "email" not in claims:
        claims = {**oidc.userinfo(config, tokens.get("access_token", ""), claims["sub"]), **claims}
    return login.Identity(email=str(claims.get("email") or ""), email_verified=claims.get("email_verified") is True,
                          subject=str(claims["sub"]), first_name=str(claims.get("given_name") or ""),
                          last_name=str(claims.get("family_name") or ""))
