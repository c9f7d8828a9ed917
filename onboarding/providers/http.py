"""The HTTP screening provider: one JSON request per subject and check type.

Request (POST to SCREENING_PROVIDER_URL, `Authorization: Bearer SCREENING_PROVIDER_KEY`):

    {"check_type": "pep" | "adverse_media", "reference": "<entity id>",
     "subject": {"name", "entity_type", "date_of_birth", "country"},
     "monitor": {"webhook_url": "..."}}          # only when SCREENING_PROVIDER_MONITOR_WEBHOOK_URL is set

Response (200, JSON object):

    {"reference": "prov-123",                       # optional: the provider's id of this search
     "matches": [{"name", "score", "position", "country", "source", "url"}],          # pep
     "articles": [{"title", "url", "source", "published_at", "snippet", "categories", "score"}]}  # adverse_media

An item with a `score` below REVIEW_SCORE (or a list that is empty) is a pass; anything else needs
review. A non-2xx answer, a time-out, or a body of another shape is an `error` with the reason.
"""

from __future__ import annotations

import requests

from onboarding.providers.base import ProviderAnswer, Subject, strip_nul

REVIEW_SCORE = 0.85
ITEMS_KEY = {"pep": "matches", "adverse_media": "articles"}
MAX_ITEMS = 100


class HttpScreeningProvider:
    def __init__(self, *, url: str, key: str, name: str, timeout: float, monitor_webhook_url: str = ""):
        self.url, self.key, self.name, self.timeout = url, key, name, timeout
        self.monitor_webhook_url = monitor_webhook_url

    def screen(self, check_type: str, subject: Subject, *, reference: str) -> ProviderAnswer:
        body = {"check_type": check_type, "reference": reference, "subject": subject.as_dict()}
        if self.monitor_webhook_url:
            body["monitor"] = {"webhook_url": self.monitor_webhook_url}
        try:
            response = requests.post(self.url, json=body, timeout=self.timeout,
                                     headers={"Authorization": f"Bearer {self.key}", "Accept": "application/json"})
        except requests.RequestException as exc:
            return ProviderAnswer(subject, "error", error=f"provider unreachable: {type(exc).__name__}")
        try:
            raw = strip_nul(response.json())
        except ValueError:
            raw = None
        if not response.ok:
            return ProviderAnswer(subject, "error", error=f"provider answered HTTP {response.status_code}",
                                  raw=raw if isinstance(raw, dict) else None)
        return self._read(check_type, subject, raw)

    def _read(self, check_type: str, subject: Subject, raw) -> ProviderAnswer:
        key = ITEMS_KEY[check_type]
        items = raw.get(key) if isinstance(raw, dict) else None
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            return ProviderAnswer(subject, "error", error=f"provider response has no {key!r} list",
                                  raw=raw if isinstance(raw, dict) else None)
        items = items[:MAX_ITEMS]
        scores = [_score(item) for item in items]
        relevant = [item for item, score in zip(items, scores, strict=True) if score is None or score >= REVIEW_SCORE]
        best = max((score for score in scores if score is not None), default=1.0 if items else 0.0)
        return ProviderAnswer(subject, "review" if relevant else "pass", score=best, items=items,
                              reference=str(raw.get("reference") or ""), raw=raw)


def _score(item: dict) -> float | None:
    value = item.get("score")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return min(max(float(value), 0.0), 1.0)
