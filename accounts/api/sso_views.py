"""/v1/sso: connection management (org admin, user session), the public check, and the sign-in
redirects and callbacks (public: the browser comes back from the identity provider)."""

from urllib.parse import urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpResponse, HttpResponseRedirect
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser
from rest_framework.response import Response

from accounts.api import sso_serializers as s
from accounts.sso import google, login, oidc_flow, saml_flow, selectors, services
from accounts.sso.errors import SSOStateInvalid
from accounts.sso.urls import safe_redirect
from common.api.serializers import validated, validated_query
from common.api.views import V1APIView
from common.errors import NotFound
from organizations.choices import Role

TAGS = ["sso"]


class ConnectionAdminView(V1APIView):
    credentials = ("session",)
    minimum_role = Role.ADMIN


def _connection_response(connection, code=status.HTTP_200_OK) -> Response:
    connection = selectors.connection_with_domains(connection.pk)
    return Response(s.SSOConnectionResponse(connection).data, status=code)


class ConnectionsView(ConnectionAdminView):
    @extend_schema(operation_id="sso_connections_list", responses={200: s.SSOConnectionResponse(many=True)}, tags=TAGS)
    def get(self, request):
        return Response(s.SSOConnectionResponse(selectors.connections_of(request.auth.organization), many=True).data)

    @extend_schema(operation_id="sso_connections_create", request=s.SSOConnectionCreate,
                   responses={201: s.SSOConnectionResponse}, tags=TAGS)
    def post(self, request):
        connection = services.sso_connection_create(principal=request.auth, **validated(s.SSOConnectionCreate, request.data))
        return _connection_response(connection, status.HTTP_201_CREATED)


class ConnectionView(ConnectionAdminView):
    @extend_schema(operation_id="sso_connections_get", responses={200: s.SSOConnectionResponse}, tags=TAGS)
    def get(self, request, connection_id):
        return _connection_response(selectors.connection_of(request.auth.organization, connection_id))

    @extend_schema(operation_id="sso_connections_update", request=s.SSOConnectionUpdate,
                   responses={200: s.SSOConnectionResponse}, tags=TAGS)
    def patch(self, request, connection_id):
        changes = validated(s.SSOConnectionUpdate, request.data)
        return _connection_response(services.sso_connection_update(principal=request.auth, connection_id=connection_id, changes=changes))

    @extend_schema(operation_id="sso_connections_delete", responses={204: None}, tags=TAGS)
    def delete(self, request, connection_id):
        services.sso_connection_delete(principal=request.auth, connection_id=connection_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class VerifyDomainView(ConnectionAdminView):
    @extend_schema(operation_id="sso_connections_verify_domain", request=s.VerifyDomainRequest,
                   responses={200: s.SSODomainResponse}, tags=TAGS)
    def post(self, request, connection_id):
        domain = validated(s.VerifyDomainRequest, request.data)["domain"]
        verified = services.sso_domain_verify(principal=request.auth, connection_id=connection_id, domain=domain)
        return Response(s.SSODomainResponse(verified).data)


class PublicSSOView(V1APIView):
    public = True
    authentication_classes = ()
    permission_classes = ()


class CheckView(PublicSSOView):
    """Answers only whether the address must use SSO, and where: nothing about whether it is a
    user, nor about domains that do not enforce SSO."""

    @extend_schema(operation_id="sso_check", request=s.SSOCheckRequest, responses={200: s.SSOCheckResponse}, tags=TAGS, auth=[])
    def post(self, request):
        email = validated(s.SSOCheckRequest, request.data)["email"]
        domain = selectors.enforcing_domain_for_email(email)
        if domain is None:
            return Response({"sso_required": False, "protocol": None, "connection_id": None, "login_url": None})
        connection = domain.connection
        return Response({"sso_required": True, "protocol": connection.protocol, "connection_id": str(connection.pk),
                         "login_url": s.login_url(connection)})


def _set_binding_cookie(response, secret: str, *, cross_site_post: bool = False, path: str = "/v1/sso/") -> None:
    """SAML's ACS receives a cross-site POST from the IdP, which a SameSite=Lax cookie does not
    follow: there the cookie is SameSite=None (which browsers take only with Secure, so over https;
    over http, in development, the IdP is on this machine, which is the same site)."""
    secure = settings.PUBLIC_URL.startswith("https://")
    samesite = "None" if cross_site_post and secure else "Lax"
    response.set_cookie(login.BROWSER_COOKIE, secret, max_age=settings.SSO_LOGIN_TTL_SECONDS, httponly=True,
                        secure=secure, samesite=samesite, path=path)


def _after_sign_in(issued, redirect_url: str, cookie_path: str = "/v1/sso/") -> HttpResponseRedirect:
    """Back to the page the sign-in started from, with the session cookie set and the session token
    in the fragment (never sent to a server, nor in a Referer), for clients that send it as a bearer."""
    parts = urlsplit(redirect_url)
    fragment = urlencode({"session_token": issued.token, "expires_at": issued.expires_at.isoformat()})
    response = HttpResponseRedirect(urlunsplit(("", "", parts.path, parts.query, fragment)))
    response.delete_cookie(login.BROWSER_COOKIE, path=cookie_path)
    return response


LOGIN_PARAMETERS = [OpenApiParameter("connection_id", str, required=True),
                    OpenApiParameter("redirect_url", str, required=False, default="/",
                                     description="A path on this service to return to (never another site).")]
REDIRECT = {302: OpenApiResponse(description="To the identity provider.")}


class OIDCLoginView(PublicSSOView):
    @extend_schema(operation_id="sso_oidc_login", parameters=LOGIN_PARAMETERS, responses=REDIRECT, tags=TAGS, auth=[])
    def get(self, request):
        query = validated_query(s.SSOLoginQuery, request)
        connection = selectors.active_connection(query["connection_id"], "oidc")
        if connection is None:
            raise NotFound("No active OIDC connection has this id.")
        url, secret = oidc_flow.oidc_login_begin(connection=connection, redirect_url=query["redirect_url"],
                                                 browser_secret=request.COOKIES.get(login.BROWSER_COOKIE))
        response = HttpResponseRedirect(url)
        _set_binding_cookie(response, secret)
        return response


class OIDCCallbackView(PublicSSOView):
    @extend_schema(operation_id="sso_oidc_callback", tags=TAGS, auth=[],
                   parameters=[OpenApiParameter("code", str, required=True), OpenApiParameter("state", str, required=True)],
                   responses={302: OpenApiResponse(description="Signed in: to the redirect_url, session cookie set and "
                                                               "`#session_token=…&expires_at=…` in the fragment.")})
    def get(self, request):
        query = validated_query(s.OIDCCallbackQuery, request)
        issued, redirect_url = oidc_flow.oidc_login_finish(
            state=query["state"], code=query.get("code"), issuer=query.get("iss"), error=query.get("error"),
            browser_secret=request.COOKIES.get(login.BROWSER_COOKIE), request=request._request)
        if not safe_redirect(redirect_url):  # checked when stored; checked again before it is followed
            raise SSOStateInvalid("The stored redirect is not a path on this service.")
        return _after_sign_in(issued, redirect_url)


class SAMLMetadataView(PublicSSOView):
    """The service provider's metadata for one SAML connection: what its admin gives the IdP."""

    @extend_schema(operation_id="sso_saml_metadata", tags=TAGS, auth=[],
                   parameters=[OpenApiParameter("connection_id", str, required=True)],
                   responses={(200, "application/samlmetadata+xml"): OpenApiResponse(
                       response=OpenApiTypes.STR,
                       description="SAML 2.0 EntityDescriptor (SPSSODescriptor): entity id, ACS URL (HTTP-POST), "
                                   "NameID format e-mail, WantAssertionsSigned.")})
    def get(self, request):
        query = validated_query(s.SAMLMetadataQuery, request)
        connection = selectors.active_connection(query["connection_id"], "saml")
        if connection is None:
            raise NotFound("No active SAML connection has this id.")
        return HttpResponse(saml_flow.sp_metadata_xml(connection), content_type="application/samlmetadata+xml")


class SAMLLoginView(PublicSSOView):
    @extend_schema(operation_id="sso_saml_login", parameters=LOGIN_PARAMETERS, tags=TAGS, auth=[],
                   responses={302: OpenApiResponse(description="To the identity provider, with a SAML AuthnRequest "
                                                               "(HTTP-Redirect binding) and RelayState.")})
    def get(self, request):
        query = validated_query(s.SSOLoginQuery, request)
        connection = selectors.active_connection(query["connection_id"], "saml")
        if connection is None:
            raise NotFound("No active SAML connection has this id.")
        url, secret = saml_flow.saml_login_begin(connection=connection, redirect_url=query["redirect_url"],
                                                 browser_secret=request.COOKIES.get(login.BROWSER_COOKIE))
        response = HttpResponseRedirect(url)
        _set_binding_cookie(response, secret, cross_site_post=True)
        return response


class SAMLACSView(PublicSSOView):
    parser_classes = [FormParser]

    @extend_schema(operation_id="sso_saml_acs", tags=TAGS, auth=[], request={"application/x-www-form-urlencoded": s.SAMLACSForm},
                   responses={302: OpenApiResponse(description="Signed in: to the redirect_url, session cookie set and "
                                                               "`#session_token=…&expires_at=…` in the fragment.")})
    def post(self, request):
        form = validated(s.SAMLACSForm, request.data)
        issued, redirect_url = saml_flow.saml_login_finish(
            saml_response=form["SAMLResponse"], relay_state=form["RelayState"],
            browser_secret=request.COOKIES.get(login.BROWSER_COOKIE), request=request._request)
        if not safe_redirect(redirect_url):
            raise SSOStateInvalid("The stored redirect is not a path on this service.")
        return _after_sign_in(issued, redirect_url)


GOOGLE_COOKIE_PATH = "/v1/auth/google"


class GoogleLoginView(PublicSSOView):
    """Sign-in with Google (the third-party login flow): to Google with PKCE, state and nonce."""

    @extend_schema(operation_id="auth_google_login", tags=["auth"], auth=[],
                   parameters=[OpenApiParameter("redirect_url", str, required=False, default="/",
                                                description="A path on this service to return to (never another site).")],
                   responses={302: OpenApiResponse(description="To Google's sign-in page.")})
    def get(self, request):
        query = validated_query(s.GoogleLoginQuery, request)
        url, secret = google.google_login_begin(redirect_url=query["redirect_url"],
                                                browser_secret=request.COOKIES.get(login.BROWSER_COOKIE))
        response = HttpResponseRedirect(url)
        _set_binding_cookie(response, secret, path=GOOGLE_COOKIE_PATH)
        return response


class GoogleCallbackView(PublicSSOView):
    @extend_schema(operation_id="auth_google_callback", tags=["auth"], auth=[],
                   parameters=[OpenApiParameter("code", str, required=True), OpenApiParameter("state", str, required=True)],
                   responses={302: OpenApiResponse(description="Signed in: to the redirect_url, session cookie set and "
                                                               "`#session_token=…&expires_at=…` in the fragment.")})
    def get(self, request):
        query = validated_query(s.GoogleCallbackQuery, request)
        issued, redirect_url = google.google_login_finish(
            state=query["state"], code=query.get("code"), error=query.get("error"),
            browser_secret=request.COOKIES.get(login.BROWSER_COOKIE), request=request._request)
        return _after_sign_in(issued, redirect_url, cookie_path=GOOGLE_COOKIE_PATH)
