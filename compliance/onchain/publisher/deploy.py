"""Deploying the oracle on a chain with its signer (manage.py deploy_oracle)."""

from django.utils import timezone
from web3 import Web3

from compliance.models import Chain
from compliance.onchain.contracts import contract_at
from compliance.onchain.publisher.common import PublisherError, connect, signer_account


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
    Chain.objects.filter(pk=chain.pk).update(oracle_address=address, next_nonce=nonce + 2, nonce_signer=account.address,
                                             updated_at=timezone.now())
    return address
