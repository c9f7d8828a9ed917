"""A fresh anvil per test (reorganisations change the chain), the local chain row pointing at it, the demo token
(CompliantToken behind a ComplianceOracle that says every test account is compliant), and a forwarder contract whose
calls move ETH internally."""

import pytest
from django.test import override_settings

from compliance.models import Chain
from compliance.onchain.anvil import Anvil
from compliance.onchain.contracts import Status, deploy, pack_status
from tests.compliance.onchain.conftest import require_anvil

YEAR = 365 * 24 * 3600
# Runtime: CALL(gas, calldata[0:32] as the address, callvalue, no input, no output); STOP. Init code returns it.
FORWARDER = "0x600f600c600039600f6000f3" + "6000600060006000346000355af100"


@pytest.fixture
def node():
    require_anvil()
    with Anvil() as anvil:
        yield anvil


@pytest.fixture
def w3(node):
    return node.web3()


@pytest.fixture
def accounts(w3):
    return [address.lower() for address in w3.eth.accounts]


@pytest.fixture(autouse=True)
def quick_rpc():
    """Short time-outs and back-offs: a fault test waits seconds, not minutes."""
    with override_settings(ONCHAIN_RPC_TIMEOUT=2, ONCHAIN_RPC_ATTEMPTS=1, INDEXER_BACKOFF_SECONDS=0.01, INDEXER_RPC_ATTEMPTS=4):
        yield


@pytest.fixture
def chain(db, node):
    row, _ = Chain.objects.update_or_create(chain_id=31337, defaults={"rpc_urls": [node.url], "confirmations": 0, "enabled": True})
    return row


def _token(w3, symbol: str):
    owner, operator = w3.eth.accounts[0], w3.eth.accounts[1]
    oracle = deploy(w3, "ComplianceOracle", owner)
    w3.eth.wait_for_transaction_receipt(oracle.functions.addOperator(operator).transact({"from": owner}))
    now = w3.eth.get_block("latest")["timestamp"]
    word = pack_status(Status(risk_tier=1, flags=0, updated_at=now, expires_at=now + YEAR, version=1))
    accounts = list(w3.eth.accounts)
    w3.eth.wait_for_transaction_receipt(oracle.functions.setStatuses(accounts, [word] * len(accounts)).transact({"from": operator}))
    token = deploy(w3, "CompliantToken", f"Demo {symbol}", symbol, oracle.address, owner)
    for account in accounts:
        w3.eth.wait_for_transaction_receipt(token.functions.mint(account, 10**30).transact({"from": owner}))
    return token


@pytest.fixture
def token(w3):
    """DUSD: 10**12 whole units (18 decimals) minted to every account."""
    return _token(w3, "DUSD")


@pytest.fixture
def unknown_token(w3):
    return _token(w3, "ZZZ")


@pytest.fixture
def forwarder(w3):
    receipt = w3.eth.wait_for_transaction_receipt(w3.eth.send_transaction({"from": w3.eth.accounts[0], "data": FORWARDER}))
    return receipt["contractAddress"]
