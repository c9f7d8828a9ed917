"""Reading settings from the environment: booleans, integers, lists, the EMAIL_URL and the sanctions
lists' URLs."""

import os
import re
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


def env_name(text: str) -> str:
    """`text` as part of an environment variable's name: upper-cased, anything but a letter or a digit as `_`."""
    return re.sub(r"[^A-Z0-9]", "_", text.upper())


class _FileUrls(dict):
    """One list's {file: URL} from its variables, keyed by the file's part of the name (SDN_CSV):
    `.get("sdn.csv")` finds it."""

    def get(self, file, default=None):
        return super().get(env_name(file), default)

    def __getitem__(self, file):
        return super().__getitem__(env_name(file))

    def __contains__(self, file):
        return super().__contains__(env_name(file))


class SanctionsUrls(dict):
    """settings.SANCTIONS_URLS read from SANCTIONS_URL_<SOURCE>_<FILE> variables, as {source: {file: URL}}.

    Which part of a variable's name is the list and which the file is known only from the lists'
    files (onboarding.sanctions.registry, not importable from the settings), so the variables are
    kept by name and looked up when a list's URLs are asked for: `.get("ofac_sdn", {}).get("sdn.csv")`
    reads SANCTIONS_URL_OFAC_SDN_SDN_CSV. Tests replace the setting with a plain nested dict."""

    PREFIX = "SANCTIONS_URL_"

    def __init__(self, environ):
        super().__init__()
        self.variables = {name.removeprefix(self.PREFIX): value.strip() for name, value in environ.items()
                          if name.startswith(self.PREFIX) and value.strip()}

    def get(self, source, default=None):
        prefix = f"{env_name(source)}_"
        files = _FileUrls({name.removeprefix(prefix): url for name, url in self.variables.items() if name.startswith(prefix)})
        return files or default

    def __getitem__(self, source):
        files = self.get(source)
        if files is None:
            raise KeyError(source)
        return files

    def __contains__(self, source):
        return self.get(source) is not None

    def __bool__(self):
        return bool(self.variables)

    def __repr__(self):
        return f"SanctionsUrls({self.variables!r})"
