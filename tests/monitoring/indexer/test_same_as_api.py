"""Indexed transfers are monitored as the API's are: the same transfers posted to a second organization through
POST /v1/monitoring/transfers/batch raise the same alerts with the same evidence; a transfer that arrives both ways
is stored once."""

import re

import pytest

from monitoring.indexer.services import index_pass, reindex
from monitoring.models import Alert, AssetPrice, ChainCursor, IndexedToken, Transaction
from tests.monitoring.indexer.helpers import register, send_eth, send_token

pytestmark = pytest.mark.django_db
ETH = 10**18
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _alerts(organization) -> list[tuple]:
    return sorted((alert.rule_code, alert.severity, UUID.sub("<id>", alert.description), alert.hit_count, alert.entity.legal_name,
                   sorted(row.tx_hash for row in alert.transactions.all()), _without_ids(alert.evidence))
                  for alert in Alert.objects.filter(organization=organization).select_related("entity"))


def _without_ids(value):
    """Evidence with record ids left out (each organization's rows have their own)."""
    if isinstance(value, dict):
        return {name: _without_ids(item) for name, item in value.items() if not name.endswith("id") and not name.endswith("ids")}
    if isinstance(value, list):
        return [_without_ids(item) for item in value]
    return UUID.sub("<id>", value) if isinstance(value, str) else value


def _as_api_item(row: Transaction) -> dict:
    return {"chain_id": row.chain_id, "tx_hash": row.tx_hash, "log_index": row.log_index, "from_address": row.from_address,
            "to_address": row.to_address, "amount": row.amount, "asset": row.asset,
            "timestamp": row.timestamp.isoformat().replace("+00:00", "Z")}


def test_the_same_transfers_through_the_api_raise_the_same_alerts(api, key, org, other_org, chain, w3, accounts, token):
    IndexedToken.objects.create(chain=chain, address=token.address.lower(), symbol="DUSD", decimals=18)
    for organization in (org, other_org):
        AssetPrice.objects.create(organization=organization, asset="DUSD", usd_rate=1)
        AssetPrice.objects.create(organization=organization, asset="ETH", usd_rate=3000)
    ChainCursor.objects.create(chain=chain, start_block=w3.eth.block_number + 1)
    send_token(w3, token, accounts[4], accounts[2], 12_500)  # a large transfer
    for _ in range(3):
        send_eth(w3, accounts[2], accounts[5], 3 * ETH)  # 9,000 USD each, out to one counterparty
    send_token(w3, token, accounts[2], accounts[6], 9_900)
    # Registered after the transfers, as the second organization's wallet is: a wallet is first seen at the earlier of
    # its registration and its first transfer, so both organizations' rule 9 evidence then names the first transfer
    # (registered before it, the first organization's would name a registration a fraction of a second earlier).
    register(api, key, org, [accounts[2]])

    result = index_pass(chain)
    indexed = _alerts(org)
    assert result.alerts >= 1 and any(alert[0] == "large_transfer" for alert in indexed)

    register(api, key, other_org, [accounts[2]])  # the same customer wallet, registered by the second organization
    rows = Transaction.objects.filter(organization=org).order_by("timestamp", "id")  # the order they were indexed in
    response = api(key(other_org, role="l2_investigator")).post("/v1/monitoring/transfers/batch",
                                                                {"transactions": [_as_api_item(row) for row in rows]}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["ingested"] == rows.count() == 5
    assert _alerts(other_org) == indexed
    evaluations = {row.tx_hash: row.evaluation for row in rows}
    assert {row.tx_hash: row.evaluation for row in Transaction.objects.filter(organization=other_org)} == evaluations

    # The indexer sees the second organization's wallet now (reindex reads the blocks again): what it posted through
    # the API is not stored or evaluated again, nor is what the first organization has.
    again = reindex(chain, from_block=ChainCursor.objects.get(chain=chain).start_block)
    assert again.ingested == 0 and again.skipped == 10 and again.alerts == 0
    assert Transaction.objects.filter(organization=other_org).count() == 5
    assert {row.source for row in Transaction.objects.filter(organization=other_org)} == {"api"}
