"""The global search (`GET /v1/onboarding/search`): a registry of per-type searchers.

    register_searcher("alerts", search_alerts)

    def search_alerts(*, organization, mode, q: str, limit: int) -> list[SearchResult]: ...

Each searcher returns at most `limit` results of its own type, best first; the endpoint lists the
types in registration order. Entities are built in; alerts, cases and transfers join from their apps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Case, IntegerField, Q, Value, When

Searcher = Callable[..., list["SearchResult"]]
_searchers: dict[str, Searcher] = {}


@dataclass(frozen=True)
class SearchResult:
    type: str
    id: str
    title: str
    subtitle: str = ""
    status: str | None = None
    matched: list[str] = field(default_factory=list)


def register_searcher(type_name: str, searcher: Searcher) -> None:
    _searchers[type_name] = searcher


def search_all(*, organization, mode: str, q: str, limit: int) -> list[SearchResult]:
    return [result for searcher in _searchers.values() for result in searcher(organization=organization, mode=mode, q=q, limit=limit)]


def searchable_types() -> list[str]:
    return list(_searchers)


def search_entities(*, organization, mode: str, q: str, limit: int) -> list[SearchResult]:
    from onboarding.models import Entity

    term = q.strip()
    match = (Q(legal_name__icontains=term) | Q(external_id__iexact=term) | Q(registration_number__iexact=term)
             | Q(wallets__address=term.lower()) | Q(wallets__address=term) | Q(ubos__name__icontains=term))
    rank = Case(When(legal_name__iexact=term, then=Value(0)), When(legal_name__istartswith=term, then=Value(1)),
                When(legal_name__icontains=term, then=Value(2)), default=Value(3), output_field=IntegerField())
    ids = (Entity.objects.filter(organization=organization, mode=mode).filter(match).annotate(rank=rank)
           .order_by("rank", "legal_name", "id").values_list("pk", "rank", "legal_name").distinct()[:limit * 3])
    ordered = list(dict.fromkeys(pk for pk, _, _ in ids))[:limit]
    entities = Entity.objects.in_bulk(ordered)
    return [_entity_result(entities[pk], term) for pk in ordered]


def _entity_result(entity, term: str) -> SearchResult:
    lowered = term.lower()
    matched = [name for name, value in (("legal_name", entity.legal_name), ("external_id", entity.external_id),
                                        ("registration_number", entity.registration_number)) if value and lowered in value.lower()]
    subtitle = f"{entity.get_entity_type_display()} · {entity.jurisdiction}" + (f" · {entity.external_id}" if entity.external_id else "")
    return SearchResult("entity", str(entity.pk), entity.legal_name, subtitle, entity.status, matched or ["wallet_or_owner"])


register_searcher("entity", search_entities)
