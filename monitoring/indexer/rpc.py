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


class ChainRpc:
    def __init__(self, w3):
        self.w3 = w3
        self.span = max(1, settings.INDEXER_INITIAL_SPAN)
        self.calls = 0
        self.retries = 0

    def call(self, method: str, params: list, *, range_call: bool = False):
        """The result of one call. A time-out of a range call is RangeTooWide at once (a smaller range is the cure);
        other transport errors and HTTP errors are retried INDEXER_RPC_ATTEMPTS times."""
        attempts = max(1, settings.INDEXER_RPC_ATTEMPTS)
        for attempt in range(attempts):
            self.calls += 1
            try:
                reply = self.w3.provider.make_request(method, params)
            except requests.Timeout as error:
                if range_call:
                    raise RangeTooWide(f"{method} timed out") from error
                failure = error
            except TRANSIENT as error:
                failure = error
            else:
                error = reply.get("error")
                if not error:
                    return reply.get("result")
                text = f"{error.get('code')} {error.get('message')}" if isinstance(error, dict) else str(error)
                if range_call and any(marker in text.lower() for marker in TOO_MANY):
                    raise RangeTooWide(f"{method}: {text}")
                if isinstance(error, dict) and error.get("code") == -32601:
                    raise Unsupported(f"{method}: {text}")
                failure = IndexerError(f"{method}: {text}")
            if attempt + 1 == attempts:
                raise IndexerError(f"{method} failed {attempts} times: {type(failure).__name__}: {failure}") from failure
            self.retries += 1
            delay = settings.INDEXER_BACKOFF_SECONDS * 2 ** attempt
            logger.warning("indexer: %s failed (%s), retrying in about %.1f s", method, failure, delay)
            time.sleep(delay * (0.5 + random.random()))  # noqa: S311 - jitter, not a secret
        raise AssertionError("unreachable")

    def head(self) -> int:
        return int(self.call("eth_blockNumber", []), 16)

    def block(self, number: int, *, full: bool = True) -> dict | None:
        return self.call("eth_getBlockByNumber", [hex(number), full])

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

    def block_logs(self, block_hash: str, topics: list) -> list[dict]:
        """Logs of one block by its hash (a load-balanced node that has not seen a new block answers an empty getLogs
        for its number, but an error for its hash), those marked removed dropped."""
        found = self.call("eth_getLogs", [{"blockHash": block_hash, "topics": topics}])
        return [log for log in found or [] if not log.get("removed")]

    def traces(self, number: int) -> list[dict]:
        return self.call("trace_block", [hex(number)]) or []

    def took(self, seconds: float, blocks: int) -> None:
        """A range call of `blocks` blocks answered in `seconds`: the span grows when that was fast at the full span."""
        if seconds < settings.INDEXER_FAST_SECONDS and blocks >= self.span:
            self.span = min(settings.INDEXER_MAX_SPAN, self.span * 2)

    def narrow(self, blocks: int) -> None:
        self.span = max(1, min(self.span, blocks) // 2)
