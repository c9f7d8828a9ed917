"""The screening-provider interface (PEP and adverse media) and what a provider answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Subject:
    """Who is screened: the entity itself or one of its beneficial owners."""

    key: str  # entity | ubo:<id>
    name: str
    entity_type: str  # individual | business
    date_of_birth: str | None = None
    country: str | None = None

    def as_dict(self) -> dict:
        return {"name": self.name, "entity_type": self.entity_type, "date_of_birth": self.date_of_birth, "country": self.country}


@dataclass(frozen=True)
class ProviderAnswer:
    """One subject's answer. `result` is pass | review | error; `items` are PEP matches or articles."""

    subject: Subject
    result: str
    score: float | None = None
    items: list[dict] = field(default_factory=list)
    error: str = ""
    reference: str = ""
    raw: dict | None = None


class ScreeningProvider(Protocol):
    name: str

    def screen(self, check_type: str, subject: Subject, *, reference: str) -> ProviderAnswer: ...


def strip_nul(value):
    """A provider's JSON without NUL characters (PostgreSQL's jsonb refuses them)."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {strip_nul(key): strip_nul(item) for key, item in value.items()}
    if isinstance(value, list):
        return [strip_nul(item) for item in value]
    return value
