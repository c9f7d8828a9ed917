"""scripts/npm-deps as `make run` calls it (NPM_DEPS_OPTIONAL=1): without node and npm, or with the registry
unreachable, one line says so and it exits 0, so the server still starts; installed already, it says nothing.
Each case runs a copy of the script in a temporary project, so the real node_modules are never touched."""

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDER = "compliance/onchain"


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "npm-deps", tmp_path / "scripts" / "npm-deps")
    (tmp_path / FOLDER).mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(ROOT / FOLDER / name, tmp_path / FOLDER / name)
    return tmp_path


def run(project: Path, path: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(project / "scripts" / "npm-deps"), FOLDER], capture_output=True, text=True, timeout=120,
                          env={"PATH": path, "HOME": str(project), "NPM_DEPS_OPTIONAL": "1", **env})


def test_without_node_and_npm(project, tmp_path_factory):
    bin_dir = tmp_path_factory.mktemp("bin")
    for tool in ("bash", "dirname", "id", "env", "grep", "timeout", "printf"):
        if found := shutil.which(tool):
            os.symlink(found, bin_dir / tool)
    result = run(project, str(bin_dir))
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.splitlines() == [
        f"npm packages ({FOLDER}) not installed: node and npm are missing (install them, then scripts/npm-deps {FOLDER})"]


def test_offline(project):
    if not shutil.which("npm"):
        pytest.skip("npm is not installed")
    with socket.socket() as probe:  # a port nothing listens on: the registry refuses at once
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run(project, os.environ["PATH"], npm_config_registry=f"http://127.0.0.1:{port}/",
                 npm_config_cache=str(project / "npm-cache"))
    assert result.returncode == 0
    [line] = result.stdout.splitlines()
    assert line.startswith(f"Installing npm packages ({FOLDER})... not installed: npm ci failed or timed out")
    assert line.endswith(f"run scripts/npm-deps {FOLDER} when online")


def test_installed_already_is_silent(project):
    stamp = project / FOLDER / "node_modules" / ".package-lock.json"
    stamp.parent.mkdir()
    stamp.write_text("{}")
    os.utime(project / FOLDER / "package-lock.json", (1, 1))  # the lock older than the install
    result = run(project, os.environ["PATH"])
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
