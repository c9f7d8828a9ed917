"""The on-chain compliance oracle's toolchain and contracts (docs/oracle.md).

One job per module: `compiler` (solcjs over contracts/ into contracts/build/), `artifacts` (read the
build), `anvil` (a local EVM node for tests and benchmarks), `contracts` (deploy with web3.py; the
status word packed and unpacked as the contract lays it out). The npm packages (anvil, solc) are pinned
by package-lock.json here and installed by scripts/npm-deps.
"""

from pathlib import Path

ONCHAIN_DIR = Path(__file__).resolve().parent
NODE_MODULES = ONCHAIN_DIR / "node_modules"
CONTRACTS_DIR = ONCHAIN_DIR / "contracts"
BUILD_DIR = CONTRACTS_DIR / "build"
