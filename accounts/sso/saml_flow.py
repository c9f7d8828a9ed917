"""SAML sign-in: this service as a service provider (SP), one per connection (its entity id is the
connection's metadata URL), through pysaml2 (djangosaml2's engine).

/v1/sso/saml/login sends the browser to the identity provider with an AuthnRequest (HTTP-Redirect
binding, unsigned) whose RelayState is the state of a one-use login attempt; /v1/sso/saml/acs takes
the provider's POSTed Response and accepts it only when it is signed (the Response or the
Assertion) by a key of the connection's IdP metadata and answers that very request
(docs/decisions.md)."""

import requests
from django.conf import settings
from lxml import etree
from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT, saml
from saml2.client import Saml2Client
from saml2.config import SPConfig
from saml2.metadata import entity_descriptor

from accounts import services as account_services
from accounts.models import SSOConnection, SSOLoginAttempt
from accounts.sso import login
from accounts.sso.errors import SSOAccessDenied, SSOAssertionInvalid, SSOProviderUnavailable
from accounts.sso.http import AnswerTooLarge, idp_request
from accounts.sso.saml_metadata import PARSER, idp_entity_id

CLOCK_SKEW_SECONDS = 60
DS = "{http://www.w3.org/2000/09/xmldsig#}"
WEAK_ALGORITHMS = ("sha1", "md5")  # a SHA-1 signature can be forged at a cost well within reach
MAX_METADATA_BYTES = 512 * 1024
EMAIL_ATTRIBUTES = ("mail", "email", "emailAddress", "urn:oid:0.9.2342.19200300.100.1.3",
                    "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress")
FIRST_NAME_ATTRIBUTES = ("givenName", "urn:oid:2.5.4.42", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname")
LAST_NAME_ATTRIBUTES = ("sn", "surname", "urn:oid:2.5.4.4", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname")


def sp_metadata_url(connection: SSOConnection) -> str:
    return f"{settings.PUBLIC_URL}/v1/sso/saml/metadata?connection_id={connection.pk}"


def sp_entity_id(connection: SSOConnection) -> str:
    """The SP's entity id for this connection: its metadata URL. One per connection, so that an
    assertion made for one organization's connection is never accepted for another's."""
    return sp_metadata_url(connection)


def acs_url() -> str:
    return f"{settings.PUBLIC_URL}/v1/sso/saml/acs"


def _sp_config(connection: SSOConnection, idp_metadata_xml: str | None = None) -> SPConfig:
    config = {
        "entityid": sp_entity_id(connection),
        "xmlsec_binary": settings.SAML_XMLSEC_BINARY,
        "accepted_time_diff": CLOCK_SKEW_SECONDS,
        "allow_unknown_attributes": True,
        "service": {"sp": {
            "name": connection.name,
            "endpoints": {"assertion_consumer_service": [(acs_url(), BINDING_HTTP_POST)]},
            "authn_requests_signed": False,
            # Advertised in the metadata, so that IdPs sign assertions; a signed Response enclosing
            # an unsigned assertion is accepted too (checked below: one of the two, always).
            "want_assertions_signed": idp_metadata_xml is None,
            "want_response_signed": False,
            "want_assertions_or_response_signed": True,
            "allow_unsolicited": False,
            "only_use_keys_in_metadata": True,
            "name_id_format": [saml.NAMEID_FORMAT_EMAILADDRESS],
        }},
    }
    if idp_metadata_xml is not None:
        config["metadata"] = {"inline": [idp_metadata_xml]}
    sp_config = SPConfig()
    sp_config.load(config)
    return sp_config


def sp_metadata_xml(connection: SSOConnection) -> str:
    """This SP's metadata for the connection: entity id, ACS (HTTP-POST), NameID format e-mail.
    No certificate: requests are not signed and assertions are not encrypted."""
    return entity_descriptor(_sp_config(connection)).to_string().decode()


def idp_metadata(connection: SSOConnection) -> str:
    """The IdP's metadata as stored, or read from its URL (at each sign-in: keys rotate); its entity
    id must be the connection's."""
    xml = connection.saml_idp_metadata_xml
    if not xml:
        xml = _fetch_metadata(connection.saml_idp_metadata_url)
    try:
        entity_id = idp_entity_id(xml)
    except ValueError as exc:
        raise SSOProviderUnavailable(f"The identity provider's metadata is unusable: {exc}") from None
    if connection.saml_idp_entity_id and entity_id != connection.saml_idp_entity_id:
        raise SSOProviderUnavailable("The identity provider's metadata names another entity id than the connection's.")
    return xml


def _fetch_metadata(url: str) -> str:
    try:
        response = idp_request("GET", url or "", "metadata", max_bytes=MAX_METADATA_BYTES)
        response.raise_for_status()
    except AnswerTooLarge:
        raise SSOProviderUnavailable("The identity provider's metadata is too large.") from None
    except requests.RequestException as exc:
        raise SSOProviderUnavailable(f"The identity provider's metadata could not be read ({type(exc).__name__}).") from None
    return response.content.decode("utf-8", "replace")


def _expected_idp(connection: SSOConnection, xml: str) -> str:
    return connection.saml_idp_entity_id or idp_entity_id(xml)


def saml_login_begin(*, connection: SSOConnection, redirect_url: str, browser_secret: str | None) -> tuple[str, str]:
    """(the IdP's single sign-on URL carrying the AuthnRequest, the browser-binding secret)."""
    xml = idp_metadata(connection)
    client = Saml2Client(_sp_config(connection, xml))
    started = login.login_start(connection=connection, redirect_url=redirect_url, browser_secret=browser_secret)
    try:
        request_id, info = client.prepare_for_authenticate(entityid=_expected_idp(connection, xml), relay_state=started.state,
                                                           binding=BINDING_HTTP_REDIRECT, sign=False)
    except Exception as exc:  # noqa: BLE001 -- pysaml2 raises plain Exception subclasses of many kinds
        raise SSOProviderUnavailable(f"No sign-in request could be made for this identity provider ({_reason(exc)}); "
                                     "it must offer the HTTP-Redirect binding.") from None
    SSOLoginAttempt.objects.filter(pk=started.attempt.pk).update(nonce=request_id)
    return dict(info["headers"])["Location"], started.browser_secret


def saml_login_finish(*, saml_response: str, relay_state: str, browser_secret: str | None,
                      request=None) -> tuple[account_services.IssuedSession, str]:
    """(the session, the redirect_url the sign-in was started with)."""
    attempt = login.attempt_consume(state=relay_state, browser_secret=browser_secret, protocol="saml")
    connection = attempt.connection
    try:
        identity = _identity(connection, attempt, saml_response)
    except (SSOAssertionInvalid, SSOAccessDenied, SSOProviderUnavailable) as exc:
        login.login_refused(connection=connection, reason=exc.message)
        raise
    issued = login.sso_sign_in(connection=connection, identity=identity, request=request)
    return issued, attempt.redirect_url


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def _identity(connection: SSOConnection, attempt: SSOLoginAttempt, saml_response: str) -> login.Identity:
    xml = idp_metadata(connection)
    client = Saml2Client(_sp_config(connection, xml))
    try:
        response = client.parse_authn_request_response(saml_response, BINDING_HTTP_POST,
                                                       outstanding={attempt.nonce: attempt.redirect_url})
    except Exception as exc:  # noqa: BLE001 -- signature, status, time, audience, InResponseTo: each its own class
        raise SSOAssertionInvalid(f"The SAML response was refused ({_reason(exc)}).") from None
    if response is None or response.assertion is None:
        raise SSOAssertionInvalid("The SAML response carries no valid assertion.")
    _check(response, connection, attempt, _expected_idp(connection, xml))
    return _identity_of(response)


def _check(response, connection: SSOConnection, attempt: SSOLoginAttempt, idp: str) -> None:
    """What pysaml2 checks only when present, or not at all, required here."""
    message, assertion = response.response, response.assertion
    if not (message.signature or assertion.signature):
        raise SSOAssertionInvalid("Neither the SAML response nor its assertion is signed.")
    _check_algorithms(response.xmlstr)
    if message.destination != acs_url():
        raise SSOAssertionInvalid("The SAML response is not addressed to this service's ACS (Destination).")
    if message.in_response_to != attempt.nonce:
        raise SSOAssertionInvalid("The SAML response does not answer this sign-in's request (InResponseTo).")
    if response.issuer() != idp or (assertion.issuer is None or assertion.issuer.text.strip() != idp):
        raise SSOAssertionInvalid("The SAML response comes from another issuer than this connection's identity provider.")
    conditions = assertion.conditions
    audiences = {audience.text.strip() for restriction in (conditions.audience_restriction if conditions else [])
                 for audience in restriction.audience or [] if audience.text}
    if sp_entity_id(connection) not in audiences:
        raise SSOAssertionInvalid("The SAML assertion is not restricted to this service (Audience).")
    recipients = {c.subject_confirmation_data.recipient for c in assertion.subject.subject_confirmation or []
                  if c.subject_confirmation_data is not None}
    if acs_url() not in recipients:
        raise SSOAssertionInvalid("The SAML assertion's subject confirmation is not for this service's ACS (Recipient).")


def _check_algorithms(xml) -> None:
    root = etree.fromstring(xml if isinstance(xml, bytes) else xml.encode(), parser=PARSER)
    used = [node.get("Algorithm", "") for node in root.iter(f"{DS}SignatureMethod", f"{DS}DigestMethod")]
    weak = sorted({algorithm for algorithm in used if algorithm.rpartition("#")[2].rpartition("-")[2] in WEAK_ALGORITHMS})
    if weak:
        raise SSOAssertionInvalid(f"The SAML response is signed with a weak algorithm ({', '.join(weak)}): use SHA-256 or better.")


def _first(attributes: dict, names: tuple[str, ...]) -> str:
    for name in names:
        values = attributes.get(name)
        if values:
            return str(values[0])
    return ""


def _identity_of(response) -> login.Identity:
    attributes = response.ava or {}
    name_id = response.name_id
    email = _first(attributes, EMAIL_ATTRIBUTES)
    if not email and name_id is not None and name_id.format == saml.NAMEID_FORMAT_EMAILADDRESS:
        email = name_id.text or ""
    # The organization's own IdP asserts the address; identity_check keeps it to the verified domains.
    return login.Identity(email=email.strip(), email_verified=True, subject=(name_id.text if name_id is not None else "") or email,
                          first_name=_first(attributes, FIRST_NAME_ATTRIBUTES), last_name=_first(attributes, LAST_NAME_ATTRIBUTES))
