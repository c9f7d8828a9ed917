"""Regulatory report renderers: one class per (kind, jurisdiction) behind one interface.

See filings/renderers/base.py for the interface and docs/filings.md for the mappings.
"""

from filings.renderers.base import JSON, XML, Renderer, Rendering, Review
from filings.renderers.registry import (
    UnsupportedReport,
    large_transaction_renderer,
    large_transaction_report_kind,
    renderer_for,
    suspicious_activity_renderer,
    suspicious_activity_report_kind,
)

__all__ = [
    "JSON", "XML", "Renderer", "Rendering", "Review", "UnsupportedReport", "large_transaction_renderer",
    "large_transaction_report_kind", "renderer_for", "suspicious_activity_renderer", "suspicious_activity_report_kind",
]
