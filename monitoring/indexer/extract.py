"""A block range's transfers touching given wallets: ERC-20 Transfer logs, native transfers of the blocks'
transactions, and internal transfers from trace_block.

The idempotency key is (chain_id, tx_hash, log_index), as for the ingestion API. log_index is
- the log's own (block-wide) index for an ERC-20 transfer;
- NATIVE_LOG_INDEX (1,000,000,000) for a transaction's own value;
- INTERNAL_LOG_INDEX (1,500,000,000) + the ordinal of the value-carrying call among the transaction's internal calls
  (trace order) for an internal transfer.
A client that posts the same transfers through the API and wants them stored once uses the same convention."""

from dataclasses import dataclass
from datetime import UTC, datetime

from eth_utils import keccak

from monitoring.indexer.rpc import ChainRpc, IndexerError, Unsupported

TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
# keccak256("TransferCommitment(address,address,uint256,bytes32)"): the demo CompliantToken's transferWithCommitment emits
# it beside its Transfer (from and to indexed as in Transfer, so the same topic filters find both).
COMMITMENT_TOPIC = "0x" + keccak(text="TransferCommitment(address,address,uint256,bytes32)").hex().removeprefix("0x")
NATIVE_LOG_INDEX = 1_000_000_000
INTERNAL_LOG_INDEX = 1_500_000_000


@dataclass(frozen=True)
class Seen:
    """One transfer as read from the chain; `token` is the contract address ("" for the native coin)."""

    block_number: int
    block_hash: str
    timestamp: datetime
    tx_hash: str
    log_index: int
    from_address: str
    to_address: str
    raw_amount: int
    token: str = ""
    commitment: str = ""  # a travel-rule commitment the transaction carries for this transfer (TransferCommitment)


@dataclass(frozen=True)
class Block:
    number: int
    hash: str
    parent_hash: str
    timestamp: datetime


class BranchChanged(IndexerError):
    """The blocks read do not link up (a reorganisation while reading): the run stops and the next one checks the window."""


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:].lower()


def _padded(address: str) -> str:
    return "0x" + address[2:].lower().rjust(64, "0")


def _chunks(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start:start + size]


class RangeReader:
    """Reads [start, end] for `wallets` (lower-case addresses). `parent` is the hash the first block must build on
    (the cursor's last indexed block), or "" when unknown. The logs of blocks from `by_hash_from` on (the unfinalised
    window) are read by block hash, one block a call; older ones by block range."""

    def __init__(self, rpc: ChainRpc, wallets: set[str], *, chunk: int, local_above: int, by_hash_from: int | None = None,
                 traces: bool = True):
        self.rpc, self.wallets, self.chunk, self.local_above = rpc, wallets, max(1, chunk), local_above
        self.by_hash_from = by_hash_from
        self.traces_supported = traces

    def blocks(self, start: int, end: int, parent: str, *, full: bool = True) -> tuple[list[Block], list[dict]]:
        """The blocks (linked to each other and to `parent`) and their bodies (with full transactions when `full`)."""
        headers, bodies = [], []
        for number, body in zip(range(start, end + 1), self.rpc.blocks(list(range(start, end + 1)), full=full), strict=True):
            if body is None:
                raise BranchChanged(f"block {number} is missing (the node's head moved back)")
            if parent and body["parentHash"] != parent:
                raise BranchChanged(f"block {number} does not build on {parent}")
            headers.append(Block(number, body["hash"], body["parentHash"], datetime.fromtimestamp(int(body["timestamp"], 16), tz=UTC)))
            bodies.append(body)
            parent = body["hash"]
        return headers, bodies

    def _topic_sets(self) -> list[list]:
        """The topic filters that cover the wallets: node-side in chunks (as sender, as receiver), or every Transfer
        log (filtered here) above `local_above` wallets."""
        events = [TRANSFER_TOPIC, COMMITMENT_TOPIC]
        if len(self.wallets) > self.local_above:
            return [[events]]
        sets = []
        for chunk in _chunks(sorted(self.wallets), self.chunk):
            padded = [_padded(address) for address in chunk]
            sets += [[events, padded], [events, None, padded]]
        return sets

    def token_logs(self, start: int, end: int, headers: list[Block]) -> list[dict]:
        """Transfer and TransferCommitment logs of the range with a wallet on either side; each log once."""
        if not self.wallets:
            return []
        split = end + 1 if self.by_hash_from is None else max(start, min(end + 1, self.by_hash_from))
        found, by_hash = [], []
        for topics in self._topic_sets():
            if split > start:
                found += self.rpc.logs(start, split - 1, topics)
            by_hash += [(block.hash, topics) for block in headers if block.number >= split]
        found += self.rpc.block_logs(by_hash)
        unique = {}
        for log in found:
            topics = log.get("topics") or []
            shape = (3, TRANSFER_TOPIC) if topics and topics[0] == TRANSFER_TOPIC else (4, COMMITMENT_TOPIC)
            if len(topics) != shape[0] or topics[0] != shape[1] or len(log.get("data") or "") != 66:  # ERC-721: 4 topics, no data
                continue
            if _topic_address(topics[1]) in self.wallets or _topic_address(topics[2]) in self.wallets:
                unique[(log["blockHash"], int(log["logIndex"], 16))] = log
        return list(unique.values())

    def read(self, start: int, end: int, parent: str) -> tuple[list[Block], list[Seen]]:
        """The range's transfers. With trace_block, the transactions' own values come from the traces' top-level calls
        (a failed transaction's top call has an error) and the blocks are read without their transactions (a node
        serialises full transactions slowly: anvil 40 times slower); without it, from the full blocks and the
        receipts."""
        traced = None
        headers, bodies = self.blocks(start, end, parent, full=not self.traces_supported)
        if self.traces_supported:
            traced = self._traces(headers)
            if traced is None:  # the node has no trace_block after all: the full blocks, which must be the same ones
                full_headers, bodies = self.blocks(start, end, parent)
                if [block.hash for block in full_headers] != [block.hash for block in headers]:
                    raise BranchChanged(f"blocks {start}-{end} changed while being read")
        by_hash = {block.hash: block for block in headers}
        seen, logs = [], self.token_logs(start, end, headers)
        commitments = {(log["transactionHash"], log["address"].lower(), _topic_address(log["topics"][1]), _topic_address(log["topics"][2]),
                        int(log["data"], 16)): log["topics"][3].lower() for log in logs if log["topics"][0] == COMMITMENT_TOPIC}
        for log in logs:
            block = by_hash.get(log["blockHash"])
            if block is None:
                raise BranchChanged(f"a log of block {int(log['blockNumber'], 16)} is of another branch ({log['blockHash']})")
            topics = log["topics"]
            if topics[0] != TRANSFER_TOPIC:
                continue
            key = (log["transactionHash"], log["address"].lower(), _topic_address(topics[1]), _topic_address(topics[2]),
                   int(log["data"], 16))
            seen.append(Seen(block.number, block.hash, block.timestamp, log["transactionHash"], int(log["logIndex"], 16),
                             key[2], key[3], key[4], key[1], commitments.get(key, "")))
        if traced is None:
            seen += self._native(headers, bodies)
        else:
            seen += [transfer for block, traces in zip(headers, traced, strict=True) for transfer in self._calls(block, traces)]
        return headers, sorted(seen, key=lambda transfer: (transfer.block_number, transfer.log_index))  # block order

    def _native(self, headers: list[Block], bodies: list[dict]) -> list[Seen]:
        """The transactions' own values to or from a wallet, those that did not fail (their receipts read in batches)."""
        candidates = []
        for block, body in zip(headers, bodies, strict=True):
            for tx in body.get("transactions") or []:
                sender, receiver, value = (tx.get("from") or "").lower(), (tx.get("to") or "").lower(), int(tx.get("value") or "0x0", 16)
                if value and receiver and (sender in self.wallets or receiver in self.wallets):
                    candidates.append((block, tx["hash"], sender, receiver, value))
        receipts = self.rpc.receipts([candidate[1] for candidate in candidates])
        return [Seen(block.number, block.hash, block.timestamp, tx_hash, NATIVE_LOG_INDEX, sender, receiver, value)
                for (block, tx_hash, sender, receiver, value), receipt in zip(candidates, receipts, strict=True)
                if receipt is not None and int(receipt.get("status") or "0x1", 16) == 1]  # a failed transaction moved nothing

    def _traces(self, headers: list[Block]) -> list[list[dict]] | None:
        """trace_block of each block; None when the node has none (then not asked again)."""
        try:
            return self.rpc.traces([block.number for block in headers])
        except Unsupported:
            self.traces_supported = False
            return None

    def _calls(self, block: Block, traces: list[dict]) -> list[Seen]:
        """The value-carrying calls of a block's traces touching a wallet: a transaction's top-level call is its own
        value (NATIVE_LOG_INDEX), the calls below it internal transfers; none in or under a frame that failed."""
        failed: dict[str, list[tuple]] = {}
        for trace in traces:
            if trace.get("error"):
                failed.setdefault(trace.get("transactionHash"), []).append(tuple(trace.get("traceAddress") or ()))
        ordinals: dict[str, int] = {}
        seen = []
        for trace in traces:
            action, path, tx_hash = trace.get("action") or {}, tuple(trace.get("traceAddress") or ()), trace.get("transactionHash")
            if trace.get("type") != "call" or action.get("callType") not in ("call", None):
                continue  # delegate/static calls move nothing; a creation has no receiver to register
            value = int(action.get("value") or "0x0", 16)
            if not value:
                continue
            if path:  # an internal call: its ordinal among the transaction's value-carrying internal calls, failed ones included
                ordinals[tx_hash] = ordinals.get(tx_hash, -1) + 1
            if any(path[:len(bad)] == bad for bad in failed.get(tx_hash, [])):
                continue  # it or a call around it reverted
            sender, receiver = (action.get("from") or "").lower(), (action.get("to") or "").lower()
            if sender in self.wallets or receiver in self.wallets:
                index = INTERNAL_LOG_INDEX + ordinals[tx_hash] if path else NATIVE_LOG_INDEX
                seen.append(Seen(block.number, block.hash, block.timestamp, tx_hash, index, sender, receiver, value))
        return seen
