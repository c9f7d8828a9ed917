"""What onboarding reads from monitoring: per-entity transaction statistics and counterparties.

There are no transactions yet, so the defaults answer "no data" (statistics None, no
counterparties). The monitoring work installs its implementation with `set_monitoring_data(...)`:

    class MonitoringData(Protocol):
        def activity_statistics(self, entity_ids: list, *, since: datetime) -> dict[id, Statistics]: ...
        def counterparties(self, entity) -> dict[str, int]:   # counterparty key -> transfers with it
            ...
        def entities_by_counterparty(self, keys: set[str], *, organization, mode) -> dict[id, set[str]]: ...

Statistics are (volume_usd: Decimal, count: int) over the window; an entity with no activity is
absent from the answer (or present with zeros). Keys are opaque strings such as "1:0xabc…" for an
on-chain address or "name:acme bank" for a fiat counterparty.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Statistics:
    volume_usd: Decimal
    count: int


class NoMonitoringData:
    """The default until monitoring registers itself: nothing is known."""

    available = False

    def activity_statistics(self, entity_ids: list, *, since) -> dict:
        return {}

    def counterparties(self, entity) -> dict[str, int]:
        return {}

    def entities_by_counterparty(self, keys: set[str], *, organization, mode) -> dict:
        return {}


_source = NoMonitoringData()


def set_monitoring_data(source) -> None:
    global _source
    _source = source


def monitoring_data():
    return _source
