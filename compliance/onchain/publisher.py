"""The status publisher (docs/oracle.md, "Publishing"): pending OnchainStatusUpdate rows of a chain become
setStatuses transactions signed with the chain's signer key (CHAIN_SIGNER_KEY_<chain_id>, never stored).

One pass (publish_pass):
1. tracks the chain's unfinished transactions: without a receipt the stored signed bytes are broadcast again
   (identical, so never a second transaction for one nonce); a reverted receipt puts its rows back to pending;
   a successful one `confirmations` deep, whose block is still the chain's block at that height, confirms them;
2. under the chain row's lock and the pending rows' (skip_locked), keeps each wallet's latest pending row (the
   others become superseded), signs batches of up to batch_size with nonces from Chain.next_nonce, and stores
   each signed transaction (and marks its rows published) before anything is broadcast;
3. broadcasts what it signed, then tracks again.
"""

import os
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from eth_account import Account
from eth_utils import is_address, to_checksum_address
from web3 import HTTPProvider, Web3
from web3.exceptions import TransactionNotFound

from compliance.models import Chain, ChainTransaction, ChainTxStatus, OnchainStatus, OnchainStatusUpdate
from compliance.onchain.contracts import Status, contract_at, pack_status

DEFAULT_TTL = timedelta(days=90)
UNFINISHED = (ChainTxStatus.SENT, ChainTxStatus.MINED)
HARMLESS_SEND_ERRORS = ("already known", "nonce too low", "known transaction", "already imported")


class PublisherError(RuntimeError):
    pass


@dataclass
class PassResult:
    chain_id: int
    signed: list[str] = field(default_factory=list)  # hashes of the transactions signed in this pass
    rebroadcast: int = 0
    published: int = 0  # rows put in a transaction
    superseded: int = 0
    confirmed: int = 0  # rows confirmed
    reverted: int = 0  # rows put back to pending
    skipped: str = ""  # why nothing was done


def rpc_urls(chain: Chain) -> list[str]:
    """CHAIN_RPC_URL_<chain_id> (comma-separated), read now, else the row's."""
    configured = os.environ.get(f"CHAIN_RPC_URL_{chain.chain_id}", "")
    urls = [url.strip() for url in configured.split(",") if url.strip()]
    return urls or list(chain.rpc_urls or [])


def _signer_key(chain_id: int) -> str:
    return os.environ.get(f"CHAIN_SIGNER_KEY_{chain_id}", "").strip()


def signer_account(chain_id: int):
    """The chain's signer (an eth_account LocalAccount), or None when CHAIN_SIGNER_KEY_<chain_id> is unset."""
    key = _signer_key(chain_id)
    return Account.from_key(key) if key else None


def signer_address(chain_id: int) -> str:
    """The signer's address (what may be shown), or "" when no key is set or it is not a key."""
    try:
        account = signer_account(chain_id)
    except (ValueError, TypeError):
        return ""
    return account.address if account else ""


def connect(chain: Chain) -> Web3:
    """A Web3 on the first of the chain's RPC URLs that answers with the chain's id."""
    failures = []
    for url in rpc_urls(chain):
        w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": 30}))
        try:
            answered = w3.eth.chain_id
        except Exception as error:  # noqa: BLE001 - any transport failure: try the next URL
            failures.append(f"{url}: {error}")
            continue
        if answered != chain.chain_id:
            failures.append(f"{url}: chain id {answered}, not {chain.chain_id}")
            continue
        return w3
    raise PublisherError(f"no RPC URL of chain {chain.chain_id} answers: {'; '.join(failures) or 'none configured'}")


def _ttl() -> timedelta:
    return getattr(settings, "ONCHAIN_STATUS_TTL", DEFAULT_TTL)


def _micros(moment) -> int:
    return int(moment.timestamp() * 1_000_000)


def _note_error(chain: Chain, message: str) -> None:
    Chain.objects.filter(pk=chain.pk).update(last_error=message[:2000], updated_at=timezone.now())


def publish_pass(chain_id: int, *, progress=None, require_enabled: bool = True) -> PassResult:
    """One pass over chain `chain_id` (see the module's docstring). `progress(line)` hears what it does."""
    say = progress or (lambda line: None)
    result = PassResult(chain_id)
    chain = Chain.objects.filter(chain_id=chain_id).first()
    why = ("no such chain" if chain is None else "disabled" if require_enabled and not chain.enabled
           else "no oracle deployed (manage.py deploy_oracle)" if not chain.oracle_address
           else f"CHAIN_SIGNER_KEY_{chain_id} is not set" if not _signer_key(chain_id) else "")
    if why:
        result.skipped = why
        say(f"chain {chain_id}: skipped, {why}")
        return result
    try:
        w3 = connect(chain)
        _track(chain, w3, result, say)
        _sign(chain, w3, result, say)
        _track(chain, w3, result, say)
    except Exception as error:
        _note_error(chain, f"{type(error).__name__}: {error}")
        raise
    Chain.objects.filter(pk=chain.pk).exclude(last_error="").update(last_error="", updated_at=timezone.now())
    return result


def _broadcast(w3: Web3, tx: ChainTransaction) -> None:
    try:
        w3.eth.send_raw_transaction(tx.raw)
    except Exception as error:  # noqa: BLE001 - the node's refusals come as several exception types
        if not any(text in str(error).lower() for text in HARMLESS_SEND_ERRORS):
            raise PublisherError(f"broadcasting {tx.tx_hash} (nonce {tx.nonce}) failed: {error}") from error
    if tx.sent_at is None:
        tx.sent_at = timezone.now()
        tx.save(update_fields=["sent_at", "updated_at"])


def _track(chain: Chain, w3: Web3, result: PassResult, say) -> None:
    with transaction.atomic():
        unfinished = list(ChainTransaction.objects.select_for_update(skip_locked=True)
                          .filter(chain=chain, status__in=UNFINISHED).order_by("nonce"))
        if not unfinished:
            return
        for tx in unfinished:
            try:
                receipt = w3.eth.get_transaction_receipt(tx.tx_hash)
            except TransactionNotFound:
                receipt = None
            if receipt is None:
                _broadcast(w3, tx)
                result.rebroadcast += 1
                say(f"nonce {tx.nonce}: {tx.tx_hash} broadcast")
                continue
            if receipt["status"] != 1:
                _revert(tx, receipt, result, say)
                continue
            block_hash = receipt["blockHash"].to_0x_hex()
            if tx.status != ChainTxStatus.MINED or tx.block_hash != block_hash:
                tx.status, tx.block_number, tx.block_hash = ChainTxStatus.MINED, receipt["blockNumber"], block_hash
                tx.save(update_fields=["status", "block_number", "block_hash", "updated_at"])
            # The head is read after the receipt: read before it, a block mined in between (a node that
            # mines just after answering the broadcast) made a confirmed transaction look too shallow.
            deep = w3.eth.block_number - receipt["blockNumber"] + 1 >= chain.confirmations
            if deep and w3.eth.get_block(receipt["blockNumber"])["hash"].to_0x_hex() == block_hash:
                tx.status = ChainTxStatus.CONFIRMED
                tx.save(update_fields=["status", "updated_at"])
                now = timezone.now()
                count = tx.updates.filter(status=OnchainStatus.PUBLISHED).update(
                    status=OnchainStatus.CONFIRMED, confirmed_at=now, updated_at=now)
                result.confirmed += count
                say(f"nonce {tx.nonce}: {tx.tx_hash} confirmed in block {tx.block_number} ({count} wallets)")


def _revert(tx: ChainTransaction, receipt, result: PassResult, say) -> None:
    tx.status, tx.block_number = ChainTxStatus.REVERTED, receipt["blockNumber"]
    tx.block_hash, tx.error = receipt["blockHash"].to_0x_hex(), "reverted"
    tx.save(update_fields=["status", "block_number", "block_hash", "error", "updated_at"])
    count = 0
    for row in tx.updates.filter(status=OnchainStatus.PUBLISHED):
        row.status, row.published_at, row.tx_hash, row.transaction, row.version = OnchainStatus.PENDING, None, "", None, None
        row.reason = f"{row.reason} (transaction {tx.tx_hash} reverted; to publish again)"[-300:]
        row.save(update_fields=["status", "published_at", "tx_hash", "transaction", "version", "reason", "updated_at"])
        count += 1
    result.reverted += count
    say(f"nonce {tx.nonce}: {tx.tx_hash} reverted; {count} wallets back to pending")


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


def _sign(chain: Chain, w3: Web3, result: PassResult, say) -> None:
    account = signer_account(chain.chain_id)
    oracle = contract_at(w3, "ComplianceOracle", to_checksum_address(chain.oracle_address))
    signed: list[ChainTransaction] = []
    with transaction.atomic():
        chain = Chain.objects.select_for_update().get(pk=chain.pk)
        rows = _latest_per_wallet(chain, result, say)
        if not rows:
            return
        versions, ttl = _versions(chain, rows), int(_ttl().total_seconds())
        nonce = max(chain.next_nonce or 0, w3.eth.get_transaction_count(account.address, "pending"))
        base_fee = w3.eth.get_block("latest").get("baseFeePerGas", 0)
        priority = w3.eth.max_priority_fee
        max_fee = 2 * base_fee + priority
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
            raw = account.sign_transaction(unsigned).raw_transaction
            tx = ChainTransaction.objects.create(chain=chain, nonce=nonce, tx_hash=Web3.keccak(raw).to_0x_hex(), raw=raw.to_0x_hex(),
                                                 gas=gas, max_fee_per_gas=max_fee, max_priority_fee_per_gas=priority)
            now = timezone.now()
            for row in batch:
                row.status, row.version, row.tx_hash, row.transaction, row.published_at, row.updated_at = (
                    OnchainStatus.PUBLISHED, versions[row.address], tx.tx_hash, tx, now, now)
            OnchainStatusUpdate.objects.bulk_update(batch, ["status", "version", "tx_hash", "transaction", "published_at", "updated_at"])
            signed.append(tx)
            result.signed.append(tx.tx_hash)
            result.published += len(batch)
            say(f"nonce {nonce}: {tx.tx_hash} signed for {len(batch)} wallets")
            nonce += 1
        chain.next_nonce = nonce
        chain.save(update_fields=["next_nonce", "updated_at"])
    for tx in signed:  # stored (committed) first: a failure here is retried by the next pass with the same bytes
        _broadcast(w3, tx)
        say(f"nonce {tx.nonce}: {tx.tx_hash} broadcast")


def _send_signed(w3: Web3, account, unsigned: dict) -> dict:
    raw = account.sign_transaction(unsigned).raw_transaction
    receipt = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(raw), timeout=300)
    if receipt["status"] != 1:
        raise PublisherError(f"transaction {receipt['transactionHash'].to_0x_hex()} reverted")
    return receipt


def deploy_oracle(chain_id: int, *, progress=None) -> str:
    """Deploys ComplianceOracle on `chain_id` with the chain's signer as owner, adds the signer as operator,
    records the address on the Chain row and returns it."""
    from compliance.onchain.artifacts import load_artifact

    say = progress or (lambda line: None)
    chain = Chain.objects.filter(chain_id=chain_id).first()
    if chain is None:
        raise PublisherError(f"no chain {chain_id} configured")
    account = signer_account(chain_id)
    if account is None:
        raise PublisherError(f"CHAIN_SIGNER_KEY_{chain_id} is not set")
    w3 = connect(chain)
    artifact = load_artifact("ComplianceOracle")
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    nonce = w3.eth.get_transaction_count(account.address, "pending")
    constructor = factory.constructor(account.address)
    unsigned = constructor.build_transaction({"from": account.address, "nonce": nonce, "chainId": chain_id})
    receipt = _send_signed(w3, account, unsigned)
    address = receipt["contractAddress"]
    say(f"ComplianceOracle deployed at {address} (owner {account.address})")
    oracle = contract_at(w3, "ComplianceOracle", address)
    _send_signed(w3, account, oracle.functions.addOperator(account.address).build_transaction(
        {"from": account.address, "nonce": nonce + 1, "chainId": chain_id}))
    say(f"operator {account.address} added")
    Chain.objects.filter(pk=chain.pk).update(oracle_address=address, next_nonce=nonce + 2, updated_at=timezone.now())
    return address
