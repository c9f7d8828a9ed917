"""A local EVM node for tests and benchmarks: anvil (the npm package @foundry-rs/anvil, pinned in
package-lock.json; its binary ships in the platform package @foundry-rs/anvil-<os>-<arch>).

    with Anvil() as node:          # a free loopback port, chain id 31337, a block per transaction
        w3 = node.web3()

`block_time` (seconds) mines on an interval instead. The node's ten funded accounts are unlocked
(anvil's default mnemonic), so a test sends transactions from `w3.eth.accounts[i]` without keys.
"""

import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from compliance.onchain import NODE_MODULES

CHAIN_ID = 31337
_ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
_OS = {"linux": "linux", "darwin": "darwin", "win32": "win32"}


class AnvilError(RuntimeError):
    pass


def anvil_binary() -> Path:
    """The anvil binary installed under node_modules for this platform ($ANVIL_BINARY overrides it)."""
    if os.environ.get("ANVIL_BINARY"):
        return Path(os.environ["ANVIL_BINARY"])
    os_name, arch = _OS.get(sys.platform), _ARCH.get(platform.machine().lower())
    name = "anvil.exe" if sys.platform == "win32" else "anvil"
    return NODE_MODULES / "@foundry-rs" / f"anvil-{os_name}-{arch}" / "bin" / name


def anvil_installed() -> bool:
    path = anvil_binary()
    return path.is_file() and os.access(path, os.X_OK)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rpc(url: str, method: str, params: list | None = None, timeout: float = 10):
    """One JSON-RPC call; returns its result or raises AnvilError with the node's error."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        reply = json.loads(answer.read())
    if "error" in reply:
        raise AnvilError(f"{method}: {reply['error']}")
    return reply["result"]


class Anvil:
    """An anvil process on 127.0.0.1; start() waits until it answers eth_chainId, stop() ends it."""

    def __init__(self, *, block_time: float | None = None, chain_id: int = CHAIN_ID, start_timeout: float = 30,
                 extra_args: list[str] | None = None):
        self.block_time, self.chain_id, self.start_timeout = block_time, chain_id, start_timeout
        self.extra_args = extra_args or []
        self.process: subprocess.Popen | None = None
        self.port: int | None = None
        self._log = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "Anvil":
        binary = anvil_binary()
        if not binary.is_file():
            raise AnvilError(f"anvil is not installed ({binary}): run scripts/npm-deps (make test does)")
        failure = ""
        for _attempt in range(3):  # another process may take the free port between the probe and anvil's bind
            if self._launch(binary):
                return self
            failure = self._log_tail()
            self.stop()
        raise AnvilError(f"anvil did not start: {failure}")

    def _launch(self, binary: Path) -> bool:
        self.port = _free_port()
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop()) anvil's output, for the error when it does not start
        args = [str(binary), "--host", "127.0.0.1", "--port", str(self.port), "--chain-id", str(self.chain_id)]
        if self.block_time is not None:
            args += ["--block-time", str(self.block_time)]
        self.process = subprocess.Popen(args + self.extra_args, stdin=subprocess.DEVNULL, stdout=self._log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                if int(rpc(self.url, "eth_chainId", timeout=2), 16) == self.chain_id:
                    return True
            except (OSError, urllib.error.URLError, ValueError):
                pass
            time.sleep(0.05)
        failure = self._log_tail()
        self.stop()
        raise AnvilError(f"anvil did not answer eth_chainId within {self.start_timeout} s: {failure}")

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-2000:]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> "Anvil":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def rpc(self, method: str, params: list | None = None):
        return rpc(self.url, method, params)

    def web3(self):
        from web3 import HTTPProvider, Web3

        return Web3(HTTPProvider(self.url, request_kwargs={"timeout": 60}))

    def increase_time(self, seconds: int) -> None:
        """Moves the chain's clock forward and mines a block with the new time."""
        self.rpc("evm_increaseTime", [seconds])
        self.rpc("evm_mine")
