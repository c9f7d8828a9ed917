"""Compiles the Solidity sources of contracts/ with solcjs (the npm package `solc`, pinned in
package-lock.json) in standard-JSON mode, and writes one artifact per contract into a build folder.

Settings: the optimizer is on with 10,000 runs (the oracle is read and written far more often than it
is deployed: runtime gas counts, deployment size much less), EVM version Cancun (runs on any chain at
Cancun or later). An artifact holds the ABI, the creation and deployed bytecode, the compiler version
and settings, and the keccak256 of every source the contract was built from (from solc's metadata).
Artifacts are committed; tests/compliance/onchain/test_build.py fails when they differ from a fresh
compilation.
"""

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from compliance.onchain import BUILD_DIR, CONTRACTS_DIR, NODE_MODULES

SOLCJS = NODE_MODULES / "solc" / "solc.js"
OPTIMIZER_RUNS = 10_000
EVM_VERSION = "cancun"
SETTINGS = {"optimizer": {"enabled": True, "runs": OPTIMIZER_RUNS}, "evmVersion": EVM_VERSION}


class CompileError(Exception):
    pass


def source_files(contracts_dir: Path = CONTRACTS_DIR) -> dict[str, str]:
    """Every .sol file under contracts_dir (but build/), by its path relative to it, in order."""
    paths = sorted(p for p in contracts_dir.rglob("*.sol") if BUILD_DIR.name not in p.relative_to(contracts_dir).parts)
    return {path.relative_to(contracts_dir).as_posix(): path.read_text(encoding="utf-8") for path in paths}


def standard_json_input(sources: dict[str, str]) -> dict:
    selection = {"*": {"*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object", "metadata"]}}
    return {"language": "Solidity", "sources": {name: {"content": text} for name, text in sources.items()},
            "settings": {**SETTINGS, "outputSelection": selection}}


def run_solcjs(compiler_input: dict) -> dict:
    node = shutil.which("node")
    if node is None:
        raise CompileError("node is not installed: compiling needs node and the npm package solc (make test installs both)")
    if not SOLCJS.is_file():
        raise CompileError(f"solcjs is not installed ({SOLCJS}): run scripts/npm-deps (make test does)")
    # Output goes to a file, not a pipe: solcjs exits before node has flushed a large answer into a pipe.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as answer:
        done = subprocess.run([node, str(SOLCJS), "--standard-json"], input=json.dumps(compiler_input), stdout=answer,
                              stderr=subprocess.PIPE, text=True, timeout=600)
        answer.seek(0)
        text = answer.read()
    start = text.find("{")  # solcjs may print a notice line before the JSON
    if done.returncode != 0 or start < 0:
        raise CompileError(f"solcjs failed ({done.returncode}): {done.stderr.strip() or text.strip()}")
    return json.loads(text[start:])


def compile_contracts(contracts_dir: Path = CONTRACTS_DIR) -> tuple[dict[str, dict], list[str]]:
    """Compiles every source; returns the artifacts by contract name (contracts with bytecode only, so
    no interfaces) and solc's warnings. Raises CompileError on any error."""
    output = run_solcjs(standard_json_input(source_files(contracts_dir)))
    messages = output.get("errors", [])
    errors = [m["formattedMessage"] for m in messages if m["severity"] == "error"]
    if errors:
        raise CompileError("\n".join(errors))
    warnings = [m["formattedMessage"] for m in messages if m["severity"] != "error"]
    artifacts = {}
    for source_name, contracts in output["contracts"].items():
        for name, built in contracts.items():
            if not built["evm"]["bytecode"]["object"]:
                continue  # an interface or abstract contract
            if name in artifacts:
                raise CompileError(f"two contracts are named {name}: artifacts are named by contract")
            metadata = json.loads(built["metadata"])
            artifacts[name] = {
                "contractName": name,
                "sourceName": source_name,
                "abi": built["abi"],
                "bytecode": "0x" + built["evm"]["bytecode"]["object"],
                "deployedBytecode": "0x" + built["evm"]["deployedBytecode"]["object"],
                "compiler": {"name": "solc", "version": metadata["compiler"]["version"], "settings": SETTINGS},
                "sources": {source: {"keccak256": info["keccak256"]} for source, info in sorted(metadata["sources"].items())},
            }
    return artifacts, warnings


def artifact_text(artifact: dict) -> str:
    return json.dumps(artifact, indent=2, sort_keys=True) + "\n"


def write_artifacts(artifacts: dict[str, dict], build_dir: Path = BUILD_DIR) -> list[Path]:
    """Writes <Contract>.json for each artifact and removes the artifacts of contracts that are gone."""
    build_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, artifact in sorted(artifacts.items()):
        path = build_dir / f"{name}.json"
        path.write_text(artifact_text(artifact), encoding="utf-8")
        written.append(path)
    for path in build_dir.glob("*.json"):
        if path.stem not in artifacts:
            path.unlink()
    return written
