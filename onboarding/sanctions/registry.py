"""Every list the service can screen against: what it is, where its publisher serves it, how it is
read, and whether a snapshot of it is carried in the repository (`snapshot/`, with MANIFEST.json
giving each file's source, date, licence and SHA-256).

    spec = list_spec("ofac_sdn")
    spec.parse(blobs)                 # {file name: bytes as published} -> ParsedList
    snapshot_blobs(spec)              # the bundled files, decompressed
    list_urls(spec)                   # {file name: URL}, settings first (SANCTIONS_URLS), else the publisher's

A list is identified by its `source` (SanctionsList.source, a hit's `source`). The known lists are in
`KNOWN`; `register()` adds one (the format modules do, at import). An OpenSanctions dataset is
`os_<dataset>` and is made on demand by `list_spec` (onboarding.sanctions.formats.opensanctions).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from functools import cache
from pathlib import Path

from onboarding.models.sanctions import ListCategory, SanctionsSource
from onboarding.sanctions.files import find_file, read_blob
from onboarding.sanctions.records import ParsedList

SNAPSHOT_DIR = Path(__file__).resolve().parent / "snapshot"

Parser = Callable[[dict[str, bytes]], ParsedList]


@dataclass(frozen=True)
class ListSpec:
    source: str
    name: str
    publisher: str
    parse: Parser
    files: tuple[str, ...]  # the file names the parser reads; the first is required
    urls: dict[str, str] = field(default_factory=dict)  # the publisher's URL of each file
    category: str = ListCategory.SANCTIONS
    bundled: bool = False  # a snapshot is in snapshot/<source>/ and the list is screened by default

    @property
    def required_file(self) -> str:
        return self.files[0]


KNOWN: dict[str, ListSpec] = {}


def register(spec: ListSpec) -> ListSpec:
    KNOWN[spec.source] = spec
    return spec


def _load_formats() -> None:
    """Import the format modules so that they register their lists."""
    from onboarding.sanctions.formats import csl, dpl, eu, ofac, opensanctions, uk, un  # noqa: F401


class UnknownList(KeyError):
    """No list of that name; the message names those there are."""

    def __str__(self):
        return self.args[0]


def known_specs() -> list[ListSpec]:
    _load_formats()
    return sorted(KNOWN.values(), key=lambda spec: (not spec.bundled, spec.source))


def bundled_specs() -> list[ListSpec]:
    return [spec for spec in known_specs() if spec.bundled]


def list_spec(source: str) -> ListSpec:
    """The list named `source` (an OpenSanctions dataset as `os_<dataset>`); UnknownList if none."""
    _load_formats()
    if source in KNOWN:
        return KNOWN[source]
    if source.startswith("os_"):
        from onboarding.sanctions.formats.opensanctions import dataset_spec

        return dataset_spec(source.removeprefix("os_"))
    names = ", ".join(spec.source for spec in known_specs())
    raise UnknownList(f"No list {source!r}: the lists are {names}, and os_<dataset> for an OpenSanctions dataset.")


@cache
def list_name(source: str) -> str:
    """What a list is called, for people: the registry's name, else the project's label of a known
    source, else the source itself (a list loaded from a dataset this process cannot name)."""
    try:
        return list_spec(source).name
    except (LookupError, ValueError):  # UnknownList is a KeyError; a malformed os_<dataset> name a ValueError
        return dict(SanctionsSource.choices).get(source, source)


def default_enabled(source: str) -> bool:
    """Screened by an organization that has not chosen: the bundled lists."""
    _load_formats()
    spec = KNOWN.get(source)
    return bool(spec and spec.bundled)


def list_urls(spec: ListSpec) -> dict[str, str]:
    """{file: URL}: settings.SANCTIONS_URLS[source][file] where set (the environment's
    SANCTIONS_URL_<SOURCE>_<FILE> fills it: config.settings), else the publisher's, unless
    SANCTIONS_PUBLISHER_URLS is false (an installation that refreshes from its own mirrors only;
    the test suite, which must never reach outside this machine)."""
    from django.conf import settings

    configured = (getattr(settings, "SANCTIONS_URLS", {}) or {}).get(spec.source, {})
    official = spec.urls if getattr(settings, "SANCTIONS_PUBLISHER_URLS", True) else {}
    return {name: configured.get(name) or official[name] for name in spec.files if configured.get(name) or official.get(name)}


# --- The bundled snapshot ------------------------------------------------------------------------

@cache
def snapshot_manifest() -> dict:
    return json.loads((SNAPSHOT_DIR / "MANIFEST.json").read_text())


def snapshot_info(source: str) -> dict:
    """The manifest's record of a bundled list (name, publisher, published, retrieved, licence, files)."""
    manifest = snapshot_manifest()
    return {**manifest["lists"].get(source, {}), "retrieved": manifest["retrieved"]}


def snapshot_published_at(source: str) -> datetime | None:
    """The bundled snapshot's publication date (midnight UTC), as its manifest records it."""
    published = snapshot_info(source).get("published")
    return datetime.combine(date.fromisoformat(published), time(), tzinfo=UTC) if published else None


def snapshot_blobs(spec: ListSpec) -> tuple[dict[str, bytes], list[str]]:
    """({file: content as published}, [paths read]) of the list's bundled snapshot."""
    directory = SNAPSHOT_DIR / spec.source
    blobs, paths = {}, []
    for name in spec.files:
        path = find_file(directory, name)
        if path is not None:
            blobs[name] = read_blob(path)
            paths.append(str(path.relative_to(SNAPSHOT_DIR.parent.parent.parent)))
    if spec.required_file not in blobs:
        raise FileNotFoundError(f"{spec.source}: the bundled snapshot has no {spec.required_file} ({directory})")
    return blobs, paths
