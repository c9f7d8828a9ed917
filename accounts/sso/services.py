"""SSO connection writes: create, change, delete, and domain verification. Org admins only; every
change is audited without the client secret."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.choices import SSOProtocol
from accounts.models import SSOConnection, SSODomain
from accounts.sso import dns_txt
from accounts.sso.selectors import connection_of
from common import crypto
from common.audit import audit_record
from common.errors import Conflict, ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from common.secrets import random_base62
from organizations.choices import Role

CONNECTION_FIELDS = ("name", "status", "enforce", "default_role")
OIDC_FIELDS = {"issuer": "oidc_issuer", "client_id": "oidc_client_id", "scopes": "oidc_scopes"}
SAML_FIELDS = {"idp_entity_id": "saml_idp_entity_id", "idp_metadata_xml": "saml_idp_metadata_xml",
               "idp_metadata_url": "saml_idp_metadata_url"}


class DomainNotVerified(ValidationFailed):
    code = "DOMAIN_NOT_VERIFIED"


def connection_state(connection: SSOConnection) -> dict:
    """What the audit log keeps of a connection: its settings, never the client secret."""
    state = {field: getattr(connection, field) for field in ("name", "protocol", *CONNECTION_FIELDS[1:])}
    state["domains"] = sorted(d.domain for d in connection.domains.all())
    if connection.protocol == SSOProtocol.OIDC:
        state.update({"oidc_issuer": connection.oidc_issuer, "oidc_client_id": connection.oidc_client_id,
                      "oidc_scopes": connection.oidc_scopes, "oidc_client_secret_last4": connection.oidc_client_secret_last4})
    else:
        state.update({"saml_idp_entity_id": connection.saml_idp_entity_id,
                      "saml_idp_metadata_url": connection.saml_idp_metadata_url,
                      "saml_idp_metadata_xml_length": len(connection.saml_idp_metadata_xml)})
    return state


def _audit(principal: Principal, action: str, connection: SSOConnection, **changes) -> None:
    audit_record(actor=principal, action=action, object_type="sso_connection", object_id=connection.pk,
                 organization=connection.organization, **changes)


def _set_oidc(connection: SSOConnection, oidc: dict) -> None:
    for key, field in OIDC_FIELDS.items():
        if key in oidc:
            setattr(connection, field, " ".join(oidc[key]) if key == "scopes" else oidc[key])
    if "client_secret" in oidc:
        connection.oidc_client_secret_encrypted = crypto.encrypt(oidc["client_secret"])
        connection.oidc_client_secret_last4 = oidc["client_secret"][-4:]


def _set_saml(connection: SSOConnection, saml: dict) -> None:
    for key, field in SAML_FIELDS.items():
        if key in saml:
            setattr(connection, field, saml[key])


def _set_domains(connection: SSOConnection, domains: list[str]) -> None:
    """The connection's domains become `domains`: those kept keep their verification."""
    wanted = list(dict.fromkeys(domains))
    connection.domains.exclude(domain__in=wanted).delete()
    existing = set(connection.domains.values_list("domain", flat=True))
    SSODomain.objects.bulk_create([
        SSODomain(connection=connection, organization_id=connection.organization_id, domain=domain,
                  verification_token=random_base62(32))
        for domain in wanted if domain not in existing
    ])


def _check_protocol_settings(connection: SSOConnection) -> None:
    if connection.default_role == Role.ADMIN:  # signing in must not be a way to become admin
        raise ValidationFailed.for_field("default_role", "Members provisioned by SSO cannot be admins; promote them afterwards.")
    if connection.protocol == SSOProtocol.OIDC:
        missing = [key for key, field in (("issuer", "oidc_issuer"), ("client_id", "oidc_client_id"),
                                          ("client_secret", "oidc_client_secret_encrypted")) if not getattr(connection, field)]
        if missing:
            raise ValidationFailed(details=[{"field": f"oidc.{key}", "message": "This field is required."} for key in missing])
    elif not (connection.saml_idp_metadata_xml or connection.saml_idp_metadata_url):
        raise ValidationFailed.for_field("saml.idp_metadata_xml",
                                         "Give the identity provider's metadata: idp_metadata_xml or idp_metadata_url.")


@transaction.atomic
def sso_connection_create(*, principal: Principal, protocol: str, domains: list[str], name: str = "", enforce: bool = False,
                          default_role: str = Role.VIEWER, status: str = "active", oidc: dict | None = None,
                          saml: dict | None = None) -> SSOConnection:
    require_role(principal, Role.ADMIN)
    connection = SSOConnection(organization=principal.organization, protocol=protocol, enforce=enforce, default_role=default_role,
                               status=status, name=name or f"{SSOProtocol(protocol).label} ({domains[0]})", created_by=principal.user)
    if protocol == SSOProtocol.OIDC:
        connection.oidc_scopes = "openid email profile"
        _set_oidc(connection, oidc or {})
    else:
        _set_saml(connection, saml or {})
    _check_protocol_settings(connection)
    connection.save()
    _set_domains(connection, domains)
    _audit(principal, "sso_connection.created", connection, after=connection_state(connection))
    return connection


@transaction.atomic
def sso_connection_update(*, principal: Principal, connection_id, changes: dict) -> SSOConnection:
    require_role(principal, Role.ADMIN)
    connection = connection_of(principal.organization, connection_id, lock=True)
    before = connection_state(connection)
    for field in CONNECTION_FIELDS:
        if field in changes:
            setattr(connection, field, changes[field])
    for section, setter in (("oidc", _set_oidc), ("saml", _set_saml)):
        if section in changes:
            if section != connection.protocol:
                raise ValidationFailed.for_field(section, f"This is a {connection.protocol} connection; its settings are under "
                                                          f"'{connection.protocol}'.")
            setter(connection, changes[section])
    _check_protocol_settings(connection)
    connection.save()
    if "domains" in changes:
        _set_domains(connection, changes["domains"])
    _audit(principal, "sso_connection.updated", connection, before=before, after=connection_state(connection))
    return connection


@transaction.atomic
def sso_connection_delete(*, principal: Principal, connection_id) -> None:
    require_role(principal, Role.ADMIN)
    connection = connection_of(principal.organization, connection_id, lock=True)
    before = connection_state(connection)
    _audit(principal, "sso_connection.deleted", connection, before=before)
    connection.delete()


def sso_domain_verify(*, principal: Principal, connection_id, domain: str) -> SSODomain:
    """Looks up the domain's TXT record (outside any transaction: DNS may take seconds), then marks
    it verified. Verifying a verified domain again answers it as it is."""
    require_role(principal, Role.ADMIN)
    claim = _domain_claim(principal, connection_id, domain)
    if claim.is_verified:
        return claim
    _refuse_if_claimed_elsewhere(claim)
    name, expected = dns_txt.record_name(claim.domain), dns_txt.record_value(claim.verification_token)
    try:
        found = dns_txt.txt_values(name)
    except dns_txt.LookupFailed as exc:
        raise DomainNotVerified.for_field("domain", f"The DNS look-up of {name} failed ({exc}); try again later.") from None
    if expected not in found:
        raise DomainNotVerified.for_field("domain", f"No TXT record {expected!r} at {name} yet"
                                                    f"{f' (found {len(found)} other)' if found else ''}. Publish it and try again.")
    return _mark_verified(principal, claim)


def _domain_claim(principal: Principal, connection_id, domain: str) -> SSODomain:
    connection = connection_of(principal.organization, connection_id)
    claim = connection.domains.filter(domain=domain).first()
    if claim is None:
        raise ValidationFailed.for_field("domain", f"{domain} is not one of this connection's domains: add it first.")
    return claim


def _refuse_if_claimed_elsewhere(claim: SSODomain) -> None:
    if SSODomain.objects.filter(domain=claim.domain, verified_at__isnull=False).exclude(pk=claim.pk).exists():
        raise Conflict(f"{claim.domain} is already verified by another SSO connection; a domain signs in through one connection.")


@transaction.atomic
def _mark_verified(principal: Principal, claim: SSODomain) -> SSODomain:
    try:
        with transaction.atomic():
            updated = SSODomain.objects.filter(pk=claim.pk, verified_at__isnull=True).update(verified_at=timezone.now())
    except IntegrityError:  # another connection verified it between the check and now
        raise Conflict(f"{claim.domain} is already verified by another SSO connection.") from None
    claim.refresh_from_db()
    if updated:
        audit_record(actor=principal, action="sso_domain.verified", object_type="sso_connection", object_id=claim.connection_id,
                     organization=claim.organization, after={"domain": claim.domain})
    return claim
