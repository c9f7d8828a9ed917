"""The OpenID Connect relying party: discovery, the authorization request (state, nonce, PKCE
S256), the code exchange and the ID token's validation (OpenID Connect Core 1.0 §3.1.3.7).

`requests` (through accounts.sso.http, which connects to the checked address) and PyJWT:
mozilla-django-oidc reads one provider from settings, and each organization brings its own
(docs/decisions.md)."""

import base64
import hashlib
import time
from collections.abc import Sequence
from urllib.parse import urlencode

import jwt
import requests

from accounts.sso.errors import SSOAssertionInvalid, SSOProviderUnavailable
from accounts.sso.http import idp_request
from accounts.sso.urls import idp_url_problem

# Asymmetric algorithms only: "none" and the HMAC family (keyed with the client secret) are refused.
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
CLOCK_SKEW_SECONDS = 60


def _clock() -> float:
    return time.time()


def code_challenge(verifier: str) -> str:
    """RFC 7636 §4.2: BASE64URL(SHA256(verifier)) without padding."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _get_json(url: str, what: str, **kwargs) -> dict:
    try:
        response = idp_request("GET", url, what, **kwargs)
        response.raise_for_status()
        body = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise SSOProviderUnavailable(f"The identity provider's {what} could not be read ({type(exc).__name__}).") from None
    if not isinstance(body, dict):
        raise SSOProviderUnavailable(f"The identity provider's {what} is not a JSON object.")
    return body


def provider_configuration(issuer: str) -> dict:
    """The provider's discovery document, whose `issuer` must be the configured one exactly."""
    config = _get_json(f"{issuer.rstrip('/')}/.well-known/openid-configuration", "discovery document")
    if config.get("issuer") != issuer:
        raise SSOProviderUnavailable(f"The discovery document names the issuer {config.get('issuer')!r}, not {issuer!r}.")
    for endpoint in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        if not isinstance(config.get(endpoint), str) or idp_url_problem(config[endpoint]):
            raise SSOProviderUnavailable(f"The discovery document's {endpoint} is missing or not a usable URL.")
    return config


def authorization_url(config: dict, *, client_id: str, scopes: str, redirect_uri: str, state: str, nonce: str,
                      verifier: str) -> str:
    query = urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": scopes,
        "state": state, "nonce": nonce, "code_challenge": code_challenge(verifier), "code_challenge_method": "S256",
    })
    separator = "&" if "?" in config["authorization_endpoint"] else "?"
    return f"{config['authorization_endpoint']}{separator}{query}"


def code_exchange(config: dict, *, client_id: str, client_secret: str, code: str, verifier: str, redirect_uri: str) -> dict:
    """The token response for this code (client_secret_basic, or client_secret_post when that is
    the only method the provider names)."""
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier}
    methods = config.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    auth = None
    if "client_secret_basic" in methods:
        auth = (client_id, client_secret)
    else:
        data.update(client_id=client_id, client_secret=client_secret)
    try:
        response = idp_request("POST", config["token_endpoint"], "token endpoint", data=data, auth=auth,
                               headers={"Accept": "application/json"})
    except requests.RequestException as exc:
        raise SSOProviderUnavailable(f"The identity provider's token endpoint could not be reached ({type(exc).__name__}).") from None
    body = _json_or_empty(response)
    if response.status_code != 200 or not isinstance(body.get("id_token"), str):
        reason = body.get("error_description") or body.get("error") or f"status {response.status_code}"
        raise SSOAssertionInvalid(f"The identity provider refused the code exchange: {reason}.")
    return body


def _json_or_empty(response) -> dict:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _signing_key(id_token: str, jwks_uri: str):
    try:
        header = jwt.get_unverified_header(id_token)
    except jwt.InvalidTokenError:
        raise SSOAssertionInvalid("The ID token is not a JWT.") from None
    if header.get("alg") not in ALGORITHMS:
        raise SSOAssertionInvalid(f"The ID token's algorithm {header.get('alg')!r} is not accepted.")
    try:
        keys = jwt.PyJWKSet.from_dict(_get_json(jwks_uri, "signing keys"))
    except jwt.PyJWKSetError:
        raise SSOProviderUnavailable("The identity provider's signing keys could not be read.") from None
    candidates = [key for key in keys.keys if key.public_key_use in (None, "sig") and (header.get("kid") in (None, key.key_id))]
    if not candidates:
        raise SSOAssertionInvalid("No signing key of the identity provider matches the ID token.")
    return header["alg"], candidates


def id_token_claims(*, id_token: str, jwks_uri: str, issuer: str | Sequence[str], client_id: str, nonce: str) -> dict:
    """The claims of a valid ID token: signed by one of the provider's keys, from `issuer` (or one of
    several: Google's two spellings), for
    `client_id` (and authorised for it when there are several audiences), not expired, carrying our
    nonce. Anything else is SSOAssertionInvalid."""
    algorithm, keys = _signing_key(id_token, jwks_uri)
    claims, last_error = None, None
    for key in keys:
        try:
            claims = jwt.decode(
                id_token, key=key, algorithms=[algorithm], audience=client_id, issuer=issuer, leeway=CLOCK_SKEW_SECONDS,
                options={"require": ["iss", "sub", "aud", "exp", "iat"], "verify_iat": False},
            )
            break
        except jwt.InvalidSignatureError as exc:
            last_error = exc
        except jwt.InvalidTokenError as exc:
            raise SSOAssertionInvalid(f"The ID token is not valid: {exc}.") from None
    if claims is None:
        raise SSOAssertionInvalid(f"The ID token's signature is not valid ({last_error}).")
    _check_times(claims)
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if len(audiences) > 1 and claims.get("azp") != client_id:
        raise SSOAssertionInvalid("The ID token names several audiences but is not authorised for this client (azp).")
    if not nonce or claims.get("nonce") != nonce:
        raise SSOAssertionInvalid("The ID token's nonce is not the one this sign-in sent.")
    return claims


def _check_times(claims: dict) -> None:
    """Expiry against our own clock (PyJWT checked it against the machine's too)."""
    now = _clock()
    if not isinstance(claims.get("exp"), int | float) or claims["exp"] + CLOCK_SKEW_SECONDS < now:
        raise SSOAssertionInvalid("The ID token has expired.")
    if not isinstance(claims.get("iat"), int | float) or claims["iat"] - CLOCK_SKEW_SECONDS > now:
        raise SSOAssertionInvalid("The ID token was issued in the future.")


def userinfo(config: dict, access_token: str, subject: str) -> dict:
    """The UserInfo claims, for providers that keep e-mail out of the ID token; their `sub` must be
    the ID token's (Core §5.3.2)."""
    endpoint = config.get("userinfo_endpoint")
    if not endpoint or not access_token:
        return {}
    claims = _get_json(endpoint, "userinfo", headers={"Authorization": f"Bearer {access_token}"})
    if claims.get("sub") != subject:
        raise SSOAssertionInvalid("The userinfo answer is about another subject than the ID token.")
    return claims
