"""Tracking the chain's transactions, one nonce at a time (a nonce has its original transaction and any fee-bumped
replacements; at most one of them is ever mined):

- one of them has a receipt: it wins; the others become `replaced` and their rows move to it. A reverted receipt puts
  the rows back to pending (reason recorded); a successful one `confirmations` deep, whose block is still the chain's
  block at that height, confirms them;
- none has a receipt: a `mined` one was reorganised away (its rows' reason says so; it goes back to `sent` and is
  broadcast again, identical, which keeps the nonce sequence without a gap); when the signer's nonce has moved past
  it (a transaction not signed here used the nonce) they are `dropped` and their rows back to pending; otherwise the
  newest is broadcast again with its stored bytes, or replaced with higher fees when it has had no receipt for
  ONCHAIN_STUCK_AFTER or the node refuses it for its fees;
- `confirmed` transactions up to ONCHAIN_REORG_WATCH_BLOCKS deep are re-checked: one whose block is no longer the
  chain's goes back to `sent`, its rows back to `published`, and is tracked as above.
"""

from itertools import groupby

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from web3 import Web3
from web3.exceptions import BlockNotFound, TransactionNotFound

from compliance.models import Chain, ChainTransaction, ChainTxStatus, OnchainStatus, OnchainStatusUpdate
from compliance.onchain.publisher.common import UNFINISHED, PassResult, broadcast, signer_address, with_reason
from compliance.onchain.publisher.signing import replace


def track(chain: Chain, w3: Web3, result: PassResult, say) -> None:
    to_replace: list[tuple[int, str]] = []
    with transaction.atomic():
        _recheck_confirmed(chain, w3, result, say)
        unfinished = list(ChainTransaction.objects.select_for_update(skip_locked=True)
                          .filter(chain=chain, status__in=UNFINISHED).order_by("nonce", "created_at"))
        if unfinished:
            # Each key's count is read before the receipts: a nonce used by then and none of its transactions mined is
            # someone else's. The transactions of a key rotated out are tracked by that key's own count.
            current = signer_address(chain.chain_id)
            unfinished.sort(key=lambda tx: ((tx.sender or current).lower(), tx.nonce, tx.created_at))
            used = {sender: w3.eth.get_transaction_count(Web3.to_checksum_address(sender), "latest")
                    for sender in {(tx.sender or current).lower() for tx in unfinished}}
            for (sender, _nonce), attempts in groupby(unfinished, key=lambda tx: ((tx.sender or current).lower(), tx.nonce)):
                attempts = list(attempts)
                why = _track_nonce(chain, w3, attempts, used[sender], result, say)
                if why:
                    to_replace.append((attempts[-1].pk, why))
    for pk, why in to_replace:  # each replacement is stored and committed before it is broadcast
        replace(chain, w3, pk, why, result, say)


def _receipt(w3: Web3, tx: ChainTransaction):
    try:
        return w3.eth.get_transaction_receipt(tx.tx_hash)
    except TransactionNotFound:
        return None


def _track_nonce(chain: Chain, w3: Web3, attempts: list[ChainTransaction], used: int, result: PassResult, say) -> str:
    """Tracks the attempts of one nonce (oldest first); returns why the newest must be replaced, or ""."""
    receipts = [(tx, _receipt(w3, tx)) for tx in attempts]
    mined = [(tx, receipt) for tx, receipt in receipts if receipt is not None]
    if mined:
        winner, receipt = mined[0]
        _settle(winner, [tx for tx in attempts if tx.pk != winner.pk], say)
        if receipt["status"] != 1:
            _back_to_pending(winner, ChainTxStatus.REVERTED, "reverted", result, say, receipt=receipt)
        else:
            _mined(chain, w3, winner, receipt, result, say)
        return ""
    for tx in attempts:
        if tx.status == ChainTxStatus.MINED:
            _reorganised(tx, "its receipt is gone", result, say)
    nonce = attempts[0].nonce
    if used > nonce:
        for tx in attempts:
            _back_to_pending(tx, ChainTxStatus.DROPPED, f"nonce {nonce} was used by a transaction not signed here", result, say)
        return ""
    newest = attempts[-1]
    waited = timezone.now() - (newest.sent_at or newest.created_at)
    if waited >= settings.ONCHAIN_STUCK_AFTER:
        return f"no receipt {int(waited.total_seconds())} s after its broadcast"
    if not broadcast(w3, newest):
        return "refused for its fees"
    result.rebroadcast += 1
    say(f"nonce {newest.nonce}: {newest.tx_hash} broadcast")
    return ""


def _settle(winner: ChainTransaction, others: list[ChainTransaction], say) -> None:
    """The other attempts of the winner's nonce were not mined and never will be: `replaced`; their rows are the winner's."""
    if not others:
        return
    now = timezone.now()
    for tx in others:
        tx.status, tx.error = ChainTxStatus.REPLACED, f"nonce {tx.nonce} was mined in {winner.tx_hash}"
        tx.save(update_fields=["status", "error", "updated_at"])
    moved = (OnchainStatusUpdate.objects.filter(transaction__in=others)
             .update(transaction=winner, tx_hash=winner.tx_hash, updated_at=now))
    if winner.error:
        winner.error = ""
        winner.save(update_fields=["error", "updated_at"])
    say(f"nonce {winner.nonce}: {winner.tx_hash} mined; {len(others)} other attempts replaced ({moved} rows moved to it)")


def _mined(chain: Chain, w3: Web3, tx: ChainTransaction, receipt, result: PassResult, say) -> None:
    block_hash = receipt["blockHash"].to_0x_hex()
    if tx.status == ChainTxStatus.MINED and tx.block_hash and tx.block_hash != block_hash:  # mined again in another block
        note = f"block {tx.block_number} of {tx.tx_hash} reorganised away; mined again in block {receipt['blockNumber']}"
        tx.error = note
        tx.save(update_fields=["error", "updated_at"])
        rows, now = list(tx.updates.filter(status=OnchainStatus.PUBLISHED)), timezone.now()
        for row in rows:
            row.reason, row.updated_at = with_reason(row.reason, note), now
        OnchainStatusUpdate.objects.bulk_update(rows, ["reason", "updated_at"])
        result.reorganised += len(rows)
        say(f"nonce {tx.nonce}: {note}")
    if tx.status != ChainTxStatus.MINED or tx.block_hash != block_hash:
        tx.status, tx.block_number, tx.block_hash = ChainTxStatus.MINED, receipt["blockNumber"], block_hash
        tx.save(update_fields=["status", "block_number", "block_hash", "updated_at"])
    # The head is read after the receipt: read before it, a block mined in between (a node that
    # mines just after answering the broadcast) made a confirmed transaction look too shallow.
    deep = w3.eth.block_number - receipt["blockNumber"] + 1 >= chain.confirmations
    if deep and _block_hash(w3, receipt["blockNumber"]) == block_hash:
        tx.status = ChainTxStatus.CONFIRMED
        tx.save(update_fields=["status", "updated_at"])
        now = timezone.now()
        count = tx.updates.filter(status=OnchainStatus.PUBLISHED).update(status=OnchainStatus.CONFIRMED, confirmed_at=now, updated_at=now)
        result.confirmed += count
        say(f"nonce {tx.nonce}: {tx.tx_hash} confirmed in block {tx.block_number} ({count} wallets)")


def _block_hash(w3: Web3, number: int) -> str | None:
    try:
        return w3.eth.get_block(number)["hash"].to_0x_hex()
    except BlockNotFound:  # the chain is shorter now
        return None


def _back_to_pending(tx: ChainTransaction, status: str, what: str, result: PassResult, say, *, receipt=None) -> None:
    """The transaction ends `status` (reverted, dropped); its published rows go back to pending with the reason."""
    tx.status, tx.error = status, what
    if receipt is not None:
        tx.block_number, tx.block_hash = receipt["blockNumber"], receipt["blockHash"].to_0x_hex()
    tx.save(update_fields=["status", "block_number", "block_hash", "error", "updated_at"])
    count = 0
    for row in tx.updates.filter(status=OnchainStatus.PUBLISHED):
        row.status, row.published_at, row.tx_hash, row.transaction, row.version = OnchainStatus.PENDING, None, "", None, None
        row.reason = with_reason(row.reason, f"transaction {tx.tx_hash} {what}; to publish again")
        row.save(update_fields=["status", "published_at", "tx_hash", "transaction", "version", "reason", "updated_at"])
        count += 1
    result.reverted += count
    say(f"nonce {tx.nonce}: {tx.tx_hash} {what}; {count} wallets back to pending")


def _reorganised(tx: ChainTransaction, why: str, result: PassResult, say) -> None:
    """The block holding `tx` is no longer the chain's: not (or no longer) confirmed. It goes back to `sent` and its rows
    to `published` with the reason; its stored bytes are broadcast again (same nonce, same versions)."""
    note = f"block {tx.block_number} of {tx.tx_hash} reorganised away ({why}); sent again"
    # sent_at restarts the stuck timer: the bytes are broadcast again now.
    tx.status, tx.block_number, tx.block_hash, tx.sent_at, tx.error = ChainTxStatus.SENT, None, "", timezone.now(), note
    tx.save(update_fields=["status", "block_number", "block_hash", "sent_at", "error", "updated_at"])
    rows, now = list(tx.updates.filter(status__in=[OnchainStatus.PUBLISHED, OnchainStatus.CONFIRMED])), timezone.now()
    for row in rows:
        row.status, row.confirmed_at, row.reason, row.updated_at = OnchainStatus.PUBLISHED, None, with_reason(row.reason, note), now
    OnchainStatusUpdate.objects.bulk_update(rows, ["status", "confirmed_at", "reason", "updated_at"])
    result.reorganised += len(rows)
    say(f"nonce {tx.nonce}: {note} ({len(rows)} wallets)")


def _recheck_confirmed(chain: Chain, w3: Web3, result: PassResult, say) -> None:
    watch = settings.ONCHAIN_REORG_WATCH_BLOCKS
    if watch <= 0:
        return
    head = w3.eth.block_number
    recent = list(ChainTransaction.objects.select_for_update(skip_locked=True)
                  .filter(chain=chain, status=ChainTxStatus.CONFIRMED, block_number__gte=max(0, head - watch)).order_by("nonce"))
    hashes: dict[int, str | None] = {}
    for tx in recent:
        if tx.block_number not in hashes:
            hashes[tx.block_number] = _block_hash(w3, tx.block_number)
        if hashes[tx.block_number] != tx.block_hash:
            _reorganised(tx, "after its confirmation", result, say)
