"""What the publisher's steps share: the chain's RPC connection (with a timeout and retries), its signer (from the
environment only), the settings, a pass's result, broadcasting stored bytes and the rows' reason notes."""

import os
from dataclasses import dataclass, field

import requests
from django.conf import settings
from django.utils import timezone
from eth_account import Account
from web3 import HTTPProvider, Web3
from web3.providers.rpc.utils import REQUEST_RETRY_ALLOWLIST, ExceptionRetryConfiguration

from compliance.models import Chain, ChainTransaction, ChainTxStatus

UNFINISHED = (ChainTxStatus.SENT, ChainTxStatus.MINED)
# The node has the transaction (or its nonce is used: tracking finds out by which transaction).
HARMLESS_SEND_ERRORS = ("already known", "nonce too low", "known transaction", "already imported")
# The node refuses it for its fees (the base fee rose above its max fee, or the pool holds a pricier one): replace it.
FEE_REFUSALS = ("underpriced", "less than block base fee", "fee cap less than", "max fee per gas less than", "fee too low")
# Errors of a request that may be sent again (identical bytes of a signed transaction are harmless twice).
RETRIED_ERRORS = (requests.ConnectionError, requests.Timeout, ConnectionError, TimeoutError)


class PublisherError(RuntimeError):
    pass


@dataclass
class PassResult:
    chain_id: int
    signed: list[str] = field(default_factory=list)  # hashes of the transactions signed in this pass (new nonces)
    replacements: list[str] = field(default_factory=list)  # hashes of the fee-bumped replacements signed in this pass
    rebroadcast: int = 0
    published: int = 0  # rows put in a transaction
    superseded: int = 0
    confirmed: int = 0  # rows confirmed
    reverted: int = 0  # rows put back to pending (a reverted or dropped transaction)
    reorganised: int = 0  # rows whose block was reorganised away (published again with the same bytes)
    skipped: str = ""  # why nothing was done


def rpc_urls(chain: Chain) -> list[str]:
    """CHAIN_RPC_URL_<chain_id> (comma-separated), read now, else the row's."""
    configured = os.environ.get(f"CHAIN_RPC_URL_{chain.chain_id}", "")
    urls = [url.strip() for url in configured.split(",") if url.strip()]
    return urls or list(chain.rpc_urls or [])


def signer_key(chain_id: int) -> str:
    return os.environ.get(f"CHAIN_SIGNER_KEY_{chain_id}", "").strip()


def signer_account(chain_id: int):
    """The chain's signer (an eth_account LocalAccount), or None when CHAIN_SIGNER_KEY_<chain_id> is unset."""
    key = signer_key(chain_id)
    return Account.from_key(key) if key else None


def signer_address(chain_id: int) -> str:
    """The signer's address (what may be shown), or "" when no key is set or it is not a key."""
    try:
        account = signer_account(chain_id)
    except (ValueError, TypeError):
        return ""
    return account.address if account else ""


def _provider(url: str) -> HTTPProvider:
    """Each request times out after ONCHAIN_RPC_TIMEOUT seconds and is tried ONCHAIN_RPC_ATTEMPTS times when the
    connection fails or times out (eth_sendRawTransaction too: its bytes are the stored ones)."""
    retry = ExceptionRetryConfiguration(errors=RETRIED_ERRORS, retries=max(1, settings.ONCHAIN_RPC_ATTEMPTS), backoff_factor=0.25,
                                        method_allowlist=REQUEST_RETRY_ALLOWLIST)
    return HTTPProvider(url, request_kwargs={"timeout": settings.ONCHAIN_RPC_TIMEOUT}, exception_retry_configuration=retry)


def connect(chain: Chain) -> Web3:
    """A Web3 on the first of the chain's RPC URLs that answers with the chain's id."""
    failures = []
    for url in rpc_urls(chain):
        w3 = Web3(_provider(url))
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


def note_error(chain: Chain, message: str) -> None:
    Chain.objects.filter(pk=chain.pk).update(last_error=message[:2000], updated_at=timezone.now())


def with_reason(reason: str, note: str) -> str:
    """A row's reason with a note of what happened to its publication (the end kept when too long)."""
    return f"{reason} ({note})"[-300:]


def broadcast(w3: Web3, tx: ChainTransaction) -> bool:
    """Sends the stored bytes. False when the node refuses them for their fees (the caller replaces the transaction);
    PublisherError for any other refusal. A transport failure raises once the retries are spent."""
    try:
        w3.eth.send_raw_transaction(tx.raw)
    except RETRIED_ERRORS as error:
        raise PublisherError(f"broadcasting {tx.tx_hash} (nonce {tx.nonce}) failed: {type(error).__name__}: {error}") from error
    except Exception as error:  # noqa: BLE001 - the node's refusals come as several exception types
        text = str(error).lower()
        if any(refusal in text for refusal in FEE_REFUSALS):
            tx.error = f"refused for its fees: {error}"[:2000]
            tx.save(update_fields=["error", "updated_at"])
            return False
        if not any(harmless in text for harmless in HARMLESS_SEND_ERRORS):
            raise PublisherError(f"broadcasting {tx.tx_hash} (nonce {tx.nonce}) failed: {error}") from error
    if tx.sent_at is None:
        tx.sent_at = timezone.now()
        tx.save(update_fields=["sent_at", "updated_at"])
    return True
