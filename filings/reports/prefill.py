"""Prefilled form data: the SAR/STR/SMR draft of a case and the CTR/LCTR/TTR draft of a rule-24
alert, from the organization's filer profile, the entity and its owners, the alerts and their
transactions (docs/filings.md has the form; docs/cases.md what is prefilled from where)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from filings.cases import selectors
from filings.generation.facts import case_facts
from filings.generation.text import sar_narrative
from filings.reports import coverage
from filings.reports.activity import Prices, fiat_row, transaction_row
from filings.reports.categories import categories_for
from filings.reports.subjects import entity_subject, subjects_for
from monitoring.models import AlertHit
from monitoring.rules.fiat import BUSINESS_DAY_ZONE, DEFAULT_BUSINESS_DAY_ZONE

LARGE_FIAT_RULE = "large_fiat_transaction"  # rule 24
FILER_FIELDS = ("legal_name", "tin", "tin_type", "address", "primary_regulator", "contact_office", "contact_phone", "dba_name",
                "institution_type", "institution_type_other", "transmitter_control_code", "reporting_entity_number",
                "regulator_contact_id", "reporting_entity_location_id")
ADDRESS_FIELDS = ("line1", "city", "state", "postal_code", "country")


def filer_of(organization) -> dict:
    """The filer block: the organization's filer profile, as stored, in the form's fields."""
    profile = organization.filer_profile or {}
    filer = {key: value for key, value in profile.items() if key in FILER_FIELDS and value not in (None, "", {})}
    if isinstance(filer.get("address"), dict):
        filer["address"] = {key: value for key, value in filer["address"].items() if key in ADDRESS_FIELDS and value}
    return filer


def prepared_by_of(principal) -> dict | None:
    user = getattr(principal, "user", None)
    if user is None:
        return None
    name = " ".join(part for part in (user.first_name, user.last_name) if part) or user.email
    return {key: value for key, value in {"name": name[:150], "title": getattr(user, "job_title", "") or None,
                                          "email": user.email}.items() if value}


def _day(timestamp: str) -> str:
    return timestamp[:10]


def sar_prefill(case, *, principal=None, selection: dict | None = None) -> dict:
    """The draft of the alerts the report covers (filings.reports.coverage: by default those disposed
    true positive or inconclusive; `selection` holds the investigator's choices) and their transactions only."""
    entity, jurisdiction = case.entity, case.entity.jurisdiction
    alerts = coverage.included_alerts(case, selection)
    prices = Prices.of(case.organization)
    rows = [transaction_row(tx, entity_id=entity.pk, jurisdiction=jurisdiction, prices=prices)
            for tx in selectors.alerts_transactions(alerts).select_related("from_entity", "to_entity")]
    rows += [fiat_row(event, jurisdiction=jurisdiction, prices=prices) for event in selectors.alerts_fiat_events(alerts)]
    rows.sort(key=lambda row: (row["timestamp"], row["reference"]))
    form = {"filer": filer_of(case.organization), "report_reference": case.reference,
            "subjects": subjects_for(entity, jurisdiction=jurisdiction), "activity": _activity(case, alerts, rows), "transactions": rows}
    if prepared := prepared_by_of(principal):
        form["prepared_by"] = prepared
    return form


def _activity(case, alerts, rows) -> dict:
    values = [Decimal(row["usd_value"]) for row in rows if "usd_value" in row]
    days = sorted(_day(row["timestamp"]) for row in rows) or sorted(
        day for alert in alerts for day in (alert.first_triggered_at.date().isoformat(), alert.last_triggered_at.date().isoformat()))
    categories = categories_for(alerts) or [{"typology": "other", "description": "; ".join(
        dict.fromkeys(alert.rule_name for alert in alerts))[:500] or "Referred for investigation"}]
    activity = {"currency": "USD", "categories": categories, "case_references": [case.reference],
                "alert_references": [str(alert.pk) for alert in alerts][:999],
                "narrative": sar_narrative(case_facts(case, alerts=alerts))}
    if values:
        activity["amount_involved"] = format(sum(values, Decimal(0)).quantize(Decimal("0.01")), "f")
    else:
        activity["amount_unknown"] = True
    if days:
        activity["start_date"], activity["end_date"] = days[0], days[-1]
    if any(row.get("fiat_event_type") is None for row in rows):
        activity["instruments"] = ["virtual_currency"]
    return activity


# --- Large-transaction reports (rule 24) --------------------------------------------------------

def _business_days(alert) -> list[date]:
    """The business days rule 24 measured for this alert, one per hit (31 CFR 1010.313)."""
    days = set()
    for evidence in AlertHit.objects.filter(alert=alert).values_list("evidence", flat=True):
        value = (evidence or {}).get("measured", {}).get("business_day")
        try:
            days.add(date.fromisoformat(value))
        except (TypeError, ValueError):
            continue
    return sorted(days)


def business_day_of(moment: datetime, *, zone: ZoneInfo, measured: list[date]) -> date:
    """The business day an event posts to: its local date rolled forward to the next day the rule
    measured (a Saturday deposit posts on Monday), else past the weekend."""
    local = moment.astimezone(zone).date()
    later = [day for day in measured if day >= local]
    if later and (later[0] - local).days <= 7:
        return later[0]
    while local.weekday() >= 5:
        local += timedelta(days=1)
    return local


def ctr_prefill(alert, *, principal=None) -> dict:
    entity = alert.entity
    jurisdiction = entity.jurisdiction
    zone = ZoneInfo(BUSINESS_DAY_ZONE.get(jurisdiction, DEFAULT_BUSINESS_DAY_ZONE))
    measured, prices = _business_days(alert), Prices.of(alert.organization)
    events = list(alert.fiat_events.order_by("timestamp", "id"))
    rows = [fiat_row(event, jurisdiction=jurisdiction, prices=prices,
                     business_date=business_day_of(event.timestamp, zone=zone, measured=measured)) for event in events]
    per_day: dict[str, int] = {}
    for row in rows:
        per_day[row["business_date"]] = per_day.get(row["business_date"], 0) + 1
    form = {"filer": filer_of(alert.organization), "report_reference": f"ALERT-{str(alert.pk)[:8].upper()}",
            "subjects": [entity_subject(entity, jurisdiction=jurisdiction, role="conductor")], "transactions": rows,
            "aggregation_basis": "conductor" if any(count > 1 for count in per_day.values()) else "not_applicable",
            "alert_references": [str(alert.pk)]}
    if prepared := prepared_by_of(principal):
        form["prepared_by"] = prepared
    return form
