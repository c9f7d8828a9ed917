"""What the indexer's tests share: registering a customer's wallets through the API, sending transfers on anvil,
and the stored transfers as comparable tuples."""

from monitoring.models import Transaction


def register(api, key, organization, addresses: list[str], *, mode: str = "test", name: str = "Nova Traders") -> dict:
    """A business customer of `organization` in `mode` with the wallets on chain 31337 (through the API)."""
    client = api(key(organization, role="l2_investigator", mode=mode))
    response = client.post("/v1/onboarding/entities", {
        "legal_name": name, "entity_type": "business", "jurisdiction": "US",
        "wallets": [{"chain_id": 31337, "address": address} for address in addresses]}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def mined(w3, tx_hash) -> dict:
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash)
    assert receipt["status"] == 1
    return receipt


def send_token(w3, token, sender: str, receiver: str, whole: int) -> str:
    tx_hash = token.functions.transfer(w3.to_checksum_address(receiver), whole * 10**18).transact({"from": w3.to_checksum_address(sender)})
    return mined(w3, tx_hash)["transactionHash"].to_0x_hex()


def send_eth(w3, sender: str, receiver: str, wei: int, data: str = "0x") -> str:
    tx_hash = w3.eth.send_transaction({"from": w3.to_checksum_address(sender), "to": w3.to_checksum_address(receiver), "value": wei,
                                       "data": data})
    return mined(w3, tx_hash)["transactionHash"].to_0x_hex()


def forward(w3, forwarder: str, sender: str, receiver: str, wei: int) -> str:
    """An internal transfer: `sender` calls the forwarder with `wei`, which sends it on to `receiver`."""
    return send_eth(w3, sender, forwarder, wei, data="0x" + receiver[2:].rjust(64, "0"))


def stored(**filters) -> set[tuple]:
    rows = Transaction.objects.filter(**filters).select_related("organization")
    return {(row.organization.name, row.mode, row.tx_hash, row.log_index, row.from_address, row.to_address, row.amount, row.asset,
             row.source, row.orphaned) for row in rows}
