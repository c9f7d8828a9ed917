"""JSON-RPC for the indexer, on the publisher's connection (compliance.onchain.publisher.common.connect: the chain's
URLs, a timeout per request): each call retried with backoff and jitter, and the block span of a range adapted to the
node (halved on "too many results" or a time-out, doubled after a fast call)."""

import logging
import random
import time

import requests
from django.conf import settings

logger = logging.getLogger(__name__)

# What nodes answer for a getLogs range with too many results (Infura -32005, Alchemy, QuickNode, geth, erigon).
TOO_MANY = ("-32005", "too many results", "query returned more than", "response size exceeded", "limit exceeded",
            "block range", "range is too large", "exceed maximum block range")
TRANSIENT = (requests.ConnectionError, requests.Timeout, requests.HTTPError, ConnectionError, TimeoutError)


class IndexerError(RuntimeError):
    pass


class RangeTooWide(IndexerError):
    """The node refused the range (too many results) or did not answer in time: try half of it."""


class Unsupported(IndexerError):
    """The node does not have the method (trace_block on most public nodes)."""


class _ReplyError(Exception):
    """A JSON-RPC error answer."""

    def __init__(self, method: str, error):
        self.method, self.code = method, error.get("code") if isinstance(error, dict) else None
        self.text = f"{error.get('code')} {error.get('message')}" if isinstance(error, dict) else str(error)
        super().__init__(f"{method}: {self.text}")


class _NoBatches(Exception):
    """The node answered a batch with a single error: it takes no batches."""


def _result(method: str, reply: dict):
    error = reply.get("error")
    if error:
        raise _ReplyError(method, error)
    return reply.get("result")


class ChainRpc:
    def __init__(self, w3):
        self.w3 = w3
        self.span = max(1, settings.INDEXER_INITIAL_SPAN)
        self.calls = 0
        self.retries = 0
        self.batching = True

    def call(self, method: str, params: list, *, range_call: bool = False):
        """The result of one call. A time-out of a range call is RangeTooWide at once (a smaller range is the cure);
        other transport errors and HTTP errors are retried INDEXER_RPC_ATTEMPTS times."""
        return self._retried(method, lambda: _result(method, self.w3.provider.make_request(method, params)), range_call=range_call)

    def batch(self, calls: list[tuple[str, list]]) -> list:
        """The results of `calls`, in order, sent as JSON-RPC batches of INDEXER_RPC_BATCH calls (a batch is retried as a
        call is, whole). A node that answers a batch with one error (no batches) gets the calls one by one from then on."""
        size, results = max(1, settings.INDEXER_RPC_BATCH), []
        for start in range(0, len(calls), size):
            chunk = calls[start:start + size]
            if not self.batching or len(chunk) == 1:
                results += [self.call(method, params) for method, params in chunk]
                continue
            try:
                results += self._retried(f"a batch of {len(chunk)} {chunk[0][0]}", lambda chunk=chunk: self._send_batch(chunk))
            except _NoBatches:
                self.batching = False
                results += [self.call(method, params) for method, params in chunk]
        return results

    def _send_batch(self, chunk: list[tuple[str, list]]) -> list:
        replies = self.w3.provider.make_batch_request(chunk)
        if isinstance(replies, dict):
            raise _NoBatches(str(replies.get("error")))
        if len(replies) != len(chunk):
            raise IndexerError(f"a batch of {len(chunk)} calls got {len(replies)} answers")
        return [_result(method, reply) for (method, _), reply in zip(chunk, replies, strict=True)]

    def _retried(self, label: str, send, *, range_call: bool = False):
        attempts = max(1, settings.INDEXER_RPC_ATTEMPTS)
        for attempt in range(attempts):
            self.calls += 1
            try:
                return send()
            except requests.Timeout as error:
                if range_call:
                    raise RangeTooWide(f"{label} timed out") from error
                failure = error
            except TRANSIENT as error:
                failure = error
            except _ReplyError as error:
                if range_call and any(marker in error.text.lower() for marker in TOO_MANY):
                    raise RangeTooWide(f"{error.method}: {error.text}") from error
                if error.code == -32601:
                    raise Unsupported(f"{error.method}: {error.text}") from error
                failure = IndexerError(f"{error.method}: {error.text}")
            if attempt + 1 == attempts:
                raise IndexerError(f"{label} failed {attempts} times: {type(failure).__name__}: {failure}") from failure
            self.retries += 1
            delay = settings.INDEXER_BACKOFF_SECONDS * 2 ** attempt
            logger.warning("indexer: %s failed (%s), retrying in about %.1f s", label, failure, delay)
            time.sleep(delay * (0.5 + random.random()))  # noqa: S311 - jitter, not a secret
        raise AssertionError("unreachable")

    def head(self) -> int:
        return int(self.call("eth_blockNumber", []), 16)

    def block(self, number: int, *, full: bool = True) -> dict | None:
        return self.call("eth_getBlockByNumber", [hex(number), full])

    def blocks(self, numbers: list[int], *, full: bool = True) -> list[dict | None]:
        """Blocks (with full transactions when `full`), batched."""
        return self.batch([("eth_getBlockByNumber", [hex(number), full]) for number in numbers])

    def receipts(self, tx_hashes: list[str]) -> list[dict | None]:
        return self.batch([("eth_getTransactionReceipt", [tx_hash]) for tx_hash in tx_hashes])

    def block_hash(self, number: int) -> str | None:
        block = self.block(number, full=False)
        return block["hash"] if block else None

    def receipt(self, tx_hash: str) -> dict | None:
        return self.call("eth_getTransactionReceipt", [tx_hash])

    def logs(self, start: int, end: int, topics: list) -> list[dict]:
        """Logs of [start, end] matching `topics`, those marked removed dropped; RangeTooWide when refused."""
        began = time.monotonic()
        found = self.call("eth_getLogs", [{"fromBlock": hex(start), "toBlock": hex(end), "topics": topics}], range_call=True)
        self.took(time.monotonic() - began, end - start + 1)
        return [log for log in found or [] if not log.get("removed")]

    def block_logs(self, queries: list[tuple[str, list]]) -> list[dict]:
        """Logs of single blocks by their hashes, for (block hash, topics) queries, batched (a load-balanced node that has
        not seen a new block answers an empty getLogs for its number, but an error for its hash); those marked removed
        dropped."""
        answers = self.batch([("eth_getLogs", [{"blockHash": block_hash, "topics": topics}]) for block_hash, topics in queries])
        return [log for found in answers for log in found or [] if not log.get("removed")]

    def traces(self, numbers: list[int]) -> list[list[dict]]:
        """trace_block of each block, batched; Unsupported when the node has no trace_block."""
        return [found or [] for found in self.batch([("trace_block", [hex(number)]) for number in numbers])]

    def took(self, seconds: float, blocks: int) -> None:
        """A range call of `blocks` blocks answered in `seconds`: the span grows when that was fast at the full span."""
        if seconds < settings.INDEXER_FAST_SECONDS and blocks >= self.span:
            self.span = min(settings.INDEXER_MAX_SPAN, self.span * 2)

    def narrow(self, blocks: int) -> None:
        self.span = max(1, min(self.span, blocks) // 2)
