"""The FinCEN SAR narrative (Part V) and the transaction attachment.

The officer's narrative comes first, unchanged. A short supplement follows with what the XML
cannot carry: wallet addresses, names in their original script, the internal references and a
summary of the transactions. The SAR has no element for individual transactions; FinCEN's
narrative guidance asks for them in the narrative or in the one CSV attachment a SAR may carry,
so every transaction goes into `<reference>-transactions.csv` and the narrative points to it.

FinCEN's limit is 17,000 characters in five blocks (4,000 x 4 + 1,000; ActivityNarrativeSequenceNumber
in the SAR XML user guide). The supplement is shortened first; the officer's own text is cut only
when it alone is too long, and the business checks report that as an error.
"""

from __future__ import annotations

import csv
import io

from filings.documents.model import SuspiciousActivityForm
from filings.renderers.checks import FINCEN_NARRATIVE_LIMIT
from filings.renderers.formatting import plain
from filings.renderers.summary import asset_totals, date_range, total_in
from filings.renderers.text import Changes, is_ascii, one_line, romanise, xml_safe

BLOCK_SIZES = (4000, 4000, 4000, 4000, 1000)
_CSV_COLUMNS = ("reference", "timestamp_utc", "direction", "amount", "currency", "usd_value", "fiat_event_type", "chain",
                "tx_hash", "from_address", "to_address", "counterparty", "subject_id")


def attachment_name(form: SuspiciousActivityForm) -> str:
    reference = "".join(char if char.isalnum() or char in "-_" else "-" for char in (form.report_reference or "sar"))
    return f"{reference[:100]}-transactions.csv"


def transactions_csv(form: SuspiciousActivityForm) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(_CSV_COLUMNS)
    for tx in form.transactions:
        counterparty = (tx.counterparty.name or tx.counterparty.wallet or "") if tx.counterparty else ""
        writer.writerow((tx.reference or "", tx.timestamp.strftime("%Y-%m-%dT%H:%M:%SZ"), tx.direction.value, plain(tx.amount), tx.currency,
                         plain(tx.usd_value) if tx.usd_value is not None else "", tx.fiat_event_type or "", tx.chain or "",
                         tx.tx_hash or "", tx.from_address or "", tx.to_address or "", counterparty, tx.subject_id or ""))
    return buffer.getvalue().encode("utf-8")


def _subject_lines(form: SuspiciousActivityForm) -> list[str]:
    lines = []
    for index, subject in enumerate(form.subjects, start=1):
        name = subject.display_name
        if name and not is_ascii(name):
            lines.append(f"Subject {index} name as written: {one_line(name)} (reported as {one_line(romanise(name))}).")
        wallets = [wallet.address + (f" ({wallet.chain})" if wallet.chain else "") for wallet in subject.wallets]
        if wallets:
            lines.append(f"Subject {index} wallet addresses: {', '.join(wallets)}.")
    return lines


def _transaction_lines(form: SuspiciousActivityForm, attachment: str | None) -> list[str]:
    if not form.transactions:
        return []
    first, last = date_range(form.transactions)
    usd, missing = total_in(form.transactions, "USD")
    assets = "; ".join(f"{plain(amount)} {asset}" for asset, amount in sorted(asset_totals(form.transactions).items()))
    value = f", about {plain(usd, max_places=2)} USD" + (f" for the {len(form.transactions) - missing} with a USD value" if missing else "")
    lines = [f"{len(form.transactions)} transactions from {first} to {last}{value}; by asset: {assets}."]
    if attachment:
        lines.append(f"Each transaction is listed in the attached file {attachment}.")
    return lines


def compose(form: SuspiciousActivityForm, attachment: str | None, changes: Changes) -> str:
    activity = form.activity
    own = xml_safe(activity.narrative or "").strip()
    supplement = []
    references = [*activity.case_references, *activity.alert_references]
    if references:
        supplement.append(f"Internal references: {', '.join(references)}.")
    supplement += _subject_lines(form) + _transaction_lines(form, attachment)
    text = own
    for line in supplement:
        candidate = f"{text}\n\n{line}" if text else line
        if len(candidate) > FINCEN_NARRATIVE_LIMIT:
            changes.note("activity.narrative", "The narrative supplement (references, names, wallets, transaction summary) was "
                                               "shortened to stay within FinCEN's 17,000 characters.")
            break
        text = candidate
    if len(text) > FINCEN_NARRATIVE_LIMIT:
        text = text[:FINCEN_NARRATIVE_LIMIT]
    return text


def blocks(text: str) -> list[str]:
    """The narrative cut into FinCEN's blocks (at most five)."""
    parts, start = [], 0
    for size in BLOCK_SIZES:
        if start >= len(text):
            break
        parts.append(text[start:start + size])
        start += size
    return parts
