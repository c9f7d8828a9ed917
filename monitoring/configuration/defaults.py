"""The lists every organization starts with (docs/rules.md, "Default lists"). The codes are the pure
engine's own defaults (monitoring.rules.context), so a seeded organization and one that never was
evaluate alike."""

from decimal import Decimal

from monitoring.models import CodeListEntry
from monitoring.rules.context import DEFAULT_HIGH_RISK_JURISDICTIONS, DEFAULT_HIGH_RISK_MCCS, DEFAULT_PRIVACY_ASSETS

ListName = CodeListEntry.ListName

# docs/architecture.md §5: a few stablecoins at 1.0; USD itself is always 1.
ASSET_PRICES = {"USD": Decimal(1), "USDC": Decimal(1), "USDT": Decimal(1), "DAI": Decimal(1)}

NOTES = {
    "KP": "FATF call for action", "IR": "FATF call for action", "MM": "FATF call for action",
    "XMR": "Monero", "ZEC": "Zcash", "DASH": "Dash",
    "4829": "Wire transfers and money orders", "5993": "Cigar stores and stands",
    "6051": "Quasi-cash: foreign currency, money orders, digital currency", "6211": "Security brokers and dealers",
    "7995": "Betting, casino gaming chips, lotteries",
}  # fmt: skip

CODE_LISTS = {
    ListName.HIGH_RISK_JURISDICTIONS: DEFAULT_HIGH_RISK_JURISDICTIONS,
    ListName.PRIVACY_ASSETS: DEFAULT_PRIVACY_ASSETS,
    ListName.HIGH_RISK_MCCS: DEFAULT_HIGH_RISK_MCCS,
}
