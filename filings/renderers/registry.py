"""Which report each jurisdiction files, and the renderer for it.

    suspicious_activity_report_kind("CA")   -> "STR"
    large_transaction_report_kind("GB")     -> None   (the API answers 404)
    renderer_for("CTR", "US")               -> FincenCtrRenderer()

Suspicious activity: a SAR to FinCEN (US), an STR to FINTRAC (CA), an SMR to AUSTRAC (AU), and
the project's generic STR everywhere else. Large transactions: a CTR (US, 31 CFR 1010.311), an
LCTR (CA, PCMLTFR s. 126), a TTR (AU, AML/CTF Act s. 43); no other jurisdiction has one here —
in particular GB, JP, DE, FR and NL, which have no large-transaction report (docs/filings.md).
"""

from __future__ import annotations

from functools import cache

import pycountry

from filings.renderers.austrac.smr import AustracSmrRenderer
from filings.renderers.austrac.ttr import AustracTtrRenderer
from filings.renderers.base import Renderer
from filings.renderers.fincen.ctr import FincenCtrRenderer
from filings.renderers.fincen.sar import FincenSarRenderer
from filings.renderers.fintrac.lctr import FintracLctrRenderer
from filings.renderers.fintrac.str_report import FintracStrRenderer
from filings.renderers.generic import GenericStrRenderer

SUSPICIOUS_ACTIVITY = {"US": FincenSarRenderer, "CA": FintracStrRenderer, "AU": AustracSmrRenderer}
LARGE_TRANSACTION = {"US": FincenCtrRenderer, "CA": FintracLctrRenderer, "AU": AustracTtrRenderer}
KINDS = frozenset(("SAR", "STR", "SMR", "CTR", "LCTR", "TTR"))


class UnsupportedReport(LookupError):
    """No renderer for this (kind, jurisdiction): unknown jurisdiction, or a kind it does not file."""


def _jurisdiction(code: str) -> str:
    value = (code or "").strip().upper()
    if len(value) != 2 or pycountry.countries.get(alpha_2=value) is None:
        raise UnsupportedReport(f"{code!r} is not an ISO 3166-1 alpha-2 country code.")
    return value


def suspicious_activity_report_kind(jurisdiction: str) -> str:
    """"SAR", "STR" or "SMR": the suspicious-activity report the jurisdiction files."""
    code = _jurisdiction(jurisdiction)
    return SUSPICIOUS_ACTIVITY[code].kind if code in SUSPICIOUS_ACTIVITY else GenericStrRenderer.kind


def large_transaction_report_kind(jurisdiction: str) -> str | None:
    """"CTR", "LCTR", "TTR", or None where there is no large-transaction report."""
    code = (jurisdiction or "").strip().upper()
    return LARGE_TRANSACTION[code].kind if code in LARGE_TRANSACTION else None


@cache
def _renderer(kind: str, jurisdiction: str) -> Renderer:
    if jurisdiction in LARGE_TRANSACTION and LARGE_TRANSACTION[jurisdiction].kind == kind:
        return LARGE_TRANSACTION[jurisdiction]()
    if jurisdiction in SUSPICIOUS_ACTIVITY:
        if SUSPICIOUS_ACTIVITY[jurisdiction].kind == kind:
            return SUSPICIOUS_ACTIVITY[jurisdiction]()
    elif kind == GenericStrRenderer.kind:
        return GenericStrRenderer(jurisdiction)
    raise UnsupportedReport(f"{jurisdiction} does not file a {kind}.")


def renderer_for(kind: str, jurisdiction: str) -> Renderer:
    """The renderer of one report kind for one jurisdiction. Renderers are stateless and shared."""
    value = (kind or "").strip().upper()
    if value not in KINDS:
        raise UnsupportedReport(f"{kind!r} is not a report kind ({', '.join(sorted(KINDS))}).")
    return _renderer(value, _jurisdiction(jurisdiction))


def suspicious_activity_renderer(jurisdiction: str) -> Renderer:
    return renderer_for(suspicious_activity_report_kind(jurisdiction), jurisdiction)


def large_transaction_renderer(jurisdiction: str) -> Renderer | None:
    kind = large_transaction_report_kind(jurisdiction)
    return renderer_for(kind, jurisdiction) if kind else None
