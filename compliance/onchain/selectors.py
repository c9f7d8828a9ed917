"""Reads about the chains the oracle is published to (docs/oracle.md, "Watching it"): the rows' counts per
status, the oldest pending row, recent transactions, and short probes of a chain's RPC (reachability, the
signer's balance) for /health and the console. The probes never wait longer than `timeout` seconds in all,
whatever the number of RPC URLs, and never name a URL or the node's answer (RPC URLs may carry an API key)."""

import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, IntegerField, Min, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from web3 import HTTPProvider, Web3

from compliance.models import Chain, ChainTransaction, OnchainStatus, OnchainStatusUpdate
from compliance.onchain.publisher import rpc_urls, signer_address

PROBE_TIMEOUT = 2.0  # seconds, for all of a chain's URLs together
NATIVE_SYMBOLS = {80002: "POL"}  # Polygon Amoy; the others pay gas in ETH
COUNTED = (OnchainStatus.PENDING, OnchainStatus.PUBLISHED, OnchainStatus.CONFIRMED)


def _rows_of_chain(status: str):
    return OnchainStatusUpdate.objects.filter(chain_id=OuterRef("chain_id"), status=status).order_by()


def with_counts(chains):
    """`chains` annotated with `pending`, `published` and `confirmed`: its rows' counts in each status (subqueries
    on the (chain_id, status) index, so a list of chains is one query)."""
    counts = {status: Coalesce(Subquery(_rows_of_chain(status).values("chain_id").annotate(n=Count("id")).values("n")),
                               Value(0), output_field=IntegerField()) for status in COUNTED}
    return chains.annotate(**{f"{status}_count": count for status, count in counts.items()})


def recent_transactions(chain: Chain, *, limit: int = 10) -> list[ChainTransaction]:
    """The chain's latest transactions, newest nonce first, with how many rows each carries."""
    return list(ChainTransaction.objects.filter(chain=chain).annotate(wallets=Count("updates")).order_by("-nonce", "-created_at")[:limit])


def enabled_chains() -> list[Chain]:
    """The enabled chains, each with `oldest_pending_at`: the creation of its oldest pending row (None without one)."""
    oldest = _rows_of_chain(OnchainStatus.PENDING).values("chain_id").annotate(at=Min("created_at")).values("at")
    return list(Chain.objects.filter(enabled=True).annotate(oldest_pending_at=Subquery(oldest)).order_by("chain_id"))


def age_seconds(moment: datetime | None, *, now: datetime | None = None) -> int | None:
    return None if moment is None else max(int(((now or timezone.now()) - moment).total_seconds()), 0)


@dataclass(frozen=True)
class Probe:
    reachable: bool
    latency_ms: float | None = None
    block_number: int | None = None
    problem: str = ""  # why not reachable, without the URL or the node's words

    def as_dict(self) -> dict:
        return {"reachable": self.reachable, "latency_ms": self.latency_ms, "block_number": self.block_number,
                "problem": self.problem or None}


def _web3(url: str, timeout: float) -> Web3:
    # No retries: a probe that fails says so at once (web3's default retries a refused connection 5 times).
    return Web3(HTTPProvider(url, request_kwargs={"timeout": timeout}, exception_retry_configuration=None))


def _first_answering(chain: Chain, timeout: float, ask):
    """(ask(w3), latency ms) on the first of the chain's RPC URLs answering with its chain id within what is left
    of `timeout`; else (None, why). The look-up runs in a thread waited for `timeout` at most: an HTTP timeout
    bounds each connect and each read, not a request, nor the two requests a look-up makes."""
    urls = rpc_urls(chain)
    if not urls:
        return None, "no RPC URL configured"
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(_ask_in_turn, chain, urls, timeout, ask).result(timeout=timeout)
    except FutureTimeout:
        return None, f"no answer within {timeout:g} s"
    finally:
        pool.shutdown(wait=False)  # a look-up still waiting ends on its own HTTP timeout


def _ask_in_turn(chain: Chain, urls: list[str], timeout: float, ask):
    deadline, problems = time.monotonic() + timeout, []
    for index, url in enumerate(urls, 1):
        left = deadline - time.monotonic()
        if left <= 0.05:  # the time ran out: said as the outer wait says it, with what each URL did
            problems.append(f"URL {index}: not tried")
            return None, f"no answer within {timeout:g} s ({'; '.join(problems)})"
        started = time.monotonic()
        try:
            w3 = _web3(url, left)
            answered = w3.eth.chain_id
            if answered != chain.chain_id:
                problems.append(f"URL {index}: answers chain id {answered}")
                continue
            return ask(w3), round((time.monotonic() - started) * 1000, 2)
        except Exception as error:  # noqa: BLE001 - any transport failure: the next URL
            problems.append(f"URL {index}: {type(error).__name__}")
    return None, "; ".join(problems)


def rpc_probe(chain: Chain, *, timeout: float = PROBE_TIMEOUT) -> Probe:
    """Whether one of the chain's RPC URLs answers, with the chain's id, within `timeout` seconds."""
    block, latency_or_why = _first_answering(chain, timeout, lambda w3: w3.eth.block_number)
    if block is None:
        return Probe(False, problem=f"unreachable ({latency_or_why})")
    return Probe(True, latency_ms=latency_or_why, block_number=block)


@dataclass(frozen=True)
class Balance:
    wei: int | None
    symbol: str
    problem: str = ""

    def __str__(self) -> str:
        if self.wei is None:
            return self.problem
        return f"{Web3.from_wei(self.wei, 'ether')} {self.symbol} ({self.wei} wei)"


def signer_balance(chain: Chain, *, timeout: float = PROBE_TIMEOUT) -> Balance:
    """The signer's balance on the chain, read from its RPC within `timeout` seconds, or why not."""
    symbol = NATIVE_SYMBOLS.get(chain.chain_id, "ETH")
    address = signer_address(chain.chain_id)
    if not address:
        return Balance(None, symbol, f"no signer (CHAIN_SIGNER_KEY_{chain.chain_id} not set)")
    wei, why = _first_answering(chain, timeout, lambda w3: w3.eth.get_balance(address))
    if wei is None:
        return Balance(None, symbol, f"unreachable: the RPC did not answer within {timeout:g} s ({why})")
    return Balance(wei, symbol)
