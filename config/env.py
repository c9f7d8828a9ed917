"""Reading settings from the environment: booleans, integers, lists and the EMAIL_URL."""

import os
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

TRUE_WORDS = {"1", "true", "yes", "on"}


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None or value == "" else value.strip().lower() in TRUE_WORDS


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value is None or value == "" else int(value)


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def email_settings(url: str, data_dir: Path) -> dict:
    """EMAIL_URL → Django e-mail settings.

    console://              print messages (embedded default)
    file:///path            one file per message (relative: under DATA_DIR)
    locmem://               in memory (tests)
    smtp://user:pass@host:port   plain or STARTTLS (?tls=1); smtps:// for implicit TLS
    """
    parsed = urlparse(url)
    scheme = parsed.scheme
    if scheme == "console":
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if scheme == "locmem":
        return {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    if scheme == "file":
        path = Path(unquote(parsed.netloc + parsed.path) or "mail")
        if not path.is_absolute():
            path = data_dir / path
        return {"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend", "EMAIL_FILE_PATH": str(path)}
    if scheme in ("smtp", "smtps"):
        query = parse_qs(parsed.query)
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": parsed.hostname or "localhost",
            "EMAIL_PORT": parsed.port or (465 if scheme == "smtps" else 25),
            "EMAIL_HOST_USER": unquote(parsed.username or ""),
            "EMAIL_HOST_PASSWORD": unquote(parsed.password or ""),
            "EMAIL_USE_SSL": scheme == "smtps",
            "EMAIL_USE_TLS": query.get("tls", ["0"])[0] in ("1", "true"),
            "EMAIL_TIMEOUT": 10,
        }
    raise ValueError(f"EMAIL_URL scheme {scheme!r} is not supported (console, file, locmem, smtp, smtps)")
