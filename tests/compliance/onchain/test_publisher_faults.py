"""The publisher's faults against a real anvil, the publisher talking to it through a loopback JSON-RPC proxy
(tests/compliance/onchain/rpc_proxy.py) that drops, delays or acts on requests: refused and timed-out RPCs, a
reverted batch, blocks reorganised away, a stuck transaction replaced, statuses republished before they expire.
Each test checks the stored rows and transactions and what the contract holds. (The worker killed after the
broadcast: test_publisher_kill.py.)"""

from datetime import timedelta

import pytest
from django.utils import timezone
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes

from compliance import tasks
from compliance.models import Chain, ChainTransaction, OnchainStatusUpdate
from compliance.onchain.publisher import PublisherError, publish_pass
from tests.compliance.onchain.publishing import (
    LOCAL,
    SIGNER,
    assert_published_on_chain,
    enable_local_chain,
    external_screening,
    new_addresses,
    onboard,
    rows_of,
    status_on_chain,
    transactions_of_nonce,
    updated_events,
)
from tests.compliance.onchain.rpc_proxy import RpcProxy

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(180)]
RPC_TIMEOUT = 1


@pytest.fixture(autouse=True)
def _fast_rpc(settings):
    settings.ONCHAIN_RPC_TIMEOUT, settings.ONCHAIN_RPC_ATTEMPTS = RPC_TIMEOUT, 3


@pytest.fixture
def proxy(anvil):
    with RpcProxy(anvil.url) as running:
        yield running
    anvil.rpc("evm_setAutomine", [True])  # whatever a test left: the next one starts with a block per transaction


@pytest.fixture
def chain(proxy, monkeypatch):
    return enable_local_chain(proxy.url, monkeypatch)


def flagged_entity(client, count: int) -> tuple[dict, list[str]]:
    addresses = new_addresses(count)
    entity = onboard(client, addresses)
    external_screening(client, entity, "fail")
    return entity, addresses


def call_of(tx: ChainTransaction) -> tuple:
    fields = TypedTransaction.from_bytes(HexBytes(tx.raw)).as_dict()
    return fields["to"], fields["data"], fields["gas"], fields["nonce"]


def test_a_refused_broadcast_fails_the_pass_cleanly_and_the_next_pass_finishes(client, chain, oracle, w3, proxy):
    entity, _ = flagged_entity(client, 2)
    nonce, sends = w3.eth.get_transaction_count(SIGNER), proxy.count("eth_sendRawTransaction")
    proxy.on("eth_sendRawTransaction", "drop")  # every attempt: the node is unreachable for broadcasts

    with pytest.raises(PublisherError, match="broadcasting"):
        publish_pass(LOCAL)
    assert proxy.count("eth_sendRawTransaction") - sends == 3  # tried ONCHAIN_RPC_ATTEMPTS times
    assert "broadcasting" in Chain.objects.get(pk=chain.pk).last_error
    stored = ChainTransaction.objects.get(chain=chain, nonce=nonce)
    assert stored.status == "sent" and stored.sent_at is None
    assert {(row.status, row.transaction_id) for row in rows_of(entity)} == {("published", stored.pk)}
    assert w3.eth.get_transaction_count(SIGNER) == nonce and all(status_on_chain(oracle, r.address).version == 0 for r in rows_of(entity))

    proxy.clear()
    result = publish_pass(LOCAL)
    assert result.signed == [] and result.rebroadcast == 1 and result.confirmed == 2
    assert Chain.objects.get(pk=chain.pk).last_error == ""
    assert ChainTransaction.objects.filter(chain=chain).count() == 1 and transactions_of_nonce(w3, nonce) == [stored.tx_hash]
    assert_published_on_chain(oracle, entity)


def test_a_dropped_request_is_retried_within_the_pass(client, chain, oracle, w3, proxy):
    entity, _ = flagged_entity(client, 1)
    sends = proxy.count("eth_sendRawTransaction")
    proxy.on("eth_sendRawTransaction", "drop", times=1)
    result = publish_pass(LOCAL)
    assert proxy.count("eth_sendRawTransaction") - sends == 2 and len(result.signed) == 1 and result.confirmed == 1
    assert_published_on_chain(oracle, entity)


def test_a_timed_out_rpc_fails_the_pass_and_the_next_pass_confirms(client, chain, oracle, w3, proxy):
    entity, addresses = flagged_entity(client, 2)
    nonce, lookups = w3.eth.get_transaction_count(SIGNER), proxy.count("eth_getTransactionReceipt")
    proxy.on("eth_getTransactionReceipt", "delay", seconds=RPC_TIMEOUT + 1)  # answered after the client gave up

    with pytest.raises(Exception, match="(?i)timed out"):
        publish_pass(LOCAL)
    assert proxy.count("eth_getTransactionReceipt") - lookups == 3
    assert "Timeout" in Chain.objects.get(pk=chain.pk).last_error
    stored = ChainTransaction.objects.get(chain=chain, nonce=nonce)
    assert stored.status == "sent" and stored.sent_at and {r.status for r in rows_of(entity)} == {"published"}

    proxy.clear()
    result = publish_pass(LOCAL)
    assert result.signed == [] and result.confirmed == 2 and Chain.objects.get(pk=chain.pk).last_error == ""
    assert transactions_of_nonce(w3, nonce) == [stored.tx_hash]
    assert sum(len(updated_events(oracle, a)) for a in addresses) == 2
    assert_published_on_chain(oracle, entity)


def test_a_nonce_used_by_another_transaction_drops_the_stored_one_and_its_rows_are_published_again(client, chain, oracle, w3,
                                                                                                      proxy, accounts):
    entity, _ = flagged_entity(client, 2)
    proxy.on("eth_sendRawTransaction", "drop")
    with pytest.raises(PublisherError):
        publish_pass(LOCAL)
    lost = ChainTransaction.objects.get(chain=chain, status="sent")
    # Someone else signs with the same key: the nonce is taken by a transaction the publisher never signed.
    w3.eth.wait_for_transaction_receipt(w3.eth.send_transaction({"from": SIGNER, "to": accounts[2], "value": 1}))
    assert w3.eth.get_transaction_count(SIGNER) == lost.nonce + 1

    proxy.clear()
    result = publish_pass(LOCAL)
    assert result.reverted == 2 and len(result.signed) == 1 and result.confirmed == 2
    lost.refresh_from_db()
    assert lost.status == "dropped" and f"nonce {lost.nonce} was used by a transaction not signed here" in lost.error
    assert ChainTransaction.objects.get(tx_hash=result.signed[0]).nonce == lost.nonce + 1  # no gap, no reuse
    assert all(f"{lost.tx_hash} nonce {lost.nonce} was used" in row.reason for row in rows_of(entity))
    assert_published_on_chain(oracle, entity)


def test_a_reverted_batch_goes_back_to_pending_and_is_published_after_the_role_is_restored(client, chain, oracle, w3, proxy,
                                                                                            accounts):
    owner = accounts[1]  # the oracle's owner is not the signer here, so taking the role uses none of the signer's nonces
    w3.eth.wait_for_transaction_receipt(oracle.functions.transferOwnership(owner).transact({"from": SIGNER}))
    w3.eth.wait_for_transaction_receipt(oracle.functions.acceptOwnership().transact({"from": owner}))
    entity, _ = flagged_entity(client, 2)

    def lose_the_role():  # signed, not yet mined: the operator role goes first
        w3.eth.wait_for_transaction_receipt(oracle.functions.removeOperator(SIGNER).transact({"from": owner}))

    proxy.on("eth_sendRawTransaction", "before", times=1, call=lose_the_role)
    result = publish_pass(LOCAL)
    assert len(result.signed) == 1 and result.reverted == 2 and result.confirmed == 0
    reverted = ChainTransaction.objects.get(tx_hash=result.signed[0])
    assert reverted.status == "reverted" and reverted.error == "reverted" and reverted.block_number
    assert w3.eth.get_transaction_receipt(reverted.tx_hash)["status"] == 0
    for row in rows_of(entity):
        assert (row.status, row.transaction, row.tx_hash, row.version) == ("pending", None, "", None)
        assert f"transaction {reverted.tx_hash} reverted; to publish again" in row.reason
        assert status_on_chain(oracle, row.address).version == 0

    with pytest.raises(Exception):  # noqa: B017 - still no operator: refused at the gas estimate, nothing signed
        publish_pass(LOCAL)
    assert {r.status for r in rows_of(entity)} == {"pending"} and Chain.objects.get(pk=chain.pk).last_error
    w3.eth.wait_for_transaction_receipt(oracle.functions.addOperator(SIGNER).transact({"from": owner}))
    again = publish_pass(LOCAL)
    assert len(again.signed) == 1 and again.confirmed == 2
    assert_published_on_chain(oracle, entity)


def test_a_block_reorganised_away_before_confirmation_is_not_confirmed_and_sent_again(client, chain, oracle, w3, anvil):
    Chain.objects.filter(pk=chain.pk).update(confirmations=3)
    entity, addresses = flagged_entity(client, 2)
    first = publish_pass(LOCAL)
    tx = ChainTransaction.objects.get(tx_hash=first.signed[0])
    assert first.confirmed == 0 and tx.status == "mined" and {r.status for r in rows_of(entity)} == {"published"}
    ghost = tx.block_hash

    anvil.rpc("anvil_reorg", [1, []])  # the block holding it is replaced by an empty one at the same height
    assert w3.eth.get_block(tx.block_number)["hash"].to_0x_hex() != ghost
    second = publish_pass(LOCAL)
    assert second.reorganised == 2 and second.confirmed == 0 and second.signed == []
    tx.refresh_from_db()
    assert tx.status == "mined" and tx.block_hash != ghost and "reorganised away" in tx.error
    for row in rows_of(entity):
        assert row.status == "published" and row.transaction_id == tx.pk and "reorganised away" in row.reason

    anvil.rpc("evm_mine")
    anvil.rpc("evm_mine")
    third = publish_pass(LOCAL)
    assert third.confirmed == 2
    # The same signed bytes: one transaction, one nonce, mined once.
    assert ChainTransaction.objects.filter(chain=chain).count() == 1 and transactions_of_nonce(w3, tx.nonce) == [tx.tx_hash]
    assert all("reorganised away" in row.reason for row in rows_of(entity))
    assert_published_on_chain(oracle, entity)


def test_a_transaction_mined_again_in_another_block_is_confirmed_there_with_the_reason_noted(client, chain, oracle, w3, anvil):
    Chain.objects.filter(pk=chain.pk).update(confirmations=3)
    entity, _ = flagged_entity(client, 2)
    tx = ChainTransaction.objects.get(tx_hash=publish_pass(LOCAL).signed[0])
    assert tx.status == "mined"
    ghost = tx.block_hash

    anvil.rpc("anvil_reorg", [1, [[tx.raw, 0]]])  # the block is replaced by one holding the same transaction
    second = publish_pass(LOCAL)
    tx.refresh_from_db()
    assert second.reorganised == 2 and second.confirmed == 0 and second.rebroadcast == 0
    assert tx.status == "mined" and tx.block_hash not in ("", ghost) and "mined again in block" in tx.error
    assert all("reorganised away; mined again" in row.reason and row.status == "published" for row in rows_of(entity))

    anvil.rpc("evm_mine")
    anvil.rpc("evm_mine")
    assert publish_pass(LOCAL).confirmed == 2
    assert ChainTransaction.objects.get(pk=tx.pk).block_hash == w3.eth.get_block(tx.block_number)["hash"].to_0x_hex()
    assert transactions_of_nonce(w3, tx.nonce) == [tx.tx_hash]
    assert_published_on_chain(oracle, entity)


def test_a_confirmed_block_reorganised_away_puts_its_rows_back_and_they_are_published_again(client, chain, oracle, w3, anvil):
    entity, _ = flagged_entity(client, 2)
    first = publish_pass(LOCAL)
    assert first.confirmed == 2
    tx = ChainTransaction.objects.get(tx_hash=first.signed[0])
    ghost = tx.block_hash

    anvil.rpc("anvil_reorg", [1, []])  # the confirming block is gone, and the statuses with it
    assert all(status_on_chain(oracle, row.address).version == 0 for row in rows_of(entity))
    second = publish_pass(LOCAL)
    assert second.reorganised == 2 and second.confirmed == 2 and second.signed == []
    tx.refresh_from_db()
    assert tx.status == "confirmed" and tx.block_hash != ghost
    assert all("after its confirmation" in row.reason for row in rows_of(entity))
    assert transactions_of_nonce(w3, tx.nonce) == [tx.tx_hash]
    assert_published_on_chain(oracle, entity)


def assert_replaced(w3, oracle, entity, addresses, original: ChainTransaction, replacement: ChainTransaction, base_fee: int):
    """The replacement has the original's nonce, rows and call, fees at least 12.5 % higher and enough for the base fee;
    once a block is mined, only it is, and the rows are confirmed on it."""
    assert (replacement.nonce, replacement.replaces_id, replacement.gas) == (original.nonce, original.pk, original.gas)
    assert call_of(replacement) == call_of(original)  # the same rows: recipient, call data, gas
    assert replacement.max_fee_per_gas * 8 >= original.max_fee_per_gas * 9 and replacement.max_fee_per_gas >= base_fee
    assert replacement.max_priority_fee_per_gas * 8 >= original.max_priority_fee_per_gas * 9
    assert {(row.status, row.transaction_id, row.tx_hash) for row in rows_of(entity)} == {("published", replacement.pk,
                                                                                           replacement.tx_hash)}
    w3.provider.make_request("evm_mine", [])
    w3.provider.make_request("evm_setAutomine", [True])
    assert publish_pass(LOCAL).confirmed == len(addresses)
    original.refresh_from_db()
    assert original.status == "replaced" and replacement.tx_hash in original.error
    assert ChainTransaction.objects.get(pk=replacement.pk).status == "confirmed"
    assert transactions_of_nonce(w3, original.nonce) == [replacement.tx_hash]  # only one of them mined
    assert w3.eth.get_transaction_count(SIGNER) == original.nonce + 1
    assert sum(len(updated_events(oracle, a)) for a in addresses) == len(addresses)
    assert_published_on_chain(oracle, entity)


def test_a_transaction_without_receipt_past_the_timeout_is_replaced(client, chain, oracle, w3, anvil, settings):
    settings.ONCHAIN_STUCK_AFTER = timedelta(seconds=60)
    entity, addresses = flagged_entity(client, 2)
    anvil.rpc("evm_setAutomine", [False])  # nothing is mined: it waits in the pool
    first = publish_pass(LOCAL)
    original = ChainTransaction.objects.get(tx_hash=first.signed[0])
    again = publish_pass(LOCAL)
    assert original.status == "sent" and again.replacements == [] and again.rebroadcast == 2  # (tracked twice) not yet stuck

    ChainTransaction.objects.filter(pk=original.pk).update(sent_at=timezone.now() - timedelta(seconds=61))
    second = publish_pass(LOCAL)
    assert len(second.replacements) == 1 and second.signed == []
    replacement = ChainTransaction.objects.get(tx_hash=second.replacements[0])
    assert "no receipt 61 s after its broadcast" in ChainTransaction.objects.get(pk=original.pk).error
    assert_replaced(w3, oracle, entity, addresses, original, replacement, 0)


def test_when_the_original_is_mined_instead_of_its_replacement_the_original_wins(client, chain, oracle, w3, anvil, proxy, settings):
    settings.ONCHAIN_STUCK_AFTER = timedelta(seconds=60)
    entity, addresses = flagged_entity(client, 2)
    anvil.rpc("evm_setAutomine", [False])
    original = ChainTransaction.objects.get(tx_hash=publish_pass(LOCAL).signed[0])
    ChainTransaction.objects.filter(pk=original.pk).update(sent_at=timezone.now() - timedelta(seconds=61))
    proxy.on("eth_sendRawTransaction", "drop")  # the replacement is signed and stored, but never reaches the node
    with pytest.raises(PublisherError, match="broadcasting"):
        publish_pass(LOCAL)
    replacement = ChainTransaction.objects.get(replaces=original)
    assert {row.transaction_id for row in rows_of(entity)} == {replacement.pk}

    anvil.rpc("evm_mine")  # the original, still in the node's pool, is mined
    anvil.rpc("evm_setAutomine", [True])
    proxy.clear()
    assert publish_pass(LOCAL).confirmed == 2
    replacement.refresh_from_db()
    assert replacement.status == "replaced" and original.tx_hash in replacement.error
    assert ChainTransaction.objects.get(pk=original.pk).status == "confirmed"
    assert {(row.transaction_id, row.tx_hash) for row in rows_of(entity)} == {(original.pk, original.tx_hash)}
    assert transactions_of_nonce(w3, original.nonce) == [original.tx_hash]
    assert_published_on_chain(oracle, entity)


def test_a_transaction_priced_out_by_the_base_fee_is_replaced_at_once(client, chain, oracle, w3, anvil, admin_client, staff, org):
    entity, addresses = flagged_entity(client, 1)
    anvil.rpc("evm_setAutomine", [False])
    first = publish_pass(LOCAL)
    original = ChainTransaction.objects.get(tx_hash=first.signed[0])
    # The base fee jumps above what the transaction offers: it cannot be mined, and the node refuses it again.
    base_fee = original.max_fee_per_gas * 4
    anvil.rpc("anvil_setNextBlockBaseFeePerGas", [hex(base_fee)])
    anvil.rpc("evm_mine")
    assert w3.eth.get_block("latest")["baseFeePerGas"] == base_fee and w3.eth.get_block("latest")["transactions"] == []

    second = publish_pass(LOCAL)
    assert len(second.replacements) == 1
    replacement = ChainTransaction.objects.get(tx_hash=second.replacements[0])
    assert "refused for its fees" in ChainTransaction.objects.get(pk=original.pk).error
    # Enough for the next block's base fee (at most 12.5 % below this one's after an empty block).
    assert_replaced(w3, oracle, entity, addresses, original, replacement, base_fee * 7 // 8)

    # The operator sees both in the console, the replaced one with why; an organization's staff does not.
    listing = admin_client.get("/admin/compliance/chaintransaction/").content.decode()
    assert original.tx_hash in listing and replacement.tx_hash in listing and "replaced" in listing
    assert staff(org).get("/admin/compliance/chaintransaction/").status_code in (302, 403)


def test_statuses_close_to_expiry_are_published_again(client, chain, oracle, w3, settings):
    settings.ONCHAIN_STATUS_TTL, settings.ONCHAIN_REPUBLISH_MARGIN = timedelta(days=90), timedelta(days=7)
    old, _ = flagged_entity(client, 2)
    fresh, _ = flagged_entity(client, 1)
    OnchainStatusUpdate.objects.filter(entity_id=old["id"]).update(created_at=timezone.now() - timedelta(days=85))
    publish_pass(LOCAL)
    now = w3.eth.get_block("latest")["timestamp"]
    before = {row.address: status_on_chain(oracle, row.address) for row in rows_of(old)}
    assert all(now + 4 * 86_400 < status.expires_at < now + 6 * 86_400 for status in before.values())  # 5 days left

    tasks.republish_expiring()  # beat
    pending = OnchainStatusUpdate.objects.filter(status="pending")
    assert sorted(row.address for row in pending) == sorted(before) and all(str(row.entity_id) == old["id"] for row in pending)
    for row in pending:
        assert (row.flagged, row.flags, row.risk_tier) == (True, before[row.address].flags, before[row.address].risk_tier)
        assert row.reason == f"republished before expiry (version {before[row.address].version})"
    tasks.republish_expiring()
    assert OnchainStatusUpdate.objects.filter(status="pending").count() == 2  # the fresh rows are on their way

    assert publish_pass(LOCAL).confirmed == 2
    for address, status in before.items():
        after = status_on_chain(oracle, address)
        assert after.flags == status.flags and after.version > status.version
        assert after.expires_at > now + 89 * 86_400
    assert_published_on_chain(oracle, fresh)
    tasks.republish_expiring()
    assert not OnchainStatusUpdate.objects.filter(status="pending").exists()


# anvil's second default account: the key rotated in.
NEW_SIGNER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
NEW_SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


def test_a_rotated_key_signs_from_its_own_nonce_and_the_old_keys_transaction_still_settles(client, chain, oracle, w3, proxy,
                                                                                             monkeypatch):
    w3.eth.wait_for_transaction_receipt(oracle.functions.addOperator(NEW_SIGNER).transact({"from": SIGNER}))  # step 1 of the runbook
    before, _ = flagged_entity(client, 2)
    proxy.on("eth_sendRawTransaction", "drop")
    with pytest.raises(PublisherError):
        publish_pass(LOCAL)
    old = ChainTransaction.objects.get(chain=chain, status="sent")
    assert old.sender == SIGNER and Chain.objects.get(pk=chain.pk).next_nonce == old.nonce + 1

    monkeypatch.setenv(f"CHAIN_SIGNER_KEY_{LOCAL}", NEW_SIGNER_KEY)  # the key rotated while its transaction was unsent
    proxy.clear()
    after, _ = flagged_entity(client, 2)
    new_nonce = w3.eth.get_transaction_count(NEW_SIGNER)
    assert new_nonce < old.nonce + 1  # the old key's count would leave a gap for the new key
    result = publish_pass(LOCAL)

    assert result.rebroadcast == 1 and result.reverted == 0 and len(result.signed) == 1 and result.confirmed == 4
    old.refresh_from_db()
    new = ChainTransaction.objects.get(tx_hash=result.signed[0])
    assert (old.status, old.sender) == ("confirmed", SIGNER) and (new.status, new.sender, new.nonce) == ("confirmed", NEW_SIGNER, new_nonce)
    assert (Chain.objects.get(pk=chain.pk).nonce_signer, Chain.objects.get(pk=chain.pk).next_nonce) == (NEW_SIGNER, new_nonce + 1)
    assert w3.eth.get_transaction(old.tx_hash)["from"] == SIGNER and w3.eth.get_transaction(new.tx_hash)["from"] == NEW_SIGNER
    assert_published_on_chain(oracle, before)
    assert_published_on_chain(oracle, after)
