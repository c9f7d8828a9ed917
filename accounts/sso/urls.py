"""Addresses an identity provider is allowed at, and the redirect targets a sign-in may end on."""

from urllib.parse import urlsplit

from django.conf import settings

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def idp_url_problem(url: str) -> str | None:
    """Why an identity provider's URL is refused, or None: https, or http on this machine
    (SSO_ALLOW_HTTP_LOOPBACK, for development and tests); no credentials, query or fragment."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises on a malformed port
    except ValueError:
        return "This is not a valid URL."
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "Give an absolute https:// URL."
    if parts.scheme == "http" and not (settings.SSO_ALLOW_HTTP_LOOPBACK and parts.hostname in LOOPBACK_HOSTS):
        return "The identity provider must be reached over https."
    if parts.username or parts.password or parts.fragment:
        return "The URL may not carry credentials or a fragment."
    return None


def safe_redirect(url: str) -> bool:
    """A path on this service ("/cases?x=1"): never another site, whatever a browser makes of it
    ("//evil", "/\\evil", "https://evil", control characters)."""
    if not url.startswith("/") or url.startswith(("//", "/\\")):
        return False
    if any(ord(ch) < 0x20 or ch in "\\\x7f" for ch in url):
        return False
    parts = urlsplit(url)
    return not parts.scheme and not parts.netloc
