"""Reference tables of the risk model: jurisdictions and industries, with the reason for each band.

Jurisdiction bands follow the FATF public statements (high-risk jurisdictions subject to a call for
action; jurisdictions under increased monitoring) as published in 2025, comprehensive US embargoes,
and common offshore financial centres. The lists change a few times a year: override them with the
settings RISK_JURISDICTIONS_CALL_FOR_ACTION, RISK_JURISDICTIONS_EMBARGOED, RISK_JURISDICTIONS_MONITORED,
RISK_JURISDICTIONS_OFFSHORE (lists of ISO alpha-2 codes).
"""

from django.conf import settings

CALL_FOR_ACTION = frozenset({"KP", "IR", "MM"})
EMBARGOED = frozenset({"CU", "SY"})
MONITORED = frozenset({
    "DZ", "AO", "BO", "BG", "CM", "CD", "HT", "KE", "LA", "LB", "MC", "MZ", "NA", "NP", "NG", "SS", "TZ", "VE", "VN",
    "YE", "VG",
})
OFFSHORE = frozenset({"KY", "BM", "BS", "PA", "SC", "BZ", "VU", "WS", "MH", "AI", "TC", "GI", "IM", "JE", "GG", "LI"})

# (band, severity 0-1, explanation). The first band that contains the code wins.
JURISDICTION_BANDS = (
    ("call_for_action", 1.0, "FATF high-risk jurisdiction subject to a call for action"),
    ("embargoed", 0.9, "jurisdiction under comprehensive US sanctions"),
    ("monitored", 0.6, "FATF jurisdiction under increased monitoring"),
    ("offshore", 0.4, "offshore financial centre"),
)


def jurisdiction_band(code: str) -> tuple[str, float, str]:
    lists = {
        "call_for_action": getattr(settings, "RISK_JURISDICTIONS_CALL_FOR_ACTION", None) or CALL_FOR_ACTION,
        "embargoed": getattr(settings, "RISK_JURISDICTIONS_EMBARGOED", None) or EMBARGOED,
        "monitored": getattr(settings, "RISK_JURISDICTIONS_MONITORED", None) or MONITORED,
        "offshore": getattr(settings, "RISK_JURISDICTIONS_OFFSHORE", None) or OFFSHORE,
    }
    for band, severity, why in JURISDICTION_BANDS:
        if code.upper() in lists[band]:
            return band, severity, why
    return "standard", 0.0, "no elevated jurisdiction risk"


# Industry words (matched inside the free-text `industry`, lower-cased, `_`/`-` as spaces) → severity.
# High: FinCEN/FATF-named higher-risk businesses; medium: trade- and cash-intensive sectors.
INDUSTRY_KEYWORDS = (
    (1.0, ("crypto", "virtual asset", "exchange", "money service", "msb", "remittance", "money transmit", "gambling",
           "casino", "betting", "precious metal", "jewel", "gold", "arms", "weapon", "defence", "defense", "cannabis",
           "adult", "payment processor")),
    (0.6, ("import", "export", "trading", "real estate", "art", "antique", "car dealer", "automobile", "shell",
           "holding", "trust service", "company formation", "charity", "nonprofit", "non profit", "ngo", "cash",
           "pawn", "shipping", "marine")),
)
BUSINESS_BASE, INDIVIDUAL_BASE, UNKNOWN_INDUSTRY = 0.2, 0.1, 0.3


def industry_severity(industry: str) -> tuple[float, str]:
    text = " " + industry.lower().replace("_", " ").replace("-", " ") + " "
    for severity, words in INDUSTRY_KEYWORDS:
        for word in words:
            if word in text:
                return severity, word
    return 0.0, ""
