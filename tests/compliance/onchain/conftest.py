"""A real EVM node for the oracle's tests: anvil from compliance/onchain/node_modules (scripts/npm-deps,
run by `make test`), started once per test module on a free loopback port. The contracts are deployed
from their committed artifacts (compliance/onchain/contracts/build/)."""

import os
import shutil

import pytest

from compliance.onchain.anvil import Anvil, anvil_binary, anvil_installed
from compliance.onchain.contracts import deploy


def require_anvil():
    """Skips only where the toolchain cannot be installed (no npm, not in CI); fails where `make test`
    should have installed it."""
    if anvil_installed():
        return
    message = f"anvil is not installed ({anvil_binary()}): run `make test`, or scripts/npm-deps compliance/onchain"
    if os.environ.get("CI") or shutil.which("npm"):
        pytest.fail(message)
    pytest.skip(message + " (node and npm are missing)")


@pytest.fixture(scope="module")
def anvil():
    require_anvil()
    with Anvil() as node:
        yield node


@pytest.fixture(scope="module")
def w3(anvil):
    return anvil.web3()


@pytest.fixture(scope="module")
def accounts(w3):
    """The node's unlocked accounts: 0 owner, 1 operator, 2.. anyone."""
    return w3.eth.accounts


@pytest.fixture
def oracle(w3, accounts):
    """A fresh ComplianceOracle owned by accounts[0], with accounts[1] as its operator."""
    contract = deploy(w3, "ComplianceOracle", accounts[0])
    w3.eth.wait_for_transaction_receipt(contract.functions.addOperator(accounts[1]).transact({"from": accounts[0]}))
    return contract
