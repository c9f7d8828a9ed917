"""Refreshing a sanctions list from its publisher: `sanctions_list_refresh(source=...)`.

A refresh downloads every file of the list from its URLs (registry.list_urls: the publisher's, or a
SANCTIONS_URL_<SOURCE>_<FILE> setting), parses them and loads them through the loader and its
safety checks as a new version of origin `download`. Whatever comes of it is recorded: one
SanctionsRefresh row (the console's refresh log) and the list's last_refresh_* fields, which /health
reads through onboarding.sanctions.selectors.refresh_failures. The outcomes:

- loaded: a new version is in force; this process's screening index is dropped and the
  lists-changed callbacks (re-screening) are told once the load committed, as load_sanctions does;
- unchanged: the publisher's files are those in force (only the list's checked_at moves);
- refused: the files arrived but would not be loaded: empty, cut short, more than 1 % malformed rows,
  removing more than a tenth of the list (`force` accepts a real mass delisting), or an optional file
  the version in force was read from is no longer served (`force` loads without it);
- failed: a file could not be had or read: not an http(s) URL, no URL for the required file, an
  HTTP error (a 404 of an optional file only skips it), a time-out, a connection error, a file over
  SANCTIONS_DOWNLOAD_MAX_BYTES, or the parser raised.

Refused and failed never touch the list's content: the version in force stays, and the next
scheduled run simply tries again. The downloads happen outside any transaction; the load, the
refresh row, the list's fields and the audit row commit together.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial
from pathlib import PurePosixPath
from urllib.parse import urlsplit, urlunsplit

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from common.audit import audit_record
from config.env import SanctionsUrls, env_name
from onboarding.models.sanctions import RefreshOutcome, SanctionsList, SanctionsListVersion, SanctionsRefresh, VersionOrigin
from onboarding.sanctions.loader import ShrinkingLoadError, UnsafeLoadError, sanctions_list_load
from onboarding.sanctions.records import ParsedList
from onboarding.sanctions.registry import ListSpec, UnknownList, bundled_specs, list_spec, list_urls
from onboarding.screening.hooks import ListChange, notify_lists_changed
from onboarding.screening.index import invalidate_index

logger = logging.getLogger(__name__)

USER_AGENT = "compliance-service-sanctions-refresh/0.1 (downloads published sanctions lists)"
GOOD_OUTCOMES = (RefreshOutcome.LOADED, RefreshOutcome.UNCHANGED)
_CHUNK = 64 * 1024
_MAX_REDIRECTS = 5

Progress = Callable[[str], None]


class RefreshFailed(Exception):
    """A file could not be had or read: the refresh's outcome is `failed`."""


class NotServed(RefreshFailed):
    """The publisher answered 404 for the file."""


class RefreshRefused(Exception):
    """The files arrived but are not to be loaded as they are: the refresh's outcome is `refused`."""


def scheduled_sources() -> list[str]:
    """The lists the beat refreshes: settings.SANCTIONS_REFRESH_LISTS, else every bundled list."""
    return list(settings.SANCTIONS_REFRESH_LISTS) or [spec.source for spec in bundled_specs()]


def url_variable(source: str, file: str) -> str:
    """The environment variable that sets the URL of `file` of the list `source`."""
    return f"{SanctionsUrls.PREFIX}{env_name(source)}_{env_name(file)}"


# --- Downloading ---------------------------------------------------------------------------------

def shown(url: str) -> str:
    """`url` as it may be shown and stored (messages, the refresh log, /health, the audit trail): no
    user name, password or query string, where a mirror or the EU's file URL carries its secret."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", "")) if parts.scheme else url


def download(url: str, *, session: requests.Session, timeout: float, max_bytes: int) -> bytes:
    """The body of `url` (decoded if the server compressed it in transit). RefreshFailed with the
    reason for anything but a whole 2xx body of at most `max_bytes`; NotServed for a 404. `timeout`
    bounds the connection and every wait for data."""
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        raise RefreshFailed(f"{shown(url)}: only http and https URLs are downloaded")
    try:
        with session.get(url, stream=True, timeout=timeout, allow_redirects=True) as response:
            if response.status_code == 404:
                raise NotServed(f"{shown(url)}: HTTP 404 (not served)")
            if not 200 <= response.status_code < 300:
                raise RefreshFailed(f"{shown(url)}: HTTP {response.status_code} {response.reason or ''}".rstrip())
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise RefreshFailed(
                    f"{shown(url)}: {int(declared):,} bytes, more than the {max_bytes:,} allowed (SANCTIONS_DOWNLOAD_MAX_BYTES)")
            body = bytearray()
            for chunk in response.iter_content(_CHUNK):
                body += chunk
                if len(body) > max_bytes:
                    raise RefreshFailed(f"{shown(url)}: more than the {max_bytes:,} bytes allowed (SANCTIONS_DOWNLOAD_MAX_BYTES)")
            return bytes(body)
    except requests.Timeout:
        raise RefreshFailed(f"{shown(url)}: timed out (no answer within {timeout:g} s, SANCTIONS_DOWNLOAD_TIMEOUT)") from None
    except requests.ConnectionError as error:
        if "timed out" in str(error):  # a read that timed out while streaming the body
            raise RefreshFailed(f"{shown(url)}: timed out (no data within {timeout:g} s, SANCTIONS_DOWNLOAD_TIMEOUT)") from None
        raise RefreshFailed(f"{shown(url)}: connection failed: {_reason(error)}") from None
    except requests.RequestException as error:
        raise RefreshFailed(f"{shown(url)}: {type(error).__name__}: {_reason(error)}") from None


def _reason(error: Exception) -> str:
    return str(error)[:300] or type(error).__name__


def _download_files(spec: ListSpec, urls: dict[str, str], say: Progress) -> tuple[dict[str, bytes], list[str]]:
    """({file: content} of every file that has a URL, [optional files not had: no URL or a 404])."""
    if spec.required_file not in urls:
        raise RefreshFailed(f"no URL for {spec.required_file}: set {url_variable(spec.source, spec.required_file)}")
    blobs: dict[str, bytes] = {}
    missing: list[str] = []
    timeout, max_bytes = float(settings.SANCTIONS_DOWNLOAD_TIMEOUT), int(settings.SANCTIONS_DOWNLOAD_MAX_BYTES)
    with requests.Session() as session:
        session.headers["User-Agent"] = USER_AGENT
        session.max_redirects = _MAX_REDIRECTS
        for name in spec.files:
            url = urls.get(name)
            if not url:
                missing.append(name)
                continue
            say(f"{spec.source}: downloading {shown(url)}")
            started = time.perf_counter()
            try:
                blobs[name] = download(url, session=session, timeout=timeout, max_bytes=max_bytes)
            except NotServed as error:
                if name == spec.required_file:
                    raise
                missing.append(name)
                say(f"{spec.source}: {error}; {name} is optional, skipped")
                continue
            say(f"{spec.source}: {name}: {len(blobs[name]):,} bytes in {time.perf_counter() - started:.2f}s")
    return blobs, missing


def _file_name(path_or_url: str) -> str:
    return PurePosixPath(urlsplit(path_or_url).path).name.lower().removesuffix(".gz")


def _refuse_dropped_files(spec: ListSpec, current: SanctionsList | None, missing: list[str]) -> None:
    """An optional file the version in force was read from, and now not had, would take what it
    carries (OFAC's aliases, addresses) out of every entry without removing any: refused, not guessed."""
    if current is None or not missing:
        return
    read = {_file_name(path) for path in current.source_files}
    dropped = [name for name in missing if name.lower() in read]
    if dropped:
        raise RefreshRefused(
            f"{', '.join(dropped)} could not be had (no URL or HTTP 404) but the version in force was read from it: loading without "
            f"it would drop what it carries from the entries. If the publisher really stopped publishing it, refresh with --force "
            f"(manage.py refresh_sanctions --list {spec.source} --force)")


def _parse(spec: ListSpec, blobs: dict[str, bytes], urls: dict[str, str], say: Progress) -> ParsedList:
    started = time.perf_counter()
    try:
        parsed = spec.parse(blobs)
    except Exception as error:  # any parser error on a publisher's file is that file's problem, not a crash
        raise RefreshFailed(f"the files could not be parsed: {type(error).__name__}: {_reason(error)}") from None
    parsed.source_files = [shown(urls[name]) for name in spec.files if name in blobs]
    say(f"{spec.source}: parsed {len(parsed.entries)} entries, {parsed.name_count} names, {parsed.address_count} addresses, "
        f"{parsed.digital_address_count} digital-currency addresses; {parsed.report.skipped} malformed rows skipped "
        f"({time.perf_counter() - started:.2f}s)")
    return parsed


# --- Recording -----------------------------------------------------------------------------------

def _version_in_force(source: str) -> int | None:
    return (SanctionsListVersion.objects.filter(sanctions_list__source=source).order_by("-number")
            .values_list("number", flat=True).first())


def _in_force(source: str) -> str:
    number = _version_in_force(source)
    if number is not None:
        return f"version {number} stays in force"
    if SanctionsList.objects.filter(source=source).exists():
        return "the list in force stays"
    return "the list was never loaded"


def _refusal(source: str, error: Exception) -> str:
    if isinstance(error, ShrinkingLoadError):
        return (f"the list would fall by {error.removed / error.listed * 100:.0f} % ({error.removed:,} of its {error.listed:,} entries "
                f"removed, more than the {error.limit * 100:.0f} % allowed): {_in_force(source)}. If the publisher really delisted "
                f"them, refresh with --force (manage.py refresh_sanctions --list {source} --force)")
    reason = str(error).removeprefix(f"{source}: ")
    return f"{reason}; {_in_force(source)}"


def _started(*, source: str, trigger: str, urls: list[str]) -> SanctionsRefresh:
    return SanctionsRefresh.objects.create(source=source, started_at=timezone.now(), trigger=trigger, urls=urls)


@transaction.atomic
def _finish(refresh: SanctionsRefresh, *, outcome: str, message: str, version: SanctionsListVersion | None = None,
            actor=None) -> SanctionsRefresh:
    """Close the attempt: its row, the list's last_refresh_* fields (the failures counted since the
    last good refresh) and, unless nothing changed, an audit row."""
    refresh.finished_at = timezone.now()
    refresh.outcome, refresh.message, refresh.version = outcome, message, version
    refresh.save(update_fields=["finished_at", "outcome", "message", "version", "updated_at"])
    good = outcome in GOOD_OUTCOMES
    SanctionsList.objects.filter(source=refresh.source).update(
        last_refresh_at=refresh.finished_at, last_refresh_outcome=outcome, last_refresh_error="" if good else message,
        refresh_failures=0 if good else F("refresh_failures") + 1)
    if outcome != RefreshOutcome.UNCHANGED:
        audit_record(actor=actor, action=f"sanctions_list.refresh_{outcome}", object_type="sanctions_refresh", object_id=refresh.pk,
                     after={"source": refresh.source, "trigger": refresh.trigger, "outcome": outcome, "message": message,
                            "urls": refresh.urls, "version": version.number if version else None})
    return refresh


def _announce(refresh: SanctionsRefresh, change: ListChange) -> None:
    """After the load committed: this process screens against the new version, and the lists-changed
    callbacks re-screen. A failing callback is noted on the refresh (the list's rescreen marker
    stays set, so the beat sweep re-screens later)."""
    invalidate_index()
    failures = notify_lists_changed([change])
    refresh.announce_failures = failures
    if failures:
        names = ", ".join(getattr(callback, "__qualname__", repr(callback)) for callback, _error in failures)
        refresh.message += f"; {len(failures)} lists-changed callback(s) failed ({names}), the beat sweep re-screens later"
        SanctionsRefresh.objects.filter(pk=refresh.pk).update(message=refresh.message)


def _load(refresh: SanctionsRefresh, spec: ListSpec, parsed: ParsedList, *, force: bool, actor) -> SanctionsRefresh:
    with transaction.atomic():
        result = sanctions_list_load(parsed, allow_shrink=force, origin=VersionOrigin.DOWNLOAD, category=spec.category)
        if not result.changed:
            number = _version_in_force(spec.source)
            seen = f": the publisher's files are those of version {number}" if number is not None else ""
            return _finish(refresh, outcome=RefreshOutcome.UNCHANGED, message=f"unchanged{seen}", actor=actor)
        version = result.version
        _finish(refresh, outcome=RefreshOutcome.LOADED, version=version, actor=actor,
                message=f"loaded as version {version.number}: {len(result.added_uids)} added, {len(result.changed_uids)} changed, "
                        f"{len(result.removed_uids)} removed")
        change = ListChange(result.source, result.content_hash, result.added_uids, result.changed_uids, result.removed_uids)
        transaction.on_commit(partial(_announce, refresh, change))
    return refresh


# --- The service ---------------------------------------------------------------------------------

def sanctions_list_refresh(*, source: str, force: bool = False, trigger: str = "command", actor=None,
                           progress: Progress | None = None) -> SanctionsRefresh:
    """Download, parse and load the list `source` from its URLs; the SanctionsRefresh row recording
    the outcome (loaded, unchanged, refused or failed: never an exception for a publisher's
    problem). `force` loads files that would remove more than a tenth of the list, or that lack an
    optional file the version in force had. `trigger`: beat, command or console; `actor` the console
    user (None: the system); `progress(line)` hears what is being done.

    An error that is not the publisher's (the database, a time limit) is recorded as `failed` and raised."""
    say = progress or (lambda line: None)
    try:
        spec, unknown = list_spec(source), None
        urls = list_urls(spec)
    except UnknownList as error:
        spec, unknown, urls = None, error, {}
    refresh = _started(source=source, trigger=trigger, urls=[shown(url) for url in urls.values()])
    try:
        if unknown is not None:
            raise RefreshFailed(str(unknown))
        blobs, missing = _download_files(spec, urls, say)
        if not force:
            _refuse_dropped_files(spec, SanctionsList.objects.filter(source=source).first(), missing)
        parsed = _parse(spec, blobs, urls, say)
        return _load(refresh, spec, parsed, force=force, actor=actor)
    except RefreshFailed as failure:
        return _finish(refresh, outcome=RefreshOutcome.FAILED, message=str(failure), actor=actor)
    except RefreshRefused as refusal:
        return _finish(refresh, outcome=RefreshOutcome.REFUSED, message=f"{refusal}; {_in_force(source)}", actor=actor)
    except UnsafeLoadError as error:
        return _finish(refresh, outcome=RefreshOutcome.REFUSED, message=_refusal(source, error), actor=actor)
    except BaseException as error:
        try:
            _finish(refresh, outcome=RefreshOutcome.FAILED, message=f"unexpected error: {type(error).__name__}: {_reason(error)}",
                    actor=actor)
        except Exception:  # the database itself may be what failed: the first error is the one to raise
            logger.exception("could not record the failed refresh of %s", source)
        raise


def outcome_line(refresh: SanctionsRefresh) -> str:
    """`ofac_sdn: loaded as version 3: 12 added, 3 changed, 1 removed`, `…: unchanged…`, `…: refused: why`, `…: failed: why`."""
    if refresh.outcome in GOOD_OUTCOMES:
        return f"{refresh.source}: {refresh.message}"
    return f"{refresh.source}: {refresh.outcome or 'running'}: {refresh.message}"
