"""The committed artifacts (compliance/onchain/contracts/build/) are what the committed sources compile
to: a source changed without `manage.py compile_contracts` fails here. And the local node starts, mines
on an interval when asked, and stops."""

import io
import os
import shutil
import time

import pytest
from django.core.management import call_command

from compliance.onchain import BUILD_DIR
from compliance.onchain.anvil import Anvil
from compliance.onchain.artifacts import ArtifactMissing, artifact_names, load_artifact
from compliance.onchain.compiler import OPTIMIZER_RUNS, SOLCJS, source_files
from tests.compliance.onchain.conftest import require_anvil


def require_solc():
    if shutil.which("node") and SOLCJS.is_file():
        return
    message = f"compiling needs node and solcjs ({SOLCJS}): run `make test`, or scripts/npm-deps compliance/onchain"
    if os.environ.get("CI") or shutil.which("npm"):
        pytest.fail(message)
    pytest.skip(message)


def test_committed_artifacts_match_a_fresh_compilation(tmp_path):
    require_solc()
    out = io.StringIO()
    call_command("compile_contracts", out=tmp_path, stdout=out, stderr=io.StringIO())
    fresh = sorted(path.name for path in tmp_path.glob("*.json"))
    committed = sorted(path.name for path in BUILD_DIR.glob("*.json"))
    assert fresh == committed, "contracts were added or removed: run `manage.py compile_contracts` and commit build/"
    stale = [name for name in fresh if (tmp_path / name).read_text() != (BUILD_DIR / name).read_text()]
    assert stale == [], f"sources changed without recompiling: run `manage.py compile_contracts` and commit build/ ({stale})"
    assert "wrote" in out.getvalue()


def test_artifacts_record_the_compiler_and_sources():
    assert artifact_names() == ["ComplianceOracle", "ComplianceOracleModule", "CompliantToken", "OracleReader"]
    sources = source_files()
    for name in artifact_names():
        artifact = load_artifact(name)
        assert artifact["compiler"]["version"].startswith("0.8.37+")
        assert artifact["compiler"]["settings"]["optimizer"] == {"enabled": True, "runs": OPTIMIZER_RUNS}
        assert artifact["bytecode"].startswith("0x60") and len(artifact["deployedBytecode"]) > 2
        assert set(artifact["sources"]) <= set(sources) and artifact["sourceName"] in artifact["sources"]
    assert set(load_artifact("ComplianceOracle")["sources"]) == {"ComplianceOracle.sol", "IComplianceOracle.sol"}
    with pytest.raises(ArtifactMissing):
        load_artifact("NoSuchContract")


def test_anvil_mines_on_an_interval_when_asked():
    require_anvil()
    with Anvil(block_time=1) as node:
        assert int(node.rpc("eth_chainId"), 16) == 31337
        deadline = time.monotonic() + 10
        while int(node.rpc("eth_blockNumber"), 16) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert int(node.rpc("eth_blockNumber"), 16) >= 2  # blocks without any transaction
        process = node.process
    assert process.poll() is not None  # stopped
