"""Gas measurements of the oracle on a real node (tests/compliance/onchain, bench/oracle_gas.py).

- `set_statuses_gas`: gasUsed of one setStatuses transaction (the 21,000 of the transaction included).
- `status_of_read_gas`: what one statusOf call costs a calling contract: eth_estimateGas of
  OracleReader.readStatus(wallet) minus that of OracleReader.baseline(wallet), which takes and answers
  the same types without calling the oracle. `warm=True` names the oracle in the transaction's access
  list (EIP-2930) for both, as when the transaction has already called the oracle once: the call then
  costs 100 gas instead of the 2,600 of a first call to a contract (EIP-2929). The wallet's storage
  slot is cold either way (2,100).
"""

from eth_utils import keccak
from web3 import Web3


def wallets(count: int, seed: str = "wallet") -> list[str]:
    """`count` distinct checksummed addresses, the same for the same seed."""
    return [Web3.to_checksum_address(keccak(text=f"{seed}:{i}")[:20]) for i in range(count)]


def set_statuses_gas(oracle, wallet_list: list[str], words: list[int], sender: str) -> int:
    """Sends setStatuses(wallet_list, words) from `sender`, waits for it and returns its gasUsed."""
    tx_hash = oracle.functions.setStatuses(wallet_list, words).transact({"from": sender})
    receipt = oracle.w3.eth.wait_for_transaction_receipt(tx_hash)
    if receipt["status"] != 1:
        raise RuntimeError(f"setStatuses failed: {receipt}")
    return receipt["gasUsed"]


def status_of_read_gas(reader, wallet: str, *, warm: bool = False) -> int:
    params = {}
    if warm:
        params["accessList"] = [{"address": reader.functions.oracle().call(), "storageKeys": []}]
    return reader.functions.readStatus(wallet).estimate_gas(params) - reader.functions.baseline(wallet).estimate_gas(params)
