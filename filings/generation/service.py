"""ai-summary and ai-sar-narrative: deterministic by default; an OpenAI-compatible model when
configured, given the facts alone and checked afterwards — an answer with a date or number that
is not in the facts is discarded for the deterministic text, with the reason."""

from __future__ import annotations

import logging

from django.conf import settings

from common import llm
from common.confidentiality import sar_visible
from filings.generation import text
from filings.generation.facts import case_facts
from filings.reports import coverage

logger = logging.getLogger(__name__)

DETERMINISTIC, LLM = "deterministic", "llm"
RULES = ("Use only the facts in the JSON the user sends. Do not add names, amounts, dates, places or reasons that are not in it. "
         "Write amounts with their currency, and dates as YYYY-MM-DD.")
PROMPTS = {
    "narrative": "You are a BSA/AML officer writing the narrative of a suspicious activity report, following FinCEN's guidance: "
                 "who is involved, what happened, when, where, why it is suspicious and how it was done. Plain prose, no headings. "
                 + RULES,
    "summary": "You are a financial-crime investigator. Summarise this case for a colleague in two short paragraphs: where the "
               "case stands and what the activity is. " + RULES,
}
DETERMINISTIC_TEXT = {"narrative": text.sar_narrative, "summary": text.case_summary}


def generated(case, *, purpose: str, reader) -> dict:
    """{"text", "generator", "model", "fallback_reason", "facts"} for purpose "narrative" or "summary".
    A narrative is of what the report covers (filings.reports.coverage); a summary of the whole case.
    For a `reader` below l2_investigator the facts leave the case's filings out (common.confidentiality)."""
    included = coverage.included_alerts(case, coverage.stored_selection(case)) if purpose == "narrative" else None
    facts = case_facts(case, alerts=included, with_filings=sar_visible(reader))
    result = {"generator": DETERMINISTIC, "model": None, "fallback_reason": None, "facts": facts}
    if llm.llm_configured():
        try:
            answer = llm.complete(system=PROMPTS[purpose], facts=facts)
            invented = text.unsupported_figures(answer, facts)
            if not invented:
                return {**result, "text": answer, "generator": LLM, "model": settings.OPENAI_MODEL}
            reason = f"the language model wrote figures that are not in the case: {', '.join(invented[:5])}"
        except llm.LlmUnavailable as exc:
            reason = f"the language model could not be used: {exc}"
        logger.warning("generated %s for case %s: %s", purpose, case.pk, reason)
        result["fallback_reason"] = reason
    return {**result, "text": DETERMINISTIC_TEXT[purpose](facts)}
