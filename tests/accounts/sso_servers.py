"""Real servers the SSO tests talk to, on loopback: a DNS server answering TXT records (for domain
verification), and an OpenID Provider (the npm oidc-provider, run by node)."""

import json
import re
import socket
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urljoin

import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset
import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

SERVERS_DIR = Path(__file__).resolve().parent.parent / "servers"


class TxtServer:
    """A DNS server on a loopback UDP port answering TXT questions from `records` (name → values),
    A questions from `addresses` (name → the answers to give in turn, the last one from then on),
    NXDOMAIN for any other name."""

    def __init__(self):
        self.records: dict[str, list[str]] = {}
        self.addresses: dict[str, list[str]] = {}
        self.queries: list[str] = []
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        self.socket.settimeout(0.2)
        while not self._stop.is_set():
            try:
                wire, client = self.socket.recvfrom(4096)
                self.socket.sendto(self._answer(dns.message.from_wire(wire)).to_wire(), client)
            except TimeoutError:
                continue
            except OSError:  # closed by close()
                return

    def _answer(self, query):
        response = dns.message.make_response(query)
        question = query.question[0]
        name = question.name.to_text(omit_final_dot=True).lower()
        self.queries.append(name)
        values = self.records.get(name)
        if question.rdtype == dns.rdatatype.A and name in self.addresses:
            turns = self.addresses[name]
            address = turns.pop(0) if len(turns) > 1 else turns[0]
            response.answer.append(dns.rrset.from_text(question.name, 0, "IN", "A", address))
        elif values is None:
            response.set_rcode(dns.rcode.NXDOMAIN)
        elif question.rdtype == dns.rdatatype.TXT:
            quoted = [json.dumps(value) for value in values]
            response.answer.append(dns.rrset.from_text(question.name, 60, "IN", "TXT", *quoted))
        return response

    def close(self):
        self._stop.set()
        self._thread.join(timeout=2)
        self.socket.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def signing_key() -> tuple[rsa.RSAPrivateKey, dict]:
    """An RSA key and its private JWK, for the provider to sign with (and the tests to forge with)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key))
    return key, {**jwk, "kid": "test-key-1", "use": "sig", "alg": "RS256"}


class OpenIDProvider:
    """node tests/servers/oidc_provider.mjs on a free loopback port, until close()."""

    def __init__(self, tmp: Path, *, clients: list[dict], accounts: dict):
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.key, jwk = signing_key()
        config = {"port": self.port, "clients": clients, "accounts": accounts, "jwks": {"keys": [jwk]}}
        config_path = tmp / "oidc-provider.json"
        config_path.write_text(json.dumps(config))
        self.process = subprocess.Popen(["node", str(SERVERS_DIR / "oidc_provider.mjs"), str(config_path)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self._wait_ready()

    def _wait_ready(self):
        """Until the provider prints "ready" (it may warn first); a provider that exits is an error."""
        seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if line.startswith("ready"):
                return
            if not line and self.process.poll() is not None:
                break
            seen.append(line)
        self.close()
        raise RuntimeError(f"oidc-provider did not start: {''.join(seen)}")

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process.stdout.close()


FORM_ACTION = re.compile(r'<form[^>]*action="([^"]+)"')


def sign_in_at_provider(authorization_url: str, login: str, stop_at: str) -> str:
    """Drive the provider's own login and consent pages as a person would, signing in as `login`;
    return the URL it finally redirects the browser to (the first one starting with `stop_at`)."""
    browser = requests.Session()
    response = browser.get(authorization_url, allow_redirects=False, timeout=10)
    for _ in range(12):
        if response.is_redirect:
            location = urljoin(response.url, response.headers["Location"])
            if location.startswith(stop_at):
                return location
            response = browser.get(location, allow_redirects=False, timeout=10)
            continue
        assert response.status_code == 200, (response.status_code, response.text[:500])
        action = urljoin(response.url, FORM_ACTION.search(response.text).group(1))
        form = {"prompt": "login", "login": login, "password": "any"} if 'name="login"' in response.text else {"prompt": "consent"}
        response = browser.post(action, data=form, allow_redirects=False, timeout=10)
    raise AssertionError("the provider never redirected back")
