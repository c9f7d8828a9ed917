"""USD values at ingestion, from the organization's asset price table (docs/architecture.md §5)."""

from decimal import Decimal

from monitoring.amounts import usd_value
from monitoring.models import AssetPrice


class PriceBook:
    """The organization's prices, read once per request or batch. `USD` is 1 unless the table says otherwise."""

    def __init__(self, organization):
        self._prices = {"USD": (Decimal(1), 0)}
        for asset, rate, decimals in AssetPrice.objects.filter(organization=organization).values_list("asset", "usd_rate", "decimals"):
            self._prices[asset.upper()] = (rate, decimals)

    def transaction_value(self, amount: str, asset: str) -> Decimal | None:
        price = self._prices.get((asset or "").upper())
        return usd_value(amount, price[0], price[1]) if price else None

    def fiat_value(self, amount: Decimal, currency: str) -> Decimal | None:
        price = self._prices.get(currency.upper())
        return usd_value(str(amount), price[0]) if price else None
