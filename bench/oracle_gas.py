"""Gas of the compliance oracle (docs/oracle.md, "Gas"), measured on a local anvil node.

    .venv/bin/python bench/oracle_gas.py

Deploys ComplianceOracle and OracleReader from the committed artifacts, then prints:
- setStatuses at batch sizes 1, 10, 100 and 200: gas per wallet (the transaction's gasUsed, its
  21,000 included, divided by the batch size) for first writes (new wallets) and for overwrites (the
  same wallets again with a newer version and other fields);
- a replay of the last batch (every update skipped);
- statusOf as a calling contract pays it (OracleReader), the wallet's slot cold: with the oracle warm in
  the transaction (a second read, or the oracle in the access list) and cold (the transaction's first
  call to the oracle, EIP-2929's 2,600 instead of 100).
Figures are printed; nothing is asserted (tests/compliance/onchain/test_contracts.py holds the goals:
at most 30,000 per wallet at batch 100, at most 5,000 for a read). bench/oracle.py prints the same
figures (print_contract_gas) before the publisher's.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from compliance.onchain.anvil import Anvil  # noqa: E402
from compliance.onchain.contracts import Flag, RiskTier, Status, deploy, pack_status  # noqa: E402
from compliance.onchain.gas import set_statuses_gas, status_of_read_gas, wallets  # noqa: E402

BATCHES = (1, 10, 100, 200)
DAY = 86_400


def words_for(count: int, now: int, version: int, flags: int) -> list[int]:
    return [pack_status(Status(risk_tier=RiskTier.MEDIUM, flags=flags, updated_at=now, expires_at=now + 30 * DAY, version=version))
            for _ in range(count)]


def print_contract_gas(w3) -> None:
    """Deploys the contracts on `w3` (a node with unlocked accounts) and prints the figures of the module's docstring."""
    owner, operator = w3.eth.accounts[:2]
    oracle = deploy(w3, "ComplianceOracle", owner)
    w3.eth.wait_for_transaction_receipt(oracle.functions.addOperator(operator).transact({"from": owner}))
    reader = deploy(w3, "OracleReader", oracle.address)
    now = w3.eth.get_block("latest")["timestamp"]

    print(f"ComplianceOracle at {oracle.address}")
    print("setStatuses, gas per wallet (transaction gasUsed / batch size)")
    print(f"{'batch':>6} {'first writes':>13} {'overwrites':>11} {'replay':>8}")
    for size in BATCHES:
        batch = wallets(size, f"bench-{size}")
        first = set_statuses_gas(oracle, batch, words_for(size, now, 1, Flag.PEP), operator)
        again = words_for(size, now, 2, Flag.PEP | Flag.UNDER_REVIEW)
        overwrite = set_statuses_gas(oracle, batch, again, operator)
        replay = set_statuses_gas(oracle, batch, again, operator)
        print(f"{size:>6} {first / size:>13,.0f} {overwrite / size:>11,.0f} {replay / size:>8,.0f}")

    wallet = wallets(1, "bench-1")[0]
    warm, cold = status_of_read_gas(reader, wallet, warm=True), status_of_read_gas(reader, wallet)
    print("statusOf, gas a calling contract pays (OracleReader; the wallet's slot cold)")
    print(f"  oracle warm in the transaction: {warm:,}")
    print(f"  first call to the oracle:       {cold:,}  (EIP-2929: +2,500)")


def main() -> int:
    with Anvil() as node:
        print(f"anvil {node.url}")
        print_contract_gas(node.web3())
    return 0


if __name__ == "__main__":
    sys.exit(main())
