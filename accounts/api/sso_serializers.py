"""Request and response shapes of /v1/sso. Validation of form here; rules (who may, which domain
is whose) in accounts.sso.services."""

import re

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from accounts.choices import SSOConnectionStatus, SSOProtocol
from accounts.models import SSOConnection, SSODomain
from accounts.sso import dns_txt
from accounts.sso.urls import idp_url_problem, safe_redirect
from common.api.fields import ChoiceField, MultiLineTextField, StrictBooleanField
from common.api.serializers import StrictSerializer
from organizations.choices import Role

LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
JIT_ROLES = [Role.VIEWER, Role.L1_ANALYST, Role.L2_INVESTIGATOR, Role.L3_OFFICER]  # never admin by just signing in
MAX_DOMAINS = 20
MAX_METADATA_BYTES = 512 * 1024


class DomainField(serializers.CharField):
    """An e-mail domain, lower-cased, IDNA-encoded, at least two labels ("acme.example")."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 253)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data).strip().lower().rstrip(".")
        try:
            value = value.encode("idna").decode("ascii")
        except UnicodeError:
            raise serializers.ValidationError(f"{value!r} is not a valid domain name.") from None
        labels = value.split(".")
        if len(labels) < 2 or len(value) > 253 or not all(LABEL.match(label) for label in labels) or labels[-1].isdigit():
            raise serializers.ValidationError(f"{value!r} is not a valid e-mail domain (like acme.example).")
        return value


class IdPURLField(serializers.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 500)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data).strip()
        problem = idp_url_problem(value)
        if problem:
            raise serializers.ValidationError(problem)
        return value


class ScopesField(serializers.ListField):
    child = serializers.RegexField(r"^[\x21\x23-\x5b\x5d-\x7e]{1,100}$", error_messages={"invalid": "A scope is one word."})

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 20)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        scopes = list(dict.fromkeys(super().to_internal_value(data)))
        if "openid" not in scopes:
            raise serializers.ValidationError('The scopes must include "openid".')
        if "email" not in scopes:
            raise serializers.ValidationError('The scopes must include "email": sign-in is by e-mail address.')
        return scopes


class OIDCSettings(StrictSerializer):
    issuer = IdPURLField(help_text="The provider's issuer URL; its discovery document is at {issuer}/.well-known/openid-configuration.")
    client_id = serializers.CharField(max_length=255)
    client_secret = serializers.CharField(max_length=500, write_only=True, trim_whitespace=False,
                                          help_text="Stored encrypted; never answered (only its last four characters).")
    scopes = ScopesField(required=False, help_text='Default ["openid", "email", "profile"].')


class OIDCSettingsUpdate(OIDCSettings):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False


def _metadata_problem(xml: str) -> str | None:
    from accounts.sso.saml_metadata import idp_entity_id

    try:
        idp_entity_id(xml)
    except ValueError as exc:
        return str(exc)
    return None


class SAMLSettings(StrictSerializer):
    idp_metadata_xml = MultiLineTextField(
        required=False, max_length=MAX_METADATA_BYTES, trim_whitespace=False,
                                          help_text="The identity provider's SAML metadata (EntityDescriptor with IDPSSODescriptor).")
    idp_metadata_url = IdPURLField(required=False, help_text="Where to read the metadata instead, at each sign-in.")
    idp_entity_id = serializers.CharField(required=False, max_length=500,
                                          help_text="The provider's entity id; read from the metadata when omitted.")

    def validate_idp_metadata_xml(self, value):
        problem = _metadata_problem(value)
        if problem:
            raise serializers.ValidationError(problem)
        return value

    def validate(self, attrs):
        if "idp_metadata_xml" in attrs and "idp_metadata_url" in attrs:
            raise serializers.ValidationError({"idp_metadata_url": "Give the metadata or its URL, not both."})
        if attrs.get("idp_metadata_xml") and not attrs.get("idp_entity_id"):
            from accounts.sso.saml_metadata import idp_entity_id

            attrs["idp_entity_id"] = idp_entity_id(attrs["idp_metadata_xml"])
        elif attrs.get("idp_metadata_xml"):
            from accounts.sso.saml_metadata import idp_entity_id

            if idp_entity_id(attrs["idp_metadata_xml"]) != attrs["idp_entity_id"]:
                raise serializers.ValidationError({"idp_entity_id": "This is not the entity id the metadata names."})
        return attrs


class _ConnectionFields(StrictSerializer):
    name = serializers.CharField(max_length=100, required=False)
    domains = serializers.ListField(child=DomainField(), min_length=1, max_length=MAX_DOMAINS,
                                    help_text="E-mail domains this connection signs in; each must be verified (verify-domain).")
    enforce = StrictBooleanField(required=False, default=False,
                                 help_text="Members with an address in a verified domain must sign in through SSO.")
    default_role = ChoiceField(choices=JIT_ROLES, required=False, default=Role.VIEWER,
                               help_text="Role of a member created on first sign-in.")
    status = ChoiceField(choices=SSOConnectionStatus.choices, required=False, default=SSOConnectionStatus.ACTIVE)
    oidc = OIDCSettings(required=False)
    saml = SAMLSettings(required=False)

    def validate_domains(self, domains):
        if len(set(domains)) != len(domains):
            raise serializers.ValidationError("A domain is listed twice.")
        return domains


class SSOConnectionCreate(_ConnectionFields):
    request_component_name = "SSOConnectionCreate"  # the published component name (common.api.schema)
    protocol = ChoiceField(choices=SSOProtocol.choices)

    def validate(self, attrs):
        protocol = attrs["protocol"]
        other = "saml" if protocol == SSOProtocol.OIDC else "oidc"
        if other in attrs:
            raise serializers.ValidationError({other: f"A {protocol} connection takes '{protocol}' settings, not '{other}'."})
        if protocol not in attrs:
            raise serializers.ValidationError({protocol: f"A {protocol} connection needs its '{protocol}' settings."})
        if protocol == SSOProtocol.SAML and not (attrs["saml"].get("idp_metadata_xml") or attrs["saml"].get("idp_metadata_url")):
            raise serializers.ValidationError({"saml.idp_metadata_xml": "Give idp_metadata_xml or idp_metadata_url."})
        return attrs


class SSOConnectionUpdate(_ConnectionFields):
    request_component_name = "SSOConnectionUpdate"
    oidc = OIDCSettingsUpdate(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False
            field.default = serializers.empty


@extend_schema_serializer(component_name="VerifyDomainRequest")
class VerifyDomainRequest(StrictSerializer):
    domain = DomainField()


class DomainVerification(serializers.Serializer):
    type = serializers.CharField(help_text='Always "dns_txt".')
    name = serializers.CharField(help_text="The DNS name to publish the TXT record at.")
    value = serializers.CharField(help_text="The TXT record's value.")


class SSODomainResponse(serializers.ModelSerializer):
    verified = serializers.BooleanField(source="is_verified")
    verification = serializers.SerializerMethodField()

    class Meta:
        model = SSODomain
        fields = ["domain", "verified", "verified_at", "verification"]
        read_only_fields = fields

    @extend_schema_field(DomainVerification)
    def get_verification(self, domain: SSODomain) -> dict:
        return {"type": "dns_txt", "name": dns_txt.record_name(domain.domain),
                "value": dns_txt.record_value(domain.verification_token)}


class OIDCSettingsResponse(serializers.Serializer):
    issuer = serializers.CharField(source="oidc_issuer")
    client_id = serializers.CharField(source="oidc_client_id")
    client_secret = serializers.SerializerMethodField(help_text="Masked: the last four characters only.")
    scopes = serializers.SerializerMethodField()
    redirect_uri = serializers.SerializerMethodField(help_text="Register this callback URL with the provider.")

    def get_client_secret(self, connection) -> str:
        return f"•••••{connection.oidc_client_secret_last4}"

    def get_scopes(self, connection) -> list[str]:
        return connection.oidc_scopes.split()

    def get_redirect_uri(self, connection) -> str:
        from accounts.sso.oidc_flow import redirect_uri

        return redirect_uri()


class SAMLSettingsResponse(serializers.Serializer):
    idp_entity_id = serializers.CharField(source="saml_idp_entity_id")
    idp_metadata_url = serializers.CharField(source="saml_idp_metadata_url", allow_null=True)
    idp_metadata_configured = serializers.SerializerMethodField()
    sp_metadata_url = serializers.SerializerMethodField(help_text="This service's metadata, for the identity provider.")
    acs_url = serializers.SerializerMethodField(help_text="The assertion consumer service URL.")

    def get_idp_metadata_configured(self, connection) -> bool:
        return bool(connection.saml_idp_metadata_xml or connection.saml_idp_metadata_url)

    def get_sp_metadata_url(self, connection) -> str:
        from accounts.sso.saml_flow import sp_metadata_url

        return sp_metadata_url(connection)

    def get_acs_url(self, connection) -> str:
        from accounts.sso.saml_flow import acs_url

        return acs_url()


class SSOConnectionResponse(serializers.ModelSerializer):
    organization_id = serializers.UUIDField(read_only=True)
    protocol = ChoiceField(choices=SSOProtocol.choices)
    status = ChoiceField(choices=SSOConnectionStatus.choices)
    default_role = ChoiceField(choices=JIT_ROLES)
    domains = SSODomainResponse(many=True)
    oidc = serializers.SerializerMethodField()
    saml = serializers.SerializerMethodField()
    login_url = serializers.SerializerMethodField(help_text="Where a login page sends a person to sign in through this connection.")

    class Meta:
        model = SSOConnection
        fields = ["id", "organization_id", "name", "protocol", "status", "enforce", "default_role", "domains", "oidc", "saml",
                  "login_url", "created_at", "updated_at"]
        read_only_fields = fields

    @extend_schema_field(OIDCSettingsResponse(allow_null=True))
    def get_oidc(self, connection):
        return OIDCSettingsResponse(connection).data if connection.protocol == SSOProtocol.OIDC else None

    @extend_schema_field(SAMLSettingsResponse(allow_null=True))
    def get_saml(self, connection):
        return SAMLSettingsResponse(connection).data if connection.protocol == SSOProtocol.SAML else None

    def get_login_url(self, connection) -> str:
        return login_url(connection)


def login_url(connection: SSOConnection) -> str:
    from django.conf import settings

    return f"{settings.PUBLIC_URL}/v1/sso/{connection.protocol}/login?connection_id={connection.pk}"


@extend_schema_serializer(component_name="SSOCheckRequest")
class SSOCheckRequest(StrictSerializer):
    email = serializers.EmailField(max_length=254)


class SSOCheckResponse(serializers.Serializer):
    sso_required = serializers.BooleanField(help_text="True when the address's domain signs in through SSO only.")
    protocol = ChoiceField(choices=SSOProtocol.choices, allow_null=True)
    connection_id = serializers.UUIDField(allow_null=True)
    login_url = serializers.CharField(allow_null=True)


class SSOLoginQuery(StrictSerializer):
    connection_id = serializers.UUIDField()
    redirect_url = serializers.CharField(max_length=2000, required=False, default="/")

    def validate_redirect_url(self, value):
        if not safe_redirect(value):
            raise serializers.ValidationError("Give a path on this service, starting with a single '/' (no other site).")
        return value


class OIDCCallbackQuery(StrictSerializer):
    state = serializers.CharField(max_length=200)
    code = serializers.CharField(max_length=4000, required=False)
    iss = serializers.CharField(max_length=500, required=False)
    error = serializers.CharField(max_length=200, required=False)
    error_description = serializers.CharField(max_length=1000, required=False)
    session_state = serializers.CharField(max_length=500, required=False)


class SAMLMetadataQuery(StrictSerializer):
    connection_id = serializers.UUIDField(help_text="The SAML connection whose service-provider metadata to read.")


class SAMLACSForm(StrictSerializer):
    """The identity provider's HTTP-POST binding form (form-encoded)."""

    request_component_name = "SAMLACSForm"

    SAMLResponse = MultiLineTextField(max_length=512 * 1024, trim_whitespace=False)  # noqa: N815 -- the binding's name
    RelayState = serializers.CharField(max_length=200)  # noqa: N815


class GoogleLoginQuery(SSOLoginQuery):
    connection_id = None


class GoogleCallbackQuery(StrictSerializer):
    """What Google appends to the redirect URI: `code` and `state`, or `error` and `state`."""

    state = serializers.CharField(max_length=200)
    code = serializers.CharField(max_length=4000, required=False)
    error = serializers.CharField(max_length=200, required=False)
    error_description = serializers.CharField(max_length=1000, required=False)
    scope = serializers.CharField(max_length=2000, required=False)
    authuser = serializers.CharField(max_length=20, required=False)
    prompt = serializers.CharField(max_length=100, required=False)
    hd = serializers.CharField(max_length=253, required=False)
    iss = serializers.CharField(max_length=200, required=False)
