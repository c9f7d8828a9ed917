"""The facts of a case, as plain JSON data: the only material generated text may use.

FinCEN's narrative guidance asks for who, what, when, where, why and how; each is a section here:
who (the subject, its owners, counterparties), what (the activity and its totals), when (dates),
where (chains, countries, institutions), why (the alerts and what they measured), how (the
instruments: assets, fiat event types).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from decimal import Decimal

from filings.cases import selectors
from filings.documents.typologies import TYPOLOGIES
from filings.reports.activity import Prices, asset_label, chain_name
from filings.reports.categories import categories_for
from monitoring.rules.context import FIAT_INFLOWS

CENT = Decimal("0.01")
MAX_NAMED = 10


def _money(value: Decimal) -> str:
    return format(value.quantize(CENT), "f")


def _day(moment) -> str | None:
    return moment.date().isoformat() if moment else None


def case_facts(case, *, alerts=None, with_filings: bool = True) -> dict:
    """The facts of the case, or — with `alerts` — of those alerts of it and their transactions
    only (what a report covers, filings.reports.coverage). `with_filings` False (a reader below
    l2_investigator, common.confidentiality) leaves the filings out: the key is absent, not empty."""
    if alerts is None:
        alerts = list(selectors.case_alerts(case))
        transactions = list(selectors.case_transactions(case).select_related("from_entity", "to_entity"))
        fiat = list(selectors.case_fiat_events(case))
    else:
        transactions = list(selectors.alerts_transactions(alerts).select_related("from_entity", "to_entity"))
        fiat = list(selectors.alerts_fiat_events(alerts))
    entity = case.entity
    facts = {
        "case": {"reference": case.reference, "status": case.status, "priority": case.priority, "opened_on": _day(case.created_at),
                 "detected_on": _day(case.detected_at), "report_due_on": _day(case.report_due_at),
                 "assigned_to": case.assigned_to.email if case.assigned_to_id else None},
        "who": {"name": entity.legal_name, "type": entity.entity_type, "jurisdiction": entity.jurisdiction,
                "industry": entity.industry or None, "beneficial_owners": [owner.name for owner in entity.ubos.all()],
                "wallet_count": entity.wallets.count(), "counterparties": _counterparties(entity.pk, transactions, fiat)},
        "why": {"alerts": [_alert(alert) for alert in alerts],
                "categories": [TYPOLOGIES[c["typology"]].label for c in categories_for(alerts)]},
        "what": _activity(case, entity.pk, transactions, fiat),
    }
    if with_filings:
        facts["filings"] = [{"kind": f.kind, "tracking_id": f.tracking_id, "filed_on": _day(f.filed_at)}
                            for f in case.filings.order_by("filed_at", "id")]
    return facts


def _alert(alert) -> dict:
    return {"rule": alert.rule_name, "rule_id": alert.rule_number, "severity": alert.severity, "description": alert.description,
            "hits": alert.hit_count, "first_triggered_on": _day(alert.first_triggered_at),
            "last_triggered_on": _day(alert.last_triggered_at), "status": alert.status, "disposition": alert.disposition or None}


def _counterparties(entity_id, transactions, fiat) -> dict:
    names: Counter = Counter()
    wallets: set[str] = set()
    for tx in transactions:
        incoming = tx.to_entity_id == entity_id and tx.from_entity_id != entity_id
        other = tx.from_entity if incoming else tx.to_entity
        wallets.add(tx.from_address if incoming else tx.to_address)
        if other is not None and other.pk != entity_id:
            names[other.legal_name] += 1
    for event in fiat:
        if event.counterparty_name:
            names[event.counterparty_name] += 1
    banks = sorted({event.counterparty_bank for event in fiat if event.counterparty_bank})
    return {"named": [name for name, _ in names.most_common(MAX_NAMED)], "wallet_count": len(wallets), "institutions": banks[:MAX_NAMED]}


def _activity(case, entity_id, transactions, fiat) -> dict:
    prices = Prices.of(case.organization)
    by_asset: dict[str, list] = defaultdict(lambda: [Decimal(0), 0])
    flows = {"in": [Decimal(0), 0], "out": [Decimal(0), 0]}
    moments, unpriced = [], 0
    for tx in transactions:
        asset = asset_label(tx.asset)
        by_asset[asset][0] += Decimal(prices.whole_units(tx.asset, tx.amount))
        by_asset[asset][1] += 1
        direction = "out" if tx.from_entity_id == entity_id else "in"
        unpriced += _flow(flows[direction], tx.usd_value)
        moments.append(tx.timestamp)
    for event in fiat:
        by_asset[event.currency.upper()][0] += event.amount
        by_asset[event.currency.upper()][1] += 1
        unpriced += _flow(flows["in" if event.event_type in FIAT_INFLOWS else "out"], event.usd_value)
        moments.append(event.timestamp)
    total = flows["in"][0] + flows["out"][0]
    return {
        "transaction_count": len(transactions) + len(fiat), "on_chain_count": len(transactions), "fiat_count": len(fiat),
        "first_on": _day(min(moments)) if moments else None, "last_on": _day(max(moments)) if moments else None,
        "total_usd": _money(total), "incoming_usd": _money(flows["in"][0]), "incoming_count": flows["in"][1],
        "outgoing_usd": _money(flows["out"][0]), "outgoing_count": flows["out"][1], "without_usd_value": unpriced,
        "by_asset": [{"asset": asset, "amount": format(amount.normalize(), "f"), "count": count}
                     for asset, (amount, count) in sorted(by_asset.items())],
        "chains": sorted({chain_name(tx.chain_id) for tx in transactions if tx.chain_id}),
        "fiat_types": [{"type": kind, "count": count} for kind, count in sorted(Counter(e.event_type for e in fiat).items())],
        "countries": sorted({e.merchant_country for e in fiat if e.merchant_country}),
    }


def _flow(bucket: list, usd) -> int:
    bucket[1] += 1
    if usd is None:
        return 1
    bucket[0] += usd
    return 0
