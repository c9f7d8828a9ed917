"""A real SAML identity provider on loopback for the SAML tests: pysaml2's IdP (saml2.server.Server)
behind http.server in a thread. GET /sso/redirect takes an AuthnRequest (HTTP-Redirect binding),
"authenticates" `idp.user` and answers the HTTP-POST binding's auto-submitting form carrying a
signed Response, as a browser would receive it. `idp.tamper` bends the next answers for the refusal
tests (unsigned, signed by another key, another audience or destination, already expired)."""

import datetime
import html
import re
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from django.conf import settings
from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT, saml
from saml2.authn_context import PASSWORDPROTECTEDTRANSPORT
from saml2.config import IdPConfig
from saml2.metadata import entity_descriptor
from saml2.server import Server
from saml2.xmldsig import DIGEST_SHA1, DIGEST_SHA256, SIG_RSA_SHA1, SIG_RSA_SHA256

FORM_INPUT = re.compile(r'<input[^>]*name="(SAMLResponse|RelayState)"[^>]*value="([^"]*)"')
FORM_ACTION = re.compile(r'<form[^>]*action="([^"]+)"')


def key_and_certificate(directory: Path, name: str) -> tuple[str, str]:
    """A fresh RSA key and self-signed certificate as PEM files (paths: key, cert)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    key_path, cert_path = directory / f"{name}.key", directory / f"{name}.crt"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return str(key_path), str(cert_path)


class SAMLIdentityProvider:
    def __init__(self, directory: Path):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.entity_id = f"{self.base}/idp/metadata"
        self.keys = key_and_certificate(directory, "idp-signing")
        self.other_keys = key_and_certificate(directory, "idp-impostor")
        self.user = "person@acme.example"
        self.attributes: dict[str, list[str]] = {}
        self.tamper: dict = {}
        self.requests: list = []  # the AuthnRequests received
        self.sp_metadata: list[str] = []  # the service providers it knows, as their admins registered them
        self.metadata_xml = entity_descriptor(self._config(self.keys, lifetime_minutes=5)).to_string().decode()
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def _config(self, keys: tuple[str, str], lifetime_minutes: int, *, with_sps: bool = False) -> IdPConfig:
        config = IdPConfig()
        config.load({
            **({"metadata": {"inline": self.sp_metadata}} if with_sps else {}),
            "entityid": self.entity_id,
            "xmlsec_binary": settings.SAML_XMLSEC_BINARY,
            "key_file": keys[0], "cert_file": keys[1],
            "service": {"idp": {
                "endpoints": {"single_sign_on_service": [(f"{self.base}/sso/redirect", BINDING_HTTP_REDIRECT)]},
                "name_id_format": [saml.NAMEID_FORMAT_EMAILADDRESS],
                "policy": {"default": {"lifetime": {"minutes": lifetime_minutes}, "attribute_restrictions": None,
                                       "name_form": "urn:oasis:names:tc:SAML:2.0:attrname-format:uri"}},
            }},
        })
        return config

    def _handler(self):
        idp = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                parts = urlsplit(self.path)
                if parts.path == "/idp/metadata":
                    return self._send(200, idp.metadata_xml, "application/samlmetadata+xml")
                if parts.path != "/sso/redirect":
                    return self._send(404, "not found")
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                try:
                    body = idp.answer(query["SAMLRequest"], query.get("RelayState"))
                except Exception as exc:  # noqa: BLE001 -- the test reads it
                    return self._send(400, f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
                return self._send(200, body, "text/html")

            def _send(self, status, body, content_type="text/plain"):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        return Handler

    def answer(self, saml_request: str, relay_state: str | None) -> str:
        """The auto-POST form for this AuthnRequest, as the IdP sends it to the browser."""
        tamper = self.tamper
        server = Server(config=self._config(self.other_keys if tamper.get("wrong_key") else self.keys,
                                            lifetime_minutes=tamper.get("lifetime_minutes", 5), with_sps=True))
        request = server.parse_authn_request(saml_request, BINDING_HTTP_REDIRECT).message
        self.requests.append(request)
        acs = tamper.get("destination") or request.assertion_consumer_service_url
        signed = not tamper.get("unsigned")
        response = server.create_authn_response(
            identity={"mail": [self.user], **self.attributes},
            in_response_to=tamper.get("in_response_to", request.id), destination=acs,
            sp_entity_id=tamper.get("audience") or request.issuer.text,
            name_id=saml.NameID(format=saml.NAMEID_FORMAT_EMAILADDRESS, text=self.user), userid=self.user,
            authn={"class_ref": PASSWORDPROTECTEDTRANSPORT, "authn_auth": self.base},
            sign_response=signed and bool(tamper.get("response_only")), sign_assertion=signed and not tamper.get("response_only"),
            sign_alg=SIG_RSA_SHA1 if tamper.get("sha1") else SIG_RSA_SHA256,
            digest_alg=DIGEST_SHA1 if tamper.get("sha1") else DIGEST_SHA256,
        )
        return server.apply_binding(BINDING_HTTP_POST, str(response), acs, relay_state, response=True)["data"]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def posted_form(page: str) -> tuple[str, dict]:
    """(action, fields) of the IdP's auto-submitting form."""
    action = html.unescape(FORM_ACTION.search(page).group(1))
    return action, {name: html.unescape(value) for name, value in FORM_INPUT.findall(page)}
