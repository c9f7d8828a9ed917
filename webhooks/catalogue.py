"""Every event type a receiver can subscribe to, with the fields of its `data` (docs/webhooks.md).

`alert.created`, `case.status_changed` and `sar.filed` carry the fields fixed for them from the start;
the others are fixed by this catalogue (docs/webhooks.md prints it). `event_payload`
checks and normalises what a service passes: a missing or unknown field is a programming error of
the caller, raised as `PayloadError`, never sent to a customer.

Field kinds: string, integer, number, boolean, date, datetime, object, string[]; a trailing `?`
means the value may be null.
"""

import datetime as dt
import decimal
import uuid
from dataclasses import dataclass

TEST_EVENT_TYPE = "webhook.test"


class PayloadError(ValueError):
    pass


@dataclass(frozen=True)
class EventType:
    name: str
    category: str
    emitted_when: str
    fields: dict[str, str]


def _t(name: str, category: str, emitted_when: str, **fields: str) -> EventType:
    return EventType(name, category, emitted_when, fields)


CATALOGUE: dict[str, EventType] = {t.name: t for t in [
    _t("alert.created", "Alert", "a monitoring rule triggers a new alert",
       alert_id="string", entity_id="string", rule_id="string", rule_name="string", severity="string",
       description="string", transaction_ids="string[]", created_at="datetime"),
    _t("alert.disposition_set", "Alert", "an alert receives a disposition",
       alert_id="string", entity_id="string", rule_id="string", disposition="string", notes="string?",
       set_by="string?", set_at="datetime"),
    _t("case.created", "Case", "an investigation case is opened",
       case_id="string", entity_id="string", status="string", priority="string?", assigned_to="string?",
       alert_ids="string[]", created_at="datetime"),
    _t("case.status_changed", "Case", "an investigation case changes status",
       case_id="string", entity_id="string", previous_status="string", new_status="string", assigned_to="string?",
       alert_ids="string[]", updated_at="datetime"),
    _t("case.assigned", "Case", "a case is assigned to an investigator",
       case_id="string", entity_id="string", assigned_to="string", previous_assignee="string?",
       assigned_by="string?", assigned_at="datetime"),
    _t("sar.filed", "Filing", "a SAR is marked as filed",
       sar_id="string", case_id="string", entity_id="string", bsa_id="string", filing_date="date",
       amount_involved="number", activity_start_date="date", activity_end_date="date"),
    _t("ctr.filed", "Filing", "a large-transaction report (CTR, LCTR, TTR) is marked as filed",
       filing_id="string", kind="string", jurisdiction="string", entity_id="string", alert_id="string?",
       bsa_id="string?", filing_date="date", amount_involved="number", currency="string"),
    _t("entity.risk_score_changed", "Entity", "an entity's risk score or tier changes",
       entity_id="string", previous_score="number?", new_score="number", previous_tier="string?",
       new_tier="string", reason="string", changed_at="datetime"),
    _t("fincen_314a.match_found", "Screening", "matching a 314(a) list finds an entity like a subject (one event per match)",
       match_id="string", file_id="string", entity_id="string", subject_name="string", match_score="number",
       match_fields="string[]", response_deadline="datetime"),
    _t("adverse_media.detected", "Screening", "an adverse-media check finds relevant articles",
       entity_id="string", check_id="string", article_count="integer", categories="string[]",
       detected_at="datetime"),
    _t("compliance.status_changed", "Compliance", "an entity's compliance status changes",
       entity_id="string", previous_status="string?", new_status="string", reason="string?", changed_at="datetime"),
    _t("compliance.wallet_flagged", "Compliance", "a wallet of an entity is flagged",
       entity_id="string", wallet_id="string", chain_id="integer", address="string", reason="string",
       flagged_at="datetime"),
    _t("compliance.entity_suspended", "Compliance", "an entity is suspended for a compliance reason",
       entity_id="string", reason="string", suspended_by="string?", suspended_at="datetime"),
    _t("transfer.detected", "Transfer", ("the API records a transfer of a customer (one per customer side; written only while an endpoint "
        "subscribes; not for backfill)"),
       transfer_id="string", entity_id="string?", chain_id="integer", tx_hash="string", from_address="string",
       to_address="string", amount="string", asset="string?", detected_at="datetime"),
    _t("transfer.confirmed", "Transfer", "a travel-rule transfer or on-chain update is confirmed",
       transfer_id="string", entity_id="string?", chain_id="integer", tx_hash="string", block_number="integer",
       confirmations="integer", confirmed_at="datetime"),
    _t("account.approved", "Account", "an entity is approved",
       entity_id="string", approved_by="string?", approved_at="datetime"),
    _t("account.suspended", "Account", "an entity is suspended",
       entity_id="string", reason="string?", suspended_by="string?", suspended_at="datetime"),
    _t("account.kyb_expired", "Account",
       "an active entity's KYB verification falls due under the organization's KYB review policy (hourly sweep; once per verification)",
       entity_id="string", check_id="string?", expired_at="datetime"),
]}

# Sent only by "send a test event"; no endpoint subscribes to it.
TEST_EVENT = _t(TEST_EVENT_TYPE, "Developer", "an admin sends a test event to one endpoint",
                endpoint_id="string", message="string")


def subscribable_types() -> list[str]:
    return list(CATALOGUE)


def event_type(name: str) -> EventType:
    if name == TEST_EVENT_TYPE:
        return TEST_EVENT
    try:
        return CATALOGUE[name]
    except KeyError:
        raise PayloadError(f"unknown event type {name!r}") from None


def event_payload(name: str, data: dict) -> dict:
    """`data` checked against the type's fields and made JSON-native (uuid, datetime, date, Decimal)."""
    fields = event_type(name).fields
    missing = sorted(set(fields) - set(data))
    unknown = sorted(set(data) - set(fields))
    if missing or unknown:
        raise PayloadError(f"{name}: missing fields {missing}, unknown fields {unknown}")
    return {field: _value(name, field, kind, data[field]) for field, kind in fields.items()}


def _value(event: str, field: str, kind: str, value):
    if value is None:
        if kind.endswith("?"):
            return None
        raise PayloadError(f"{event}.{field} may not be null")
    converter = _CONVERTERS[kind.rstrip("?")]
    try:
        return converter(value)
    except (TypeError, ValueError, decimal.InvalidOperation):
        raise PayloadError(f"{event}.{field}: {value!r} is not a {kind.rstrip('?')}") from None


def _string(value) -> str:
    if isinstance(value, str | uuid.UUID):
        return str(value)
    raise TypeError


def _integer(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError
    return value


def _number(value) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal):
        raise TypeError
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _boolean(value) -> bool:
    if not isinstance(value, bool):
        raise TypeError
    return value


def _date(value) -> str:
    if isinstance(value, dt.datetime):
        raise TypeError
    if isinstance(value, dt.date):
        return value.isoformat()
    return dt.date.fromisoformat(value).isoformat()


def _datetime(value) -> str:
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    if not isinstance(value, dt.datetime) or value.tzinfo is None:
        raise TypeError
    return iso_utc(value)


def _object(value) -> dict:
    if not isinstance(value, dict):
        raise TypeError
    return value


def _strings(value) -> list[str]:
    if not isinstance(value, list | tuple):
        raise TypeError
    return [_string(item) for item in value]


_CONVERTERS = {
    "string": _string, "integer": _integer, "number": _number, "boolean": _boolean, "date": _date,
    "datetime": _datetime, "object": _object, "string[]": _strings,
}


def iso_utc(value: dt.datetime) -> str:
    """2026-01-02T03:04:05.678901Z: the one timestamp format of envelopes and payloads."""
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
