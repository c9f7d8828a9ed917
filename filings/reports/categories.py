"""Which suspicious-activity typology (filings/documents/typologies.py) each monitoring rule's
alerts point to, for the categories of a SAR draft. The officer reviews and edits them.

Rule 24 (large fiat transaction) is a reporting threshold (a CTR), not a typology: it adds no
category. Rules with no typology of their own give "other" with the rule's name as description.
"""

from __future__ import annotations

from collections.abc import Iterable

from filings.documents.typologies import TYPOLOGIES

RULE_TYPOLOGY: dict[str, str | None] = {
    "large_transfer": "virtual_currency",
    "sanctioned_counterparty": "sanctions_evasion",
    "structuring_below_threshold": "structuring",
    "rapid_pass_through": "rapid_movement",
    "high_velocity": "rapid_movement",
    "fan_in": "funnel_account",
    "fan_out": "multiple_accounts",
    "round_amounts": "out_of_pattern",
    "new_wallet_large_transfer": "out_of_pattern",
    "dormant_reactivation": "out_of_pattern",
    "mixer_exposure": "mixer",
    "illicit_category_exposure": "darknet_market",  # refined by the tag category below
    "privacy_asset": "privacy_coin",
    "peel_chain": "peel_chain",
    "cyclic_flow": "round_tripping",
    "unhosted_large_transfer": "virtual_currency",
    "own_wallet_layering": "multiple_accounts",
    "volume_spike": "out_of_pattern",
    "counterparty_concentration": "funnel_account",
    "chain_hopping": "chain_hopping",
    "travel_rule_missing": "virtual_currency",
    "high_risk_jurisdiction": "high_risk_jurisdiction",
    "smurfing_inbound": "structuring",
    "large_fiat_transaction": None,
    "fiat_structuring": "structuring",
    "wire_layering": "wire_layering",
    "fiat_to_crypto_rapid": "rapid_movement",
    "crypto_to_fiat_cashout": "rapid_movement",
    "profile_deviation": "out_of_pattern",
    "peer_group_outlier": "out_of_pattern",
    "inactive_entity_activity": "out_of_pattern",
    "flagged_wallet_activity": "virtual_currency",
    "true_positive_counterparty": "collusion",
    "sanctioned_fiat_counterparty": "sanctions_evasion",
    "ach_velocity": "rapid_movement",
    "repeated_round_fiat": "out_of_pattern",
    "new_counterparty_large_wire": "wire_layering",
    "duplicate_fiat_transaction": "out_of_pattern",
    "high_risk_mcc": "out_of_pattern",
    "card_testing": "account_takeover",
    "prepaid_load_structuring": "structuring",
    "excessive_atm": "out_of_pattern",
    "high_risk_country_card": "high_risk_jurisdiction",
    "refund_abuse": "out_of_pattern",
    "duplicate_check_deposit": "other",
    "sequential_checks": "structuring",
    # 31 CFR 1010.415: monetary instruments bought in cash just under the 3,000 USD recordkeeping threshold.
    "monetary_instrument_structuring": "structuring_recordkeeping",
    "rdc_velocity": "out_of_pattern",
    "missing_check_number": "other",
    "check_kiting": "other",
}

# Rule 12's address-tag categories (monitoring's ILLICIT) → their own typology.
ILLICIT_TAG_TYPOLOGY = {"darknet": "darknet_market", "ransomware": "ransomware", "scam": "scam", "stolen_funds": "stolen_funds",
                        "terrorist_financing": "terrorist_financing"}


def _typologies(rule_code: str, evidence: dict) -> list[str]:
    if rule_code == "illicit_category_exposure":
        tags = (evidence or {}).get("measured", {}).get("categories") or []
        found = [ILLICIT_TAG_TYPOLOGY[tag] for tag in sorted(tags) if tag in ILLICIT_TAG_TYPOLOGY]
        if found:
            return found
    typology = RULE_TYPOLOGY.get(rule_code, "other")
    return [typology] if typology else []


def categories_for(alerts: Iterable) -> list[dict]:
    """The form's `activity.categories` for alerts (objects with rule_code, rule_name, evidence),
    each typology once, in the alerts' order; "other" entries carry the rule names."""
    categories: dict[str, dict] = {}
    for alert in alerts:
        for typology in _typologies(alert.rule_code, alert.evidence):
            if typology not in TYPOLOGIES:
                continue
            entry = categories.setdefault(typology, {"typology": typology})
            if typology == "other":
                names = [part for part in entry.get("description", "").split("; ") if part]
                if alert.rule_name not in names:
                    entry["description"] = "; ".join([*names, alert.rule_name])[:500]
    return list(categories.values())
