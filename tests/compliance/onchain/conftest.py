"""A real EVM node for the oracle's tests: anvil from compliance/onchain/node_modules (scripts/npm-deps,
run by `make test`), started once per test module on a free loopback port. The contracts are deployed
from their committed artifacts (compliance/onchain/contracts/build/)."""

import os
import shutil

import pytest

from compliance.onchain.anvil import Anvil, anvil_binary, anvil_installed
from compliance.onchain.contracts import contract_at
from tests.compliance.onchain.publishing import enable_local_chain


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
def client(api, org, key):
    """The API as an l2_investigator of `org` (test mode)."""
    return api(key(org, role="l2_investigator"))


@pytest.fixture
def chain(anvil, monkeypatch):
    """The local chain enabled against the node, with a fresh oracle deployed (a module whose tests go through a
    proxy overrides this with the proxy's URL)."""
    return enable_local_chain(anvil.url, monkeypatch)


@pytest.fixture
def oracle(chain, w3):
    """The chain's deployed ComplianceOracle."""
    return contract_at(w3, "ComplianceOracle", chain.oracle_address)
