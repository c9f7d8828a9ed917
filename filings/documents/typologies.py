"""Suspicious-activity categories in the project's words, with each regulator's code for them.

One table, so that a compliance officer can review every mapping in one place (docs/filings.md
repeats it). Columns:

- `fincen`: the SuspiciousActivitySubtypeID of the FinCEN SAR (items 29-38 of FinCEN Form 111;
  the XSD's ValidateSuspiciousActivitySubtypeID). Subtypes ending in 99 are the "z. Other" box of
  their type and need OtherSuspiciousActivityTypeText, taken from `fincen_other`.
- `austrac`: the SMR `suspReason` code (AUSTRAC SMR file format specification 2.0). Only codes whose
  meaning the specification states plainly are used; everything else is reported as `OTHERS` with
  the label as `suspReasonOther` (the reference schema's representation of the specification's
  "other reason" choice).
- `austrac_offence`: the SMR `additionalDetails/offence` (ML money laundering, TF terrorism
  financing, TE tax evasion, PC proceeds of crime).
- `fintrac`: FINTRAC STR "suspicion type" (money laundering, terrorist financing, sanctions evasion).

Virtual-currency typologies have no FinCEN subtype of their own; FinCEN's CVC advisory
(FIN-2019-A003) asks filers to use the "Other" boxes with a short description and to name the
typology in the narrative, which is what the `fincen_other` texts do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Typology:
    code: str
    label: str
    fincen: int
    fincen_other: str = ""
    austrac: str = "OTHERS"
    austrac_offence: str = "ML"
    fintrac: str = "money_laundering"


_ROWS = (
    Typology("structuring", "Structuring to avoid reporting thresholds", 114, austrac="AV"),
    Typology("structuring_recordkeeping", "Transactions below the recordkeeping threshold", 113, austrac="AV"),
    Typology("funnel_account", "Funnel account", 824, austrac="UA"),
    Typology("wire_layering", "Suspicious EFT/wire transfers", 805, austrac="UA"),
    Typology("rapid_movement", "Rapid movement of funds with no apparent purpose", 925, austrac="UA"),
    Typology("out_of_pattern", "Transactions out of pattern for the customer", 812, austrac="UA"),
    Typology("multiple_accounts", "Suspicious use of multiple accounts or wallets", 807, austrac="UA"),
    Typology("source_of_funds", "Suspicious source of funds", 821),
    Typology("third_party_transactors", "Use of third-party transactors (straw men)", 809),
    Typology("collusion", "Two or more individuals working together", 911),
    Typology("money_laundering", "Money laundering (other)", 8999, "Money laundering"),
    Typology("mixer", "Use of a mixer or tumbler", 8999, "CVC mixer/tumbler"),
    Typology("privacy_coin", "Anonymity-enhanced cryptocurrency", 8999, "Anonymity-enhanced CVC"),
    Typology("chain_hopping", "Chain hopping", 8999, "CVC chain hopping"),
    Typology("peel_chain", "Peel chain", 8999, "CVC peel chain"),
    Typology("round_tripping", "Round-tripping of funds", 8999, "Round-tripping"),
    Typology("darknet_market", "Darknet marketplace exposure", 9999, "Darknet market exposure"),
    Typology("virtual_currency", "Suspicious virtual-currency activity", 9999, "Virtual currency"),
    Typology("sanctions_evasion", "Sanctioned counterparty / sanctions evasion", 9999, "Sanctioned counterparty",
              austrac_offence="PC", fintrac="sanctions_evasion"),
    Typology("high_risk_jurisdiction", "Transactions involving a high-risk jurisdiction", 928),
    Typology("unlicensed_msb", "Unlicensed or unregistered money services business", 913),
    Typology("human_trafficking", "Human trafficking", 927, austrac_offence="PC"),
    Typology("human_smuggling", "Human smuggling", 926, austrac_offence="PC"),
    Typology("elder_exploitation", "Elder financial exploitation", 921, austrac="SC", austrac_offence="PC"),
    Typology("account_takeover", "Account takeover", 920, austrac_offence="PC"),
    Typology("identity_theft", "Identity theft", 905, austrac="FN", austrac_offence="PC"),
    Typology("false_identification", "Questionable or false identification", 409, austrac="FN"),
    Typology("refused_identification", "Refused or avoided request for documentation", 404, austrac="RI"),
    Typology("stolen_funds", "Theft or disappearance of funds", 903, austrac_offence="PC"),
    Typology("scam", "Scam or fraud against customers", 3999, "CVC scam", austrac="SC", austrac_offence="PC"),
    Typology("advance_fee", "Advance fee fraud", 322, austrac="SC", austrac_offence="PC"),
    Typology("ponzi_scheme", "Ponzi scheme", 324, austrac="SC", austrac_offence="PC"),
    Typology("phishing", "Phishing", 1102, austrac="PH", austrac_offence="PC"),
    Typology("ransomware", "Ransomware", 1102, austrac_offence="PC"),
    Typology("terrorist_financing", "Suspected terrorist financing", 7999, "Suspected terrorist financing",
             austrac_offence="TF", fintrac="terrorist_financing"),
    Typology("corruption", "Suspected public or private corruption", 908, austrac_offence="PC"),
    Typology("tax_evasion", "Suspected tax evasion", 9999, "Suspected tax evasion", austrac_offence="TE"),
    Typology("other", "Other suspicious activity", 9999, "Other"),
)

TYPOLOGIES: dict[str, Typology] = {row.code: row for row in _ROWS}


def fincen_type_of(subtype: int) -> int:
    """The SuspiciousActivityTypeID a FinCEN subtype belongs to: 114 -> 1, 8999 -> 8, 1102 -> 11."""
    if subtype >= 1000 and subtype % 1000 == 999:
        return subtype // 1000
    return subtype // 100
