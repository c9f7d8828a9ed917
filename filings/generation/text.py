"""Deterministic text from a case's facts (filings.generation.facts): the SAR narrative and the
investigation summary. Every name, amount and date in them is a value of the facts; nothing is
inferred, so the same case gives the same words. `unsupported_figures` checks any text (a
model's, too) for numbers and dates that are not in the facts."""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation

DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")


def _join(parts: list[str]) -> str:
    parts = [part for part in parts if part]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _lower_first(label: str) -> str:
    """"Suspicious EFT/wire transfers" → "suspicious EFT/wire transfers" (acronyms stay)."""
    return label[:1].lower() + label[1:] if label[1:2].islower() else label


def usd(value: str) -> str:
    return f"{Decimal(value):,.2f} USD"


def _who(facts: dict) -> str:
    who = facts["who"]
    kind = "a business" if who["type"] == "business" else "an individual"
    text = f"This report concerns {who['name']}, {kind} customer in {who['jurisdiction']}"
    text += f" ({who['industry']})" if who["industry"] else ""
    owners = who["beneficial_owners"]
    text += f", whose beneficial owner{'s are' if len(owners) > 1 else ' is'} {_join(owners)}." if owners else "."
    return text


def _what(facts: dict) -> str:
    what = facts["what"]
    if not what["transaction_count"]:
        return "No transactions are linked to the case's alerts."
    span = what["first_on"] if what["first_on"] == what["last_on"] else f"{what['first_on']} and {what['last_on']}"
    text = (f"{'On' if what['first_on'] == what['last_on'] else 'Between'} {span}, {what['transaction_count']} transaction(s) "
            f"with a total value of {usd(what['total_usd'])} were identified: {what['incoming_count']} incoming "
            f"({usd(what['incoming_usd'])}) and {what['outgoing_count']} outgoing ({usd(what['outgoing_usd'])}).")
    if what["without_usd_value"]:
        text += f" {what['without_usd_value']} of them have no USD value and are not in these totals."
    return text


def _why(facts: dict) -> str:
    why = facts["why"]
    if not why["alerts"]:
        return "No monitoring alert is linked to the case."
    alerts = [f"{a['rule']} ({a['severity']}, first on {a['first_triggered_on']}): {a['description'].rstrip('.')}" for a in why["alerts"]]
    text = f"Transaction monitoring raised {len(alerts)} alert(s): " + "; ".join(alerts) + "."
    if why["categories"]:
        text += f" The activity is consistent with: {_join([_lower_first(label) for label in why['categories']])}."
    return text


def _where_how(facts: dict) -> str:
    what, who = facts["what"], facts["who"]
    parts = []
    if what["by_asset"]:
        parts.append("The funds moved in " + _join([f"{row['asset']} ({row['count']} transaction(s), {row['amount']} {row['asset']})"
                                                    for row in what["by_asset"]]) + ".")
    if what["chains"]:
        parts.append(f"On-chain transfers were made on {_join(what['chains'])}.")
    if what["fiat_types"]:
        parts.append("Fiat activity: " + _join([f"{row['count']} {row['type'].replace('_', ' ')} event(s)"
                                                        for row in what["fiat_types"]]) + ".")
    if what["countries"]:
        parts.append(f"Countries involved: {_join(what['countries'])}.")
    counterparties = who["counterparties"]
    if counterparties["named"]:
        parts.append(f"Named counterparties: {_join(counterparties['named'])}.")
    if counterparties["institutions"]:
        parts.append(f"Counterparty institutions: {_join(counterparties['institutions'])}.")
    if counterparties["wallet_count"]:
        parts.append(f"{counterparties['wallet_count']} distinct counterparty wallet address(es) are involved.")
    return " ".join(parts)


def _when_detected(facts: dict) -> str:
    case = facts["case"]
    return (f"The activity was first detected on {case['detected_on']} and is investigated as case {case['reference']}, "
            f"opened on {case['opened_on']}.")


def sar_narrative(facts: dict) -> str:
    """FinCEN's order: who, what and when; why; where and how; detection."""
    paragraphs = [f"{_who(facts)} {_what(facts)}", _why(facts), _where_how(facts), _when_detected(facts)]
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)


def case_summary(facts: dict) -> str:
    """For the investigator: where the case stands, then the same facts as the narrative."""
    case = facts["case"]
    standing = (f"Case {case['reference']} is {case['status'].replace('_', ' ')} with {case['priority']} priority, "
                f"{'assigned to ' + case['assigned_to'] if case['assigned_to'] else 'not assigned'}. ")
    if "filings" not in facts:  # a reader below l2_investigator: no word of a report (common.confidentiality)
        standing += f"Its reporting deadline is {case['report_due_on']}."
    else:
        standing += f"Its suspicious-activity report is due on {case['report_due_on']}."
    filings = facts.get("filings")
    if filings:
        standing += " Filed: " + _join([f"{f['kind']} {f['tracking_id']} on {f['filed_on']}" for f in filings]) + "."
    return "\n\n".join(part for part in (standing, _who(facts), _what(facts), _why(facts), _where_how(facts)) if part)


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def figures(text: str) -> tuple[set[str], set[Decimal]]:
    """The dates and the numbers (other than dates) written in a text."""
    dates = set(DATE.findall(text))
    rest = DATE.sub(" ", text)
    numbers = {value for match in NUMBER.findall(rest) if (value := _number(match)) is not None}
    return dates, numbers


def unsupported_figures(text: str, facts: dict) -> list[str]:
    """Dates and numbers of `text` that appear nowhere in the facts (an invented figure)."""
    known_dates, known_numbers = figures(json.dumps(facts, default=str))
    dates, numbers = figures(text)
    return sorted(dates - known_dates) + sorted(str(n) for n in numbers - known_numbers)
