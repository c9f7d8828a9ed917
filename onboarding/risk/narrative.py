"""The AI risk explanation: a readable narrative built from the stored factors.

Deterministic by default (the same factors give the same words). When OPENAI_BASE_URL, OPENAI_API_KEY
and OPENAI_MODEL are set, the factors are sent to that OpenAI-compatible endpoint
(`POST {base}/chat/completions`) and its answer is used; on any failure the deterministic text is
returned with the reason, so the endpoint never fails because a model is down.
"""

from __future__ import annotations

import logging

from django.conf import settings

from common.llm import LlmUnavailable, complete, llm_configured

logger = logging.getLogger(__name__)

DETERMINISTIC, LLM = "deterministic", "llm"


def deterministic_narrative(entity) -> str:
    factors = sorted(entity.risk_factors or [], key=lambda f: -f.get("contribution", 0))
    if entity.risk_score is None:
        return f"{entity.legal_name} has not been scored yet."
    lines = [f"{entity.legal_name} ({entity.get_entity_type_display().lower()}, {entity.jurisdiction}) has a risk score of "
             f"{entity.risk_score}/100, which is {entity.risk_tier} risk."]
    drivers = [f for f in factors if f.get("contribution", 0) > 0]
    if drivers:
        parts = [f"{f['label'].lower()} ({f['contribution']:g} of {f['weight']:g} points: {f['detail'].rstrip('.')})" for f in drivers]
        lines.append("The score is driven by " + _join(parts) + ".")
    quiet = [f["label"].lower() for f in factors if f.get("contribution", 0) == 0]
    if quiet:
        lines.append("No risk was found in " + _join(quiet) + ".")
    floors = [f for f in factors if f.get("floor")]
    if floors:
        highest = max(floors, key=lambda f: f["floor"])  # the floor that holds (factors come by points, not by floor)
        lines.append(f"A finding in {highest['label'].lower()} sets a minimum score of {highest['floor']}.")
    return " ".join(lines)


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


SYSTEM_PROMPT = ("You are a financial-crime compliance analyst. Explain an entity's risk score to a colleague in one short "
                 "paragraph, using only the facts given. Do not invent facts.")


def _llm_narrative(entity) -> str:
    facts = {"entity": entity.legal_name, "entity_type": entity.entity_type, "jurisdiction": entity.jurisdiction,
             "industry": entity.industry, "status": entity.status, "risk_score": entity.risk_score,
             "risk_tier": entity.risk_tier, "factors": entity.risk_factors}
    return complete(system=SYSTEM_PROMPT, facts=facts)


def risk_explanation(entity) -> dict:
    """{"narrative", "generated_by": "deterministic" | "llm", "model", "fallback_reason"}."""
    if llm_configured():
        try:
            return {"narrative": _llm_narrative(entity), "generated_by": LLM, "model": settings.OPENAI_MODEL,
                    "fallback_reason": None}
        except LlmUnavailable as exc:
            logger.warning("LLM risk explanation failed; using the deterministic one: %s", exc)
            reason = f"the language model could not be used: {exc}"
            return {"narrative": deterministic_narrative(entity), "generated_by": DETERMINISTIC, "model": None,
                    "fallback_reason": reason}
    return {"narrative": deterministic_narrative(entity), "generated_by": DETERMINISTIC, "model": None, "fallback_reason": None}
