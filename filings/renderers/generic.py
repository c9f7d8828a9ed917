"""Every other jurisdiction (GB, JP, DE, FR, NL, ...): the project's generic STR JSON.

No public machine-readable schema exists for these FIUs' reports (the UK's SAR Portal, Japan's
JAFIC, Germany's goAML, TRACFIN's ERMES, FIU-Nederland's goAML are web forms or goAML XML under
licence), so the report is a documented JSON document with the project's own JSON Schema,
`filings/schemas/generic-str.schema.json`, naming the jurisdiction and its FIU inside. Names are
kept in their own script, with a Latin transliteration beside them for the FIU's analysts.
"""

from __future__ import annotations

import json

from filings.documents.issues import ValidationIssue
from filings.documents.model import SuspiciousActivityForm, as_json
from filings.documents.typologies import TYPOLOGIES
from filings.renderers.base import JSON, Renderer, Rendering
from filings.renderers.checks import filer_checks, suspicious_activity_checks
from filings.renderers.formatting import country_name
from filings.renderers.summary import date_range, instruments, total_in
from filings.renderers.text import is_ascii, one_line, romanise

SCHEMA_ID = "https://compliance-service.example/schemas/generic-str/1"
FIUS = {
    "GB": "UK Financial Intelligence Unit (National Crime Agency)", "JP": "Japan Financial Intelligence Center (JAFIC)",
    "DE": "Financial Intelligence Unit (FIU Deutschland)", "FR": "TRACFIN", "NL": "FIU-Nederland",
    "IE": "Financial Intelligence Unit Ireland (An Garda Síochána)", "SG": "Suspicious Transaction Reporting Office (STRO)",
    "CH": "Money Laundering Reporting Office Switzerland (MROS)", "HK": "Joint Financial Intelligence Unit (JFIU)",
}


def _subject(subject) -> dict:
    data = as_json(subject)
    name = one_line(subject.display_name)
    data["name"] = {"as_written": name, "latin": one_line(romanise(name))} if name and not is_ascii(name) else {"as_written": name}
    return data


class GenericStrRenderer(Renderer):
    kind = "STR"
    family = "suspicious_activity"
    content_type = JSON
    schema = "generic-str.schema.json"
    regulator = "FIU"

    def __init__(self, jurisdiction: str):
        super().__init__(jurisdiction)

    def build(self, form: SuspiciousActivityForm) -> Rendering:
        activity = as_json(form.activity)
        activity["categories"] = [{**as_json(category), "label": TYPOLOGIES[category.typology].label}
                                  for category in form.activity.categories]
        activity["instruments"] = instruments(form)
        span = date_range(form.transactions)
        usd, missing = total_in(form.transactions, "USD")
        document = {
            "$schema": SCHEMA_ID,
            "report_type": "STR",
            "jurisdiction": self.jurisdiction,
            "jurisdiction_name": country_name(self.jurisdiction),
            "fiu": FIUS.get(self.jurisdiction),
            "filing_date": self.filing_day(form).isoformat(),
            "report_reference": form.report_reference,
            "amendment": as_json(form.amendment),
            "filer": as_json(form.filer),
            "prepared_by": as_json(form.prepared_by) if form.prepared_by else None,
            "subjects": [_subject(subject) for subject in form.subjects],
            "activity": activity,
            "transaction_summary": {
                "count": len(form.transactions), "first": span[0].isoformat() if span else None,
                "last": span[1].isoformat() if span else None, "total_usd": format(usd, "f"), "without_usd_value": missing,
            },
            "transactions": [as_json(transaction) for transaction in form.transactions],
        }
        document = {key: value for key, value in document.items() if value is not None}
        body = json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")
        stem = "".join(char if char.isalnum() or char in "-_" else "-" for char in (form.report_reference or "report"))[:60]
        return Rendering(document=body, content_type=JSON, filename=f"STR-{self.jurisdiction}-{stem}.json")

    def check(self, form: SuspiciousActivityForm) -> list[ValidationIssue]:
        return [*filer_checks(form, tin=False), *suspicious_activity_checks(form)]
