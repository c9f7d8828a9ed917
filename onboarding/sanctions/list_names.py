"""What a list is called, for people: the registry's name of a source (`ListSpec.name`), or, for a
list loaded without a spec in this process (an OpenSanctions dataset whose module is missing), the
project's label of the source, else the source itself."""

from __future__ import annotations

from functools import lru_cache

from onboarding.models.sanctions import SanctionsSource
from onboarding.sanctions.registry import list_spec


@lru_cache(maxsize=256)
def list_name(source: str) -> str:
    try:
        return list_spec(source).name
    except (LookupError, ImportError):  # UnknownList is a KeyError; os_<dataset> needs its module
        return dict(SanctionsSource.choices).get(source, source)
