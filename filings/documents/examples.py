"""Example form data: complete, realistic, deterministic. Used by the tests, the benchmark and the
documentation, and handy for anyone building the draft prefill (it shows every field in use).

    data = example_suspicious_activity("US", transactions=1000, subjects=10)
    data = example_large_transaction("CA", transactions=20)
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

FILERS = {
    "US": {"legal_name": "Acme Virtual Assets LLC", "tin": "12-3456789", "tin_type": "EIN",
           "address": {"line1": "1 Main St", "city": "Springfield", "state": "IL", "postal_code": "62701", "country": "US"},
           "primary_regulator": "IRS", "contact_office": "BSA Compliance Office", "contact_phone": "+1 217 555 0100",
           "institution_type": "virtual_asset_service_provider", "transmitter_control_code": "PACME123"},
    "CA": {"legal_name": "Érable Échange Numérique Inc.", "tin": "123456789", "tin_type": "foreign",
           "address": {"line1": "1000 rue Sherbrooke O", "city": "Montréal", "state": "QC", "postal_code": "H3A 3G4", "country": "CA"},
           "primary_regulator": "FINTRAC", "contact_office": "Bureau de conformité", "contact_phone": "+1 514 555 0199",
           "institution_type": "virtual_asset_service_provider", "reporting_entity_number": "1234567", "regulator_contact_id": 42,
           "reporting_entity_location_id": "HQ-1"},
    "AU": {"legal_name": "Wattle Digital Exchange Pty Ltd", "tin": "51824753556", "tin_type": "foreign",
           "address": {"line1": "1 George St", "city": "Sydney", "state": "NSW", "postal_code": "2000", "country": "AU"},
           "primary_regulator": "AUSTRAC", "contact_office": "AML/CTF Compliance", "contact_phone": "+61 2 5550 1234",
           "institution_type": "virtual_asset_service_provider", "reporting_entity_number": "7654321"},
}
DEFAULT_FILER = {"legal_name": "Globex Crypto GmbH", "tin": "DE123456789", "tin_type": "foreign",
                 "address": {"line1": "Friedrichstraße 1", "city": "Berlin", "postal_code": "10117", "country": "DE"},
                 "primary_regulator": "BaFin", "contact_office": "Geldwäschebeauftragter", "contact_phone": "+49 30 555 0100",
                 "institution_type": "virtual_asset_service_provider"}

# Names in several scripts, as a screening or filing system meets them.
NAMES = (
    ("Zoë", "Ångström"), ("Мария", "Иванова"), ("محمد", "الحسيني"), ("José", "Núñez"), ("Łukasz", "Wiśniewski"),
    ("Ελένη", "Παπαδοπούλου"), ("John", "Smith"), ("Søren", "Kierkegaard"), ("Ayşe", "Yılmaz"), ("Nguyễn", "Văn An"),
)


def filer_for(jurisdiction: str) -> dict:
    filer = FILERS.get(jurisdiction, DEFAULT_FILER)
    return {**filer, "address": dict(filer["address"])}


def subject(index: int, jurisdiction: str = "US") -> dict:
    given, family = NAMES[index % len(NAMES)]
    if index % 5 == 4:
        return {"id": f"S{index + 1}", "type": "business", "legal_name": f"{family} Trading {index + 1} Ltd",
                "addresses": [{"line1": f"{index + 10} Harbour Rd", "city": "Hong Kong", "country": "HK"}],
                "tax_id": {"number": f"HK-{index:08d}", "type": "foreign", "country": "HK"}, "occupation": "Import and export",
                "wallets": [{"address": f"0x{index:040x}", "chain": "ethereum"}], "is_customer": True}
    return {
        "id": f"S{index + 1}", "type": "individual", "given_name": given, "family_name": family,
        "birth_date": f"19{70 + index % 30}-0{1 + index % 9}-1{index % 9}", "gender": ("female", "male")[index % 2],
        "nationality": ("SE", "RU", "EG", "ES", "PL", "GR", "US", "DK", "TR", "VN")[index % 10],
        "addresses": [{"line1": f"{index + 1} Example Street", "city": "Springfield", "state": "IL", "postal_code": "62704",
                       "country": "US"} if jurisdiction == "US" else
                      {"line1": f"{index + 1} Example Road", "city": "Townsville", "postal_code": "4810", "country": jurisdiction}],
        "phones": [{"number": f"+1 217 555 {1000 + index}", "type": "mobile"}],
        "emails": [f"subject{index + 1}@example.com"],
        "tax_id": {"number": f"123-45-{6000 + index}", "type": "SSN"} if jurisdiction == "US" else None,
        "id_documents": [{"type": "passport", "number": f"P{index:07d}", "country": "SE"}],
        "wallets": [{"address": f"0x{index + 1:040x}", "chain": "ethereum", "asset": "USDC"}],
        "occupation": "Software engineer", "is_customer": True,
    }


def transaction(index: int, *, start: datetime, currency: str = "USDC", fiat: bool = False, subjects: int = 1) -> dict:
    amount = Decimal(900 + (index * 37) % 9000) + Decimal(index % 100) / 100
    moment = start + timedelta(minutes=17 * index)
    row = {
        "reference": f"tx-{index:06d}", "timestamp": moment.isoformat().replace("+00:00", "Z"), "amount": str(amount),
        "currency": "USD" if fiat else currency, "usd_value": str(amount), "direction": ("in", "out")[index % 2],
        "subject_id": f"S{index % subjects + 1}",
    }
    if fiat:
        row["fiat_event_type"] = ("cash_deposit", "cash_withdrawal", "wire_in", "wire_out", "card_atm", "ach_in")[index % 6]
    else:
        row.update(chain="ethereum", chain_id=1, tx_hash=f"0x{index:064x}", from_address=f"0x{index + 7:040x}",
                   to_address=f"0x{index + 9:040x}", counterparty={"name": "Unhosted wallet", "wallet": f"0x{index + 9:040x}"})
    return row


def _with_local_values(rows: list[dict], currency: str, rate: Decimal) -> list[dict]:
    for row in rows:
        row["local_value"] = {"amount": str((Decimal(row["usd_value"]) * rate).quantize(Decimal("0.01"))), "currency": currency}
    return rows


LOCAL = {"CA": ("CAD", Decimal("1.35")), "AU": ("AUD", Decimal("1.52"))}


def example_suspicious_activity(jurisdiction: str = "US", *, transactions: int = 3, subjects: int = 2) -> dict:
    start = datetime(2025, 1, 2, 9, 0, tzinfo=UTC)
    rows = [transaction(index, start=start, subjects=subjects) for index in range(transactions)]
    if jurisdiction in LOCAL:
        _with_local_values(rows, *LOCAL[jurisdiction])
    total = sum((Decimal(row["usd_value"]) for row in rows), Decimal(0))
    last = max((row["timestamp"][:10] for row in rows), default="2025-01-02")
    return {
        "filer": filer_for(jurisdiction), "report_reference": "CASE-2025-0042", "filing_date": "2025-03-01",
        "prepared_by": {"name": "Dana Officer", "title": "BSA Officer", "phone": "+1 217 555 0101", "email": "dana@example.com"},
        "subjects": [subject(index, jurisdiction) for index in range(subjects)],
        "activity": {
            "amount_involved": str(total), "currency": "USD", "start_date": "2025-01-02", "end_date": last,
            "categories": [{"typology": "structuring"}, {"typology": "mixer"}, {"typology": "rapid_movement"}],
            "instruments": ["virtual_currency"], "case_references": ["CASE-2025-0042"], "alert_references": ["AL-1001", "AL-1002"],
            "narrative": ("Between January and March 2025 the subjects moved USDC through newly created wallets in amounts just "
                          "under 10,000 USD, sent most of it to a mixing service within hours and received it back on other "
                          "wallets. The pattern matches structuring and layering; no business purpose was given when asked."),
            "action_taken": "Account restricted; enhanced due diligence opened.",
        },
        "transactions": rows,
    }


def example_large_transaction(jurisdiction: str = "US", *, transactions: int = 3, subjects: int = 1) -> dict:
    start = datetime(2025, 2, 3, 9, 0, tzinfo=UTC)
    rows = [transaction(index, start=start, fiat=True, subjects=subjects) for index in range(transactions)]
    for row in rows:
        row["amount"] = row["usd_value"] = str(Decimal(row["amount"]) + 6000)
    if jurisdiction in LOCAL:
        currency, rate = LOCAL[jurisdiction]
        for row in rows:
            row["currency"], row["amount"] = currency, str((Decimal(row["amount"]) * rate).quantize(Decimal("0.01")))
            row["local_value"] = {"amount": row["amount"], "currency": currency}
    people = [subject(index, jurisdiction) for index in range(subjects)]
    for person in people:
        person["role"] = "conductor"
    return {"filer": filer_for(jurisdiction), "report_reference": "ALERT-24-0007", "filing_date": "2025-02-10",
            "prepared_by": {"name": "Dana Officer"}, "subjects": people, "transactions": rows, "alert_references": ["AL-2001"]}
