"""Travel rule on anvil: an acknowledged travel-rule transfer is completed by the indexed on-chain transfer (the same
chain, sides, asset and amount in its validity window, or the commitment the CompliantToken's transferWithCommitment
emits), and goes back to `acknowledged` when its block is orphaned (anvil_reorg)."""

import pytest

from common.models import AuditLogEntry
from compliance.models import TravelRuleTransfer
from compliance.onchain.anvil import rpc
from monitoring.indexer.services import index_pass
from monitoring.models import ChainCursor, IndexedToken
from tests.compliance.travel_rule_helpers import INITIATE, beneficiary, fixture
from tests.monitoring.indexer.helpers import mined, send_token
from tests.onboarding.helpers import COMPANY, PERSON, entity_url, screened
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def _customer(client, body: dict, address: str) -> dict:
    response = client.post("/v1/onboarding/entities", {**body, "wallets": [{"chain_id": 31337, "address": address}]}, format="json")
    assert response.status_code == 201, response.json()
    entity = response.json()
    screened(entity)
    assert client.post(entity_url(entity, "approve"), {}, format="json").status_code == 200
    return entity


@pytest.fixture
def acknowledged(api, key, org, chain, token, accounts, django_capture_on_commit_callbacks):
    """A DUSD travel-rule transfer of 250 from accounts[2] (Maria Jensen) to accounts[3] (Blue Harbor), acknowledged."""
    IndexedToken.objects.create(chain=chain, address=token.address.lower(), symbol="DUSD", decimals=18)
    client = api(key(org, role="l2_investigator"))
    alice, harbor = _customer(client, PERSON, accounts[2]), _customer(client, COMPANY, accounts[3])
    body = {"originator_entity_id": alice["id"], "beneficiary_entity_id": harbor["id"], "chain_id": 31337, "asset": "DUSD",
            "amount": "250", "from_address": accounts[2], "to_address": accounts[3],
            "originator": {"originatorPersons": [fixture("person_natural_person.json")], "accountNumber": [accounts[2]]},
            "beneficiary": beneficiary(accounts[3])}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(INITIATE, body, format="json")
    assert response.status_code == 200, response.json()
    transfer = TravelRuleTransfer.objects.get(pk=response.json()["transfer_id"])
    assert transfer.status == "acknowledged"
    return transfer


def _actions(transfer) -> list[str]:
    return list(AuditLogEntry.objects.filter(object_id=str(transfer.pk)).order_by("created_at", "id").values_list("action", flat=True))


def test_the_indexed_transfer_completes_it_and_an_orphaned_block_reopens_it(acknowledged, chain, node, w3, token, accounts):
    other = send_token(w3, token, accounts[2], accounts[3], 249)  # another amount: not this transfer
    assert index_pass(chain).error == ""
    acknowledged.refresh_from_db()
    assert acknowledged.status == "acknowledged" and acknowledged.tx_hash == ""

    executed = send_token(w3, token, accounts[2], accounts[3], 250)
    block = w3.eth.block_number
    result = index_pass(chain)

    assert result.error == ""
    acknowledged.refresh_from_db()
    assert (acknowledged.status, acknowledged.tx_hash, acknowledged.block_number) == ("completed", executed, block)
    assert int(acknowledged.completed_at.timestamp()) == w3.eth.get_block(block)["timestamp"]  # the block's time
    event = Event.objects.get(type="transfer.confirmed", data__transfer_id=str(acknowledged.pk))
    assert event.data | {"confirmed_at": None} == {
        "transfer_id": str(acknowledged.pk), "entity_id": str(acknowledged.originator_entity_id), "chain_id": 31337, "tx_hash": executed,
        "block_number": block, "confirmations": 0, "confirmed_at": None}
    assert _actions(acknowledged)[-1] == "travel_rule_transfer.completed"
    assert other != executed

    # The block that executed it is replaced by one without it: back to acknowledged, audited.
    rpc(node.url, "anvil_reorg", [1, [[{"from": w3.eth.accounts[6], "to": w3.eth.accounts[7], "value": hex(10**18)}, 0]]])
    result = index_pass(chain)

    assert result.error == "" and result.orphaned == 1  # one row: both sides are customers of one organization
    acknowledged.refresh_from_db()
    assert (acknowledged.status, acknowledged.tx_hash, acknowledged.block_number, acknowledged.completed_at) == ("acknowledged", "", None,
                                                                                                               None)
    assert f"Its transaction {executed} (block {block}) was orphaned" in acknowledged.status_reason
    assert _actions(acknowledged)[-1] == "travel_rule_transfer.acknowledged"
    assert ChainCursor.objects.get(chain=chain).reorgs[-1]["travel_rule_reopened"] == 1

    # Executed again on the new branch: completed again.
    again = send_token(w3, token, accounts[2], accounts[3], 250)
    assert index_pass(chain).error == ""
    acknowledged.refresh_from_db()
    assert (acknowledged.status, acknowledged.tx_hash) == ("completed", again)


def test_the_commitment_of_transfer_with_commitment_completes_it(acknowledged, chain, w3, token, accounts):
    sender, receiver = w3.to_checksum_address(accounts[2]), w3.to_checksum_address(accounts[3])
    # Not the registered sides' amount (the commitment names the record, whatever else differs).
    tx_hash = mined(w3, token.functions.transferWithCommitment(receiver, 240 * 10**18, bytes.fromhex(acknowledged.commitment[2:]))
                    .transact({"from": sender}))["transactionHash"].to_0x_hex()

    assert index_pass(chain).error == ""

    acknowledged.refresh_from_db()
    assert (acknowledged.status, acknowledged.tx_hash) == ("completed", tx_hash)


def test_a_transfer_before_the_acknowledgement_or_after_expiry_does_not_complete_it(acknowledged, chain, node, w3, token, accounts):
    TravelRuleTransfer.objects.filter(pk=acknowledged.pk).update(expires_at=acknowledged.acknowledged_at)  # its window closed
    rpc(node.url, "evm_increaseTime", [120])
    send_token(w3, token, accounts[2], accounts[3], 250)

    assert index_pass(chain).error == ""

    acknowledged.refresh_from_db()
    assert (acknowledged.status, acknowledged.tx_hash) == ("acknowledged", "")
