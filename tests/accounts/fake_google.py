"""A stand-in for Google's OAuth 2.0 / OpenID Connect endpoints on loopback (Google's servers cannot
be reached from here: the one test double of docs/architecture.md §7). It speaks the real protocol: the
authorization endpoint signs in `google.account` at once and redirects back with a code; the token
endpoint checks the client, the redirect URI and the PKCE verifier, uses each code once, and
answers an ID token signed RS256 with a test key whose public half its JWKS endpoint serves.
`google.tamper` changes the next ID tokens' claims (or signs them with another key)."""

import base64
import hashlib
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt

from tests.accounts.sso_servers import signing_key

CLIENT_ID = "1234-test.apps.googleusercontent.com"
CLIENT_SECRET = "GOCSPX-test-secret"


class FakeGoogle:
    def __init__(self):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.key, self.jwk = signing_key()
        self.other_key, _ = signing_key()
        self.codes: dict[str, dict] = {}
        self.reset()
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def reset(self):
        self.account = {"sub": "1092837465", "email": "someone@gmail.com", "email_verified": True,
                        "given_name": "Some", "family_name": "One"}
        self.tamper: dict = {}
        self.authorization_requests: list[dict] = []
        self.token_requests: list[dict] = []

    def _id_token(self, grant: dict) -> str:
        now = int(time.time())
        claims = {"iss": "https://accounts.google.com", "azp": CLIENT_ID, "aud": CLIENT_ID, "iat": now, "exp": now + 3600,
                  "nonce": grant["nonce"], **self.account, **self.tamper.get("claims", {})}
        claims = {k: v for k, v in claims.items() if v is not None}
        key = self.other_key if self.tamper.get("wrong_key") else self.key
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": self.jwk["kid"]})

    def _authorize(self, query: dict) -> str:
        """The Location Google redirects the browser to."""
        self.authorization_requests.append(query)
        code = secrets.token_urlsafe(24)
        self.codes[code] = {**query, "used": False}
        return f"{query['redirect_uri']}?{urlencode({'state': query['state'], 'code': code, 'scope': query['scope']})}"

    def _token(self, form: dict, authorization: str | None) -> tuple[int, dict]:
        self.token_requests.append(form)
        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        if authorization and authorization.startswith("Basic "):
            client_id, _, client_secret = base64.b64decode(authorization[6:]).decode().partition(":")
        if (client_id, client_secret) != (CLIENT_ID, CLIENT_SECRET):
            return 401, {"error": "invalid_client"}
        grant = self.codes.get(form.get("code", ""))
        if grant is None or grant["used"] or form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "Bad Request"}
        grant["used"] = True
        challenge = base64.urlsafe_b64encode(hashlib.sha256(form.get("code_verifier", "").encode()).digest()).rstrip(b"=").decode()
        if grant.get("code_challenge_method") != "S256" or challenge != grant.get("code_challenge"):
            return 400, {"error": "invalid_grant", "error_description": "Invalid code verifier."}
        return 200, {"access_token": "ya29.test", "expires_in": 3599, "token_type": "Bearer", "scope": grant["scope"],
                     "id_token": self._id_token(grant)}

    def _handler(self):
        google = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                parts = urlsplit(self.path)
                if parts.path == "/o/oauth2/v2/auth":
                    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                    self.send_response(302)
                    self.send_header("Location", google._authorize(query))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif parts.path == "/oauth2/v3/certs":
                    self._json(200, {"keys": [google.jwk_public()]})
                else:
                    self._json(404, {"error": "not_found"})

            def do_POST(self):  # noqa: N802
                if urlsplit(self.path).path != "/token":
                    return self._json(404, {"error": "not_found"})
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                form = {k: v[0] for k, v in parse_qs(body).items()}
                return self._json(*google._token(form, self.headers.get("Authorization")))

            def _json(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        return Handler

    def jwk_public(self) -> dict:
        return {key: value for key, value in self.jwk.items() if key in ("kty", "n", "e", "kid", "use", "alg")}

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
