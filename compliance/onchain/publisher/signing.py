"""Signing: new setStatuses transactions for the pending rows (new nonces), and fee-bumped replacements of stuck ones
(the same nonce and bytes but the fees). Every signed transaction is stored (committed) before it is broadcast."""

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from eth_account.typed_transactions import TypedTransaction
from eth_utils import is_address, to_checksum_address
from hexbytes import HexBytes
from web3 import Web3

from compliance.models import Chain, ChainTransaction, ChainTxStatus, OnchainStatus, OnchainStatusUpdate
from compliance.onchain.contracts import Status, contract_at, pack_status
from compliance.onchain.publisher.common import PassResult, broadcast, signer_account
from compliance.status import onchain_status_ttl

SIGNATURE_FIELDS = ("v", "r", "s", "yParity")


def _micros(moment) -> int:
    return int(moment.timestamp() * 1_000_000)


def bumped(fee: int) -> int:
    """At least 12.5 % more (rounded up), and at least one wei more: what nodes ask of a replacement (geth 10 %)."""
    return max(fee + 1, (fee * 9 + 7) // 8)


def current_fees(w3: Web3) -> tuple[int, int]:
    """(maxFeePerGas, maxPriorityFeePerGas) for a transaction signed now: twice the latest base fee plus the tip."""
    base_fee = w3.eth.get_block("latest").get("baseFeePerGas", 0)
    priority = w3.eth.max_priority_fee
    return 2 * base_fee + priority, priority


def _store(chain: Chain, raw: bytes, *, sender: str, nonce: int, gas: int, max_fee: int, priority: int, replaces=None) -> ChainTransaction:
    return ChainTransaction.objects.create(
        chain=chain, sender=sender, nonce=nonce, tx_hash=Web3.keccak(raw).to_0x_hex(), raw=raw.to_0x_hex(), gas=gas,
        max_fee_per_gas=max_fee, max_priority_fee_per_gas=priority, replaces=replaces)


def _latest_per_wallet(chain: Chain, result: PassResult, say) -> list[OnchainStatusUpdate]:
    """The chain's pending rows, locked, one per wallet (its latest); the others superseded."""
    pending = list(OnchainStatusUpdate.objects.select_for_update(skip_locked=True)
                   .filter(chain_id=chain.chain_id, status=OnchainStatus.PENDING).order_by("created_at", "id"))
    latest: dict[str, OnchainStatusUpdate] = {}
    for row in pending:
        if is_address(row.address):
            latest[row.address.lower()] = row
    winners = {row.pk for row in latest.values()}
    superseded = [row.pk for row in pending if row.pk not in winners and is_address(row.address)]
    if superseded:
        OnchainStatusUpdate.objects.filter(pk__in=superseded).update(status=OnchainStatus.SUPERSEDED, updated_at=timezone.now())
        result.superseded += len(superseded)
        say(f"{len(superseded)} older pending rows superseded by a later one for the same wallet")
    return list(latest.values())


def _versions(chain: Chain, rows: list[OnchainStatusUpdate]) -> dict[str, int]:
    """Each wallet's version: the row's creation in microseconds, above any version published for it before."""
    published = dict(OnchainStatusUpdate.objects.filter(chain_id=chain.chain_id, address__in=[row.address for row in rows])
                     .exclude(version=None).values("address").annotate(top=Max("version")).values_list("address", "top"))
    return {row.address: max(_micros(row.created_at), (published.get(row.address) or 0) + 1) for row in rows}


def sign_pending(chain: Chain, w3: Web3, result: PassResult, say) -> None:
    """Under the chain row's lock: the latest pending row per wallet, in batches of batch_size, each batch one signed
    transaction with the next nonce, stored with its rows marked published; then (committed) broadcast."""
    account = signer_account(chain.chain_id)
    oracle = contract_at(w3, "ComplianceOracle", to_checksum_address(chain.oracle_address))
    signed: list[ChainTransaction] = []
    with transaction.atomic():
        chain = Chain.objects.select_for_update().get(pk=chain.pk)
        rows = _latest_per_wallet(chain, result, say)
        if not rows:
            return
        versions, ttl = _versions(chain, rows), int(onchain_status_ttl().total_seconds())
        # next_nonce counts for the key that set it: after a key rotation the new key starts from the node's count.
        counted = chain.next_nonce if chain.nonce_signer.lower() == account.address.lower() else None
        nonce = max(counted or 0, w3.eth.get_transaction_count(account.address, "pending"))
        max_fee, priority = current_fees(w3)
        size = max(1, chain.batch_size)
        for start in range(0, len(rows), size):
            batch = rows[start:start + size]
            words = []
            for row in batch:
                decided = int(row.created_at.timestamp())
                words.append(pack_status(Status(risk_tier=row.risk_tier, flags=row.flags, updated_at=decided,
                                                expires_at=decided + ttl, version=versions[row.address])))
            call = oracle.functions.setStatuses([to_checksum_address(row.address) for row in batch], words)
            gas = int(call.estimate_gas({"from": account.address}) * 1.25) + 10_000
            unsigned = call.build_transaction({"from": account.address, "nonce": nonce, "gas": gas, "chainId": chain.chain_id,
                                               "maxFeePerGas": max_fee, "maxPriorityFeePerGas": priority})
            tx = _store(chain, account.sign_transaction(unsigned).raw_transaction, sender=account.address, nonce=nonce, gas=gas,
                        max_fee=max_fee, priority=priority)
            now = timezone.now()
            for row in batch:
                row.status, row.version, row.tx_hash, row.transaction, row.published_at, row.updated_at = (
                    OnchainStatus.PUBLISHED, versions[row.address], tx.tx_hash, tx, now, now)
            # What the batch shares in one UPDATE; only the versions differ row by row (a CASE per row for one column).
            OnchainStatusUpdate.objects.filter(pk__in=[row.pk for row in batch]).update(
                status=OnchainStatus.PUBLISHED, tx_hash=tx.tx_hash, transaction=tx, published_at=now, updated_at=now)
            OnchainStatusUpdate.objects.bulk_update(batch, ["version"])
            signed.append(tx)
            result.signed.append(tx.tx_hash)
            result.published += len(batch)
            say(f"nonce {nonce}: {tx.tx_hash} signed for {len(batch)} wallets")
            nonce += 1
        chain.next_nonce, chain.nonce_signer = nonce, account.address
        chain.save(update_fields=["next_nonce", "nonce_signer", "updated_at"])
    for tx in signed:  # stored (committed) first: a failure here is retried by the next pass with the same bytes
        if broadcast(w3, tx):
            say(f"nonce {tx.nonce}: {tx.tx_hash} broadcast")
        else:
            say(f"nonce {tx.nonce}: {tx.tx_hash} refused for its fees; replaced by the next tracking")


def replace(chain: Chain, w3: Web3, stuck_pk, why: str, result: PassResult, say) -> ChainTransaction | None:
    """Signs and stores (commits) a replacement of the stuck transaction: its nonce, gas, recipient and call data, with
    maxFeePerGas and maxPriorityFeePerGas each at least 12.5 % higher and at least what the latest block asks; its rows
    move to the replacement. Then broadcasts it. None when another pass replaced it or it is no longer unfinished."""
    account = signer_account(chain.chain_id)
    floor_fee, floor_priority = current_fees(w3)
    with transaction.atomic():
        stuck = (ChainTransaction.objects.select_for_update(skip_locked=True)
                 .filter(pk=stuck_pk, status=ChainTxStatus.SENT).first())
        if stuck is None or stuck.replacements.exists():
            return None
        if stuck.sender and stuck.sender.lower() != account.address.lower():
            # Signed with a key rotated out since: only that key can replace it (docs/oracle.md "Rotating the key").
            stuck.error = f"{why}; signed by {stuck.sender}, not the current key: not replaced, broadcast again"[:2000]
            stuck.save(update_fields=["error", "updated_at"])
            say(f"nonce {stuck.nonce}: {stuck.tx_hash} {why}, but signed by the previous key {stuck.sender}: not replaced")
            return None
        fields = {key: value for key, value in TypedTransaction.from_bytes(HexBytes(stuck.raw)).as_dict().items()
                  if key not in SIGNATURE_FIELDS}
        priority = max(bumped(stuck.max_priority_fee_per_gas), floor_priority)
        max_fee = max(bumped(stuck.max_fee_per_gas), floor_fee, priority)
        fields.update(maxFeePerGas=max_fee, maxPriorityFeePerGas=priority)
        tx = _store(chain, account.sign_transaction(fields).raw_transaction, sender=account.address, nonce=stuck.nonce, gas=stuck.gas,
                    max_fee=max_fee, priority=priority, replaces=stuck)
        stuck.error = f"replaced by {tx.tx_hash}: {why}"[:2000]
        stuck.save(update_fields=["error", "updated_at"])
        stuck.updates.filter(status=OnchainStatus.PUBLISHED).update(transaction=tx, tx_hash=tx.tx_hash, updated_at=timezone.now())
    result.replacements.append(tx.tx_hash)
    say(f"nonce {tx.nonce}: {stuck.tx_hash} {why}; replaced by {tx.tx_hash} (max fee {stuck.max_fee_per_gas} -> {max_fee}, "
        f"tip {stuck.max_priority_fee_per_gas} -> {priority})")
    if broadcast(w3, tx):
        say(f"nonce {tx.nonce}: {tx.tx_hash} broadcast")
    return tx
