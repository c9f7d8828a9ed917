"""The one OpenAI-compatible chat-completions client (`POST {OPENAI_BASE_URL}/chat/completions`),
used by every generated text (risk explanations, case summaries, SAR narratives). Each caller
keeps its deterministic text as the default and falls back to it when the model is unavailable."""

from __future__ import annotations

import json

import requests
from django.conf import settings


class LlmUnavailable(Exception):
    """The model could not be used (network, HTTP status, shape of the answer)."""


def llm_configured() -> bool:
    return bool(settings.OPENAI_BASE_URL and settings.OPENAI_API_KEY and settings.OPENAI_MODEL)


def complete(*, system: str, facts: dict) -> str:
    """The model's answer to `system` with the facts as the user message (JSON), temperature 0."""
    try:
        response = requests.post(
            settings.OPENAI_BASE_URL.rstrip("/") + "/chat/completions",
            headers={"Authorization": f"Bearer {settings.OPENAI_API_KEY}"},
            json={"model": settings.OPENAI_MODEL, "temperature": 0, "messages": [
                {"role": "system", "content": system}, {"role": "user", "content": json.dumps(facts, default=str)}]},
            timeout=settings.OPENAI_TIMEOUT_SECONDS,
        )
        response.raise_for_status()
        text = response.json()["choices"][0]["message"]["content"]
    except (requests.RequestException, ValueError, KeyError, IndexError, TypeError) as exc:
        raise LlmUnavailable(type(exc).__name__) from exc
    if not isinstance(text, str) or not text.strip():
        raise LlmUnavailable("the model returned no text")
    return text.strip()
