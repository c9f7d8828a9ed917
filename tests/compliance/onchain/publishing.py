"""What the publisher's tests share: the local chain enabled with its signer from the environment and a fresh
oracle, entities onboarded and screened through the API, and reads of what the contract holds."""

import secrets

from compliance.models import KNOWN_CHAINS, Chain, OnchainStatusUpdate
from compliance.onchain.contracts import Flag, unpack_status
from compliance.onchain.publisher import deploy_oracle

LOCAL = 31337
# anvil's first default account (its well-known test mnemonic): the signer here, set only in the environment.
SIGNER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
SIGNER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
SCREENING_URL = "/v1/monitoring/screening"


def enable_local_chain(rpc_url: str, monkeypatch, **fields) -> Chain:
    """The local chain (seeded; made again when a transactional test flushed it), enabled, its RPC URL and signer from
    the environment, a fresh oracle deployed."""
    monkeypatch.setenv(f"CHAIN_RPC_URL_{LOCAL}", rpc_url)
    monkeypatch.setenv(f"CHAIN_SIGNER_KEY_{LOCAL}", SIGNER_KEY)
    name, confirmations = next((name, depth) for chain_id, name, depth in KNOWN_CHAINS if chain_id == LOCAL)
    Chain.objects.update_or_create(chain_id=LOCAL, defaults={"name": name, "confirmations": confirmations, "enabled": True,
                                                             "next_nonce": None, "last_error": "", **fields})
    deploy_oracle(LOCAL)
    return Chain.objects.get(chain_id=LOCAL)


def new_addresses(count: int) -> list[str]:
    return ["0x" + secrets.token_hex(20) for _ in range(count)]


def onboard(client, addresses) -> dict:
    from tests.onboarding.helpers import PERSON

    response = client.post("/v1/onboarding/entities", {**PERSON, "wallets": [{"chain_id": LOCAL, "address": a} for a in addresses]},
                           format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def external_screening(client, entity, result: str) -> None:
    body = {"entity_id": entity["id"], "check_type": "sanctions", "provider": "ClientCo", "result": result,
            "score": 0.98 if result == "fail" else 0.1, "update_compliance_status": True}
    response = client.post(SCREENING_URL, body, format="json")
    assert response.status_code == 200 and response.json()["compliance_status_updated"] is True


def checksum(w3, address):
    return w3.to_checksum_address(address)


def updated_events(oracle, address) -> list:
    return [log for log in oracle.events.StatusUpdated().get_logs(from_block=0)
            if log["args"]["wallet"].lower() == address.lower()]


def status_on_chain(oracle, address):
    """The status word the contract holds for `address`, unpacked (version 0: never published)."""
    return unpack_status(oracle.functions.packedStatusOf(oracle.w3.to_checksum_address(address)).call())


def rows_of(entity) -> list[OnchainStatusUpdate]:
    return list(OnchainStatusUpdate.objects.filter(entity_id=entity["id"]).select_related("transaction").order_by("address"))


def assert_published_on_chain(oracle, entity) -> None:
    """Every row of the (flagged) entity is confirmed, and the contract holds each wallet's row: flags, tier, version."""
    for row in rows_of(entity):
        assert row.status == "confirmed" and row.confirmed_at and row.transaction.status == "confirmed", row
        assert row.tx_hash == row.transaction.tx_hash
        status = status_on_chain(oracle, row.address)
        assert (status.flags, status.risk_tier, status.version) == (row.flags, row.risk_tier, row.version)
        assert status.flags & Flag.SANCTIONED and oracle.functions.isFlagged(oracle.w3.to_checksum_address(row.address)).call()


def transactions_of_nonce(w3, nonce: int) -> list[str]:
    """The hashes of the signer's mined transactions with `nonce` (scanning the whole local chain)."""
    found = []
    for number in range(w3.eth.block_number + 1):
        for tx in w3.eth.get_block(number, full_transactions=True)["transactions"]:
            if tx["from"] == SIGNER and tx["nonce"] == nonce:
                found.append(tx["hash"].to_0x_hex())
    return found
