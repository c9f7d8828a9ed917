"""Stored transactions and fiat events → the form's `transactions` rows (docs/filings.md).

Amounts are whole units of the asset (raw base units are scaled by the organization's price
table); `usd_value` is the stored USD value; `local_value` is the value in the reporting currency
of Canada (CAD) and Australia (AUD): the amount itself for a fiat event in that currency, else the
USD value at the organization's price of CAD or AUD (asset prices, "USD per unit"). Without that
price the row has no local value and the business checks say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, localcontext

from monitoring.models import AssetPrice, FiatEvent, Transaction
from monitoring.rules.context import FIAT_INFLOWS

LOCAL_CURRENCY = {"CA": "CAD", "AU": "AUD"}
CHAINS = {1: "ethereum", 10: "optimism", 56: "bsc", 137: "polygon", 8453: "base", 42161: "arbitrum", 43114: "avalanche",
          11155111: "sepolia", 17000: "holesky", 80002: "polygon-amoy", 84532: "base-sepolia", 31337: "anvil"}
CENT = Decimal("0.01")
ASSET_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-]{0,19}$")  # the form's currency-or-asset label


def asset_label(asset: str) -> str:
    """The asset as the form takes it; a label it cannot take becomes UNKNOWN (kept in the description)."""
    label = (asset or "").strip().upper()
    return label if ASSET_LABEL.match(label) else "UNKNOWN"


def chain_name(chain_id: int | None) -> str | None:
    if not chain_id:
        return None
    return CHAINS.get(chain_id, f"evm-{chain_id}")


@dataclass(frozen=True)
class Prices:
    """The organization's price table: asset → (USD per unit, decimals of submitted amounts)."""

    table: dict[str, tuple[Decimal, int]]

    @classmethod
    def of(cls, organization) -> Prices:
        rows = AssetPrice.objects.filter(organization=organization).values_list("asset", "usd_rate", "decimals")
        return cls({asset.upper(): (rate, decimals) for asset, rate, decimals in rows})

    def whole_units(self, asset: str, amount: str) -> str:
        decimals = self.table.get((asset or "").upper(), (None, 0))[1]
        if not decimals:
            return amount
        with localcontext() as context:
            context.prec = 200
            return format(Decimal(amount).scaleb(-decimals).normalize(), "f")

    def local(self, usd: Decimal | None, currency: str) -> Decimal | None:
        rate = self.table.get(currency, (None, 0))[0]
        if usd is None or not rate:
            return None
        return (usd / rate).quantize(CENT)


def _money(value: Decimal | None) -> str | None:
    return None if value is None else format(value.quantize(CENT), "f")


def _local_value(row: dict, *, currency_amount: tuple[Decimal, str] | None, usd: Decimal | None, jurisdiction: str,
                 prices: Prices) -> None:
    local = LOCAL_CURRENCY.get(jurisdiction)
    if local is None:
        return
    if currency_amount and currency_amount[1] == local:
        row["local_value"] = {"amount": _money(currency_amount[0]), "currency": local}
    elif (value := prices.local(usd, local)) is not None:
        row["local_value"] = {"amount": _money(value), "currency": local}


def transaction_row(tx: Transaction, *, entity_id, jurisdiction: str, prices: Prices, subject_id: str = "S1") -> dict:
    """An on-chain (or submitted off-chain) transfer as seen from the entity."""
    sender, receiver = tx.from_entity_id == entity_id, tx.to_entity_id == entity_id
    direction = "self" if sender and receiver else "out" if sender else "in"
    other_address = tx.from_address if direction == "in" else tx.to_address
    other_entity = tx.from_entity if direction == "in" else tx.to_entity
    row = {
        "reference": str(tx.pk), "timestamp": tx.timestamp.isoformat().replace("+00:00", "Z"),
        "amount": prices.whole_units(tx.asset, tx.amount), "currency": asset_label(tx.asset),
        "direction": direction, "tx_hash": tx.tx_hash, "from_address": tx.from_address, "to_address": tx.to_address,
        "counterparty": {"wallet": other_address, **({"name": other_entity.legal_name} if other_entity and direction != "self" else {})},
        "subject_id": subject_id,
    }
    if tx.chain_id:
        row.update(chain=chain_name(tx.chain_id), chain_id=tx.chain_id)
    if tx.usd_value is not None:
        row["usd_value"] = _money(tx.usd_value)
    notes = [f"Asset {tx.asset}" if tx.asset and asset_label(tx.asset) == "UNKNOWN" else "",
             f"Client reference {tx.reference}" if tx.reference else ""]
    if any(notes):
        row["description"] = "; ".join(note for note in notes if note)[:500]
    _local_value(row, currency_amount=None, usd=tx.usd_value, jurisdiction=jurisdiction, prices=prices)
    return row


def fiat_row(event: FiatEvent, *, jurisdiction: str, prices: Prices, subject_id: str = "S1", business_date=None) -> dict:
    counterparty = {key: value for key, value in (("name", event.counterparty_name), ("institution", event.counterparty_bank),
                                                  ("country", event.merchant_country)) if value}
    row = {
        "reference": str(event.pk), "timestamp": event.timestamp.isoformat().replace("+00:00", "Z"),
        "amount": format(event.amount.normalize(), "f"),
        "currency": event.currency.upper(), "direction": "in" if event.event_type in FIAT_INFLOWS else "out",
        "fiat_event_type": event.event_type, "subject_id": subject_id,
    }
    if counterparty:
        row["counterparty"] = counterparty
    if event.usd_value is not None:
        row["usd_value"] = _money(event.usd_value)
    if event.reference:
        row["description"] = f"Client reference {event.reference}"[:500]
    if business_date:
        row["business_date"] = business_date.isoformat()
    _local_value(row, currency_amount=(event.amount, event.currency.upper()), usd=event.usd_value, jurisdiction=jurisdiction,
                 prices=prices)
    return row
