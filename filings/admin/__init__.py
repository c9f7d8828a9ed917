"""The investigator console for cases and filings: the case queue and page, the report flow
(draft → preview → validate → file, with confirm pages) and the filing records. Every change goes
through the services the API uses (roles, four-eyes and audit included)."""

from filings.admin import cases, filings  # noqa: F401
